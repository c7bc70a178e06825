"""Replays recorded production exchanges (fireemu's storage-object recordings, data/production-replay)
against a local emulator and compares what production answered with what the emulator answers.

A recording keeps, per exchange, the method, path and query sent and the status, headers and body
production answered, with run-dependent values masked (index.json, "normalizations"). Request
headers and bodies are not recorded: each recipe's plan (`Payload` per exchange number) rebuilds
them from the recipe's request declarations. The local answer is masked by the same rules before
the comparison, so generations and tokens compare by order of first appearance; the upload session
and page token a local answer gives are what the next requests' `<UPLOAD_ID>` and `<PAGE_TOKEN>` send.

Identity Toolkit exchanges (the auth recipes' accounts) go to the emulator's Auth routes, which
serve production's hosts as path prefixes. A plan names an account's ID token or uid, known only
once its sign-up is answered, as `<JWT:role>` / `<UID:role>` (roles map to the recipe's emails).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import requests

RECORDINGS = Path(__file__).parent / "data" / "production-replay"
OWNER = "Bearer owner"  # the recipes' "admin" (owner) credential
IDENTITY_TOOLKIT = "/identitytoolkit.googleapis.com"  # recorded without its host: /v1/accounts:…

RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
QUOTED_MD5 = re.compile(r'^"[0-9a-f]{32}"$')
FIXED_EXPIRES = "Mon, 01 Jan 1990 00:00:00 GMT"  # a constant, kept by the recordings
MASK = re.compile(r"<(GEN|TOKEN):(\d+)>")
UPLOAD_ID = re.compile(r"([?&]upload_id=)([^&]+)")
SESSION_HEADERS = ("location", "x-goog-upload-url", "x-goog-upload-control-url")
DIGEST_HEADERS = ("x-goog-hash", "etag")  # the quoted md5 etag repeats the digest
NAME_FIELD = "<NAME>"  # in a request body: the object name the recorded query carries
IDENTITY_MASK = re.compile(r"<(JWT|UID):([a-z]+)>")
# Identity Toolkit fields: credentials and ids, and account times (ms or s since the epoch, or RFC 3339).
JWT_FIELDS = ("idToken",)
UID_FIELDS = ("localId", "refreshToken")
EPOCH_FIELDS = ("createdAt", "lastLoginAt", "lastRefreshAt", "passwordUpdatedAt", "validSince")


@dataclass(frozen=True)
class Payload:
    """What a recipe sent beyond the recorded method, path and query.

    A body is written as the recordings write values: `<RUN>` stands for this run's ID. Recordings
    list query parameters sorted; `query_order` is the order the recipe sent them in, where an
    answer repeats them (a resumable session URL)."""
    method: str
    headers: dict = field(default_factory=dict)
    body: bytes = b""
    authorization: str | None = OWNER  # None: an anonymous request (a download token's); may name `<JWT:role>`
    query_order: tuple[str, ...] = ()


def upload(data: bytes) -> Payload:
    return Payload("POST", {"Content-Type": "application/octet-stream"}, data)


MULTIPART_BOUNDARY = "fireemu-object-multipart-v1"


def multipart_upload(media: bytes | None, fields: dict | None = None, json_text: str | None = None,
                     headers: dict | None = None) -> Payload:
    """The recipes' multipart upload: a JSON part naming the object (NAME_FIELD, filled in by the
    replayer) with their marker, then the media part (none when `media` is None)."""
    resource = {"name": NAME_FIELD, "contentType": "application/octet-stream",
                "metadata": {"marker": "multipart-observation"}, **(fields or {})}
    text = json_text if json_text is not None else compact_json(resource).decode()
    body = f"--{MULTIPART_BOUNDARY}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{text}".encode()
    if media is not None:
        body += f"\r\n--{MULTIPART_BOUNDARY}\r\nContent-Type: application/octet-stream\r\n\r\n".encode() + media
    body += f"\r\n--{MULTIPART_BOUNDARY}--\r\n".encode()
    return Payload("POST", {"Content-Type": f"multipart/related; boundary={MULTIPART_BOUNDARY}", **(headers or {})},
                   body)


def compact_json(value) -> bytes:
    """As the recipes' JSON.stringify writes it."""
    return json.dumps(value, separators=(",", ":")).encode()


def firebase_session(command: str, offset: int | None = None, body: bytes = b"") -> Payload:
    """A request to a Firebase API resumable session (X-Goog-Upload-Command)."""
    headers = {"X-Goog-Upload-Command": command}
    if offset is not None:
        headers["X-Goog-Upload-Offset"] = str(offset)
    return Payload("POST", headers, body)


def json_update(value: dict, method: str = "PATCH") -> Payload:
    return Payload(method, {"Content-Type": "application/json"}, json.dumps(value).encode())


def byte_range(value: str) -> Payload:
    return Payload("GET", {"Range": value})


def identity_call(fields: dict, authorization: str | None = OWNER) -> Payload:
    """An Identity Toolkit call: a JSON body that may name `<JWT:role>`, `<UID:role>`, `<RUN>`."""
    return Payload("POST", {"Content-Type": "application/json"}, json.dumps(fields).encode(), authorization)


@dataclass
class Masker:
    """The recordings' normalizations, applied to a local answer (and, reversed, to a request)."""
    run: str
    bucket: str
    base: str  # the emulator's URL: its links name it where production's name Google's hosts
    project: str = "demo-project"
    api_key: str = "replay-api-key"
    accounts: dict[str, str] = field(default_factory=dict)  # role -> email (masked as recorded)
    generations: dict[str, int] = field(default_factory=dict)  # local value -> n of <GEN:n>
    tokens: dict[str, int] = field(default_factory=dict)
    identities: dict[str, dict[str, str]] = field(default_factory=dict)  # email -> {"JWT", "UID"} seen
    digests: bool = False  # the recipe's objects hold the run ID: their digests are masked (<DIGEST>)
    upload_id: str = "<UPLOAD_ID>"  # the session the last answer opened
    page_token: str = "<PAGE_TOKEN>"  # the last page's nextPageToken

    def _numbered(self, table: dict[str, int], value: str, kind: str) -> str:
        if value not in table:
            table[value] = len(table) + 1
        return f"<{kind}:{table[value]}>"

    def generation(self, value: str) -> str:
        return self._numbered(self.generations, value, "GEN")

    def token(self, value: str) -> str:
        return self._numbered(self.tokens, value, "TOKEN")

    def text(self, value: str) -> str:
        value = value.replace(self.run, "<RUN>").replace(self.bucket, "<BUCKET>")
        value = value.replace(f"{self.base}/download/", "https://storage.googleapis.com/download/")
        value = value.replace(f"{self.base}/upload/", "https://storage.googleapis.com/upload/")
        value = value.replace(f"{self.base}/storage/", "https://www.googleapis.com/storage/")
        value = value.replace(f"{self.base}/v0/", "https://firebasestorage.googleapis.com/v0/")
        for local, n in sorted(self.generations.items(), key=lambda item: -len(item[0])):
            value = value.replace(local, f"<GEN:{n}>")
        return value

    def unmask(self, value: str) -> str:
        """A recorded request value (path, query) as this run sends it."""
        reverse = {("GEN", n): v for v, n in self.generations.items()}
        reverse.update({("TOKEN", n): v for v, n in self.tokens.items()})
        value = MASK.sub(lambda m: reverse.get((m.group(1), int(m.group(2))), m.group(0)), value)
        value = IDENTITY_MASK.sub(lambda m: self._identity(m.group(2))[m.group(1)], value)
        value = value.replace("<PROJECT>", self.project).replace("<API_KEY>", self.api_key)
        value = value.replace("<UPLOAD_ID>", self.upload_id).replace("<PAGE_TOKEN>", self.page_token)
        return value.replace("<RUN>", self.run).replace("<BUCKET>", self.bucket)

    def _identity(self, role: str) -> dict[str, str]:
        email = self.unmask(self.accounts[role])
        assert email in self.identities, f"the plan names {role}'s account before its sign-up"
        return self.identities[email]

    def _remember_identity(self, value: dict) -> None:
        """An account's uid and ID token, from a sign-up or lookup answer."""
        email, uid = value.get("email"), value.get("localId")
        if isinstance(email, str) and isinstance(uid, str):
            identity = self.identities.setdefault(email, {})
            identity["UID"] = uid
            if isinstance(value.get("idToken"), str):
                identity["JWT"] = value["idToken"]

    def json(self, value, key: str | None = None):
        if isinstance(value, dict):
            # Generations first, so that ids and links holding them are masked alike.
            if isinstance(value.get("generation"), str):
                self.generation(value["generation"])
            if key == "owner" and "entity" in value:  # the requesting principal
                return {**value, "entity": "<OWNER>"}
            self._remember_identity(value)
            return {k: self.json(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.json(v) for v in value]
        if key in EPOCH_FIELDS:  # numbers or strings, as the recordings mask them
            return "<EPOCH>"
        if not isinstance(value, str):
            return value
        if key in JWT_FIELDS:
            return "<JWT>"
        if key in UID_FIELDS:
            return "<UID>"
        if key == "generation":
            return self.generation(value)
        if key == "etag":
            return "<ETAG>"
        if key in ("md5Hash", "crc32c") and self.digests:
            return "<DIGEST>"
        if key == "nextPageToken":
            self.page_token = value
            return "<PAGE_TOKEN>"
        if key in ("downloadTokens", "firebaseStorageDownloadTokens"):
            return ",".join(self.token(token) for token in value.split(","))
        if RFC3339.match(value):
            return "<TIME>"
        return self.text(value)

    def header(self, name: str, value: str) -> str:
        if name in ("x-goog-generation",):
            return self.generation(value)
        if name in DIGEST_HEADERS and self.digests and (name != "etag" or QUOTED_MD5.match(value)):
            return "<DIGEST>"
        if name in SESSION_HEADERS and UPLOAD_ID.search(value):
            self.upload_id = UPLOAD_ID.search(value).group(2)
            value = UPLOAD_ID.sub(r"\1<UPLOAD_ID>", value)
        if name == "etag":
            return value if QUOTED_MD5.match(value) else "<ETAG>"
        if name == "last-modified" or (name == "expires" and value != FIXED_EXPIRES):
            return "<HTTPDATE>"
        if name == "x-goog-meta-firebasestoragedownloadtokens":
            return ",".join(self.token(token) for token in value.split(","))
        return self.text(value)


def recorded_body(response: requests.Response, masker: Masker, media: bool) -> dict:
    """The local body in the recordings' form: a media read's object is bytes, unless it is typed
    and readable as text, whatever else its type says (this run's ID in them masked, as the
    recordings mask it)."""
    if not response.content:
        return {"type": "empty"}
    content = response.content.replace(masker.run.encode(), b"<RUN>")
    content_type = response.headers.get("Content-Type", "")
    if media and response.ok and not (content_type.startswith("text/") and _is_utf8(content)):
        return {"type": "bytes", "base64": base64.b64encode(content).decode()}
    if "json" in content_type:
        try:
            return {"type": "json", "value": masker.json(response.json())}
        except ValueError:
            pass
    if content_type.startswith("text/") or "xml" in content_type:
        return {"type": "text", "value": masker.text(response.text)}
    return {"type": "bytes", "base64": base64.b64encode(content).decode()}


def _is_utf8(content: bytes) -> bool:
    try:
        content.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def comparable_body(body: dict) -> dict:
    """Bytes by content: a recording keeps a large body's sha256 only."""
    if body["type"] == "bytes":
        content = base64.b64decode(body["base64"]) if "base64" in body else None
        return {"type": "bytes", "sha256": body.get("sha256") or hashlib.sha256(content).hexdigest()}
    return body


@dataclass
class RowResult:
    recipe: str
    n: int
    status: bool
    body: bool
    headers: bool
    differences: list[str]


def request_path(route: str, path: str, masker: Masker) -> str:
    """The recorded path with each object name the route marks (<NAME>) escaped as the recipes
    send it (encodeURIComponent); Identity Toolkit paths under that host's name."""
    if path.startswith("/v1/"):  # the Identity Toolkit, served under its host's name
        return IDENTITY_TOOLKIT + masker.unmask(path)
    template = route.split(" ", 1)[1]
    if "<NAME>" not in template and "/o/" in template:  # a name the recorder kept as it was (a line break)
        template = template.partition("/o/")[0] + "/o/<NAME>"
    pattern = re.escape(template).replace(re.escape("<NAME>"), "(.+?)") + "$"
    match = re.match(pattern, path, re.DOTALL)  # a name may hold a line break
    assert match, f"{path} does not follow its route {route}"
    names = iter(quote(masker.unmask(name), safe="!'()*") for name in match.groups())
    return re.sub("<NAME>", lambda _: next(names), masker.unmask(template))


def replay(base: str, recipe_file: str, plan: dict[int, Payload], bucket: str,
           accounts: dict[str, str] | None = None) -> list[RowResult]:
    """`accounts`: the recipe's account emails by role, as recorded (`<RUN>` masked)."""
    text = (RECORDINGS / recipe_file).read_text()
    recording = json.loads(text)
    masker = Masker(run=secrets.token_hex(10), bucket=bucket, base=base, accounts=accounts or {},
                    digests="<DIGEST>" in text)
    results = []
    with requests.Session() as http:
        for row in recording["exchanges"]:
            payload = plan.get(row["n"], Payload(row["method"]))
            assert payload.method == row["method"], f"{recipe_file} #{row['n']}: the plan sends {payload.method}"
            order = {name: index for index, name in enumerate(payload.query_order)}
            query = sorted(((k, masker.unmask(v)) for k, v in row["query"]),
                           key=lambda pair: order.get(pair[0], len(order)))
            headers = dict(payload.headers)
            if payload.authorization is not None:
                headers["Authorization"] = masker.unmask(payload.authorization)
            name = json.dumps(dict(query).get("name", ""))[1:-1]
            body = payload.body.replace(NAME_FIELD.encode(), name.encode()).replace(b"<RUN>", masker.run.encode())
            if payload.headers.get("Content-Type") == "application/json":
                body = masker.unmask(body.decode()).encode()
            response = http.request(row["method"], base + request_path(row["route"], row["path"], masker), params=query,
                                    headers=headers, data=body, allow_redirects=False)
            results.append(compare(recording["recipeId"], row, response, masker))
    return results


def body_difference(local: dict, recorded: dict) -> str:
    """The fields that differ of two JSON objects, else both bodies."""
    if local["type"] == recorded["type"] == "json" and isinstance(local["value"], dict) \
            and isinstance(recorded["value"], dict):
        keys = sorted(set(local["value"]) | set(recorded["value"]))
        fields = {key: (local["value"].get(key), recorded["value"].get(key)) for key in keys
                  if local["value"].get(key) != recorded["value"].get(key)}
        return "body fields (local, production): " + json.dumps(fields)[:800]
    return f"body {json.dumps(local)[:400]}\n      production {json.dumps(recorded)[:400]}"


def compare(recipe: str, row: dict, response: requests.Response, masker: Masker) -> RowResult:
    differences = []
    local_headers = {k.lower(): v for k, v in response.headers.items()}
    masked_headers = {}
    for name in row["headers"]:
        if name in local_headers:
            masked_headers[name] = masker.header(name, local_headers[name])
    # Bodies after headers: generations are numbered in the order the recordings met them.
    body = recorded_body(response, masker, ["alt", "media"] in row["query"])
    status_ok = response.status_code == row["status"]
    if not status_ok:
        differences.append(f"status {response.status_code}, production {row['status']}")
    body_ok = comparable_body(body) == comparable_body(row["body"])
    if not body_ok:
        differences.append(body_difference(body, row["body"]))
    header_differences = [f"header {name}: {masked_headers.get(name)!r}, production {value!r}"
                          for name, value in row["headers"].items() if masked_headers.get(name) != value]
    differences += header_differences
    return RowResult(recipe, row["n"], status_ok, body_ok, not header_differences, differences)
