"""Input that can never succeed fails at once: integers out of range, control characters in
header-bound values, a resume from a file that changed; and a write never loosens permissions."""

from __future__ import annotations

import math
import os
import socket
import stat
import time
from pathlib import Path

import pytest

import fbstorage
from fbstorage import StorageError, StorageErrorCode, StorageMetadata, TaskStatus
from conftest import SMALL_CHUNK, EventRecorder, payload, slow_chunks


@pytest.mark.parametrize("port", [2**32 + 19300, -(2**32) + 9199, 2**64])
def test_ports_beyond_a_c_int_raise_value_error(offline_storage: fbstorage.Storage, port: int) -> None:
    # ctypes would keep the low bits (2**32 + 19300 became port 19300); ports within a C int
    # but outside 1..65535 are the library's INVALID_ARGUMENT (test_errors_and_lifetime.py).
    with pytest.raises(ValueError, match="port"):
        offline_storage.use_emulator("127.0.0.1", port)


def test_integers_beyond_the_c_types_raise_value_error(storage: fbstorage.Storage) -> None:
    with pytest.raises(ValueError, match="upload_chunk_size"):
        storage.upload_chunk_size = 2**64 + SMALL_CHUNK
    assert storage.upload_chunk_size != SMALL_CHUNK
    ref = storage.reference("ranges.bin")
    task = ref.put_data(b"x")
    with pytest.raises(ValueError, match="status"):
        task.observe(2**32 + int(TaskStatus.SUCCESS), lambda snapshot: None)
    with pytest.raises(ValueError, match="handle"):
        task.remove_observer(2**64 + 1)
    with pytest.raises(ValueError, match="timeout"):
        task.wait(timeout=math.nan)
    task.wait()
    with pytest.raises(ValueError, match="max_size"):
        ref.get_data(max_size=2**63)
    with pytest.raises(ValueError, match="max_results"):
        ref.list(max_results=2**64 + 10)


def test_list_with_zero_max_results_is_an_invalid_argument(storage: fbstorage.Storage) -> None:
    with pytest.raises(StorageError) as raised:
        storage.reference("folder").list(max_results=0)
    assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT
    assert storage.reference("folder").list(max_results=None).items == []


@pytest.mark.parametrize("field", ["content_type", "cache_control", "content_disposition",
                                   "content_encoding", "content_language"])
@pytest.mark.parametrize("value", ["a\r\nX-Evil: 1", "nul\0", "tab\there", "del\x7f"])
def test_control_characters_in_header_fields_fail_at_once(
    storage: fbstorage.Storage, emulator, field: str, value: str
) -> None:
    ref = storage.reference("control.txt")
    ref.put_data(b"stored").wait()
    emulator.clear_requests()
    metadata = StorageMetadata(**{field: value})
    started = time.monotonic()
    for call in (lambda: ref.put_data(b"x", metadata=metadata),
                 lambda: ref.put_data(payload(SMALL_CHUNK + 1), metadata=metadata),
                 lambda: ref.update_metadata(**{field: value})):
        with pytest.raises((StorageError, ValueError)) as raised:
            call()
        if isinstance(raised.value, StorageError):
            assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT
            assert "control character" in raised.value.message
    assert time.monotonic() - started < 1
    assert emulator.requests() == []  # nothing was sent
    assert ref.get_data() == b"stored"


def test_control_characters_in_tokens_fail_at_once(storage: fbstorage.Storage) -> None:
    for setter in (storage.set_auth_token, storage.set_app_check_token):
        with pytest.raises(StorageError) as raised:
            setter("token\nX-Evil: 1")
        assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT
    storage.set_auth_token_provider(lambda force_refresh: "token\r\n")
    started = time.monotonic()
    with pytest.raises(StorageError) as raised:
        storage.reference("token.txt").put_data(b"x").wait()
    assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT
    assert time.monotonic() - started < 1


def _paused_upload(storage: fbstorage.Storage, emulator, file: Path, name: str) -> str:
    """Starts uploading file, pauses it (from its PROGRESS observer) once two chunks went out,
    and returns the session string taken once it paused."""
    storage.upload_chunk_size = SMALL_CHUNK
    slow_chunks(emulator, delay_ms=50)
    task = storage.reference(name).put_file(file)
    paused = EventRecorder()
    task.observe(TaskStatus.PAUSE, paused)
    task.observe(TaskStatus.PROGRESS,
                 lambda snapshot: snapshot.bytes_transferred >= 2 * SMALL_CHUNK and task.pause())
    paused.wait_for(TaskStatus.PAUSE)
    session = task.upload_session
    assert session is not None
    emulator.clear_faults()
    emulator.wait_idle()  # a chunk sent before the pause lands now, not during the resume
    return session


def test_resume_refuses_a_file_that_changed(storage: fbstorage.Storage, emulator, tmp_path: Path) -> None:
    data = bytearray(payload(4 * SMALL_CHUNK))
    file = tmp_path / "big.bin"
    file.write_bytes(data)
    ref = storage.reference("resume/changed.bin")
    ref.put_data(b"the good object").wait()
    session = _paused_upload(storage, emulator, file, "resume/changed.bin")
    data[10] ^= 0xFF
    file.write_bytes(data)
    with pytest.raises(StorageError) as raised:
        ref.put_file_resuming(file, session)
    assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT
    assert "changed since the session was taken" in raised.value.message
    assert ref.get_data() == b"the good object"
    data[10] ^= 0xFF
    file.write_bytes(data)
    ref.put_file_resuming(file, session).wait()
    assert ref.get_data() == bytes(data)


def test_nothing_listening_on_loopback_fails_in_seconds() -> None:
    with socket.socket() as probe:  # a port with nothing listening, default deadlines
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with fbstorage.Storage("offline-bucket") as storage:
        storage.use_emulator("127.0.0.1", port)
        started = time.monotonic()
        with pytest.raises(StorageError) as raised:
            storage.reference("offline.bin").get_metadata()
        assert time.monotonic() - started < 5
    assert raised.value.code == StorageErrorCode.RETRY_LIMIT_EXCEEDED
    assert f"127.0.0.1:{port}" in raised.value.message and "Nothing is listening" in raised.value.message


def test_write_to_file_never_loosens_permissions(storage: fbstorage.Storage, tmp_path: Path) -> None:
    ref = storage.reference("perm.txt")
    ref.put_data(b"new").wait()
    old_mask = os.umask(0o077)
    try:
        ref.write_to_file(tmp_path / "fresh.txt").wait()
    finally:
        os.umask(old_mask)
    assert stat.S_IMODE((tmp_path / "fresh.txt").stat().st_mode) == 0o600
    readonly = tmp_path / "readonly.txt"
    readonly.write_bytes(b"keep")
    readonly.chmod(0o444)
    with pytest.raises(StorageError) as raised:
        ref.write_to_file(readonly)
    assert "read-only" in raised.value.message
    assert readonly.read_bytes() == b"keep" and stat.S_IMODE(readonly.stat().st_mode) == 0o444
