"""--data-dir: objects survive restarts; names never become paths; in-memory mode leaves nothing."""

import hashlib
import os

from conftest import md5_b64


def test_objects_survive_restart(start_emulator, tmp_path):
    data_dir = tmp_path / "data"
    big = os.urandom(2 * 1024 * 1024 + 3)
    first = start_emulator("--data-dir", str(data_dir))
    first.upload_ok("keep/small", b"small", content_type="text/plain")
    first.upload_ok("keep/big", big)
    first.upload_ok("gone", b"x")
    first.http.patch(first.object_url("keep/small"), json={"metadata": {"k": "v"}})
    first.http.delete(first.object_url("gone"))
    before = first.get_metadata("keep/small").json()
    session = first.session_url("unfinished")
    assert first.stop() == 0

    second = start_emulator("--data-dir", str(data_dir))
    assert second.get_metadata("keep/small").json() == before
    assert second.download("keep/small").content == b"small"
    assert second.download("keep/big").content == big
    assert second.get_metadata("keep/big").json()["md5Hash"] == md5_b64(big)
    assert second.get_metadata("gone").status_code == 404
    assert [i["name"] for i in second.list(prefix="keep/").json()["items"]] == ["keep/big", "keep/small"]
    moved_session = session.replace(first.base, second.base)
    assert second.chunk(moved_session, "query").headers["X-Goog-Upload-Size-Received"] == "0"  # kept too
    assert not list((data_dir / "tmp").iterdir())


def test_names_never_escape_the_data_dir(start_emulator, tmp_path):
    data_dir = tmp_path / "data"
    emu = start_emulator("--data-dir", str(data_dir), flavor="firebase-tools")  # it stores `..` (production refuses it)
    for name in ("../../escape", "/etc/passwd", "..", "a/../../b"):
        emu.upload_ok(name, b"evil")
    files = {p for p in tmp_path.rglob("*") if p.is_file()}
    assert all(data_dir in p.parents for p in files)
    assert not any(p.name in ("escape", "passwd", "b") for p in files)
    assert emu.download("../../escape").content == b"evil"


def test_corrupt_record_and_orphan_blob_are_skipped(start_emulator, tmp_path):
    data_dir = tmp_path / "data"
    first = start_emulator("--data-dir", str(data_dir))
    first.upload_ok("ok", b"fine")
    first.upload_ok("bad", b"soon corrupt")
    first.stop()
    key = hashlib.sha256(b"b\0bad").hexdigest()
    (data_dir / "objects" / f"{key}.json").write_text("{truncated")
    (data_dir / "blobs" / "orphan").write_bytes(b"left by a crash")
    second = start_emulator("--data-dir", str(data_dir))
    assert second.download("ok").content == b"fine"
    assert second.get_metadata("bad").status_code == 404
    assert not (data_dir / "blobs" / "orphan").exists()
    assert "skipping unreadable object record" in second.stderr()


def test_memory_mode_spills_large_objects_to_a_temp_dir_it_removes(start_emulator, tmp_path):
    emu = start_emulator(env={"TMPDIR": str(tmp_path)})
    emu.upload_ok("small", b"s")
    emu.upload_ok("big", os.urandom(2 * 1024 * 1024))
    blobs = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(blobs) == 1 and blobs[0].stat().st_size == 2 * 1024 * 1024  # the small one is in memory
    assert emu.stop() == 0
    assert not any(tmp_path.iterdir())
