"""fbstorage.fsspec beyond fsspec's own suite: listings, ranges, files, parallel transfers,
caching, options and errors, on the emulator (both flavors)."""

from __future__ import annotations

import base64
import datetime
import hashlib
import os
import tempfile
from pathlib import Path

import fsspec
import pytest
from conftest import header, payload
from fsspec_fixtures import BUCKET, downloads, emulator_filesystem, firebase_fs, served_bytes  # noqa: F401 (firebase_fs is a fixture)

from fbstorage import StorageError, StorageErrorCode
from fbstorage.fsspec import FirebaseStorageFileSystem

SIGNED_IN_ONLY = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{path=**} { allow read, write: if request.auth != null; }
  }
}"""
READ_ONLY_BAD = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{path=**} { allow read; }
    match /{folder}/{path=**} { allow write: if folder != 'bad'; }
  }
}"""


def spool_files() -> set[str]:
    """This module's temporary files present now."""
    return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith("fbstorage-")}


# -- registration and paths -----------------------------------------------------------------
def test_protocol_is_registered() -> None:
    assert fsspec.get_filesystem_class("firebase") is FirebaseStorageFileSystem
    assert FirebaseStorageFileSystem._strip_protocol("firebase://b/a/c.txt/") == "b/a/c.txt"


def test_url_to_fs_reads_the_bucket_from_the_url(firebase_fs: FirebaseStorageFileSystem, emulator) -> None:
    filesystem, path = fsspec.core.url_to_fs(
        f"firebase://{BUCKET}/d/x.txt", emulator_host=f"{emulator.host}:{emulator.port}"
    )
    filesystem.pipe_file(path, b"via url")
    assert path == f"{BUCKET}/d/x.txt"
    with fsspec.open(f"firebase://{BUCKET}/d/x.txt", "rb",
                     emulator_host=f"{emulator.host}:{emulator.port}") as opened:
        assert opened.read() == b"via url"


def test_path_without_bucket_is_a_value_error(firebase_fs: FirebaseStorageFileSystem) -> None:
    with pytest.raises(ValueError, match="bucket"):
        firebase_fs.cat_file("firebase:///x")


@pytest.mark.parametrize("host", ["localhost", "localhost:", ":9199", "host:port"])
def test_bad_emulator_host_is_a_value_error(host: str) -> None:
    with pytest.raises(ValueError, match="host:port"):
        FirebaseStorageFileSystem(emulator_host=host, skip_instance_cache=True)


@pytest.mark.parametrize("option", [{"max_concurrency": 0}, {"max_in_memory_download": -1},
                                    {"max_concurrency": "4"}])
def test_bad_limits_are_value_errors(option: dict) -> None:
    with pytest.raises(ValueError):
        FirebaseStorageFileSystem(skip_instance_cache=True, **option)


# -- listings and information ---------------------------------------------------------------
def test_ls_info_exists(firebase_fs: FirebaseStorageFileSystem) -> None:
    data = payload(1000)
    firebase_fs.pipe({f"{BUCKET}/t/a.bin": data, f"{BUCKET}/t/sub/b.txt": b"bee", f"{BUCKET}/top": b"x"})

    assert firebase_fs.ls(BUCKET, detail=False) == [f"{BUCKET}/t", f"{BUCKET}/top"]
    entries = {entry["name"]: entry for entry in firebase_fs.ls(f"firebase://{BUCKET}/t")}
    assert entries[f"{BUCKET}/t/sub"] == {"name": f"{BUCKET}/t/sub", "type": "directory", "size": 0}
    file_entry = entries[f"{BUCKET}/t/a.bin"]
    assert file_entry["type"] == "file" and file_entry["size"] == 1000
    assert file_entry["md5Hash"] == base64.b64encode(hashlib.md5(data).digest()).decode()
    assert isinstance(file_entry["mtime"], datetime.datetime)

    assert firebase_fs.info(f"{BUCKET}/t/sub/b.txt")["contentType"] == "text/plain"
    assert firebase_fs.ls(f"{BUCKET}/t/a.bin") == [file_entry]
    assert firebase_fs.isdir(f"{BUCKET}/t/sub") and not firebase_fs.isfile(f"{BUCKET}/t/sub")
    assert firebase_fs.isdir(BUCKET)
    assert firebase_fs.exists(f"{BUCKET}/t/a.bin") and not firebase_fs.exists(f"{BUCKET}/t/none")
    assert firebase_fs.find(BUCKET) == [f"{BUCKET}/t/a.bin", f"{BUCKET}/t/sub/b.txt", f"{BUCKET}/top"]
    assert firebase_fs.du(f"{BUCKET}/t") == 1003
    assert firebase_fs.glob(f"{BUCKET}/t/*.bin") == [f"{BUCKET}/t/a.bin"]
    with pytest.raises(FileNotFoundError):
        firebase_fs.info(f"{BUCKET}/nowhere")
    with pytest.raises(FileNotFoundError):
        firebase_fs.ls(f"{BUCKET}/nowhere")
    assert firebase_fs.ls("empty-bucket") == []


def test_listings_are_cached_until_invalidated(firebase_fs: FirebaseStorageFileSystem, emulator) -> None:
    firebase_fs.pipe_file(f"{BUCKET}/c/one", b"1")
    assert firebase_fs.ls(f"{BUCKET}/c", detail=False) == [f"{BUCKET}/c/one"]
    with emulator.storage() as other_client:  # a write the filesystem does not see
        other_client.reference("c/two").put_data(b"2").wait()
    emulator.clear_requests()
    assert firebase_fs.ls(f"{BUCKET}/c", detail=False) == [f"{BUCKET}/c/one"]
    assert firebase_fs.info(f"{BUCKET}/c/one")["size"] == 1
    assert emulator.requests() == []  # both from the cache
    firebase_fs.invalidate_cache(f"{BUCKET}/c")
    assert firebase_fs.ls(f"{BUCKET}/c", detail=False) == [f"{BUCKET}/c/one", f"{BUCKET}/c/two"]
    firebase_fs.rm_file(f"{BUCKET}/c/one")  # a write through the filesystem invalidates
    assert firebase_fs.ls(f"{BUCKET}/c", detail=False) == [f"{BUCKET}/c/two"]


def test_checksum_ukey_modified_created(firebase_fs: FirebaseStorageFileSystem) -> None:
    path = f"{BUCKET}/k/file"
    firebase_fs.pipe_file(path, b"first")
    checksum, ukey, modified = firebase_fs.checksum(path), firebase_fs.ukey(path), firebase_fs.modified(path)
    assert checksum == int.from_bytes(hashlib.md5(b"first").digest(), "big")
    assert modified.tzinfo is not None and firebase_fs.created(path) <= modified
    firebase_fs.pipe_file(path, b"first")  # same bytes, new generation
    assert firebase_fs.checksum(path) == checksum and firebase_fs.ukey(path) != ukey
    firebase_fs.pipe_file(path, b"second")
    assert firebase_fs.checksum(path) != checksum and firebase_fs.modified(path) >= modified
    with pytest.raises(IsADirectoryError):
        firebase_fs.modified(f"{BUCKET}/k")


# -- reading --------------------------------------------------------------------------------
@pytest.mark.parametrize("in_memory", [True, False], ids=["in-memory", "temporary-file"])
def test_cat_file_ranges(emulator, in_memory: bool) -> None:
    emulator.reset()
    filesystem = emulator_filesystem(emulator, max_in_memory_download=1 << 20 if in_memory else 1000)
    data = payload(300 * 1024)
    path = f"{BUCKET}/r/data.bin"
    filesystem.pipe_file(path, data)
    before = spool_files()
    for start, end in [(None, None), (0, 10), (1000, 250_000), (-100, None), (5, -5), (299_000, 400_000),
                       (10, 10), (20, 10)]:
        assert filesystem.cat_file(path, start, end) == data[start:end], (start, end)
    assert filesystem.cat_ranges([path, path, path], [0, 100, -3], [3, 200, None]) == [
        data[0:3], data[100:200], data[-3:]]
    assert spool_files() == before
    with pytest.raises(FileNotFoundError):
        filesystem.cat_file(f"{BUCKET}/r/none", 0, 1)


def test_reading_an_open_file_fetches_the_ranges_read(emulator) -> None:
    emulator.reset()
    filesystem = emulator_filesystem(emulator)
    data = payload(2_000_000)
    path = f"{BUCKET}/r/blocks.bin"
    filesystem.pipe_file(path, data)
    emulator.clear_requests()
    with filesystem.open(path, "rb") as opened:
        assert opened.size == len(data)
        for offset in (0, 1_500_000, 20, 1_999_990, 64_000):
            opened.seek(offset)
            assert opened.read(5000) == data[offset:offset + 5000]
    ranges = [header(entry, "Range") for entry in downloads(emulator)]
    assert all(ranges) and len(ranges) == 5
    assert served_bytes(emulator, len(data)) == 5000 * 4 + 10
    emulator.clear_requests()
    with filesystem.open(path, "rb") as opened:  # sequential reads fetch ahead
        assert b"".join(iter(lambda: opened.read(10_000), b"")) == data
    assert len(downloads(emulator)) < 12 and served_bytes(emulator, len(data)) == len(data)
    assert filesystem.head(path, 7) == data[:7] and filesystem.tail(path, 7) == data[-7:]


def test_missing_file_cannot_be_opened(firebase_fs: FirebaseStorageFileSystem) -> None:
    with pytest.raises(FileNotFoundError):
        firebase_fs.open(f"{BUCKET}/none", "rb")


# -- writing --------------------------------------------------------------------------------
def test_open_for_writing_uploads_through_a_resumable_upload(firebase_fs: FirebaseStorageFileSystem,
                                                            emulator) -> None:
    data = payload(3 * 300 * 1024 + 17)
    path = f"{BUCKET}/w/big.csv"
    before = spool_files()
    emulator.clear_requests()
    with firebase_fs.open(path, "wb", block_size=300 * 1024, metadata={"origin": "test"}) as written:
        for start in range(0, len(data), 100_000):
            written.write(data[start:start + 100_000])
        assert not firebase_fs.exists(path)  # uploaded at close
    commands = [entry["headers"].get("X-Goog-Upload-Command", "") for entry in emulator.requests()]
    assert any("start" in command for command in commands) and any("finalize" in command for command in commands)
    assert firebase_fs.cat_file(path) == data
    info = firebase_fs.info(path)
    assert info["contentType"] == "text/csv" and info["metadata"] == {"origin": "test"}
    assert spool_files() == before


def test_small_file_goes_in_one_request(firebase_fs: FirebaseStorageFileSystem, emulator) -> None:
    emulator.clear_requests()
    with firebase_fs.open(f"{BUCKET}/w/small.json", "wb") as written:
        written.write(b'{"a": 1}')
    uploads = [entry for entry in emulator.requests() if entry["method"] == "POST"]
    assert len(uploads) == 1
    assert firebase_fs.info(f"{BUCKET}/w/small.json")["contentType"] == "application/json"


def test_pipe_file_metadata_and_create_mode(firebase_fs: FirebaseStorageFileSystem) -> None:
    path = f"{BUCKET}/p/page.html"
    firebase_fs.pipe_file(path, b"<p>", content_type="text/x-custom", cache_control="no-cache",
                          metadata={"k": "v"})
    info = firebase_fs.info(path)
    assert (info["contentType"], info["metadata"]) == ("text/x-custom", {"k": "v"})
    with pytest.raises(FileExistsError):
        firebase_fs.pipe_file(path, b"again", mode="create")
    with pytest.raises(ValueError, match="mode"):
        firebase_fs.pipe_file(path, b"again", mode="append")
    with pytest.raises(TypeError):
        firebase_fs.pipe_file(path, "text is not bytes")
    assert firebase_fs.cat_file(path) == b"<p>"


def test_copy_keeps_metadata(firebase_fs: FirebaseStorageFileSystem) -> None:
    firebase_fs.pipe_file(f"{BUCKET}/cp/a.txt", b"copied", metadata={"k": "v"}, content_language="fr")
    firebase_fs.cp(f"{BUCKET}/cp/a.txt", f"{BUCKET}/cp/b.txt")
    copied = firebase_fs.info(f"{BUCKET}/cp/b.txt")
    assert firebase_fs.cat_file(f"{BUCKET}/cp/b.txt") == b"copied"
    assert copied["metadata"] == {"k": "v"} and copied["contentType"] == "text/plain"
    assert firebase_fs._reference(f"{BUCKET}/cp/b.txt").get_metadata().content_language == "fr"


def test_transaction_uploads_at_its_end(firebase_fs: FirebaseStorageFileSystem) -> None:
    path = f"{BUCKET}/tx/file"
    with firebase_fs.transaction:
        with firebase_fs.open(path, "wb") as written:
            written.write(b"later")
        assert not firebase_fs.exists(path)
    assert firebase_fs.cat_file(path) == b"later"


def test_append_uploads_the_object_again_with_what_was_added(firebase_fs: FirebaseStorageFileSystem) -> None:
    path = f"{BUCKET}/ap/log"
    firebase_fs.pipe_file(path, b"kept", content_type="text/x-log", metadata={"owner": "ops"})
    with firebase_fs.open(path, "ab") as appended:
        assert appended.tell() == 4
        appended.write(b" and added")
        assert firebase_fs.cat_file(path) == b"kept"  # nothing changes before close
    assert firebase_fs.cat_file(path) == b"kept and added"
    info = firebase_fs.info(path)
    assert info["contentType"] == "text/x-log"  # the object's metadata stays
    assert firebase_fs._reference(path).get_metadata().custom_metadata == {"owner": "ops"}


def test_append_to_a_large_object_and_to_none(firebase_fs: FirebaseStorageFileSystem,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    large = os.urandom(3 * 1024 * 1024 + 5)
    monkeypatch.setattr(firebase_fs, "max_in_memory_download", 1024 * 1024)  # the existing bytes come through a file
    firebase_fs.pipe_file(f"{BUCKET}/ap/large", large)
    with firebase_fs.open(f"{BUCKET}/ap/large", "ab", block_size=5 * 1024 * 1024) as appended:
        appended.write(b"tail")
    assert firebase_fs.cat_file(f"{BUCKET}/ap/large") == large + b"tail"
    with firebase_fs.open(f"{BUCKET}/ap/new", "ab") as created:
        assert created.tell() == 0
        created.write(b"new")
    assert firebase_fs.cat_file(f"{BUCKET}/ap/new") == b"new"


def test_mkdir_creates_nothing(firebase_fs: FirebaseStorageFileSystem) -> None:
    firebase_fs.mkdir(f"{BUCKET}/new/dir")
    assert not firebase_fs.exists(f"{BUCKET}/new/dir")
    firebase_fs.makedirs(f"{BUCKET}/new/dir")
    firebase_fs.pipe_file(f"{BUCKET}/new/dir/f", b"")
    with pytest.raises(FileExistsError):
        firebase_fs.makedirs(f"{BUCKET}/new")
    firebase_fs.makedirs(f"{BUCKET}/new", exist_ok=True)


# -- put, get, rm -----------------------------------------------------------------------------
def make_tree(root: Path, count: int) -> dict[str, bytes]:
    files = {f"f{index}.bin" if index % 2 else f"sub/f{index}.bin": payload(1000 + index) for index in range(count)}
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return files


def test_put_and_get_trees_transfer_in_parallel(firebase_fs: FirebaseStorageFileSystem, emulator,
                                               tmp_path: Path) -> None:
    files = make_tree(tmp_path / "up", 4)
    delay_ms = 1500
    emulator.add_fault({"match": {"method": "POST"}, "times": 4, "action": {"delay_ms": delay_ms}})
    emulator.clear_requests()
    firebase_fs.put(str(tmp_path / "up") + "/", f"{BUCKET}/tree", recursive=True)
    finished = sorted(entry["time"] for entry in emulator.requests() if entry["method"] == "POST")
    assert len(finished) == 4
    # One after another, each would end at least delay_ms after the previous one.
    assert finished[-1] - finished[0] < delay_ms / 1000, finished

    assert firebase_fs.find(f"{BUCKET}/tree", detail=False) == sorted(f"{BUCKET}/tree/{name}" for name in files)
    emulator.add_fault({"match": {"method": "GET", "query_contains": "alt=media"}, "times": 4,
                        "action": {"delay_ms": delay_ms}})
    emulator.clear_requests()
    firebase_fs.get(f"{BUCKET}/tree", str(tmp_path / "down"), recursive=True)
    finished = sorted(entry["time"] for entry in downloads(emulator))
    assert len(finished) == 4 and finished[-1] - finished[0] < delay_ms / 1000, finished
    for name, data in files.items():
        assert (tmp_path / "down" / name).read_bytes() == data


def test_failed_transfer_fails_put(firebase_fs: FirebaseStorageFileSystem, emulator, tmp_path: Path) -> None:
    make_tree(tmp_path / "up", 6)
    emulator.set_rules(READ_ONLY_BAD)
    with pytest.raises(PermissionError):
        firebase_fs.put(str(tmp_path / "up") + "/", f"{BUCKET}/bad", recursive=True)


def test_put_and_get_progress_callbacks(firebase_fs: FirebaseStorageFileSystem, tmp_path: Path) -> None:
    from fsspec.callbacks import Callback

    source = tmp_path / "file.bin"
    source.write_bytes(payload(600 * 1024))
    callback = Callback()
    firebase_fs.put_file(str(source), f"{BUCKET}/cb/file.bin", callback=callback)
    assert (callback.size, callback.value) == (600 * 1024, 600 * 1024)
    callback = Callback()
    firebase_fs.get_file(f"{BUCKET}/cb/file.bin", str(tmp_path / "back.bin"), callback=callback)
    assert callback.value == 600 * 1024 and (tmp_path / "back.bin").read_bytes() == source.read_bytes()


def test_rm(firebase_fs: FirebaseStorageFileSystem) -> None:
    firebase_fs.pipe({f"{BUCKET}/d/{index}/x": b"x" for index in range(12)})
    firebase_fs.pipe({f"{BUCKET}/keep": b"k", f"{BUCKET}/d-sibling": b"s"})
    firebase_fs.rm(f"{BUCKET}/d", recursive=True)
    assert firebase_fs.find(BUCKET) == [f"{BUCKET}/d-sibling", f"{BUCKET}/keep"]
    firebase_fs.rm(f"{BUCKET}/keep")
    with pytest.raises(FileNotFoundError):
        firebase_fs.rm(f"{BUCKET}/keep")
    with pytest.raises(FileNotFoundError):
        firebase_fs.rm_file(f"{BUCKET}/keep")


# -- options ----------------------------------------------------------------------------------
def test_emulator_from_the_environment(emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    emulator.reset()
    monkeypatch.setenv("FIREBASE_STORAGE_EMULATOR_HOST", f"{emulator.host}:{emulator.port}")
    filesystem = fsspec.filesystem("firebase", skip_instance_cache=True)
    filesystem.pipe_file(f"{BUCKET}/env/x", b"from env")
    assert emulator.requests()[-1]["path"].startswith(f"/v0/b/{BUCKET}/o")


def test_tokens_from_storage_options(emulator) -> None:
    emulator.reset()
    emulator.set_rules(SIGNED_IN_ONLY)
    anonymous = emulator_filesystem(emulator)
    with pytest.raises(PermissionError) as raised:
        anonymous.pipe_file(f"{BUCKET}/auth/x", b"x")
    assert isinstance(raised.value.__cause__, StorageError)
    assert raised.value.__cause__.code == StorageErrorCode.UNAUTHORIZED  # no token: 403, as both servers
    token = emulator.id_token("ada")
    signed_in = emulator_filesystem(emulator, token=token, app_check_token="check")
    signed_in.pipe_file(f"{BUCKET}/auth/x", b"x")
    assert signed_in.cat_file(f"{BUCKET}/auth/x") == b"x"
    # The download just made (an earlier test's closed storage may still be logging a cancel).
    last = [entry for entry in emulator.requests() if entry["path"].endswith("auth%2Fx")][-1]["headers"]
    assert last["Authorization"].endswith(token) and last["X-Firebase-AppCheck"] == "check"
    refreshed: list[bool] = []

    def provider(force_refresh: bool) -> str:
        refreshed.append(force_refresh)
        return token

    assert emulator_filesystem(emulator, token_provider=provider).ls(f"{BUCKET}/auth", detail=False) == [
        f"{BUCKET}/auth/x"]
    assert refreshed


def test_filesystem_pickles_without_its_library_objects(firebase_fs: FirebaseStorageFileSystem) -> None:
    import pickle

    firebase_fs.pipe_file(f"{BUCKET}/pk/x", b"pickled")
    copy = pickle.loads(pickle.dumps(firebase_fs))
    assert copy.cat_file(f"{BUCKET}/pk/x") == b"pickled"


def test_each_bucket_has_its_storage_configured_from_the_options(emulator, tmp_path: Path) -> None:
    pem = tmp_path / "ca.pem"
    pem.write_text("-----BEGIN CERTIFICATE-----\n")
    filesystem = emulator_filesystem(emulator, ca_file=str(pem))
    first, second = filesystem.storage(BUCKET), filesystem.storage("other-bucket")
    assert (first.bucket, second.bucket) == (BUCKET, "other-bucket")
    assert first.ca_file == second.ca_file == str(pem)
    assert filesystem.storage(BUCKET) is first


def test_forked_child_keeps_the_parents_storages_and_makes_its_own(firebase_fs: FirebaseStorageFileSystem) -> None:
    import fbstorage.fsspec as module

    firebase_fs.pipe_file(f"{BUCKET}/fork/x", b"x")
    parents = firebase_fs._process_objects.storages
    assert list(parents) == [BUCKET]
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # only Python bookkeeping here: no library call after fork
        fresh = firebase_fs._process_objects.storages == {}
        kept = any(storages is parents for storages, _ in module._inherited_from_parent)
        os.write(writer, b"ok" if fresh and kept else b"wrong")
        os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as answer:
        assert answer.read() == b"ok"
    assert os.waitpid(child, 0)[1] == 0
    assert firebase_fs._process_objects.storages is parents
