"""One store behind both APIs: what the v0 API writes the GCS API reads, and the other way round,
with the same bytes, generation, metageneration, metadata and download tokens."""

import os

import requests

from conftest import ADMIN, md5_b64

BUCKET = "b"
TOKENS = "firebaseStorageDownloadTokens"
DENY_ALL = [{"match": "**"}]  # a path no rule allows is denied
DENY_ALL_RULES_LANGUAGE = ("rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n"
                           "    match /{path=**} { allow read, write: if false; }\n  }\n}\n")


def gcs_get(emu, name: str) -> requests.Response:
    return requests.get(emu.url(f"/storage/v1/b/{BUCKET}/o/{requests.utils.quote(name, safe='')}"))


def same_object(v0: dict, gcs: dict) -> None:
    for key in ("name", "bucket", "generation", "metageneration", "size", "md5Hash", "contentType", "etag",
                "timeCreated", "updated"):
        assert v0[key] == gcs[key], key
    assert gcs["metadata"][TOKENS] == v0["downloadTokens"]
    assert {k: v for k, v in gcs["metadata"].items() if k != TOKENS} == v0.get("metadata", {})


def test_a_v0_upload_is_seen_through_gcs(emu, gcs):
    data = os.urandom(300_000)
    v0 = emu.upload_ok("x/v0.bin", data, content_type="image/png")
    emu.http.patch(emu.object_url("x/v0.bin"), json={"metadata": {"by": "v0"}})
    v0 = emu.get_metadata("x/v0.bin").json()
    resource = gcs_get(emu, "x/v0.bin").json()
    same_object(v0, resource)
    blob = gcs.bucket(BUCKET).get_blob("x/v0.bin")
    assert blob.download_as_bytes() == data and blob.crc32c == resource["crc32c"]
    assert [b.name for b in gcs.list_blobs(BUCKET, prefix="x/")] == ["x/v0.bin"]


def test_a_gcs_upload_is_seen_through_v0(emu, gcs):
    data = os.urandom(9 * 1024 * 1024 + 3)  # resumable through google-cloud-storage
    blob = gcs.bucket(BUCKET).blob("y/gcs.bin")
    blob.metadata = {"by": "gcs"}
    blob.upload_from_string(data, content_type="application/x-gcs")
    v0 = emu.get_metadata("y/gcs.bin").json()
    same_object(v0, gcs_get(emu, "y/gcs.bin").json())
    assert v0["md5Hash"] == md5_b64(data) and int(v0["generation"]) == blob.generation
    assert emu.download("y/gcs.bin").content == data
    listed = emu.list(prefix="y/").json()
    assert [item["name"] for item in listed["items"]] == ["y/gcs.bin"]


def test_metadata_changes_through_either_api_are_one_change(emu, gcs):
    emu.upload_ok("m.txt", b"m")
    blob = gcs.bucket(BUCKET).get_blob("m.txt")
    blob.metadata = {"a": "1"}
    blob.patch()
    assert emu.get_metadata("m.txt").json()["metageneration"] == "2"
    assert emu.http.patch(emu.object_url("m.txt"), json={"metadata": {"b": "2"}}).status_code == 200
    blob.reload()
    assert blob.metageneration == 3 and blob.metadata["a"] == "1" and blob.metadata["b"] == "2"


def test_download_tokens_are_the_metadata_key(emu):
    emu.upload_ok("t.txt", b"secret")
    url = emu.url(f"/storage/v1/b/{BUCKET}/o/t.txt")
    assert requests.patch(url, json={"metadata": {TOKENS: "tok-1,tok-2"}}).status_code == 200
    assert emu.get_metadata("t.txt").json()["downloadTokens"] == "tok-1,tok-2"
    assert emu.http.post(emu.object_url("t.txt"), params={"create_token": "true"}, headers=ADMIN).status_code == 200
    tokens = requests.get(url).json()["metadata"][TOKENS].split(",")
    # Production lists the new token first (production-replay/firebase--download-tokens.json).
    assert (tokens[1:] if emu.production else tokens[:2]) == ["tok-1", "tok-2"] and len(tokens) == 3
    assert requests.patch(url, json={"metadata": {TOKENS: None}}).status_code == 200
    assert TOKENS not in requests.get(url).json().get("metadata", {})
    minted = emu.get_metadata("t.txt").json()["downloadTokens"]  # a v0 read finding none mints one
    assert minted and "," not in minted and minted not in tokens
    assert requests.get(url).json()["metadata"][TOKENS] == minted


def test_gcs_uploads_get_no_download_token_until_a_v0_read(emu, gcs):
    """Production mints tokens for Firebase-API uploads, and lazily on a Firebase-API metadata read."""
    blob = gcs.bucket(BUCKET).blob("g.txt")
    blob.upload_from_string(b"gcs", content_type="text/plain")
    assert TOKENS not in (blob.metadata or {})
    blob.metadata = {"k": "v"}
    blob.patch()
    assert blob.metadata == {"k": "v"}
    assert TOKENS not in requests.get(emu.url(f"/storage/v1/b/{BUCKET}/o/g.txt")).json()["metadata"]
    minted = emu.get_metadata("g.txt").json()["downloadTokens"]
    blob.reload()
    assert minted and blob.metadata == {"k": "v", TOKENS: minted}


def test_deletes_through_either_api(emu, gcs):
    emu.upload_ok("d1", b"1")
    emu.upload_ok("d2", b"2")
    assert requests.delete(emu.url(f"/storage/v1/b/{BUCKET}/o/d1")).status_code == 204
    assert emu.get_metadata("d1").status_code == 404
    assert emu.http.delete(emu.object_url("d2")).status_code == 204
    assert gcs_get(emu, "d2").status_code == 404


def test_gcs_requests_are_admin_requests_and_skip_the_rules(emu, gcs):
    emu.upload_ok("r/kept.txt", b"kept")
    response = emu.http.put(emu.url("/_emulator/rules"), json=DENY_ALL)
    if response.status_code == 400:  # the rules are written in the Firebase rules language
        response = emu.http.put(emu.url("/_emulator/rules"), data=DENY_ALL_RULES_LANGUAGE)
    assert response.status_code == 204, response.text
    assert emu.download("r/kept.txt").status_code in (401, 403)  # the rules are in force for v0
    bucket = gcs.bucket(BUCKET)
    assert bucket.blob("r/kept.txt").download_as_bytes() == b"kept"
    bucket.blob("r/new.txt").upload_from_string(b"new")
    assert sorted(b.name for b in gcs.list_blobs(BUCKET, prefix="r/")) == ["r/kept.txt", "r/new.txt"]
    bucket.blob("r/kept.txt").delete()
