"""The same google-cloud-storage scenarios against this emulator and gcp-storage-emulator (PyPI).

Where the peer is faithful to GCS the observations must be equal. Where it is not, the
difference is listed in PEER_DIFFERENCES with the reason, and the test asserts that the
observations still differ, so a fixed peer (or a regression here) shows up rather than being
skipped.
"""

import hashlib
import logging
import random

import pytest
from gcp_storage_emulator.server import create_server
from google.api_core import exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage

BUCKET = "diff-bucket"
TOKENS = "firebaseStorageDownloadTokens"  # a Firebase addition: every upload here creates a token
MIB = 1 << 20


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def outcome(call) -> str:
    """The exception class a call raises, or "ok"."""
    try:
        call()
    except exceptions.GoogleAPICallError as error:
        return type(error).__name__
    return "ok"


def plain(metadata: dict | None) -> dict:
    return {key: value for key, value in (metadata or {}).items() if key != TOKENS}


def upload_and_read(bucket):
    blob = bucket.blob("dir/a.txt")
    blob.metadata = {"k": "v"}
    blob.upload_from_string(b"hello", content_type="text/plain")
    fetched = bucket.get_blob("dir/a.txt")
    return (fetched.size, fetched.md5_hash, fetched.crc32c, fetched.content_type, plain(fetched.metadata),
            fetched.metageneration, fetched.download_as_bytes())


def resumable_in_chunks(bucket):
    data = random.Random(9).randbytes(9 * MIB + 3)  # the same bytes for both servers
    blob = bucket.blob("big.bin", chunk_size=MIB)
    blob.upload_from_string(data)
    return blob.size, blob.md5_hash, digest(bucket.blob("big.bin").download_as_bytes()) == digest(data)


def ranged_download(bucket):
    data = bytes(range(256)) * 100
    bucket.blob("r").upload_from_string(data)
    return bucket.blob("r").download_as_bytes(start=10, end=99) == data[10:100]


def names(bucket):
    for name in ("a/1", "a/2", "a/", "b/x/1", "b/y", "c"):
        bucket.blob(name).upload_from_string(name.encode())


def list_prefix_and_delimiter(bucket):
    names(bucket)
    top = bucket.client.list_blobs(bucket, delimiter="/")
    listed = [b.name for b in top]
    return listed, sorted(top.prefixes), [b.name for b in bucket.client.list_blobs(bucket, prefix="a/")]


def list_pages(bucket):
    names(bucket)
    return [[b.name for b in page] for page in bucket.client.list_blobs(bucket, page_size=4).pages]


def list_offsets(bucket):
    names(bucket)
    return [b.name for b in bucket.client.list_blobs(bucket, start_offset="a/2", end_offset="c")]


def list_trailing_delimiter(bucket):
    names(bucket)
    listed = bucket.client.list_blobs(bucket, delimiter="/", include_trailing_delimiter=True)
    return [b.name for b in listed], sorted(listed.prefixes)


def patch_merges(bucket):
    blob = bucket.blob("p")
    blob.metadata = {"keep": "1", "drop": "2"}
    blob.upload_from_string(b"x")
    blob.metadata = {"drop": None, "new": "3"}
    blob.patch()
    fetched = bucket.get_blob("p")
    return plain(fetched.metadata), fetched.metageneration


def put_update_replaces(bucket):
    blob = bucket.blob("u")
    blob.metadata = {"a": "1"}
    blob.upload_from_string(b"x", content_type="text/plain")
    fresh = bucket.blob("u")
    fresh.metadata = {"b": "2"}
    fresh.update()
    fetched = bucket.get_blob("u")
    return plain(fetched.metadata), fetched.content_type, fetched.metageneration


def delete_then_missing(bucket):
    blob = bucket.blob("d")
    blob.upload_from_string(b"x")
    blob.delete()
    return bucket.get_blob("d"), outcome(blob.delete), outcome(bucket.blob("d").download_as_bytes)


def copy_keeps_bytes_and_metadata(bucket):
    source = bucket.blob("src")
    source.metadata = {"k": "v"}
    source.upload_from_string(b"0123456789", content_type="text/plain")
    copy = bucket.copy_blob(source, bucket, "dst")
    return copy.download_as_bytes(), plain(copy.metadata), copy.content_type


def rewrite_large(bucket):
    data = random.Random(10).randbytes(10 * MIB)
    source = bucket.blob("rs")
    source.upload_from_string(data)
    target = bucket.blob("rt")
    token, _, _ = target.rewrite(source)
    while token is not None:
        token, _, _ = target.rewrite(source, token=token)
    return digest(target.download_as_bytes()) == digest(data)


def compose_concatenates(bucket):
    bucket.blob("c1").upload_from_string(b"abc")
    bucket.blob("c2").upload_from_string(b"def")
    composed = bucket.blob("c")
    composed.compose([bucket.blob("c1"), bucket.blob("c2")])
    return composed.download_as_bytes(), bucket.get_blob("c").crc32c


def generation_preconditions(bucket):
    blob = bucket.blob("g")
    first = outcome(lambda: blob.upload_from_string(b"1", if_generation_match=0))
    second = outcome(lambda: bucket.blob("g").upload_from_string(b"2", if_generation_match=0))
    return first, second, bucket.blob("g").download_as_bytes()


def metageneration_preconditions(bucket):
    bucket.blob("mg").upload_from_string(b"1")
    blob = bucket.get_blob("mg")
    blob.metadata = {"x": "1"}
    return outcome(lambda: blob.patch(if_metageneration_match=7)), outcome(lambda: blob.patch(if_metageneration_match=1))


def missing_object(bucket):
    return bucket.get_blob("nothing"), outcome(bucket.blob("nothing").download_as_bytes)


def unknown_bucket(bucket):
    return bucket.client.bucket("never-created").exists()


SCENARIOS = [upload_and_read, resumable_in_chunks, ranged_download, list_prefix_and_delimiter, list_pages,
             list_offsets, list_trailing_delimiter, patch_merges, put_update_replaces, delete_then_missing,
             copy_keeps_bytes_and_metadata, rewrite_large, compose_concatenates, generation_preconditions,
             metageneration_preconditions, missing_object, unknown_bucket]

# Observed with gcp-storage-emulator 2026.7.19; test_gcs_client.py checks this emulator's side.
PEER_DIFFERENCES = {
    "upload_and_read": "a new object uploaded with custom metadata has metageneration 2 there (GCS: 1)",
    "list_pages": "maxResults is ignored: every listing is one page",
    "list_offsets": "startOffset and endOffset are ignored",
    "list_trailing_delimiter": "includeTrailingDelimiter is ignored",
    "patch_merges": "a null custom metadata value is stored as null instead of deleting the key, "
                    "and the PATCH adds 2 to metageneration",
    "put_update_replaces": "PUT (objects.update) is 501 Not Implemented",
    "generation_preconditions": "ifGenerationMatch is ignored on uploads",
    "metageneration_preconditions": "ifMetagenerationMatch is ignored on PATCH",
}


@pytest.fixture(scope="module")
def peer_server():
    logging.getLogger("gcp_storage_emulator").setLevel(logging.ERROR)
    server = create_server("127.0.0.1", 0, in_memory=True)
    server.start()
    yield f"http://127.0.0.1:{server._api._httpd.server_address[1]}"  # port 0: ask the socket
    server.stop()


def bucket_on(url: str, monkeypatch):
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", url)
    client = storage.Client(project="demo-project", credentials=AnonymousCredentials())
    try:
        client.create_bucket(BUCKET)
    except exceptions.Conflict:
        pass
    return client.bucket(BUCKET)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.__name__)
def test_same_as_gcp_storage_emulator(emu, peer_server, monkeypatch, scenario):
    mine = scenario(bucket_on(emu.base, monkeypatch))
    peer_bucket = bucket_on(peer_server, monkeypatch)
    for blob in peer_bucket.client.list_blobs(peer_bucket):  # a fresh start, as emu is reset
        blob.delete()
    try:
        theirs = scenario(peer_bucket)
    except Exception as error:  # the peer may fail where GCS does not
        theirs = f"{type(error).__name__}: {error}"
    if scenario.__name__ in PEER_DIFFERENCES:
        assert mine != theirs, f"gcp-storage-emulator now agrees: drop {scenario.__name__} from PEER_DIFFERENCES"
    else:
        assert mine == theirs
