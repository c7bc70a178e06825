"""Replays recorded production exchanges (fireemu's storage-object recordings, data/production-replay)
against a local emulator and compares what production answered with what the emulator answers.

A recording keeps, per exchange, the method, path and query sent and the status, headers and body
production answered, with run-dependent values masked (index.json, "normalizations"). Request
headers and bodies are not recorded: each recipe's plan (`Payload` per exchange number) rebuilds
them from the recipe's request declarations. The local answer is masked by the same rules before
the comparison, so generations and tokens compare by order of first appearance; the upload session
and page token a local answer gives are what the next requests' `<UPLOAD_ID>` and `<PAGE_TOKEN>` send.
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
ADMIN = {"Authorization": "Bearer owner"}  # the recipes' "admin" credential

RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
QUOTED_MD5 = re.compile(r'^"[0-9a-f]{32}"$')
FIXED_EXPIRES = "Mon, 01 Jan 1990 00:00:00 GMT"  # a constant, kept by the recordings
MASK = re.compile(r"<(GEN|TOKEN):(\d+)>")
UPLOAD_ID = re.compile(r"([?&]upload_id=)([^&]+)")
SESSION_HEADERS = ("location", "x-goog-upload-url", "x-goog-upload-control-url")
DIGEST_HEADERS = ("x-goog-hash", "etag")  # the quoted md5 etag repeats the digest


@dataclass(frozen=True)
class Payload:
    """What a recipe sent beyond the recorded method, path and query.

    A body is written as the recordings write values: `<RUN>` stands for this run's ID. Recordings
    list query parameters sorted; `query_order` is the order the recipe sent them in, where an
    answer repeats them (a resumable session URL)."""
    method: str
    headers: dict = field(default_factory=dict)
    body: bytes = b""
    credential: bool = True  # False: no Authorization header (a download token's request)
    query_order: tuple[str, ...] = ()


def upload(data: bytes) -> Payload:
    return Payload("POST", {"Content-Type": "application/octet-stream"}, data)


def json_update(value: dict, method: str = "PATCH") -> Payload:
    return Payload(method, {"Content-Type": "application/json"}, json.dumps(value).encode())


def byte_range(value: str) -> Payload:
    return Payload("GET", {"Range": value})


def compact_json(value) -> bytes:
    """As the recipes' JSON.stringify writes it."""
    return json.dumps(value, separators=(",", ":")).encode()


MULTIPART_BOUNDARY = "fireemu-object-multipart-v1"


def multipart(name: str, content: bytes, json_part: bytes | None = None, media: bool = True,
              headers: dict | None = None) -> Payload:
    """A multipart/related upload: the metadata part (the recipes' fields unless `json_part`), then
    the media part unless `media` is False."""
    if json_part is None:
        json_part = compact_json({"name": name, "contentType": "application/octet-stream",
                                  "metadata": {"marker": "multipart-observation"}})
    delimiter = f"--{MULTIPART_BOUNDARY}\r\n".encode()
    body = delimiter + b"Content-Type: application/json; charset=utf-8\r\n\r\n" + json_part
    if media:
        body += b"\r\n" + delimiter + b"Content-Type: application/octet-stream\r\n\r\n" + content
    body += f"\r\n--{MULTIPART_BOUNDARY}--\r\n".encode()
    return Payload("POST", {"Content-Type": f"multipart/related; boundary={MULTIPART_BOUNDARY}", **(headers or {})},
                   body)


def firebase_session(command: str, offset: int | None = None, body: bytes = b"") -> Payload:
    """A request to a Firebase API resumable session (X-Goog-Upload-Command)."""
    headers = {"X-Goog-Upload-Command": command}
    if offset is not None:
        headers["X-Goog-Upload-Offset"] = str(offset)
    return Payload("POST", headers, body)


@dataclass
class Masker:
    """The recordings' normalizations, applied to a local answer (and, reversed, to a request)."""
    run: str
    bucket: str
    base: str  # the emulator's URL: its links name it where production's name Google's hosts
    digests: bool = False  # the recipe's objects hold the run ID: their digests are masked (<DIGEST>)
    generations: dict[str, int] = field(default_factory=dict)  # local value -> n of <GEN:n>
    tokens: dict[str, int] = field(default_factory=dict)
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
        value = value.replace("<UPLOAD_ID>", self.upload_id).replace("<PAGE_TOKEN>", self.page_token)
        return value.replace("<RUN>", self.run).replace("<BUCKET>", self.bucket)

    def json(self, value, key: str | None = None):
        if isinstance(value, dict):
            # Generations first, so that ids and links holding them are masked alike.
            if isinstance(value.get("generation"), str):
                self.generation(value["generation"])
            return {k: self.json(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.json(v) for v in value]
        if not isinstance(value, str):
            return value
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


def recorded_body(response: requests.Response, masker: Masker) -> dict:
    """The local body in the recordings' form."""
    if not response.content:
        return {"type": "empty"}
    content_type = response.headers.get("Content-Type", "")
    if "json" in content_type:
        try:
            return {"type": "json", "value": masker.json(response.json())}
        except ValueError:
            pass
    if content_type.startswith("text/") or "xml" in content_type:
        return {"type": "text", "value": masker.text(response.text)}
    content = response.content.replace(masker.run.encode(), b"<RUN>")
    return {"type": "bytes", "base64": base64.b64encode(content).decode()}


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


def request_path(path: str, masker: Masker) -> str:
    """The recorded path with its object name escaped as the recipes send it (encodeURIComponent)."""
    head, marker, name = path.partition("/o/")
    if not marker:
        return masker.unmask(path)
    return masker.unmask(head) + marker + quote(masker.unmask(name), safe="!'()*")


def replay(base: str, recipe_file: str, plan: dict[int, Payload], bucket: str) -> list[RowResult]:
    text = (RECORDINGS / recipe_file).read_text()
    recording = json.loads(text)
    masker = Masker(run=secrets.token_hex(10), bucket=bucket, base=base, digests="<DIGEST>" in text)
    results = []
    with requests.Session() as http:
        for row in recording["exchanges"]:
            payload = plan.get(row["n"], Payload(row["method"]))
            assert payload.method == row["method"], f"{recipe_file} #{row['n']}: the plan sends {payload.method}"
            order = {name: index for index, name in enumerate(payload.query_order)}
            query = sorted(((k, masker.unmask(v)) for k, v in row["query"]),
                           key=lambda pair: order.get(pair[0], len(order)))
            headers = {**(ADMIN if payload.credential else {}), **payload.headers}
            body = payload.body.replace(b"<RUN>", masker.run.encode())
            response = http.request(row["method"], base + request_path(row["path"], masker), params=query,
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
    body = recorded_body(response, masker)
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
