"""fbstorage.aio against the emulator (both flavors): coroutines, awaitable tasks, events on the loop."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, AsyncIterator

import pytest
import pytest_asyncio

import fbstorage
import fbstorage.aio
from conftest import SMALL_CHUNK, header, payload, slow_chunks
from fbstorage import StorageError, StorageErrorCode, StorageMetadata, TaskStatus

if TYPE_CHECKING:
    from fbstorage.testing import EmulatorServer

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture
async def storage(emulator: EmulatorServer) -> AsyncIterator[fbstorage.aio.Storage]:
    """An asyncio Storage for "test-bucket" on the (reset) emulator."""
    emulator.reset()
    async with fbstorage.aio.Storage("test-bucket") as opened:
        opened.use_emulator(emulator.host, emulator.port)
        yield opened


async def resumable_upload(storage: fbstorage.aio.Storage, emulator: EmulatorServer,
                           size: int = 8 * SMALL_CHUNK) -> fbstorage.aio.UploadTask:
    """An upload of several slowed-down chunks, still running when this returns."""
    storage.upload_chunk_size = SMALL_CHUNK
    slow_chunks(emulator)
    return storage.reference("slow.bin").put_data(payload(size))


async def first(task: fbstorage.aio.StorageTask, status: TaskStatus) -> fbstorage.TaskSnapshot:
    """The task's first event of ``status`` (observing it from now on)."""
    async for snapshot in task.progress():
        if snapshot.status == status:
            return snapshot
    raise AssertionError(f"{task} ended without {status.name}")


async def test_operations_are_coroutines(storage: fbstorage.aio.Storage) -> None:
    ref = storage.reference("docs/readme.txt")
    uploaded = await ref.put_data(b"hello", StorageMetadata(content_type="text/plain"))
    assert (uploaded.size, uploaded.full_path, uploaded.content_type) == (5, "docs/readme.txt",
                                                                          "text/plain")
    assert await ref.get_data() == b"hello"
    assert (await ref.get_metadata()).md5_hash == uploaded.md5_hash
    updated = await ref.update_metadata(cache_control="no-cache", custom_metadata={"k": "v"})
    assert (updated.cache_control, updated.custom_metadata) == ("no-cache", {"k": "v"})
    url = await ref.download_url()
    assert "/v0/b/test-bucket/o/docs%2Freadme.txt?alt=media&token=" in url
    await ref.delete()
    with pytest.raises(StorageError) as failure:
        await ref.get_metadata()
    assert failure.value.code == StorageErrorCode.OBJECT_NOT_FOUND
    assert failure.value.http_status == 404


async def test_get_data_refuses_an_object_above_max_size(storage: fbstorage.aio.Storage) -> None:
    ref = storage.reference("big")
    await ref.put_data(b"x" * 100)
    with pytest.raises(StorageError) as failure:
        await ref.get_data(max_size=99)
    assert failure.value.code == StorageErrorCode.DOWNLOAD_SIZE_EXCEEDED
    assert await ref.get_data(max_size=100) == b"x" * 100


async def test_listing_gives_asyncio_references(storage: fbstorage.aio.Storage) -> None:
    folder = storage.reference("folder")
    await asyncio.gather(*(folder.child(f"{index:02d}").put_data(b"x") for index in range(5)),
                         folder.child("sub/leaf").put_data(b"y"))
    page = await folder.list(max_results=2)
    assert [ref.name for ref in page.items] == ["00", "01"] and page.page_token
    rest = await folder.list(max_results=10, page_token=page.page_token)
    assert [ref.name for ref in rest.items] == ["02", "03", "04"]
    everything = await folder.list_all()
    assert [ref.full_path for ref in everything.prefixes] == ["folder/sub"]
    assert len(everything.items) == 5 and everything.page_token is None
    # Listed references are asyncio references, usable at once.
    assert isinstance(everything.items[0], fbstorage.aio.StorageReference)
    assert await everything.items[3].get_data() == b"x"
    assert await everything.prefixes[0].child("leaf").get_data() == b"y"


async def test_a_refused_operation_raises_at_once(storage: fbstorage.aio.Storage) -> None:
    with pytest.raises(StorageError) as failure:
        await storage.reference("folder").list(max_results=1001)
    assert failure.value.code == StorageErrorCode.INVALID_ARGUMENT
    with pytest.raises(TypeError):
        storage.reference("x").put_data("not bytes")  # type: ignore[arg-type]


async def test_files_up_and_down(storage: fbstorage.aio.Storage, tmp_path) -> None:
    data = payload(3 * SMALL_CHUNK + 5)
    source, target = tmp_path / "up.bin", tmp_path / "down.bin"
    source.write_bytes(data)
    storage.upload_chunk_size = SMALL_CHUNK
    ref = storage.reference("files/up.bin")
    metadata = await ref.put_file(source)
    assert metadata.size == len(data)
    download = ref.write_to_file(target)
    assert isinstance(download, fbstorage.aio.DownloadTask)
    await download
    assert target.read_bytes() == data


async def test_progress_is_an_async_iterator_that_ends_with_the_outcome(
        storage: fbstorage.aio.Storage) -> None:
    storage.upload_chunk_size = SMALL_CHUNK
    size = 4 * SMALL_CHUNK
    task = storage.reference("progress.bin").put_data(payload(size))
    snapshots = [snapshot async for snapshot in task.progress()]
    statuses = [snapshot.status for snapshot in snapshots]
    assert statuses[0] == TaskStatus.RESUME and statuses[-1] == TaskStatus.SUCCESS
    assert TaskStatus.PROGRESS in statuses and TaskStatus.FAILURE not in statuses
    transferred = [snapshot.bytes_transferred for snapshot in snapshots]
    assert transferred == sorted(transferred) and transferred[-1] == size
    assert (await task).size == size  # the outcome is there at once
    # A late iterator sees the final status once, and ends.
    assert [s.status async for s in task.progress()] == [TaskStatus.SUCCESS]


async def test_observers_run_on_the_event_loop(storage: fbstorage.aio.Storage) -> None:
    storage.upload_chunk_size = SMALL_CHUNK
    task = storage.reference("observed.bin").put_data(payload(4 * SMALL_CHUNK))
    loop_thread = threading.get_ident()
    seen: list[tuple[TaskStatus, bool]] = []
    task.observe(TaskStatus.PROGRESS, lambda s: seen.append((s.status, threading.get_ident() == loop_thread)))
    removed = task.observe(TaskStatus.PROGRESS, lambda s: seen.append((TaskStatus.UNKNOWN, False)))
    task.remove_observer(removed)
    finished = asyncio.Event()
    task.observe(TaskStatus.SUCCESS, lambda s: finished.set())
    await task
    await finished.wait()
    assert seen and all(status == TaskStatus.PROGRESS and on_loop for status, on_loop in seen)


async def test_pause_and_resume(storage: fbstorage.aio.Storage, emulator: EmulatorServer) -> None:
    task = await resumable_upload(storage, emulator)
    events = task.progress()
    async for snapshot in events:
        if snapshot.status == TaskStatus.PROGRESS:
            task.pause()
        elif snapshot.status == TaskStatus.PAUSE:
            paused_at = snapshot.bytes_transferred
            task.resume()
            break
    assert 0 < paused_at < 8 * SMALL_CHUNK
    assert await first(task, TaskStatus.SUCCESS)
    assert (await task).size == 8 * SMALL_CHUNK


async def test_cancelling_the_awaiting_coroutine_cancels_the_task(
        storage: fbstorage.aio.Storage, emulator: EmulatorServer) -> None:
    task = await resumable_upload(storage, emulator)
    waiter = asyncio.ensure_future(task)  # a coroutine awaiting the task
    await first(task, TaskStatus.PROGRESS)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    with pytest.raises(StorageError) as failure:
        await task
    assert failure.value.code == StorageErrorCode.CANCELLED
    assert task.snapshot.status == TaskStatus.FAILURE


async def test_cancel_ends_the_task(storage: fbstorage.aio.Storage, emulator: EmulatorServer) -> None:
    task = await resumable_upload(storage, emulator)
    await first(task, TaskStatus.PROGRESS)
    task.cancel()
    failure = await first(task, TaskStatus.FAILURE)
    assert failure.error is not None and failure.error.code == StorageErrorCode.CANCELLED
    assert task.done()


async def test_close_cancels_running_tasks(emulator: EmulatorServer) -> None:
    emulator.reset()
    storage = fbstorage.aio.Storage("test-bucket")
    storage.use_emulator(emulator.host, emulator.port)
    task = await resumable_upload(storage, emulator)
    await first(task, TaskStatus.PROGRESS)
    await storage.close()
    assert storage.closed and task.done()
    with pytest.raises(StorageError) as failure:
        await task
    assert failure.value.code == StorageErrorCode.CANCELLED
    with pytest.raises(StorageError):
        storage.reference("x")


def upload_commands(emulator: EmulatorServer) -> list[str | None]:
    return [header(entry, "X-Goog-Upload-Command") for entry in emulator.requests()]


def slow_file_upload(storage: fbstorage.aio.Storage, emulator: EmulatorServer,
                     source: Path) -> fbstorage.aio.UploadTask:
    """An upload of eight slowed-down chunks from ``source``, still running when this returns."""
    source.write_bytes(payload(8 * SMALL_CHUNK))
    storage.upload_chunk_size = SMALL_CHUNK
    slow_chunks(emulator, delay_ms=200)
    return storage.reference("slow.bin").put_file(source)


async def resume_elsewhere(emulator: EmulatorServer, session: str, source: Path) -> None:
    """Finishes the kept session from another storage: it continues, it does not start over."""
    emulator.clear_faults()
    async with fbstorage.aio.Storage("test-bucket") as again:
        again.use_emulator(emulator.host, emulator.port)
        await again.reference("slow.bin").put_file_resuming(source, session)
        assert await again.reference("slow.bin").get_data() == source.read_bytes()
    assert upload_commands(emulator).count("start") == 1, "the upload started over instead of resuming"


async def test_close_keep_sessions_stops_uploads_and_keeps_them_resumable(
        emulator: EmulatorServer, tmp_path: Path) -> None:
    emulator.reset()
    storage = fbstorage.aio.Storage("test-bucket", close_mode=fbstorage.CloseMode.KEEP_SESSIONS)
    storage.use_emulator(emulator.host, emulator.port)
    task = slow_file_upload(storage, emulator, tmp_path / "slow.bin")
    storage.max_running_tasks = 1
    waiting = storage.reference("never.bin").put_data(b"x")
    failures: list[tuple[fbstorage.TaskSnapshot, str | None]] = []
    task.observe(TaskStatus.FAILURE, lambda snapshot: failures.append((snapshot, task.upload_session)))
    await first(task, TaskStatus.PROGRESS)
    async with asyncio.timeout(10):
        await storage.close()
    assert storage.closed and task.done() and waiting.done()
    [(ending, session)] = failures  # the observer ran before close returned, and could keep the session
    assert "session was kept" in str(ending.error)
    assert session is not None and task.upload_session == session
    for ended in (task, waiting):
        with pytest.raises(StorageError) as failure:
            await ended
        assert failure.value.code == StorageErrorCode.CANCELLED
    emulator.wait_idle()
    assert "cancel" not in upload_commands(emulator)
    assert not any("never.bin" in entry["query"] for entry in emulator.requests())  # never started
    await resume_elsewhere(emulator, session, tmp_path / "slow.bin")


async def test_close_finish_lets_tasks_end_then_keeps_sessions(emulator: EmulatorServer, tmp_path: Path) -> None:
    emulator.reset()
    async with fbstorage.aio.Storage("test-bucket", close_mode=fbstorage.CloseMode.FINISH,
                                     close_timeout=60) as storage:
        storage.use_emulator(emulator.host, emulator.port)
        storage.max_running_tasks = 1
        finished = await resumable_upload(storage, emulator, size=3 * SMALL_CHUNK)
        queued = storage.reference("queued").put_data(b"queued")  # runs once the first is over
    assert (await finished).size == 3 * SMALL_CHUNK and (await queued).size == 6
    emulator.reset()
    storage = fbstorage.aio.Storage("test-bucket")
    storage.use_emulator(emulator.host, emulator.port)
    task = slow_file_upload(storage, emulator, tmp_path / "slow.bin")
    await first(task, TaskStatus.PROGRESS)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await storage.close(fbstorage.CloseMode.FINISH, timeout=0.5)  # too short for 8 slow chunks
    assert 0.4 <= loop.time() - started < 5
    with pytest.raises(StorageError) as failure:
        await task
    assert failure.value.code == StorageErrorCode.CANCELLED
    session = task.upload_session
    assert session is not None
    await resume_elsewhere(emulator, session, tmp_path / "slow.bin")


async def test_close_mode_is_checked() -> None:
    with pytest.raises(ValueError):
        fbstorage.aio.Storage("test-bucket", close_mode=7)  # type: ignore[arg-type]
    with pytest.raises((TypeError, ValueError)):
        fbstorage.aio.Storage("test-bucket", close_timeout="soon")  # type: ignore[arg-type]


def native_threads() -> int:
    return len(os.listdir("/proc/self/task"))


async def test_many_concurrent_uploads_take_no_thread_each(storage: fbstorage.aio.Storage) -> None:
    root = storage.reference("many")
    await root.child("warm-up").put_data(b"")  # the storage's own threads are running now
    threads = native_threads()
    tasks = [root.child(f"{index:03d}").put_data(payload(64)) for index in range(200)]
    during = native_threads()
    sizes = [metadata.size for metadata in await asyncio.gather(*tasks)]
    assert sizes == [64] * 200
    assert during <= threads and native_threads() <= threads
    assert len((await root.list_all()).items) == 201


async def test_tasks_need_a_running_loop(emulator: EmulatorServer) -> None:
    emulator.reset()
    storage = fbstorage.aio.Storage("test-bucket")
    storage.use_emulator(emulator.host, emulator.port)
    try:
        reference = storage.reference("never-started")
        outside = await asyncio.get_running_loop().run_in_executor(
            None, lambda: _start_outside_a_loop(reference))
        assert isinstance(outside, RuntimeError)
        await reference.list_all()  # a round trip, after which an upload would be logged
        # Only this test's object: an earlier test's closed storage may still be cancelling.
        requests = [entry for entry in emulator.requests() if "never-started" in entry["query"]]
        assert [entry["method"] for entry in requests] == ["GET"]
    finally:
        await storage.close()


def _start_outside_a_loop(reference: fbstorage.aio.StorageReference) -> BaseException | None:
    try:
        reference.put_data(b"x")
    except RuntimeError as error:
        return error
    return None


async def test_tasks_beyond_max_running_tasks_wait_their_turn(
        storage: fbstorage.aio.Storage, emulator: EmulatorServer) -> None:
    storage.max_running_tasks = 1
    running = await resumable_upload(storage, emulator)
    data = bytearray(b"waiting")
    waiting = storage.reference("waiting").put_data(data)
    data[:] = b"changed"  # copied at the call
    assert waiting.sync is None and waiting.snapshot.status == TaskStatus.UNKNOWN
    events: list[TaskStatus] = []
    waiting.observe(TaskStatus.RESUME, lambda s: events.append(s.status))
    waiting.observe(TaskStatus.SUCCESS, lambda s: events.append(s.status))
    assert (await waiting).size == 7
    assert running.done()  # the waiting task started after the running one ended
    assert events == [TaskStatus.RESUME, TaskStatus.SUCCESS]
    assert await storage.reference("waiting").get_data() == b"waiting"


async def test_resume_observers_see_the_start_of_a_task_over_before_they_were_attached(
        storage: fbstorage.aio.Storage, emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # A small upload can end between the library starting it and its waiting observers being
    # attached: hold each attachment until the native task is over to make that happen every time.
    attach = fbstorage.aio.StorageTask._observe_natively

    def attach_after_the_end(task: fbstorage.aio.StorageTask, key: int, status: TaskStatus) -> None:
        assert task.sync is not None
        task.sync.wait()
        attach(task, key, status)

    monkeypatch.setattr(fbstorage.aio.StorageTask, "_observe_natively", attach_after_the_end)
    storage.max_running_tasks = 1
    running = await resumable_upload(storage, emulator)
    waiting = storage.reference("waiting").put_data(b"waiting")
    events: list[tuple[TaskStatus, int]] = []
    waiting.observe(TaskStatus.RESUME, lambda s: events.append((s.status, s.bytes_transferred)))
    waiting.observe(TaskStatus.SUCCESS, lambda s: events.append((s.status, s.bytes_transferred)))
    await running
    await waiting
    assert events == [(TaskStatus.RESUME, 0), (TaskStatus.SUCCESS, 7)]


async def test_cancelling_a_waiting_task_fails_it(storage: fbstorage.aio.Storage,
                                                  emulator: EmulatorServer) -> None:
    storage.max_running_tasks = 1
    running = await resumable_upload(storage, emulator)
    waiting = storage.reference("never").put_data(b"x")
    failures: asyncio.Queue[fbstorage.TaskSnapshot] = asyncio.Queue()
    waiting.observe(TaskStatus.FAILURE, failures.put_nowait)
    waiting.cancel()
    with pytest.raises(StorageError) as failure:
        await waiting
    assert failure.value.code == StorageErrorCode.CANCELLED
    assert not running.done()  # it was not waited for
    observed = await asyncio.wait_for(failures.get(), 30)
    assert observed.error is not None and observed.error.code == StorageErrorCode.CANCELLED
    with pytest.raises(ValueError):
        storage.max_running_tasks = 0


async def test_a_failing_observer_is_reported_to_the_loop(storage: fbstorage.aio.Storage) -> None:
    reported: list[dict] = []
    asyncio.get_running_loop().set_exception_handler(lambda loop, context: reported.append(context))

    def broken(snapshot: fbstorage.TaskSnapshot) -> None:
        raise RuntimeError("observer bug")

    task = storage.reference("observed").put_data(b"x")
    task.observe(TaskStatus.SUCCESS, broken)
    assert (await task).size == 1  # the task's outcome still arrives
    assert [type(context["exception"]) for context in reported] == [RuntimeError]


async def test_ranges_and_async_iteration(storage: fbstorage.aio.Storage) -> None:
    data = os.urandom(3 * 1024 * 1024 + 1)
    ref = storage.reference("streams/aio.bin")
    await ref.put_data(data)
    assert await ref.get_data(start=5, end=500) == data[5:500]
    assert await ref.get_data(start=-7) == data[-7:]
    with pytest.raises(StorageError) as raised:
        await ref.get_data(start=len(data), end=len(data) + 1)
    assert raised.value.code == StorageErrorCode.RANGE_NOT_SATISFIABLE
    blocks = [block async for block in ref.iter_bytes(1024 * 1024)]
    assert [len(block) for block in blocks] == [1024 * 1024] * 3 + [1]
    assert b"".join(blocks) == data
    async for block in ref.iter_bytes(64 * 1024, start=1000):  # leaving early cancels the download
        assert block == data[1000:1000 + 64 * 1024]
        break


async def test_a_pause_from_a_progress_observer_takes_effect_before_a_download_ends(
        storage: fbstorage.aio.Storage, emulator: EmulatorServer, tmp_path: Path) -> None:
    # The observer runs on the loop while the library waits for it: its pause() reaches the
    # download before the end, however fast the last bytes came (PAUSE even after the last one).
    # Each download's request is held 300 ms, so that its observers are there before any byte.
    data = payload(1024 * 1024)
    ref = storage.reference("hold/1mb.bin")
    await ref.put_data(data)
    loop = asyncio.get_running_loop()
    ended_first = []
    for attempt in range(30):
        emulator.add_fault({"match": {"method": "GET", "path_prefix": "/v0/b/test-bucket/o/hold%2F1mb.bin"},
                            "times": 1, "action": {"delay_ms": 300}})
        task = ref.write_to_file(tmp_path / f"{attempt}.bin")
        paused: asyncio.Future[fbstorage.TaskSnapshot] = loop.create_future()
        pausing: list[int] = []

        def pause_past_256_kib(snapshot: fbstorage.TaskSnapshot, task=task, pausing=pausing) -> None:
            if not pausing and snapshot.bytes_transferred > 256 * 1024:
                pausing.append(snapshot.bytes_transferred)
                task.pause()

        task.observe(TaskStatus.PROGRESS, pause_past_256_kib)
        task.observe(TaskStatus.PAUSE, lambda snapshot, paused=paused: paused.done() or paused.set_result(snapshot))
        outcome = asyncio.ensure_future(asyncio.shield(task._outcome))
        await asyncio.wait([paused, outcome], timeout=30, return_when=asyncio.FIRST_COMPLETED)
        if not paused.done():
            ended_first.append((attempt, pausing, outcome.done()))
            continue
        assert pausing and paused.result().bytes_transferred >= pausing[0]
        task.resume()
        await task
        assert (tmp_path / f"{attempt}.bin").read_bytes() == data
    assert ended_first == []


async def test_no_progress_reaches_the_loop_after_the_end(storage: fbstorage.aio.Storage) -> None:
    # 300 small uploads, 100 at a time: each task's observers run PROGRESS before SUCCESS, and
    # `await task` returns after them all.
    wrong = []

    async def upload(index: int) -> None:
        events: list[TaskStatus] = []
        task = storage.reference(f"order/{index}").put_data(b"x" * 17)
        for status in (TaskStatus.PROGRESS, TaskStatus.SUCCESS):
            task.observe(status, lambda snapshot: events.append(snapshot.status))
        await task
        if events.count(TaskStatus.SUCCESS) != 1 or events[-1] != TaskStatus.SUCCESS:
            wrong.append((index, events))

    for batch in range(3):
        await asyncio.gather(*(upload(batch * 100 + index) for index in range(100)))
    assert wrong == []
