"""Object versioning on the GCS JSON API: a versioned bucket keeps noncurrent generations."""

import hashlib
import json

import requests
from google.api_core import exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage

import pytest

from conftest import GCS_BUCKETS


@pytest.fixture
def versioned(gcs):
    bucket = gcs.bucket("versioned-bucket")
    bucket.versioning_enabled = True
    return gcs.create_bucket(bucket)


def write_two_generations(bucket, name="doc"):
    blob = bucket.blob(name)
    blob.upload_from_string(b"v1")
    first = blob.generation
    blob.upload_from_string(b"v2")
    return first, blob.generation


def test_noncurrent_generations_stay_readable_and_listed(emu, versioned):
    first, second = write_two_generations(versioned)
    assert first != second
    assert versioned.blob("doc", generation=first).download_as_bytes() == b"v1"
    assert versioned.blob("doc").download_as_bytes() == b"v2"
    assert versioned.get_blob("doc", generation=first).time_deleted is not None
    assert versioned.get_blob("doc").time_deleted is None
    assert [b.name for b in versioned.list_blobs()] == ["doc"]
    listed = list(versioned.list_blobs(versions=True))
    assert [(b.name, b.generation) for b in listed] == [("doc", first), ("doc", second)]
    pages = list(versioned.client.list_blobs(versioned, versions=True, page_size=1).pages)
    assert [[b.generation for b in page] for page in pages] == [[first], [second]]
    # The v0 API sees the live object only.
    assert emu.http.get(emu.url("/v0/b/versioned-bucket/o/doc"), params={"alt": "media"}).content == b"v2"


def test_a_noncurrent_generation_is_a_copy_source(versioned):
    first, _ = write_two_generations(versioned)
    source = versioned.blob("doc", generation=first)
    versioned.copy_blob(source, versioned, "copied", source_generation=first)
    assert versioned.blob("copied").download_as_bytes() == b"v1"
    target = versioned.blob("rewritten")
    target.rewrite(versioned.blob("doc", generation=first))
    assert versioned.blob("rewritten").download_as_bytes() == b"v1"


def test_delete_keeps_noncurrent_and_delete_by_generation_removes(emu, versioned):
    first, second = write_two_generations(versioned)
    versioned.blob("doc").delete()
    assert versioned.get_blob("doc") is None
    assert [b.generation for b in versioned.list_blobs(versions=True)] == [first, second]
    versioned.blob("doc", generation=first).delete()
    assert [b.generation for b in versioned.list_blobs(versions=True)] == [second]
    with pytest.raises(exceptions.NotFound):
        versioned.blob("doc", generation=first).download_as_bytes()
    with pytest.raises(exceptions.Conflict):  # a noncurrent generation keeps the bucket from being deleted
        versioned.delete()
    versioned.blob("doc", generation=second).delete()
    versioned.delete()


def test_an_unversioned_bucket_keeps_the_live_generation_only(gcs):
    bucket = gcs.bucket(GCS_BUCKETS[0])
    first, _ = write_two_generations(bucket)
    with pytest.raises(exceptions.NotFound):
        bucket.blob("doc", generation=first).download_as_bytes()
    assert len(list(bucket.list_blobs(versions=True))) == 1


def test_versioning_enabled_later_applies_from_then(gcs):
    bucket = gcs.bucket(GCS_BUCKETS[1])
    first, _ = write_two_generations(bucket)
    bucket.versioning_enabled = True
    bucket.patch()
    blob = bucket.blob("doc")
    blob.upload_from_string(b"v3")
    assert [b.download_as_bytes() for b in bucket.list_blobs(versions=True)] == [b"v2", b"v3"]


def test_noncurrent_generations_persist(start_emulator, tmp_path, monkeypatch):
    emu = start_emulator("--data-dir", str(tmp_path))
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", emu.base)
    client = storage.Client(project="p", credentials=AnonymousCredentials())
    bucket = client.bucket("kept")
    bucket.versioning_enabled = True
    client.create_bucket(bucket)
    first, second = write_two_generations(bucket)
    bucket.blob("doc").delete()
    assert emu.stop() == 0
    again = start_emulator("--data-dir", str(tmp_path))
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", again.base)
    bucket = storage.Client(project="p", credentials=AnonymousCredentials()).bucket("kept")
    assert [b.generation for b in bucket.list_blobs(versions=True)] == [first, second]
    assert bucket.blob("doc", generation=first).download_as_bytes() == b"v1"
    assert requests.get(again.url("/storage/v1/b/kept/o/doc")).status_code == 404


def test_a_crash_between_the_records_of_a_versioned_overwrite_keeps_the_live_object(start_emulator, tmp_path,
                                                                                      monkeypatch):
    """An overwrite or delete in a versioned bucket writes the old object's noncurrent record, then
    replaces or removes its live record: a crash between leaves both, and the change did not happen."""
    emu = start_emulator("--data-dir", str(tmp_path))
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", emu.base)
    client = storage.Client(project="p", credentials=AnonymousCredentials())
    bucket = client.bucket("kept")
    bucket.versioning_enabled = True
    client.create_bucket(bucket)
    blob = bucket.blob("doc")
    blob.upload_from_string(b"v1")
    assert emu.stop() == 0
    live = tmp_path / "objects" / f"{hashlib.sha256(b'kept' + bytes(1) + b'doc').hexdigest()}.json"
    record = json.loads(live.read_text())
    generation = record["metadata"]["generation"]
    record["metadata"]["time_deleted_us"] = record["metadata"]["updated_us"]
    noncurrent_key = f"kept\0doc\0{generation}".encode()
    noncurrent = tmp_path / "objects" / f"{hashlib.sha256(noncurrent_key).hexdigest()}.json"
    noncurrent.write_text(json.dumps(record))  # as a crash between the two records leaves it
    again = start_emulator("--data-dir", str(tmp_path))
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", again.base)
    bucket = storage.Client(project="p", credentials=AnonymousCredentials()).bucket("kept")
    assert [(b.generation, b.time_deleted) for b in bucket.list_blobs(versions=True)] == [(generation, None)]
    assert bucket.blob("doc").download_as_bytes() == b"v1"
    assert not noncurrent.exists()
