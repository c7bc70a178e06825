"""The production flavor answers as production does: recorded production exchanges replayed
(production_replay.py; recordings and their provenance in data/production-replay/).

Each recipe's plan rebuilds what the recipe sent beyond the recorded method, path and query
(fireemu's conformance/src/storage-object/corpus.mjs declares them): upload bytes, metadata
updates, Range headers. Rows not listed in a plan sent nothing more.
"""

from __future__ import annotations

import json

import pytest

from conftest import Emulator
from production_replay import RECORDINGS, byte_range, json_update, multipart_upload, replay, upload

BUCKET = "demo-project.appspot.com"
BYTES = bytes([0, 1, 127, 128, 255])
REVERSED = bytes(reversed(BYTES))
CHECK_VECTOR, CHECK_MD5, CHECK_CRC32C = b"123456789", "JfnnlDI7RTiF9RgfG2JNCw==", "4waSgw=="  # the standard check vector


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
    "gcs--metageneration-preconditions.json": seed_upload_then_updates("gcs--metageneration-preconditions.json"),
}

# Recipes of the recordings that cannot run here, with the reason.
NEEDS_IDENTITY_TOOLKIT = {
    "auth--firebase-id-token.json": "ID tokens minted by production's Identity Toolkit for its project",
    "errors--authorization.json": "requests authorized by ID tokens of production's Identity Toolkit",
}


@pytest.fixture(scope="module")
def production():
    emulator = Emulator(f"--bucket={BUCKET}", "--no-auth", flavor="production")
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
