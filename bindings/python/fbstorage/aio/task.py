"""Upload and download tasks for asyncio: awaitable, observable, pausable, cancellable."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Generator

from .. import task as sync_task
from ..errors import StorageError
from ..metadata import StorageMetadata
from ..task import TaskSnapshot, TaskStatus
from ._completion import call_soon_threadsafe, settle_threadsafe

if TYPE_CHECKING:
    from .reference import StorageReference

_TERMINAL = (TaskStatus.SUCCESS, TaskStatus.FAILURE)
_EVENTS = (TaskStatus.RESUME, TaskStatus.PROGRESS, TaskStatus.PAUSE) + _TERMINAL

Observer = Callable[[TaskSnapshot], object]


def _consume_outcome(future: asyncio.Future[Any]) -> None:
    """Marks a failed outcome as seen: a task's failure is reported by awaiting it or by its
    snapshot, never as asyncio's "exception was never retrieved" when nobody awaited it."""
    if not future.cancelled():
        future.exception()


class StorageTask:
    """An upload or a download running in the library, for asyncio code.

    ``await task`` gives the object's metadata or raises :class:`fbstorage.StorageError`;
    cancelling the coroutine that awaits it cancels the task. Observers and :meth:`progress`
    deliver the task's events on the event loop. The transfer itself runs on the library's
    threads: the loop is never blocked.

    Create tasks with the methods of :class:`fbstorage.aio.StorageReference`, inside a
    running event loop.
    """

    def __init__(self, task: sync_task.StorageTask, reference: StorageReference) -> None:
        self._task = task
        self._reference = reference
        self._loop = asyncio.get_running_loop()
        self._outcome: asyncio.Future[StorageMetadata | None] = self._loop.create_future()
        self._outcome.add_done_callback(_consume_outcome)
        self._observers: dict[int, tuple[TaskStatus, Observer]] = {}
        self._native_observers: dict[int, int] = {}  # key in _observers -> handle of the sync task
        self._keys = itertools.count(1)
        loop, outcome = self._loop, self._outcome
        task.observe(
            TaskStatus.SUCCESS, lambda snapshot: settle_threadsafe(loop, outcome, snapshot.metadata)
        )
        task.observe(
            TaskStatus.FAILURE,
            lambda snapshot: settle_threadsafe(loop, outcome, error=snapshot.error),
        )
        reference.storage._adopt(self)

    @property
    def sync(self) -> sync_task.StorageTask:
        """The underlying :class:`fbstorage.StorageTask`."""
        return self._task

    @property
    def reference(self) -> StorageReference:
        """The reference the task uploads to or downloads from."""
        return self._reference

    @property
    def snapshot(self) -> TaskSnapshot:
        """The task's latest state."""
        return self._task.snapshot

    def done(self) -> bool:
        """True once the task's outcome (SUCCESS or FAILURE) has reached the event loop."""
        return self._outcome.done()

    def pause(self) -> None:
        """Stops sending or receiving within ~100 ms (PAUSE event)."""
        self._task.pause()

    def resume(self) -> None:
        """Continues a paused task from where the server is (RESUME event)."""
        self._task.resume()

    def cancel(self) -> None:
        """Ends the task with FAILURE / StorageErrorCode.CANCELLED."""
        self._task.cancel()

    def __await__(self) -> Generator[Any, None, StorageMetadata | None]:
        return self._wait().__await__()

    async def _wait(self) -> StorageMetadata | None:
        try:
            # Shielded: one awaiter's cancellation must not cancel the future others await.
            return await asyncio.shield(self._outcome)
        except asyncio.CancelledError:
            if not self._outcome.done():
                self._task.cancel()
            raise

    # -- events on the loop ------------------------------------------------------------------
    def observe(self, status: TaskStatus | int, observer: Observer) -> int:
        """Calls ``observer(snapshot)`` on the event loop at every event ``status``; returns a
        handle for :meth:`remove_observer`. If the task is in that status already, the
        observer also runs once soon. An exception in it goes to the loop's exception
        handler."""
        if not callable(observer):
            raise TypeError(f"observer must be callable, not {type(observer).__name__}")
        key = next(self._keys)
        loop, dispatch = self._loop, self._dispatch
        self._observers[key] = (TaskStatus(status), observer)
        try:
            self._native_observers[key] = self._task.observe(
                status, lambda snapshot: call_soon_threadsafe(loop, dispatch, key, snapshot)
            )
        except BaseException:
            del self._observers[key]
            raise
        return key

    def _dispatch(self, key: int, snapshot: TaskSnapshot) -> None:
        """Runs on the loop: calls the observer ``key`` unless it was removed meanwhile."""
        entry = self._observers.get(key)
        if entry is not None:
            entry[1](snapshot)

    def remove_observer(self, handle: int) -> None:
        """Removes one observer, by the handle :meth:`observe` returned; it is not called
        again, even for events already on their way to the loop."""
        self._observers.pop(handle, None)
        native = self._native_observers.pop(handle, None)
        if native is not None:
            with contextlib.suppress(StorageError):  # the task has ended: nothing to remove
                self._task.remove_observer(native)

    def remove_all_observers(self, status: TaskStatus | int | None = None) -> None:
        """Removes every observer added with :meth:`observe`, or only those of ``status``."""
        for key, (observed, _) in list(self._observers.items()):
            if status is None or observed == status:
                self.remove_observer(key)

    async def progress(self) -> AsyncIterator[TaskSnapshot]:
        """Every event of the task from now on, as an async iterator: RESUME, PROGRESS and
        PAUSE snapshots, then the SUCCESS or FAILURE snapshot, after which it ends (await
        the task for its outcome). The current state comes first when the task is in one
        of these statuses already."""
        if self.done():  # only the final status is left to see
            yield self.snapshot
            return
        queue: asyncio.Queue[TaskSnapshot] = asyncio.Queue()
        handles = [self.observe(status, queue.put_nowait) for status in _EVENTS]
        try:
            while True:
                snapshot = await queue.get()
                yield snapshot
                if snapshot.status in _TERMINAL:
                    return
        finally:
            for handle in handles:
                self.remove_observer(handle)

    def __repr__(self) -> str:
        return f"<fbstorage.aio.{type(self).__name__} {self._reference}>"


class UploadTask(StorageTask):
    """An upload started by put_data(), put_file() or put_file_resuming()."""

    _task: sync_task.UploadTask

    @property
    def upload_session(self) -> str | None:
        """The resumable session to persist for put_file_resuming(), or None while there is
        none (see :attr:`fbstorage.UploadTask.upload_session`)."""
        return self._task.upload_session


class DownloadTask(StorageTask):
    """A download started by write_to_file()."""
