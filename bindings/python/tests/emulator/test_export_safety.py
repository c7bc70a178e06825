"""Exports touch nothing but exports; a kill at any step of one leaves an importable export;
--import reads nothing outside its directory."""

import json
import os

import pytest
import requests

from conftest import Emulator
from test_import_export import METADATA_FILE, write_firebase_tools_export

KILL_AT_STEP_ENV = "FBSTORAGE_EMULATOR_TEST_KILL_EXPORT_AT"
EXPORT_STEPS = ("staged", "written", "synced", "replaced")  # fbstorage/emulator/exports.py, directory_swap.py


def users_files(root):
    (root / "thesis").mkdir(parents=True)
    (root / "thesis" / "thesis.tex").write_text("\\chapter{One}")
    return {path.relative_to(root): path.read_bytes() for path in root.rglob("*") if path.is_file()}


def files_of(root):
    return {path.relative_to(root): path.read_bytes() for path in root.rglob("*") if path.is_file()}


def test_export_routes_refuse_a_directory_holding_other_files(emu, tmp_path):
    emu.upload_ok("x")
    kept = users_files(tmp_path / "work")
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    for route in ("/_admin/export", "/internal/export"):
        for target in (tmp_path / "work", a_file):
            response = emu.http.post(emu.url(route), json={"path": str(target)})
            assert response.status_code == 400 and str(target) in response.text, response.text
    assert files_of(tmp_path / "work") == kept and a_file.read_text() == "mine"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notes.txt", "work"]  # no leftovers


def test_export_goes_into_an_empty_directory_and_over_a_previous_export(emu, tmp_path):
    target = tmp_path / "export"
    target.mkdir()
    emu.upload_ok("first")
    assert emu.http.post(emu.url("/_admin/export"), json={"path": str(target)}).status_code == 200
    emu.reset()
    emu.upload_ok("second")
    assert emu.http.post(emu.url("/_admin/export"), json={"path": str(target)}).status_code == 200
    assert sorted(path.name for path in tmp_path.iterdir()) == ["export"]  # nothing left beside it
    again = Emulator("--import", str(target), flavor=emu.flavor)
    try:
        assert [item["name"] for item in again.list().json()["items"]] == ["second"]
    finally:
        again.stop()


def test_export_on_exit_refuses_a_directory_holding_other_files(start_emulator, tmp_path):
    work = tmp_path / "work"
    kept = users_files(work)
    with pytest.raises(RuntimeError, match="holds no export"):
        Emulator("--export-on-exit", str(work))
    empty_then_used = tmp_path / "later"
    empty_then_used.mkdir()
    emu = start_emulator("--export-on-exit", str(empty_then_used))
    emu.upload_ok("x")
    users_files(empty_then_used)  # the user's files appear there while the emulator runs
    assert emu.stop() == 0
    assert "holds no export" in emu.stderr()
    assert files_of(work) == kept and files_of(empty_then_used) == kept


def test_a_kill_at_any_step_of_an_export_leaves_the_previous_or_the_new_one(start_emulator, tmp_path):
    target = tmp_path / "export"
    first = start_emulator()
    first.upload_ok("old", b"old bytes")
    assert first.http.post(first.url("/_admin/export"), json={"path": str(target)}).status_code == 200
    expected = ["old"]
    for step in EXPORT_STEPS:  # each emulator imports what the previous one's killed export left
        killed = start_emulator("--import", str(target), env={KILL_AT_STEP_ENV: step})
        assert [item["name"] for item in killed.list().json()["items"]] == expected, step
        killed.upload_ok(f"after-{step}")
        with pytest.raises(requests.ConnectionError):
            killed.http.post(killed.url("/_admin/export"), json={"path": str(target)})
        assert killed.process.wait(10) == -9
        if step == "replaced":
            expected = sorted([*expected, f"after-{step}"])
    assert any(path.name.startswith(".export.export-") for path in tmp_path.iterdir())  # what the kills left
    cleaner = start_emulator("--import", str(target))
    assert [item["name"] for item in cleaner.list().json()["items"]] == expected
    assert cleaner.download("old").content == b"old bytes"
    assert cleaner.http.post(cleaner.url("/_admin/export"), json={"path": str(target)}).status_code == 200
    assert sorted(path.name for path in tmp_path.iterdir()) == ["export"]


@pytest.mark.parametrize("escape", ["blob-symlink", "metadata-symlink", "storage-dir-symlink", "dotdot-path",
                                    "absolute-path"])
def test_import_reads_nothing_outside_its_directory(tmp_path, escape):
    root, outside = tmp_path / "import", tmp_path / "outside"
    write_firebase_tools_export(root, [("b", "x", b"1", {})], ["b"])
    outside.mkdir()
    (outside / "secret").write_bytes(b"1")
    folder = root / "storage_export"
    blob = next((folder / "blobs").iterdir())
    if escape == "blob-symlink":
        blob.unlink()
        blob.symlink_to(outside / "secret")
        named = blob
    elif escape == "metadata-symlink":
        os.rename(folder / "metadata", outside / "metadata")
        (folder / "metadata").symlink_to(outside / "metadata")
        named = folder / "metadata"
    elif escape == "storage-dir-symlink":
        os.rename(folder, outside / "storage_export")
        folder.symlink_to(outside / "storage_export")
        named = folder
    else:
        os.rename(folder, outside / "storage_export")
        path = "../outside/storage_export" if escape == "dotdot-path" else str(outside / "storage_export")
        metadata = json.loads((root / METADATA_FILE).read_text())
        metadata["storage"]["path"] = path
        (root / METADATA_FILE).write_text(json.dumps(metadata))
        named = path
    with pytest.raises(RuntimeError) as failure:
        Emulator("--import", str(root))
    message = str(failure.value)
    assert str(named) in message and "outside the import directory" in message, message


def test_import_refuses_names_no_object_can_have(tmp_path):
    write_firebase_tools_export(tmp_path, [("b", "a\0b", b"1", {})], ["b"])
    with pytest.raises(RuntimeError, match="no object can be named"):
        Emulator("--import", str(tmp_path))
    (tmp_path / "storage_export" / "buckets.json").write_text(json.dumps({"buckets": [{"id": "b\0a"}]}))
    with pytest.raises(RuntimeError, match="buckets.json"):
        Emulator("--import", str(tmp_path))
