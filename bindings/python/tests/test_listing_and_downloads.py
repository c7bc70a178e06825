"""Listing, deletion, in-memory downloads, downloads to files and download URLs."""

from __future__ import annotations

import concurrent.futures
import os
from pathlib import Path

import pytest

import fbstorage
from fbstorage import StorageError, StorageErrorCode, TaskStatus
from conftest import EventRecorder, payload

ITEMS = ["dir/a", "dir/b", "dir/c", "dir/d", "dir/e"]
FOLDERS = ["dir/sub1/x", "dir/sub2/y", "dir/sub3/z"]


@pytest.fixture
def tree(storage: fbstorage.Storage) -> fbstorage.StorageReference:
    for path in ITEMS + FOLDERS + ["other/z"]:
        storage.reference(path).put_data(path.encode()).wait()
    return storage.reference("dir")


def paths(references: list[fbstorage.StorageReference]) -> list[str]:
    return [ref.full_path for ref in references]


def test_list_all(tree: fbstorage.StorageReference) -> None:
    everything = tree.list_all()
    assert paths(everything.items) == ITEMS
    assert paths(everything.prefixes) == ["dir/sub1", "dir/sub2", "dir/sub3"]  # once each
    assert everything.page_token is None
    assert all(isinstance(ref, fbstorage.StorageReference) for ref in everything.items)
    root = tree.root.list_all()
    assert paths(root.prefixes) == ["dir", "other"] and root.items == []


def test_listed_references_work_like_any_other(tree: fbstorage.StorageReference) -> None:
    listed = tree.list_all()
    item = listed.items[1]
    assert (item.bucket, item.full_path, item.name, str(item)) == (
        tree.bucket, "dir/b", "b", f"gs://{tree.bucket}/dir/b")
    assert item == tree.child("b") and hash(item) == hash(tree.child("b"))
    assert item.storage is tree.storage
    assert item.get_data() == b"dir/b" and item.get_metadata().size == 5
    assert item.parent == tree and item.root == tree.root and item.child("x").full_path == "dir/b/x"
    folder = listed.prefixes[0]
    assert paths(folder.list_all().items) == ["dir/sub1/x"]  # listed from a listed reference
    nested = folder.list_all().items[0]
    assert nested.get_data() == b"dir/sub1/x"
    assert listed.items[0].put_data(b"new").wait().full_path == "dir/a"
    assert tree.child("a").get_data() == b"new"


def test_listed_references_from_many_threads(tree: fbstorage.StorageReference) -> None:
    item = tree.list_all().items[0]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        sizes = list(pool.map(lambda _: item.get_metadata().size, range(32)))
    assert sizes == [5] * 32


def test_listed_references_of_a_closed_storage(emulator) -> None:
    emulator.reset()
    storage = emulator.storage()
    for path in ("closed/a", "closed/b"):
        storage.reference(path).put_data(b"x").wait()
    used, unused = storage.reference("closed").list_all().items
    assert used.get_data() == b"x"
    storage.close()
    assert (used.full_path, unused.full_path, unused.name) == ("closed/a", "closed/b", "b")
    for reference in (used, unused):
        for operation in (reference.get_data, reference.get_metadata, lambda: reference.child("y")):
            with pytest.raises(StorageError) as raised:
                operation()
            assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT


def test_list_pages(tree: fbstorage.StorageReference) -> None:
    items: list[str] = []
    prefixes: set[str] = set()
    token = None
    pages = 0
    while True:
        page = tree.list(max_results=2, page_token=token)
        assert len(page.items) <= 2
        items += paths(page.items)
        prefixes |= set(paths(page.prefixes))
        pages += 1
        token = page.page_token
        if token is None:
            break
        assert pages < 20
    assert items == ITEMS
    assert prefixes == {"dir/sub1", "dir/sub2", "dir/sub3"}
    assert pages >= 3


def test_list_without_max_results(tree: fbstorage.StorageReference) -> None:
    page = tree.list()
    assert paths(page.items) == ITEMS


@pytest.mark.parametrize("max_results", [-1, 1001, 2**40])
def test_list_max_results_out_of_range(storage: fbstorage.Storage, emulator, max_results: int) -> None:
    with pytest.raises(StorageError) as raised:
        storage.reference("dir").list(max_results=max_results)
    assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT
    assert emulator.requests() == []  # refused before sending anything


def test_list_argument_types(offline_storage: fbstorage.Storage) -> None:
    with pytest.raises(TypeError):
        offline_storage.reference().list(max_results="2")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        offline_storage.reference().list(page_token=b"token")  # type: ignore[arg-type]


def test_delete_then_get_is_object_not_found(storage: fbstorage.Storage) -> None:
    ref = storage.reference("to-delete")
    ref.put_data(b"bye").wait()
    ref.delete()
    for operation in (ref.get_metadata, ref.get_data, ref.download_url, ref.delete):
        with pytest.raises(StorageError) as raised:
            operation()
        assert raised.value.code == StorageErrorCode.OBJECT_NOT_FOUND
        assert raised.value.http_status == 404


def test_get_data_max_size(storage: fbstorage.Storage) -> None:
    ref = storage.reference("sized")
    data = payload(1000)
    ref.put_data(data).wait()
    assert ref.get_data(max_size=1000) == data
    with pytest.raises(StorageError) as raised:
        ref.get_data(max_size=999)
    assert raised.value.code == StorageErrorCode.DOWNLOAD_SIZE_EXCEEDED
    with pytest.raises(TypeError):
        ref.get_data(max_size="1000")  # type: ignore[arg-type]


def test_get_data_of_an_empty_object(storage: fbstorage.Storage) -> None:
    ref = storage.reference("empty")
    ref.put_data(b"").wait()
    assert ref.get_data(max_size=0) == b""


def test_get_data_lands_in_the_bytes_it_returns(storage: fbstorage.Storage, monkeypatch) -> None:
    """The library fills the very ``bytes`` get_data returns (one allocation of the object's
    size, nothing kept afterwards); a refused allocation is StorageError INTERNAL, at once."""
    import fbstorage._allocator as allocator_module
    ref = storage.reference("into-bytes")
    data = payload(3 << 20)
    ref.put_data(data).wait()
    sizes: list[int] = []
    real_new_bytes = allocator_module._new_bytes

    def recording_new_bytes(source, length):
        sizes.append(length)
        return real_new_bytes(source, length)

    monkeypatch.setattr(allocator_module, "_new_bytes", recording_new_bytes)
    got = ref.get_data()
    assert type(got) is bytes and got == data and sizes == [len(data)]

    def refusing_new_bytes(source, length):
        raise MemoryError

    monkeypatch.setattr(allocator_module, "_new_bytes", refusing_new_bytes)
    with pytest.raises(StorageError) as raised:
        ref.get_data()
    assert raised.value.code == StorageErrorCode.INTERNAL and "memory" in str(raised.value)


def test_download_url_points_at_the_emulator(storage: fbstorage.Storage, emulator) -> None:
    ref = storage.reference("folder/file name.txt")
    ref.put_data(b"x").wait()
    url = ref.download_url()
    assert url.startswith(f"{emulator.url}/v0/b/test-bucket/o/folder%2Ffile%20name.txt?alt=media&token=")
    assert storage.reference_for_url(url) == ref


def test_write_to_file(storage: fbstorage.Storage, tmp_path: Path) -> None:
    data = payload(300_000)
    ref = storage.reference("downloads/file.bin")
    ref.put_data(data).wait()
    target = tmp_path / "out.bin"
    task = ref.write_to_file(target)
    assert isinstance(task, fbstorage.DownloadTask)
    events = EventRecorder()
    task.observe(TaskStatus.SUCCESS, events)
    task.wait()
    assert target.read_bytes() == data
    success = events.wait_for(TaskStatus.SUCCESS)
    assert success.bytes_transferred == len(data)
    assert os.listdir(tmp_path) == ["out.bin"]


def test_write_to_file_failure_leaves_no_file(storage: fbstorage.Storage, tmp_path: Path) -> None:
    target = tmp_path / "missing.bin"
    task = storage.reference("downloads/missing").write_to_file(str(target))
    with pytest.raises(StorageError) as raised:
        task.wait()
    assert raised.value.code == StorageErrorCode.OBJECT_NOT_FOUND
    assert os.listdir(tmp_path) == []


def test_write_to_file_failure_leaves_an_existing_file_untouched(storage: fbstorage.Storage, tmp_path: Path) -> None:
    target = tmp_path / "existing.bin"
    target.write_bytes(b"keep me")
    with pytest.raises(StorageError):
        storage.reference("downloads/missing").write_to_file(target).wait()
    assert target.read_bytes() == b"keep me"
    assert os.listdir(tmp_path) == ["existing.bin"]


def test_write_to_file_into_a_missing_directory(storage: fbstorage.Storage, tmp_path: Path) -> None:
    ref = storage.reference("downloads/x")
    ref.put_data(b"x").wait()
    with pytest.raises(StorageError):
        ref.write_to_file(tmp_path / "no" / "such" / "dir.bin").wait()
