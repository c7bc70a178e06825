"""--import / --export-on-exit / export routes in firebase-tools' on-disk format.

The fixture below is laid out as firebase-tools writes an export, built from the description in
its source (firebase/firebase-tools at a786bda73b48196fce1df22fe2b1cbc9e463b2d0):
src/emulator/hubExport.ts (firebase-export-metadata.json, the storage_export folder),
src/emulator/storage/files.ts `export`/`import` (buckets.json, blobs/<uuid>,
metadata/<uuid>.json; older versions nested `bucket/object/path` under both) and
src/emulator/storage/metadata.ts `StoredFileMetadata` (the fields and their JSON types: numbers
for generation, metageneration and size; ISO dates; crc32c as a decimal string; downloadTokens a
list; customMetadata a map).
"""

import base64
import hashlib
import json
import signal
import uuid

import google_crc32c
import pytest

from conftest import ADMIN, FLAVORS, Emulator

METADATA_FILE = "firebase-export-metadata.json"


def firebase_tools_metadata(bucket, name, data, **fields):
    metadata = {
        "name": name, "bucket": bucket, "metageneration": 3, "generation": 1700000000123,
        "contentType": "image/png", "storageClass": "STANDARD",
        "downloadTokens": ["11111111-2222-4333-8444-555555555555"], "etag": "abc",
        "customMetadata": {"owner": "ada"},
        "timeCreated": "2023-11-14T22:13:20.123Z", "updated": "2023-11-15T08:00:00.456Z",
        "size": len(data), "md5Hash": base64.b64encode(hashlib.md5(data).digest()).decode(),
        "crc32c": str(google_crc32c.value(data)),
    }
    metadata.update(fields)
    return metadata


def write_firebase_tools_export(root, objects, buckets, nested=False):
    """`objects`: (bucket, name, bytes, extra metadata fields)."""
    folder = root / "storage_export"
    (folder / "blobs").mkdir(parents=True)
    (folder / "metadata").mkdir()
    (root / METADATA_FILE).write_text(json.dumps(
        {"version": "13.29.1", "firestore": {"version": "1.19.7", "path": "firestore_export",
                                             "metadata_file": "firestore_export/firestore_export.overall_export_metadata"},
         "storage": {"version": "13.29.1", "path": "storage_export"}}, indent=2))
    (folder / "buckets.json").write_text(json.dumps({"buckets": [{"id": b} for b in buckets]}, indent=2))
    for bucket, name, data, fields in objects:
        key = f"{bucket}/{name}" if nested else str(uuid.uuid4())
        blob = folder / "blobs" / key
        blob.parent.mkdir(parents=True, exist_ok=True)
        blob.write_bytes(data)
        metadata = folder / "metadata" / f"{key}.json"
        metadata.parent.mkdir(parents=True, exist_ok=True)
        metadata.write_text(json.dumps(firebase_tools_metadata(bucket, name, data, **fields), indent=2))
    firestore = root / "firestore_export"
    firestore.mkdir()
    (firestore / "firestore_export.overall_export_metadata").write_bytes(b"\x00opaque")


@pytest.mark.parametrize("flavor", FLAVORS)
@pytest.mark.parametrize("nested", [False, True], ids=["uuid-keys", "path-keys"])
def test_import_a_firebase_tools_export(start_emulator, tmp_path, flavor, nested):
    png = b"\x89PNG" + bytes(range(256)) * 10
    write_firebase_tools_export(tmp_path, [
        ("demo.appspot.com", "users/ada/avatar.png", png, {}),
        ("demo.appspot.com", "docs/readme.txt", b"hello", {"contentType": "text/plain", "customMetadata": None,
                                                             "cacheControl": "no-cache", "downloadTokens": []}),
    ], ["demo.appspot.com", "empty-bucket"], nested=nested)
    emu = start_emulator("--import", str(tmp_path), flavor=flavor)
    meta = emu.http.get(emu.object_url("users/ada/avatar.png", "demo.appspot.com")).json()
    assert meta["generation"] == "1700000000123" and meta["metageneration"] == "3"
    assert meta["contentType"] == "image/png" and meta["metadata"] == {"owner": "ada"}
    assert meta["timeCreated"] == "2023-11-14T22:13:20.123Z" and meta["updated"] == "2023-11-15T08:00:00.456Z"
    assert meta["downloadTokens"] == "11111111-2222-4333-8444-555555555555"
    assert meta["size"] == str(len(png))
    # The download token of the export still works, rules or not.
    download = emu.http.get(emu.object_url("users/ada/avatar.png", "demo.appspot.com"),
                            params={"alt": "media", "token": "11111111-2222-4333-8444-555555555555"})
    assert download.content == png
    readme = emu.http.get(emu.object_url("docs/readme.txt", "demo.appspot.com")).json()
    assert readme["contentType"] == "text/plain" and readme["cacheControl"] == "no-cache"
    assert "metadata" not in readme
    listing = emu.http.get(emu.bucket_url("demo.appspot.com"), params={"prefix": "users/ada/"}).json()
    assert [item["name"] for item in listing["items"]] == ["users/ada/avatar.png"]


def test_round_trip_keeps_tokens_metadata_types_and_generations(start_emulator, tmp_path):
    export = tmp_path / "data"
    first = start_emulator("--export-on-exit", str(export))
    meta = first.upload_ok("a/b.json", b'{"x": 1}', content_type="application/json")
    first.http.patch(first.object_url("a/b.json"), json={"metadata": {"k": "v"}, "contentLanguage": "en"})
    first.http.post(first.object_url("a/b.json"), params={"create_token": "true"}, headers=ADMIN)
    first.upload_ok("other", b"2", bucket="second-bucket")
    before = first.http.get(first.object_url("a/b.json")).json()
    assert first.stop() == 0
    assert json.loads((export / METADATA_FILE).read_text())["storage"] == {
        "version": "fbstorage-emulator", "path": "storage_export"}

    second = start_emulator("--import", str(export))
    after = second.http.get(second.object_url("a/b.json")).json()
    for key in ("generation", "metageneration", "contentType", "contentLanguage", "metadata", "downloadTokens",
                "md5Hash", "crc32c", "size", "timeCreated", "updated", "etag"):
        assert after[key] == before[key], key
    assert len(after["downloadTokens"].split(",")) == 2 and meta["generation"] == after["generation"]
    assert second.http.get(second.object_url("other", "second-bucket"), params={"alt": "media"}).content == b"2"


def test_export_on_exit_defaults_to_the_import_dir_and_keeps_other_emulators(start_emulator, tmp_path):
    write_firebase_tools_export(tmp_path, [("b", "old", b"old", {})], ["b"])
    emu = start_emulator("--import", str(tmp_path), "--export-on-exit")
    emu.upload_ok("new", b"new")
    assert emu.http.delete(emu.object_url("old")).status_code == 204
    assert emu.stop(signal.SIGINT) == 0
    metadata = json.loads((tmp_path / METADATA_FILE).read_text())
    assert metadata["firestore"]["path"] == "firestore_export" and metadata["version"] == "13.29.1"
    assert (tmp_path / "firestore_export" / "firestore_export.overall_export_metadata").read_bytes() == b"\x00opaque"
    again = start_emulator("--import", str(tmp_path))
    assert again.http.get(again.object_url("old")).status_code == 404
    assert again.http.get(again.object_url("new"), params={"alt": "media"}).content == b"new"


def test_first_run_creates_the_export_dir(start_emulator, tmp_path):
    export = tmp_path / "seed"
    emu = start_emulator("--import", str(export), "--export-on-exit", str(export))
    emu.upload_ok("x")
    assert emu.stop() == 0
    assert (export / "storage_export" / "buckets.json").is_file()


def test_a_failed_start_exports_nothing(start_emulator, tmp_path):
    busy = start_emulator()
    export = tmp_path / "export"
    with pytest.raises(RuntimeError, match="address already in use"):
        Emulator("--port", str(busy.port), "--export-on-exit", str(export))
    assert not export.exists()


def test_failed_export_leaves_the_directory_unchanged(emu, tmp_path):
    (tmp_path / METADATA_FILE).write_text("{not json")
    (tmp_path / "precious").write_text("kept")
    emu.upload_ok("x")
    response = emu.http.post(emu.url("/_admin/export"), json={"path": str(tmp_path)})
    assert response.status_code == 500 and METADATA_FILE in response.json()["message"]
    assert sorted(path.name for path in tmp_path.iterdir()) == [METADATA_FILE, "precious"]
    assert (tmp_path / METADATA_FILE).read_text() == "{not json"


@pytest.mark.parametrize("damage, named", [
    (lambda root: (root / METADATA_FILE).unlink(), METADATA_FILE),
    (lambda root: (root / METADATA_FILE).write_text("{"), METADATA_FILE),
    (lambda root: (root / "storage_export" / "buckets.json").unlink(), "buckets.json"),
    (lambda root: (root / "storage_export" / "buckets.json").write_text('{"buckets": "b"}'), "buckets.json"),
    (lambda root: next((root / "storage_export" / "metadata").iterdir()).write_text('{"name": 5}'), ".json"),
    (lambda root: next((root / "storage_export" / "metadata").iterdir()).write_text('{"name": "x", "bu'), ".json:1:"),
    (lambda root: next((root / "storage_export" / "blobs").iterdir()).unlink(), "blobs"),
], ids=["no-metadata-file", "bad-metadata-file", "no-buckets", "bad-buckets", "bad-object", "truncated-object",
        "no-blob"])
def test_malformed_import_is_a_clear_error_naming_the_file(tmp_path, damage, named):
    write_firebase_tools_export(tmp_path, [("b", "x", b"1", {})], ["b"])
    damage(tmp_path)
    with pytest.raises(RuntimeError) as failure:
        Emulator("--import", str(tmp_path))
    message = str(failure.value)
    assert named in message and str(tmp_path) in message and "Traceback" not in message
