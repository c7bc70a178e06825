"""Ranges and streams through the binding, both emulator flavors: get_data(start=, end=) at
every edge, open("rb") (seeks are ranged GETs, sequential reads fetch ahead), open("wb") and
iter_bytes in constant memory, downloads whose connections a fault proxy cuts at random points,
a consumer that stops early, token URLs."""

from __future__ import annotations

import io
import random
import sys
from pathlib import Path

import pytest

import fbstorage
from fbstorage import StorageError, StorageErrorCode

from conftest import header, payload

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests" / "support"))
from fault_proxy import FaultProxy  # noqa: E402

KIB = 1024
MIB = 1024 * KIB


def put(ref: fbstorage.StorageReference, data: bytes) -> None:
    ref.put_data(data).wait(60)


def media_gets(emulator) -> list[dict]:
    return [entry for entry in emulator.requests() if entry["method"] == "GET" and "alt=media" in entry["query"]]


@pytest.mark.parametrize("start, end, expected", [
    (0, 1, slice(0, 1)),
    (0, None, slice(0, None)),
    (None, 10, slice(0, 10)),
    (1000, 5000, slice(1000, 5000)),
    (300 * KIB - 1, None, slice(300 * KIB - 1, None)),
    (300 * KIB - 1, 300 * KIB, slice(300 * KIB - 1, None)),
    (-1, None, slice(300 * KIB - 1, None)),
    (-300 * KIB, None, slice(0, None)),
    (7, 7, slice(7, 7)),
    (300 * KIB, None, slice(300 * KIB, None)),
    (300 * KIB, 300 * KIB, slice(300 * KIB, None)),
])
def test_get_data_ranges(storage, start, end, expected):
    data = payload(300 * KIB)
    ref = storage.reference("ranges/data.bin")
    put(ref, data)
    assert ref.get_data(start=start, end=end) == data[expected]


@pytest.mark.parametrize("start, end", [(300 * KIB, 300 * KIB + 1), (300 * KIB - 1, 300 * KIB + 1),
                                        (300 * KIB + 1, None), (-300 * KIB - 1, None)])
def test_get_data_past_the_end_is_an_error(storage, start, end):
    ref = storage.reference("ranges/data.bin")
    put(ref, payload(300 * KIB))
    with pytest.raises(StorageError) as raised:
        ref.get_data(start=start, end=end)
    assert raised.value.code == StorageErrorCode.RANGE_NOT_SATISFIABLE
    assert "past the end" in raised.value.message


def test_get_data_ranges_of_an_empty_object_and_bad_arguments(storage):
    ref = storage.reference("ranges/empty.bin")
    put(ref, b"")
    assert ref.get_data(start=0) == b""
    assert ref.get_data(start=0, end=0) == b""
    with pytest.raises(StorageError) as raised:
        ref.get_data(start=0, end=1)
    assert raised.value.code == StorageErrorCode.RANGE_NOT_SATISFIABLE
    with pytest.raises(StorageError) as raised:
        ref.get_data(start=5, end=2)
    assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT
    small = storage.reference("ranges/small.bin")
    put(small, payload(100))
    with pytest.raises(StorageError) as raised:
        small.get_data(max_size=10, start=0, end=11)
    assert raised.value.code == StorageErrorCode.DOWNLOAD_SIZE_EXCEEDED


def test_open_rb_seeks_with_ranged_gets_and_reads_ahead_sequentially(storage, emulator):
    data = payload(5 * MIB + 123)
    ref = storage.reference("ranges/file.bin")
    put(ref, data)
    emulator.clear_requests()
    with ref.open("rb") as file:
        assert file.seekable() and file.readable()
        file.seek(-100, io.SEEK_END)
        assert file.read() == data[-100:]
        file.seek(4096)
        assert file.read(10) == data[4096:4106]
        assert file.tell() == 4106
        file.seek(0)
        assert file.read() == data  # sequential: fetched ahead in growing ranges
        assert file.read(1) == b""
        fetched = file.raw.bytes_fetched
    gets = media_gets(emulator)
    assert all(header(entry, "Range") for entry in gets)
    # The whole object once, plus the two small reads' readahead: nothing read twice at length.
    assert len(data) <= fetched <= len(data) + 2 * 256 * KIB
    assert len(gets) < 12


def test_open_wb_streams_in_chunks_and_an_exception_stores_nothing(storage, emulator):
    storage.upload_chunk_size = 256 * KIB
    data = payload(3 * MIB + 17)
    ref = storage.reference("streams/written.bin")
    with ref.open("wb") as file:
        for first in range(0, len(data), 100_000):
            file.write(data[first:first + 100_000])
    assert file.metadata is not None and file.metadata.size == len(data)
    assert ref.get_data() == data
    starts = [entry for entry in emulator.requests() if header(entry, "X-Goog-Upload-Command") == "start"]
    assert starts and header(starts[-1], "X-Goog-Upload-Header-Content-Length") is None  # length unknown

    aborted = storage.reference("streams/aborted.bin")
    with pytest.raises(RuntimeError):
        with aborted.open("wb") as file:
            file.write(payload(MIB))
            raise RuntimeError("the producer failed")
    with pytest.raises(StorageError) as raised:
        aborted.get_metadata()
    assert raised.value.code == StorageErrorCode.OBJECT_NOT_FOUND


@pytest.mark.parametrize("size", [0, 1, 256 * KIB, 256 * KIB + 1])
def test_open_wb_sizes(storage, size):
    storage.upload_chunk_size = 256 * KIB
    data = payload(size)
    ref = storage.reference(f"streams/size-{size}.bin")
    with ref.open("wb") as file:
        file.write(data)
    assert ref.get_data() == data


def test_iter_bytes_in_chunks_and_ranges(storage):
    data = payload(3 * MIB + 5)
    ref = storage.reference("streams/iter.bin")
    put(ref, data)
    chunks = list(ref.iter_bytes(MIB))
    assert [len(chunk) for chunk in chunks] == [MIB, MIB, MIB, 5]
    assert b"".join(chunks) == data
    assert b"".join(ref.iter_bytes(1000, start=10, end=50_000)) == data[10:50_000]
    assert b"".join(ref.iter_bytes(64 * KIB, start=-70_000)) == data[-70_000:]


def test_iter_bytes_slow_consumer_pauses_the_download_and_an_early_stop_cancels_it(storage, emulator):
    data = payload(12 * MIB)
    ref = storage.reference("streams/slow.bin")
    put(ref, data)
    emulator.clear_requests()
    received = bytearray()
    stream = ref.iter_bytes(256 * KIB)
    for chunk in stream:
        received += chunk
        if len(received) == 256 * KIB:
            # Let the download run into the full queue: it pauses, then resumes with Range.
            emulator.wait_idle()
    assert bytes(received) == data
    ranged = [entry for entry in media_gets(emulator) if header(entry, "Range")]
    assert ranged, "a full queue pauses the download, which resumes with Range"

    stream = ref.iter_bytes(64 * KIB)
    assert next(stream) == data[:64 * KIB]
    stream.close()  # cancels the download without waiting for the rest


def test_iter_bytes_fails_when_the_object_is_replaced_midway(storage, emulator):
    first, second = payload(12 * MIB), payload(12 * MIB)
    ref = storage.reference("streams/replaced.bin")
    put(ref, first)
    stream = ref.iter_bytes(256 * KIB)
    received = bytearray(next(stream))
    emulator.wait_idle()  # the download is paused on its full queue
    put(ref, second)
    with pytest.raises(StorageError) as raised:
        for chunk in stream:
            received += chunk
    assert raised.value.code == StorageErrorCode.OBJECT_CHANGED
    assert bytes(received) == first[:len(received)]


@pytest.fixture
def cutting_proxy(emulator):
    """A proxy in front of the emulator that cuts every response at a random point."""
    proxy = FaultProxy(("127.0.0.1", emulator.port), mean_cut_bytes=1 << 40, response_cut_share=1.0,
                       max_cut_response=2 * MIB, seed=24)
    proxy.port = proxy.start()
    yield proxy
    proxy.stop()


def test_streamed_download_through_random_cuts_has_each_byte_once(emulator, cutting_proxy):
    emulator.reset()
    data = payload(4 * MIB + 99)
    with emulator.storage() as direct:
        put(direct.reference("streams/cut.bin"), data)
    with fbstorage.Storage("test-bucket") as storage:
        storage.use_emulator("127.0.0.1", cutting_proxy.port)
        ref = storage.reference("streams/cut.bin")
        assert b"".join(ref.iter_bytes(MIB)) == data
        start = random.Random(5).randrange(len(data) // 2)
        assert ref.get_data(start=start, end=start + MIB) == data[start:start + MIB]
        with ref.open("rb") as file:
            file.seek(3 * MIB)
            assert file.read() == data[3 * MIB:]
    assert cutting_proxy.stats.cuts_response >= 3


def test_token_url_reads_without_auth(storage, emulator):
    data = payload(70_000)
    ref = storage.reference("private/fw.bin")
    put(ref, data)
    url = ref.download_url()
    emulator.set_rules("rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n"
                       "    match /{all=**} { allow read, write: if false; }\n  }\n}\n")
    with pytest.raises(StorageError):
        ref.get_data()
    by_url = storage.reference_for_url(url)
    assert by_url.get_data() == data
    assert by_url.get_data(start=-10) == data[-10:]
    assert b"".join(by_url.iter_bytes(16 * KIB)) == data
