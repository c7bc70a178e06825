"""Closing without losing work: CloseMode.KEEP_SESSIONS stops running uploads but leaves their
sessions open, each session final and its FAILURE delivered before close returns, so another
storage (or process) resumes them; CloseMode.FINISH lets tasks end within a deadline first;
the context manager closes as `close_mode` says."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

import fbstorage
from fbstorage import CloseMode, TaskStatus
from fbstorage.testing import EmulatorServer

from conftest import SMALL_CHUNK, EventRecorder, header, payload, slow_chunks


class SessionKeeper:
    """A FAILURE observer that persists the task's session, as a program about to exit would."""

    def __init__(self, task: fbstorage.UploadTask) -> None:
        self.task = task
        self.session: str | None = None
        self.error: fbstorage.StorageError | None = None
        task.observe(TaskStatus.FAILURE, self)

    def __call__(self, snapshot: fbstorage.TaskSnapshot) -> None:
        self.error = snapshot.error
        self.session = self.task.upload_session


def start_slow_upload(emulator: EmulatorServer, storage: fbstorage.Storage, tmp_path: Path,
                      name: str, size: int = 8 * SMALL_CHUNK) -> tuple[fbstorage.UploadTask, Path, EventRecorder]:
    storage.upload_chunk_size = SMALL_CHUNK
    slow_chunks(emulator, delay_ms=200)
    source = tmp_path / f"{name}.bin"
    source.write_bytes(payload(size))
    task = storage.reference(f"close/{name}.bin").put_file(source)
    recorder = EventRecorder()
    task.observe(TaskStatus.PROGRESS, recorder)
    return task, source, recorder


def starts(emulator: EmulatorServer) -> int:
    return sum(header(entry, "X-Goog-Upload-Command") == "start" for entry in emulator.requests())


def resume_and_check(emulator: EmulatorServer, session: str, source: Path, name: str) -> None:
    emulator.clear_faults()
    with emulator.storage() as again:
        again.reference(f"close/{name}.bin").put_file_resuming(source, session).wait(60)
        assert again.reference(f"close/{name}.bin").get_data() == source.read_bytes()
    assert starts(emulator) == 1, "the upload started over instead of resuming"


def test_keep_sessions_stops_and_resumes(emulator: EmulatorServer, tmp_path: Path) -> None:
    emulator.reset()
    storage = emulator.storage()
    task, source, progress = start_slow_upload(emulator, storage, tmp_path, "kept")
    keeper = SessionKeeper(task)
    progress.wait_for(TaskStatus.PROGRESS)
    started = time.monotonic()
    storage.close(CloseMode.KEEP_SESSIONS)
    assert time.monotonic() - started < 2
    assert keeper.error is not None and keeper.error.code == fbstorage.StorageErrorCode.CANCELLED
    assert "session was kept" in str(keeper.error)
    assert keeper.session is not None
    emulator.wait_idle()
    assert not any(header(e, "X-Goog-Upload-Command") == "cancel" for e in emulator.requests())
    resume_and_check(emulator, keeper.session, source, "kept")


@pytest.mark.parametrize("closing", ["CloseMode.CANCEL", "cancel(), then close at once"])
def test_a_cancelled_upload_ends_its_session_before_close_returns(emulator: EmulatorServer, tmp_path: Path,
                                                                   closing: str) -> None:
    """The cancel command reaches the server although the storage closes right after it: the
    close gives it a grace (FarewellRequests, 3 s) before stopping the transfer thread."""
    emulator.reset()
    storage = emulator.storage()
    task, _, progress = start_slow_upload(emulator, storage, tmp_path, "ended")
    progress.wait_for(TaskStatus.PROGRESS)
    if closing == "CloseMode.CANCEL":
        storage.close(CloseMode.CANCEL)
    else:
        task.cancel()
        storage.close(CloseMode.KEEP_SESSIONS)  # what freeing the storage does
    emulator.wait_idle()
    cancels = [e for e in emulator.requests() if header(e, "X-Goog-Upload-Command") == "cancel"]
    assert [e.get("status") for e in cancels] == [200], cancels


def test_finish_waits_for_running_tasks(emulator: EmulatorServer, tmp_path: Path) -> None:
    emulator.reset()
    storage = emulator.storage()
    task, source, _ = start_slow_upload(emulator, storage, tmp_path, "finished", size=3 * SMALL_CHUNK)
    storage.close(CloseMode.FINISH, timeout=60)
    assert task_outcome_is_success(emulator, source, "finished")


def task_outcome_is_success(emulator: EmulatorServer, source: Path, name: str) -> bool:
    emulator.clear_faults()
    with emulator.storage() as reader:
        return reader.reference(f"close/{name}.bin").get_data() == source.read_bytes()


def test_finish_deadline_then_keeps_sessions(emulator: EmulatorServer, tmp_path: Path) -> None:
    emulator.reset()
    with fbstorage.Storage("test-bucket", close_mode=CloseMode.FINISH, close_timeout=0.5) as storage:
        storage.use_emulator(emulator.host, emulator.port)
        task, source, progress = start_slow_upload(emulator, storage, tmp_path, "deadline")
        keeper = SessionKeeper(task)
        progress.wait_for(TaskStatus.PROGRESS)
        started = time.monotonic()
    waited = time.monotonic() - started
    assert 0.4 <= waited < 3, waited
    assert keeper.session is not None and keeper.error is not None
    resume_and_check(emulator, keeper.session, source, "deadline")


def test_close_mode_is_checked() -> None:
    with pytest.raises(ValueError):
        fbstorage.Storage("test-bucket", close_mode=7)  # type: ignore[arg-type]
