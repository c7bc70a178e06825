"""Uploads of every size and source, read back byte for byte."""

from __future__ import annotations

import array
import base64
import hashlib
import urllib.request
from pathlib import Path

import pytest

import fbstorage
from fbstorage import StorageError, StorageErrorCode

from conftest import (
    SMALL_CHUNK,
    EventRecorder,
    eventually,
    header,
    payload,
    slow_chunks,
    upload_chunk_requests,
)


def http_get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


@pytest.mark.parametrize("size", [0, 1, 100 * 1024])
def test_put_data_reads_back_identical(storage: fbstorage.Storage, size: int) -> None:
    data = payload(size)
    ref = storage.reference(f"uploads/{size}.bin")
    metadata = ref.put_data(data).wait()
    assert metadata is not None
    assert metadata.size == size
    assert metadata.full_path == f"uploads/{size}.bin"
    assert metadata.content_type == "application/octet-stream"
    assert metadata.md5_hash == base64.b64encode(hashlib.md5(data).digest()).decode()
    assert ref.get_data() == data
    assert http_get(ref.download_url()) == data


def test_multi_chunk_upload_uses_the_resumable_protocol(storage: fbstorage.Storage, emulator) -> None:
    storage.upload_chunk_size = SMALL_CHUNK
    data = payload(3 * 1024 * 1024 + 123)
    ref = storage.reference("uploads/big.bin")
    task = ref.put_data(data)
    metadata = task.wait()
    assert metadata is not None and metadata.size == len(data)
    chunks = upload_chunk_requests(emulator)
    assert len(chunks) >= 3 * 1024 * 1024 // SMALL_CHUNK
    assert ref.get_data() == data
    assert http_get(ref.download_url()) == data
    snapshot = task.snapshot
    assert snapshot.status == fbstorage.TaskStatus.SUCCESS
    assert snapshot.bytes_transferred == snapshot.total_bytes == len(data)


@pytest.mark.parametrize(
    "make",
    [bytearray, memoryview, lambda b: memoryview(bytearray(b)), lambda b: array.array("B", b),
     lambda b: memoryview(b * 2)[::2]],
    ids=["bytearray", "memoryview-readonly", "memoryview-writable", "array", "strided"],
)
def test_put_data_accepts_bytes_like_objects(storage: fbstorage.Storage, make) -> None:
    data = payload(1000)
    ref = storage.reference("uploads/bytes-like")
    source = make(data)
    ref.put_data(source).wait()
    expected = bytes(memoryview(source).tobytes())
    assert ref.get_data() == expected


def test_put_data_of_multibyte_items_sends_their_bytes(storage: fbstorage.Storage) -> None:
    numbers = array.array("i", range(1000))
    ref = storage.reference("uploads/ints")
    ref.put_data(numbers).wait()
    assert ref.get_data() == numbers.tobytes()


def test_put_data_copies_the_bytes_at_the_call(storage: fbstorage.Storage) -> None:
    data = bytearray(b"a" * 5000)
    ref = storage.reference("uploads/copied")
    task = ref.put_data(data)
    data[:] = b"b" * 5000
    task.wait()
    assert ref.get_data() == b"a" * 5000


@pytest.mark.parametrize("as_path", [str, Path], ids=["str", "Path"])
def test_put_file(storage: fbstorage.Storage, tmp_path: Path, as_path) -> None:
    storage.upload_chunk_size = SMALL_CHUNK
    data = payload(SMALL_CHUNK * 2 + 7)
    local = tmp_path / "notes.txt"
    local.write_bytes(data)
    ref = storage.reference("files/notes.txt")
    metadata = ref.put_file(as_path(local)).wait()
    assert metadata is not None
    assert metadata.content_type.startswith("text/plain")
    assert metadata.size == len(data)
    assert ref.get_data() == data


def test_put_file_metadata_overrides_the_inferred_type(storage: fbstorage.Storage, tmp_path: Path) -> None:
    local = tmp_path / "photo.jpg"
    local.write_bytes(b"not really a jpeg")
    ref = storage.reference("files/photo.jpg")
    inferred = ref.put_file(local).wait()
    assert inferred is not None and inferred.content_type == "image/jpeg"
    given = ref.put_file(local, fbstorage.StorageMetadata(content_type="text/x-test")).wait()
    assert given is not None and given.content_type == "text/x-test"


def test_put_file_of_a_missing_file_fails_at_the_call(storage: fbstorage.Storage, tmp_path: Path) -> None:
    missing = tmp_path / "missing.bin"
    with pytest.raises(StorageError) as raised:
        storage.reference("files/missing").put_file(missing)
    assert raised.value.code == StorageErrorCode.UNKNOWN
    assert "missing.bin" in raised.value.message
    with pytest.raises(StorageError):
        storage.reference("files/dir").put_file(tmp_path)  # not a regular file


def test_upload_session_resumes_in_a_new_task(storage: fbstorage.Storage, emulator, tmp_path: Path) -> None:
    storage.upload_chunk_size = SMALL_CHUNK
    data = payload(SMALL_CHUNK * 6)
    local = tmp_path / "resumable.bin"
    local.write_bytes(data)
    ref = storage.reference("files/resumable.bin")
    slow_chunks(emulator)
    first = ref.put_file(local)
    events = EventRecorder()
    first.observe(fbstorage.TaskStatus.PAUSE, events)
    assert eventually(lambda: first.snapshot.bytes_transferred >= 2 * SMALL_CHUNK)
    first.pause()
    events.wait_for(fbstorage.TaskStatus.PAUSE)
    session = first.upload_session  # taken paused: it vouches for every byte the server has
    assert session is not None
    emulator.wait_idle()  # the chunk sent before the pause lands now, not during the resume
    emulator.clear_requests()

    second = ref.put_file_resuming(local, session)
    metadata = second.wait()
    assert metadata is not None and metadata.size == len(data)
    assert ref.get_data() == data
    offsets = [int(header(entry, "X-Goog-Upload-Offset")) for entry in upload_chunk_requests(emulator)]
    assert offsets and offsets[0] >= SMALL_CHUNK, offsets  # continued, not started over
    assert offsets == sorted(set(offsets))
    first.cancel()


def test_small_upload_has_no_session(storage: fbstorage.Storage) -> None:
    task = storage.reference("small").put_data(b"tiny")
    task.wait()
    assert task.upload_session is None


def test_resuming_with_a_malformed_session_is_an_invalid_argument(storage: fbstorage.Storage, tmp_path: Path) -> None:
    local = tmp_path / "f.bin"
    local.write_bytes(b"data")
    with pytest.raises(StorageError) as raised:
        storage.reference("f").put_file_resuming(local, "not a session")
    assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT
