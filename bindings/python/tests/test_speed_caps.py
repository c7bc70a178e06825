"""Speed caps, per storage and per task, held and changed while transfers run (the 20-second
precision run is `make bench`: benchmarks/speed_cap.py)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

import fbstorage
from fbstorage.testing import EmulatorServer

from conftest import EventRecorder, payload

KIB = 1024


def test_caps_are_checked_and_read_back(offline_storage: fbstorage.Storage) -> None:
    assert offline_storage.max_upload_speed == 0 and offline_storage.max_download_speed == 0
    offline_storage.max_upload_speed = 1000
    offline_storage.max_download_speed = 2000
    assert (offline_storage.max_upload_speed, offline_storage.max_download_speed) == (1000, 2000)
    with pytest.raises(fbstorage.StorageError) as raised:
        offline_storage.max_upload_speed = -1
    assert raised.value.code == fbstorage.StorageErrorCode.INVALID_ARGUMENT


def test_storage_upload_cap_holds(storage: fbstorage.Storage) -> None:
    storage.max_upload_speed = 256 * KIB
    data = payload(768 * KIB)   # resumable, one chunk: 3 s at the cap
    started = time.monotonic()
    storage.reference("capped/up.bin").put_data(data).wait(30)
    seconds = time.monotonic() - started
    assert 2.5 <= seconds < 6, seconds
    assert storage.reference("capped/up.bin").get_data() == data


def _progress_at_least(recorder: EventRecorder, count: int, timeout: float = 20) -> bool:
    with recorder._condition:
        return recorder._condition.wait_for(
            lambda: any(s.bytes_transferred >= count for s in recorder.snapshots), timeout)


def test_caps_change_while_a_download_runs(storage: fbstorage.Storage, tmp_path: Path) -> None:
    """A lifted storage cap speeds the running download up; a task cap slows it down again."""
    data = payload(6 * 1024 * KIB)
    storage.reference("capped/down.bin").put_data(data).wait(30)
    storage.max_download_speed = 256 * KIB
    recorder = EventRecorder()
    started = time.monotonic()
    task = storage.reference("capped/down.bin").write_to_file(tmp_path / "down.bin")
    task.observe(fbstorage.TaskStatus.PROGRESS, recorder)
    # curl takes up to one receive buffer (256 KiB) at once, then keeps the average at the cap.
    assert _progress_at_least(recorder, 768 * KIB)
    assert time.monotonic() - started >= 1.5, "the storage cap did not hold"
    task.max_speed = 512 * KIB                 # a task cap looser than the storage's: no change
    assert task.max_speed == 512 * KIB
    storage.max_download_speed = 0             # lifted: the task's own cap now rules
    assert _progress_at_least(recorder, 1536 * KIB)
    halfway = time.monotonic()
    assert _progress_at_least(recorder, 3072 * KIB)
    at_task_cap = (3072 - 1536) * KIB / (time.monotonic() - halfway)
    assert at_task_cap < 512 * KIB * 1.3, at_task_cap
    task.max_speed = 0                         # nothing caps it any more
    lifted = time.monotonic()
    task.wait(30)
    assert time.monotonic() - lifted < 3, "the lifted cap still slowed the download"
    assert (tmp_path / "down.bin").read_bytes() == data
