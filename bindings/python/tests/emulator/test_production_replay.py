"""The production flavor answers as production does: recorded production exchanges replayed
(production_replay.py; recordings and their provenance in data/production-replay/).

Each recipe's plan rebuilds what the recipe sent beyond the recorded method, path and query
(fireemu's conformance/src/storage-object/corpus.mjs declares them): upload bytes, metadata
updates, Range headers, multipart bodies, resumable session commands, a request without the owner's
credential. Rows not listed in a plan sent nothing more, as the owner.

The two auth recipes (auth-corpus.mjs, production-auth.mjs) create two accounts through the
Identity Toolkit, then read and write as anonymous, with a malformed token, and with each
account's ID token (`Firebase <token>`) under the rules the recording ran with (RULES).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets

import pytest

from conftest import Emulator
from production_replay import (RECORDINGS, Payload, byte_range, compact_json, firebase_session, identity_call,
                               json_update, multipart_upload, replay, upload)

BUCKET = "demo-project.appspot.com"
BYTES = bytes([0, 1, 127, 128, 255])
REVERSED = bytes(reversed(BYTES))
CHECK_VECTOR, CHECK_MD5, CHECK_CRC32C = b"123456789", "JfnnlDI7RTiF9RgfG2JNCw==", "4waSgw=="  # the standard check vector
PREFIX = "storage-object/<RUN>/"  # every recipe's objects live under it
RESUMABLE_SIZE = 262147  # one 256 KiB chunk, then 3 bytes
CHUNK = bytes([90]) * 262144
LIST_NAMES = ("a.txt", "b.txt", "dir/c.txt", "dir/d.txt", "dir2/e.txt", "zz.txt")


def firebase_resumable_start(name: str) -> Payload:
    return Payload("POST", {
        "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
        "X-Goog-Upload-Header-Content-Length": str(RESUMABLE_SIZE),
        "X-Goog-Upload-Header-Content-Type": "application/octet-stream",
        "Content-Type": "application/json; charset=utf-8"},
        compact_json({"name": name, "contentType": "application/octet-stream"}))


def gcs_session(content_range: str, body: bytes = b"") -> Payload:
    return Payload("PUT", {"Content-Range": content_range}, body)


def list_seeds(dialect: str, first: int) -> dict:
    """The list recipes' uploads, each object's bytes its own name, one upload every 3 exchanges."""
    return {first + 3 * index: upload(f"{PREFIX}list/{dialect}/{suffix}".encode())
            for index, suffix in enumerate(LIST_NAMES)}


def first_upload_then_changed(recipe: str) -> dict:
    """The precondition recipes' uploads: an object's seed (its first upload, unconditional) sends
    BYTES, every other one (the advance of a stale sample, the upload under test) REVERSED."""
    uploaded, plan = set(), {}
    for row in json.loads((RECORDINGS / recipe).read_text())["exchanges"]:
        if row["method"] == "POST":
            name = dict(row["query"])["name"]
            conditional = any(key.startswith("if") for key, _ in row["query"])
            plan[row["n"]] = upload(REVERSED if name in uploaded or conditional else BYTES)
            uploaded.add(name)
    return plan


# The auth recipes: the storage rules production ran them with (auth-plan.mjs declares them by
# FIXED_PRODUCTION_RULES_SHA256), the owner's seed and the subject's bytes (auth-corpus.mjs).
AUTH_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /storage-object/{run}/{allPaths=**} {
      allow read, write: if request.auth != null && request.auth.token.email == 'storage-object@example.com';
    }
  }
}
"""
AUTH_RULES_SHA256 = "dff1d21237c12a1f3d1e5ef1134ba996d0b79c99530cb88bb016a5241388dc9b"
SEED = base64.b64decode("b3duZXItc2VlZA==")
SUBJECT = base64.b64decode("YXV0aC1zdWJqZWN0")
VALID_EMAIL = "storage-object@example.com"
# production-auth.mjs: `Firebase <24 random bytes, base64url>`, no JWT at all.
MALFORMED = "Firebase " + base64.urlsafe_b64encode(secrets.token_bytes(24)).decode().rstrip("=")
CREDENTIALS = {"anonymous": None, "malformed": MALFORMED,
               "valid": "Firebase <JWT:valid>", "competitor": "Firebase <JWT:competitor>"}


def auth_plan(program: str, subjects: dict[int, tuple[str, str]], seeds: list[int], cleanup: int) -> dict[int, Payload]:
    """The rows of one auth recipe that send more than the owner's bare request: account setup
    (rows 2-7: per account an email lookup, a sign-up, a lookup by its ID token), the owner's seed
    upload before each read subject, the subjects (row -> credential, read or write) and the
    accounts' deletion (from row `cleanup`: per account a delete and an email lookup, the
    competitor's first)."""
    assert len(seeds) == sum(action == "read" for _, action in subjects.values())
    plan: dict[int, Payload] = {}
    for first, role in ((2, "valid"), (5, "competitor")):
        email = auth_accounts(program)[role]
        plan[first] = identity_call({"email": [email], "targetProjectId": "<PROJECT>"})
        plan[first + 1] = identity_call({"email": email, "password": "replay-password", "returnSecureToken": True},
                                        authorization=None)
        plan[first + 2] = identity_call({"idToken": f"<JWT:{role}>"}, authorization=None)
    for n in seeds:
        plan[n] = Payload("POST", body=SEED)
    for n, (credential, action) in subjects.items():
        plan[n] = Payload("GET" if action == "read" else "POST", body=b"" if action == "read" else SUBJECT,
                          authorization=CREDENTIALS[credential])
    for first, role in ((cleanup, "competitor"), (cleanup + 2, "valid")):
        plan[first] = identity_call({"localId": f"<UID:{role}>", "targetProjectId": "<PROJECT>"})
        plan[first + 1] = identity_call({"email": [auth_accounts(program)[role]], "targetProjectId": "<PROJECT>"})
    return plan


def auth_accounts(program: str) -> dict[str, str]:
    return {"valid": VALID_EMAIL, "competitor": f"storage-object-control-<RUN>-{program}@example.com"}

def seed_upload_then_updates(recipe: str) -> dict:
    """The metageneration recipe's requests: each object's seed upload sends BYTES; the advance of a
    stale sample (an unconditional PATCH) marks it "advanced"; the update under test (a conditional
    PATCH or PUT) sets its type and marks it "subject-update"."""
    plan = {}
    for row in json.loads((RECORDINGS / recipe).read_text())["exchanges"]:
        conditional = any(key.startswith("if") for key, _ in row["query"])
        if row["method"] == "POST":
            plan[row["n"]] = upload(BYTES)
        elif row["method"] in ("PATCH", "PUT") and conditional:
            plan[row["n"]] = json_update({"contentType": "application/octet-stream",
                                          "metadata": {"preconditionMarker": "subject-update"}}, row["method"])
        elif row["method"] == "PATCH":
            plan[row["n"]] = json_update({"metadata": {"preconditionMarker": "advanced"}})
    return plan


PLANS = {
    "firebase--simple-upload.json": {4: upload(BYTES)},
    "firebase--download.json": {
        4: upload(BYTES), 7: byte_range("bytes=0-2"), 8: byte_range("bytes=3-"), 9: byte_range("bytes=-2")},
    "gcs--download.json": {
        4: upload(BYTES), 7: byte_range("bytes=0-2"), 8: byte_range("bytes=3-"), 9: byte_range("bytes=-2"),
        18: byte_range("bytes=0-2")},
    "cross-dialect--state.json": {
        4: upload(REVERSED), 7: json_update({"metadata": {"marker": "cross-dialect-updated"}})},
    "firebase--metadata.json": {
        4: upload(BYTES),
        7: json_update({"cacheControl": "private, max-age=0", "metadata": {"marker": "first", "remove": "present"}}),
        10: json_update({"metadata": {"marker": "second", "remove": None}})},
    "gcs--metadata.json": {
        4: upload(BYTES),
        7: json_update({"cacheControl": "private, max-age=0", "metadata": {"marker": "first", "remove": "present"}}),
        10: json_update({"contentType": "application/octet-stream", "metadata": {"marker": "second"}}, "PUT")},
    "firebase--delete.json": {4: upload(BYTES)},
    "firebase--overwrite.json": {
        4: upload(BYTES), 7: json_update({"cacheControl": "no-store", "metadata": {"marker": "before-overwrite"}}),
        10: upload(REVERSED)},
    "errors--range.json": {
        4: upload(BYTES), 31: upload(b""),
        **{n: byte_range(value) for first in (7, 19)
           for n, value in zip(range(first, first + 12, 3), ("invalid", "bytes=3-1", "bytes=99-", "bytes=-0"))},
        **{n: byte_range(value) for first in (34, 43)
           for n, value in zip(range(first, first + 9, 3), ("bytes=0-0", "bytes=0-", "bytes=-1"))}},
    "errors--missing.json": {
        6: json_update({"metadata": {"marker": "missing-observation"}}),
        16: json_update({"metadata": {"marker": "missing-observation"}})},
    "gcs--delete.json": {4: upload(BYTES)},
    "gcs--simple-multipart-upload.json": {
        10: upload(BYTES), 15: multipart_upload(BYTES), 20: multipart_upload(BYTES, json_text="{invalid-json"),
        26: multipart_upload(None)},
    "gcs--checksums.json": {
        n: multipart_upload(CHECK_VECTOR, fields) for n, fields in zip((16, 21, 26, 31, 37, 43, 49), (
            {"md5Hash": CHECK_MD5}, {"crc32c": CHECK_CRC32C}, {"md5Hash": CHECK_MD5, "crc32c": CHECK_CRC32C},
            {"md5Hash": "AAAAAAAAAAAAAAAAAAAAAA=="}, {"crc32c": "AAAAAA=="},
            {"md5Hash": "!not-base64!"}, {"crc32c": "!not-base64!"}))},
    "gcs--copy-rewrite.json": {
        20: upload(BYTES), 23: json_update({"metadata": {"marker": "copy-source"}}),
        **{n: json_update({}, "POST") for n in (31, 49, 67, 82, 92)},
        36: json_update({"contentType": "text/plain", "metadata": {"marker": "rewrite-override"}}, "POST"),
        77: upload(bytes([255, 0, 127])), 87: upload(bytes([128, 1, 255]))},
    "gcs--generation-preconditions.json": first_upload_then_changed("gcs--generation-preconditions.json"),
    "errors--authorization.json": auth_plan(
        "authorization-errors",
        {18: ("anonymous", "read"), 28: ("anonymous", "write"), 43: ("malformed", "read"),
         53: ("malformed", "write"), 68: ("competitor", "read"), 78: ("competitor", "write"),
         93: ("valid", "read"), 103: ("valid", "write")},
        seeds=[11, 36, 61, 86], cleanup=161),
    "auth--firebase-id-token.json": auth_plan(
        "firebase-id-token",
        {18: ("valid", "read"), 28: ("valid", "write"), 42: ("competitor", "read"), 52: ("competitor", "write")},
        seeds=[11, 35], cleanup=87),
    "gcs--metageneration-preconditions.json": seed_upload_then_updates("gcs--metageneration-preconditions.json"),
    "firebase--multipart-upload.json": {
        8: multipart_upload(BYTES, headers={"X-Goog-Upload-Protocol": "multipart"}),
        13: multipart_upload(BYTES, json_text="{invalid-json", headers={"X-Goog-Upload-Protocol": "multipart"}),
        19: multipart_upload(None, headers={"X-Goog-Upload-Protocol": "multipart"})},
    "firebase--download-tokens.json": {
        4: upload(bytes([0, 1, 255])), 9: Payload("POST"), 15: Payload("POST"),
        **{n: Payload("GET", authorization=None) for n in (13, 14, 16)}},
    "firebase--resumable-upload.json": {
        8: firebase_resumable_start(f"{PREFIX}firebase/resumable.bin"), 9: firebase_session("query"),
        10: firebase_session("upload", 0, CHUNK), 11: firebase_session("query"),
        12: firebase_session("upload, finalize", len(CHUNK), bytes([0, 1, 255])),
        17: firebase_resumable_start(f"{PREFIX}firebase/resumable-wrong-offset.bin"), 18: firebase_session("query"),
        19: firebase_session("upload", 1, bytes([42])), 24: firebase_session("query"), 25: firebase_session("cancel"),
        26: firebase_session("query"),
        32: firebase_resumable_start(f"{PREFIX}firebase/resumable-cancel.bin"), 33: firebase_session("cancel"),
        34: firebase_session("query")},
    "gcs--resumable-upload.json": {
        4: Payload("POST", {"Content-Type": "application/json", "X-Upload-Content-Type": "application/octet-stream",
                            "X-Upload-Content-Length": str(RESUMABLE_SIZE)},
                   compact_json({"name": f"{PREFIX}gcs/resumable.bin", "contentType": "application/octet-stream",
                                 "metadata": {"marker": "gcs-resumable"}}),
                   query_order=("uploadType", "name", "ifGenerationMatch")),
        5: gcs_session(f"bytes 0-{len(CHUNK) - 1}/{RESUMABLE_SIZE}", CHUNK),
        6: gcs_session(f"bytes */{RESUMABLE_SIZE}"),
        7: gcs_session(f"bytes {len(CHUNK)}-{RESUMABLE_SIZE - 1}/{RESUMABLE_SIZE}", bytes([0, 1, 255]))},
    "firebase--list.json": list_seeds("firebase", 16),
    "gcs--list.json": list_seeds("gcs", 16),
    "errors--object-name.json": {n: upload(bytes([0, 1, 255])) for n in (12, 21, 32, 41)},
    "auth--admin.json": {6: upload(bytes([11, 0, 255])), 17: upload(bytes([22, 1, 128]))},
}
# The rules and accounts of the recipes that run under rules of their own. The others ran under the
# recording project's, which grant the recipes' objects to nobody: only the owner's credential
# (every recipe's "admin") and download tokens reach them.
PROJECT_RULES = "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n  }\n}\n"
RULES = {"errors--authorization.json": AUTH_RULES, "auth--firebase-id-token.json": AUTH_RULES}
ACCOUNTS = {"errors--authorization.json": auth_accounts("authorization-errors"),
            "auth--firebase-id-token.json": auth_accounts("firebase-id-token")}

# Recipes of the recordings that cannot run here, with the reason.
NEEDS_IDENTITY_TOOLKIT: dict[str, str] = {}


@pytest.fixture(scope="module")
def production():
    emulator = Emulator(f"--bucket={BUCKET}", "--no-auth", flavor="production")
    yield emulator
    emulator.stop()


@pytest.mark.parametrize("recipe", sorted(PLANS))
def test_production_answers_as_recorded(production, recipe):
    """Status, body and every header production sent, on every exchange of the recipe."""
    rules = RULES.get(recipe, PROJECT_RULES)
    production.http.put(production.url("/_emulator/rules"), data=rules.encode()).raise_for_status()
    try:
        results = replay(production.base, recipe, PLANS[recipe], BUCKET, ACCOUNTS.get(recipe))
    finally:
        production.http.put(production.url("/_emulator/rules"), data=b"").raise_for_status()
    differences = [f"#{r.n}:\n    " + "\n    ".join(r.differences) for r in results if r.differences]
    assert not differences, f"{len(differences)} of {len(results)} exchanges differ\n" + "\n".join(differences)


def test_auth_rules_are_the_recorded_ones():
    assert hashlib.sha256(AUTH_RULES.encode()).hexdigest() == AUTH_RULES_SHA256


def test_every_recording_kept_is_replayed():
    kept = {path.name for path in RECORDINGS.glob("*--*.json")}
    assert kept == set(PLANS) and not kept & set(NEEDS_IDENTITY_TOOLKIT)
