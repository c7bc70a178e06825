"""The production flavor answers as production does: recorded production exchanges replayed
(production_replay.py; recordings and their provenance in data/production-replay/).

Each recipe's plan rebuilds what the recipe sent beyond the recorded method, path and query
(fireemu's conformance/src/storage-object/corpus.mjs declares them): upload bytes, metadata
updates, Range headers, multipart bodies, resumable session commands, a request without the owner's
credential. Rows not listed in a plan sent nothing more.
"""

from __future__ import annotations

import pytest

from conftest import Emulator
from production_replay import (RECORDINGS, Payload, byte_range, compact_json, firebase_session, json_update,
                               multipart, replay, upload)

BUCKET = "demo-project.appspot.com"
BYTES = bytes([0, 1, 127, 128, 255])
REVERSED = bytes(reversed(BYTES))
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
    "firebase--multipart-upload.json": {
        n: multipart(f"{PREFIX}multipart/firebase/{variant}.bin", BYTES,
                     headers={"X-Goog-Upload-Protocol": "multipart"}, **options)
        for n, variant, options in ((8, "valid", {}), (13, "invalid-json", {"json_part": b"{invalid-json"}),
                                    (19, "missing-media", {"media": False}))},
    "firebase--download-tokens.json": {
        4: upload(bytes([0, 1, 255])), 9: Payload("POST"), 15: Payload("POST"),
        **{n: Payload("GET", credential=False) for n in (13, 14, 16)}},
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

# Recipes of the recordings that cannot run here, with the reason.
NEEDS_IDENTITY_TOOLKIT = {
    "auth--firebase-id-token.json": "ID tokens minted by production's Identity Toolkit for its project",
    "errors--authorization.json": "requests authorized by ID tokens of production's Identity Toolkit",
}


# The recording project's rules grant the recipes' objects to nobody: only the owner's credential
# (every recipe's "admin") and download tokens reach them.
PROJECT_RULES = "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n  }\n}\n"


@pytest.fixture(scope="module")
def production(tmp_path_factory):
    rules = tmp_path_factory.mktemp("rules") / "storage.rules"
    rules.write_text(PROJECT_RULES)
    emulator = Emulator(f"--bucket={BUCKET}", "--no-auth", f"--rules={rules}", flavor="production")
    yield emulator
    emulator.stop()


@pytest.mark.parametrize("recipe", sorted(PLANS))
def test_production_answers_as_recorded(production, recipe):
    """Status, body and every header production sent, on every exchange of the recipe."""
    results = replay(production.base, recipe, PLANS[recipe], BUCKET)
    differences = [f"#{r.n}:\n    " + "\n    ".join(r.differences) for r in results if r.differences]
    assert not differences, f"{len(differences)} of {len(results)} exchanges differ\n" + "\n".join(differences)


def test_every_recording_kept_is_replayed():
    kept = {path.name for path in RECORDINGS.glob("*--*.json")}
    assert kept == set(PLANS) and not kept & set(NEEDS_IDENTITY_TOOLKIT)
