"""Tasks: observers and their order, pause / resume / cancel, wait, snapshots, lifetime."""

from __future__ import annotations

import gc
import threading
import time
import weakref

import pytest

import fbstorage
from fbstorage import StorageError, StorageErrorCode, TaskStatus
from conftest import (
    SMALL_CHUNK,
    EventRecorder,
    eventually,
    header,
    payload,
    slow_chunks,
    upload_chunk_requests,
)


def test_event_order_resume_progress_success(storage: fbstorage.Storage) -> None:
    storage.upload_chunk_size = SMALL_CHUNK
    data = payload(SMALL_CHUNK * 4)
    ref = storage.reference("events.bin")
    task = ref.put_data(data)
    events = EventRecorder()
    events.observe_all(task)
    metadata = task.wait()
    statuses = events.statuses
    assert statuses[0] == TaskStatus.RESUME
    assert statuses[-1] == TaskStatus.SUCCESS
    assert set(statuses[1:-1]) == {TaskStatus.PROGRESS}
    progress = [s.bytes_transferred for s in events.snapshots if s.status == TaskStatus.PROGRESS]
    assert progress == sorted(progress) and progress[-1] == len(data)
    final = events.snapshots[-1]
    assert final.error is None
    assert final.metadata == metadata and metadata is not None and metadata.size == len(data)
    assert final.reference == ref
    assert final.task is task
    assert final.total_bytes == final.bytes_transferred == len(data)


def test_nothing_runs_after_the_end_however_fast_the_task(storage: fbstorage.Storage) -> None:
    # Races observers against a fast task: RESUME comes at most once and first, SUCCESS exactly
    # once and last, whether the observers came before the end or after it (then only SUCCESS
    # runs, once). The second SUCCESS observer is a barrier: at-once calls run in order.
    wrong = []
    for attempt in range(150):
        task = storage.reference("resume-once").put_data(b"0123456789")
        events, barrier = EventRecorder(), EventRecorder()
        for status in (TaskStatus.RESUME, TaskStatus.PROGRESS, TaskStatus.SUCCESS):
            task.observe(status, events)
        task.wait()
        task.observe(TaskStatus.SUCCESS, barrier)
        barrier.wait_for(TaskStatus.SUCCESS, timeout=5)
        statuses = events.statuses
        if (statuses.count(TaskStatus.SUCCESS) != 1 or statuses[-1] != TaskStatus.SUCCESS
                or statuses.count(TaskStatus.RESUME) > 1
                or (TaskStatus.RESUME in statuses and statuses[0] != TaskStatus.RESUME)):
            wrong.append((attempt, statuses))
    assert wrong == []


def test_observers_of_one_status_all_run(storage: fbstorage.Storage) -> None:
    task = storage.reference("two-observers").put_data(b"x" * 100)
    first, second = EventRecorder(), EventRecorder()
    task.observe(TaskStatus.SUCCESS, first)
    task.observe(TaskStatus.SUCCESS, second)
    task.wait()
    assert first.statuses == second.statuses == [TaskStatus.SUCCESS]


def test_remove_observer_from_inside_a_callback(storage: fbstorage.Storage, emulator) -> None:
    storage.upload_chunk_size = SMALL_CHUNK
    slow_chunks(emulator, delay_ms=50)
    task = storage.reference("remove.bin").put_data(payload(SMALL_CHUNK * 4))
    calls_of_removed: list[int] = []
    every_progress = EventRecorder()
    handles: list[int] = []
    observing = threading.Event()

    def remove_myself(snapshot: fbstorage.TaskSnapshot) -> None:
        observing.wait(10)   # the first call may come before observe() returned the handle
        calls_of_removed.append(snapshot.bytes_transferred)
        snapshot.task.remove_observer(handles[0])

    handles.append(task.observe(TaskStatus.PROGRESS, remove_myself))
    observing.set()
    task.observe(TaskStatus.PROGRESS, every_progress)
    task.wait()
    assert len(calls_of_removed) == 1
    assert len(every_progress.snapshots) >= 2


def test_remove_all_observers(storage: fbstorage.Storage, emulator) -> None:
    # Delayed replies keep both tasks from progressing or ending before the removals.
    emulator.add_fault({"match": {"method": "POST"}, "times": 2, "action": {"delay_ms": 500}})
    storage.upload_chunk_size = SMALL_CHUNK
    slow_chunks(emulator, delay_ms=50)
    task = storage.reference("remove-all.bin").put_data(payload(SMALL_CHUNK * 4))
    progress, success = EventRecorder(), EventRecorder()
    task.observe(TaskStatus.PROGRESS, progress)
    task.observe(TaskStatus.SUCCESS, success)
    task.remove_all_observers(TaskStatus.PROGRESS)
    task.wait()
    assert progress.snapshots == []
    assert success.statuses == [TaskStatus.SUCCESS]

    other = storage.reference("remove-all-2.bin").put_data(b"abc")
    removed = EventRecorder()
    other.observe(TaskStatus.SUCCESS, removed)
    other.remove_all_observers()
    other.wait()
    assert removed.snapshots == []


def test_remove_observer_waits_for_the_running_callback(storage: fbstorage.Storage, emulator) -> None:
    # After remove_observer returns, the callback is neither running nor called again, so a C
    # caller may free its user_data.
    storage.upload_chunk_size = SMALL_CHUNK
    slow_chunks(emulator, delay_ms=50)
    task = storage.reference("remove-waits.bin").put_data(payload(SMALL_CHUNK * 4))
    started, calls, finished = threading.Event(), [], []

    def slow_observer(snapshot: fbstorage.TaskSnapshot) -> None:
        calls.append(snapshot.bytes_transferred)
        started.set()
        time.sleep(0.5)
        finished.append(len(calls))

    handle = task.observe(TaskStatus.PROGRESS, slow_observer)
    assert started.wait(10)
    task.remove_observer(handle)
    assert finished == [len(calls)]
    task.wait()
    assert len(calls) == len(finished) == 1


def test_exception_in_an_observer_is_reported_and_the_task_succeeds(storage: fbstorage.Storage) -> None:
    task = storage.reference("raises").put_data(b"payload")

    def broken(snapshot: fbstorage.TaskSnapshot) -> None:
        raise ValueError("boom in observer")

    after = EventRecorder()
    with pytest.warns(RuntimeWarning, match=r"(?s)observer .* for SUCCESS .*ValueError: boom in observer"):
        task.observe(TaskStatus.SUCCESS, broken)
        task.observe(TaskStatus.SUCCESS, after)
        metadata = task.wait()
    assert metadata is not None and metadata.size == 7
    assert after.statuses == [TaskStatus.SUCCESS]


def test_observing_a_finished_task_fires_only_its_final_status_once(storage: fbstorage.Storage) -> None:
    task = storage.reference("finished").put_data(b"done")
    task.wait()
    others, late, barrier = EventRecorder(), EventRecorder(), EventRecorder()
    for status in (TaskStatus.RESUME, TaskStatus.PROGRESS, TaskStatus.PAUSE, TaskStatus.FAILURE):
        task.observe(status, others)
    task.observe(TaskStatus.SUCCESS, late)
    task.observe(TaskStatus.SUCCESS, barrier)  # at-once calls run in order: the others had theirs
    barrier.wait_for(TaskStatus.SUCCESS)
    assert late.statuses == [TaskStatus.SUCCESS] and late.snapshots[0].metadata is not None
    assert others.statuses == []


def test_pause_and_resume_continue_where_the_server_is(storage: fbstorage.Storage, emulator) -> None:
    storage.upload_chunk_size = SMALL_CHUNK
    slow_chunks(emulator, delay_ms=100)
    data = payload(SMALL_CHUNK * 8)
    ref = storage.reference("paused.bin")
    task = ref.put_data(data)
    events = EventRecorder()
    events.observe_all(task)
    assert eventually(lambda: task.snapshot.bytes_transferred >= 2 * SMALL_CHUNK)
    task.pause()
    paused = events.wait_for(TaskStatus.PAUSE)
    assert task.snapshot.status == TaskStatus.PAUSE
    time.sleep(0.4)
    assert task.snapshot.bytes_transferred == paused.bytes_transferred  # nothing moves
    task.resume()
    task.wait()
    assert ref.get_data() == data
    statuses = events.statuses
    assert statuses.index(TaskStatus.PAUSE) < len(statuses) - 1 - statuses[::-1].index(TaskStatus.RESUME)
    offsets = [int(header(entry, "X-Goog-Upload-Offset")) for entry in upload_chunk_requests(emulator)]
    assert offsets.count(0) == 1, offsets  # never re-sent from the start
    assert sum(e["body_size"] for e in upload_chunk_requests(emulator)) < 2 * len(data)


def test_wait_times_out_while_paused(storage: fbstorage.Storage, emulator) -> None:
    storage.upload_chunk_size = SMALL_CHUNK
    slow_chunks(emulator)
    task = storage.reference("timeout.bin").put_data(payload(SMALL_CHUNK * 4))
    task.pause()
    started = time.monotonic()
    with pytest.raises(TimeoutError) as raised:  # the builtin
        task.wait(timeout=0.5)
    assert 0.4 < time.monotonic() - started < 5
    assert type(raised.value) is fbstorage.StorageTimeoutError
    assert raised.value.code == StorageErrorCode.TIMEOUT
    assert "has not finished after 0.5 s" in str(raised.value)
    with pytest.raises(StorageError) as as_storage_error:  # one except clause for every failure
        task.wait(timeout=0)
    assert as_storage_error.value.code == StorageErrorCode.TIMEOUT
    task.resume()
    assert task.wait(timeout=60) is not None


def test_cancel(storage: fbstorage.Storage, emulator) -> None:
    storage.upload_chunk_size = SMALL_CHUNK
    slow_chunks(emulator)
    ref = storage.reference("cancelled.bin")
    task = ref.put_data(payload(SMALL_CHUNK * 8))
    events = EventRecorder()
    task.observe(TaskStatus.FAILURE, events)
    assert eventually(lambda: task.snapshot.bytes_transferred > 0)
    task.cancel()
    with pytest.raises(StorageError) as raised:
        task.wait()
    assert raised.value.code == StorageErrorCode.CANCELLED
    failure = events.wait_for(TaskStatus.FAILURE)
    assert failure.error is not None and failure.error.code == StorageErrorCode.CANCELLED
    assert task.snapshot.status == TaskStatus.FAILURE
    task.cancel()  # a finished task ignores it
    with pytest.raises(StorageError) as raised:
        ref.get_metadata()
    assert raised.value.code == StorageErrorCode.OBJECT_NOT_FOUND


def test_wait_on_the_callback_thread_is_refused(storage: fbstorage.Storage, emulator) -> None:
    storage.upload_chunk_size = SMALL_CHUNK
    slow_chunks(emulator)
    task = storage.reference("wait-inside.bin").put_data(payload(SMALL_CHUNK * 3))
    outcome: list[BaseException] = []

    def wait_inside(snapshot: fbstorage.TaskSnapshot) -> None:
        if not outcome:
            try:
                snapshot.task.wait()
            except BaseException as error:  # noqa: BLE001 - recorded for the assertion
                outcome.append(error)

    task.observe(TaskStatus.PROGRESS, wait_inside)
    task.wait()
    assert len(outcome) == 1
    assert isinstance(outcome[0], StorageError)
    assert outcome[0].code == StorageErrorCode.INVALID_ARGUMENT


def test_observers_can_start_other_uploads(storage: fbstorage.Storage) -> None:
    follow_ups: list[fbstorage.UploadTask] = []
    first = storage.reference("chain/1").put_data(b"one")
    first.observe(TaskStatus.SUCCESS, lambda s: follow_ups.append(storage.reference("chain/2").put_data(b"two")))
    first.wait()
    assert eventually(lambda: len(follow_ups) == 1)
    follow_ups[0].wait()
    assert storage.reference("chain/2").get_data() == b"two"


def test_observers_fire_after_the_task_object_is_dropped(storage: fbstorage.Storage) -> None:
    done = threading.Event()
    task = storage.reference("dropped").put_data(payload(100_000))
    task.observe(TaskStatus.SUCCESS, lambda snapshot: done.set())
    del task
    gc.collect()
    assert done.wait(30)


def test_finished_tasks_are_released(storage: fbstorage.Storage) -> None:
    task = storage.reference("released").put_data(b"abc")
    task.observe(TaskStatus.SUCCESS, lambda snapshot: None)
    task.wait()
    collected = weakref.ref(task)
    del task
    gc.collect()
    assert collected() is None


def test_task_repr_and_reference(storage: fbstorage.Storage) -> None:
    ref = storage.reference("repr")
    task = ref.put_data(b"")
    assert task.reference is ref
    assert repr(task) == "<UploadTask gs://test-bucket/repr>"
    task.wait()


@pytest.mark.parametrize("status", [TaskStatus.UNKNOWN, 6, -1])
def test_observing_an_invalid_status_is_an_invalid_argument(storage: fbstorage.Storage, status: int) -> None:
    task = storage.reference("bad-status").put_data(b"x")
    with pytest.raises(StorageError) as raised:
        task.observe(status, lambda snapshot: None)
    assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT
    task.wait()


def test_observe_argument_types(storage: fbstorage.Storage) -> None:
    task = storage.reference("types").put_data(b"x")
    with pytest.raises(TypeError):
        task.observe(TaskStatus.SUCCESS, "not callable")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        task.observe("SUCCESS", lambda snapshot: None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        task.remove_observer("1")  # type: ignore[arg-type]
    task.wait()


def test_ctrl_c_interrupts_wait(emulator) -> None:
    import os
    import signal
    import subprocess
    import sys

    script = (
        "import fbstorage\n"
        f"storage = fbstorage.Storage('test-bucket'); storage.use_emulator('{emulator.host}', {emulator.port})\n"
        f"storage.upload_chunk_size = {SMALL_CHUNK}\n"
        f"task = storage.reference('interrupted').put_data(bytes({SMALL_CHUNK * 4}))\n"
        "task.pause()\n"
        "print('waiting', flush=True)\n"
        "try:\n    task.wait()\nexcept KeyboardInterrupt:\n    print('interrupted', flush=True)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "waiting"
    time.sleep(0.3)
    started = time.monotonic()
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=30)
    assert output.strip() == "interrupted"
    assert time.monotonic() - started < 2
