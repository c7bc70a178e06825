"""The project's Python client (v0) and google-cloud-storage (the GCS JSON API) on one emulator:
each sees what the other wrote, with the same bytes, generation, metageneration and metadata."""

import os

import pytest
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage as gcs_storage

import fbstorage
from fbstorage.testing import TEST_BUCKET

from conftest import SMALL_CHUNK


@pytest.fixture
def bucket(emulator, storage, monkeypatch):
    """The test bucket through google-cloud-storage, created as a GCS user would (after the
    storage fixture's reset: in the production flavor a bucket exists once created)."""
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", emulator.url)
    client = gcs_storage.Client(project="demo-project", credentials=AnonymousCredentials())
    bucket = client.bucket(TEST_BUCKET)
    if not bucket.exists():
        bucket.create()
    return bucket


def test_an_upload_by_fbstorage_is_read_by_google_cloud_storage(storage, bucket):
    data = os.urandom(3 * SMALL_CHUNK + 11)  # resumable, in several chunks
    ref = storage.reference("shared/from-fbstorage.bin")
    written = ref.put_data(data, fbstorage.StorageMetadata(content_type="image/png",
                                                           custom_metadata={"by": "fbstorage"})).wait()
    blob = bucket.get_blob("shared/from-fbstorage.bin")
    assert (blob.generation, blob.metageneration, blob.size, blob.md5_hash) == (
        written.generation, written.metageneration, len(data), written.md5_hash)
    assert blob.content_type == "image/png" and blob.metadata["by"] == "fbstorage"
    token = ref.download_url().split("token=")[1]
    assert blob.metadata["firebaseStorageDownloadTokens"] == token
    assert blob.download_as_bytes() == data


def test_an_upload_by_google_cloud_storage_is_read_by_fbstorage(emulator, storage, bucket):
    data = os.urandom(9 * 1024 * 1024 + 1)  # resumable through google-cloud-storage
    blob = bucket.blob("shared/from-gcs.bin")
    blob.metadata = {"by": "gcs"}
    blob.upload_from_string(data, content_type="text/plain")
    ref = storage.reference("shared/from-gcs.bin")
    metadata = ref.get_metadata()
    # The first Firebase read mints the object's download token: in production a metadata change.
    metageneration = 2 if emulator.flavor == "production" else 1
    assert (metadata.generation, metadata.metageneration, metadata.size, metadata.md5_hash) == (
        blob.generation, metageneration, len(data), blob.md5_hash)
    assert metadata.content_type == "text/plain" and metadata.custom_metadata == {"by": "gcs"}
    assert ref.get_data() == data
    assert [item.full_path for item in storage.reference("shared").list_all().items] == ["shared/from-gcs.bin"]
    assert "token=" in ref.download_url()


def test_metadata_updates_and_deletes_cross_over(storage, bucket):
    ref = storage.reference("m.txt")
    ref.put_data(b"m").wait()
    ref.update_metadata(custom_metadata={"a": "1"})
    blob = bucket.get_blob("m.txt")
    assert blob.metageneration == 2 and blob.metadata["a"] == "1"
    blob.metadata = {"a": None, "b": "2"}
    blob.patch()
    assert ref.get_metadata().custom_metadata == {"b": "2"} and ref.get_metadata().metageneration == 3
    blob.delete()
    with pytest.raises(fbstorage.StorageError) as caught:
        ref.get_metadata()
    assert caught.value.code == fbstorage.StorageErrorCode.OBJECT_NOT_FOUND
