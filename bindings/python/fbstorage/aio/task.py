"""Upload and download tasks for asyncio: awaitable, observable, pausable, cancellable."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import threading
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Generator

from .. import task as sync_task
from ..errors import StorageError, StorageErrorCode
from ..metadata import StorageMetadata
from ..task import TaskSnapshot, TaskStatus
from ._completion import call_soon_threadsafe

if TYPE_CHECKING:
    from .reference import StorageReference

_TERMINAL = (TaskStatus.SUCCESS, TaskStatus.FAILURE)
#: How often a held PROGRESS event checks that its loop was not closed meanwhile.
_HOLD_CHECK_SECONDS = 0.1
_EVENTS = (TaskStatus.RESUME, TaskStatus.PROGRESS, TaskStatus.PAUSE) + _TERMINAL

Observer = Callable[[TaskSnapshot], object]


def _consume_outcome(future: asyncio.Future[Any]) -> None:
    """Marks a failed outcome as seen: a task's failure is reported by awaiting it or by its
    snapshot, never as asyncio's "exception was never retrieved" when nobody awaited it."""
    if not future.cancelled():
        future.exception()


class StorageTask:
    """An upload or a download run by the library, for asyncio code.

    ``await task`` gives the object's metadata (downloads: None unless known) or raises
    :class:`fbstorage.StorageError`; cancelling the coroutine that awaits it cancels the
    task. Observers and :meth:`progress` deliver the task's events on the event loop. The
    transfer runs on the library's threads: the loop is never blocked.

    A storage runs at most ``Storage.max_running_tasks`` tasks at once; the others wait for
    their turn in order (status UNKNOWN, no bytes moved). Create tasks with the methods of
    :class:`fbstorage.aio.StorageReference`, inside a running event loop.
    """

    def __init__(self, start: Callable[[], sync_task.StorageTask], reference: StorageReference) -> None:
        """A task that ``start()`` starts in the library when its turn comes (internal)."""
        self._start = start
        self._task: sync_task.StorageTask | None = None
        self._reference = reference
        self._loop = asyncio.get_running_loop()
        self._outcome: asyncio.Future[StorageMetadata | None] = self._loop.create_future()
        self._outcome.add_done_callback(_consume_outcome)
        self._observers: dict[int, tuple[TaskStatus, Observer]] = {}
        self._native_observers: dict[int, int] = {}  # key in _observers -> handle of the sync task
        self._resumed: set[int] = set()  # RESUME observers that ran
        # PROGRESS events handed to the loop whose observer has not returned yet, by key: the
        # library's callback thread waits for each (see _relay_holding_end).
        self._holds: dict[int, set[threading.Event]] = {}
        self._holds_lock = threading.Lock()
        self._keys = itertools.count(1)
        self._paused = False  # pause() before the start
        reference.storage._schedule(self)

    def _begin(self) -> None:
        """Starts the task in the library (its turn has come); observers given meanwhile
        start observing it."""
        try:
            task = self._task = self._start()
        except BaseException as error:  # e.g. the file went away while the task waited
            self._outcome.set_exception(error)
            return
        for status in _TERMINAL:
            task.observe(status, self._ended)
        for key, (status, _) in self._observers.items():
            if status not in _TERMINAL:
                self._observe_natively(key, status)
        if self._paused:
            task.pause()

    def _ended(self, snapshot: TaskSnapshot) -> None:
        """Runs on the library's thread at the task's end, before a closing storage releases the
        task: hands the end to the loop."""
        call_soon_threadsafe(self._loop, self._finish, snapshot)

    def _finish(self, snapshot: TaskSnapshot) -> None:
        """Runs on the loop at the task's end: its SUCCESS or FAILURE observers, then the
        outcome (so that ``await task`` returns after them, as the sync wait() does).

        Every task that started resumed once. A task that ended before its RESUME observers
        were attached to it (they are attached just after the library starts it, and a small
        upload can be over by then) never showed them its start; they see it here, first.
        (The library delivers a RESUME owed at once ahead of the task's end, and this loop keeps
        that order, so an observer that has not run yet never will.)"""
        if self._task is not None:
            started = dataclasses.replace(snapshot, status=TaskStatus.RESUME, bytes_transferred=0, error=None)
            for key, (status, _) in list(self._observers.items()):
                if status == TaskStatus.RESUME and key not in self._resumed:
                    self._dispatch(key, started)
        for key, (status, _) in list(self._observers.items()):
            if status == snapshot.status:
                self._dispatch(key, snapshot)
        if snapshot.status == TaskStatus.SUCCESS:
            self._outcome.set_result(snapshot.metadata)
        else:
            failure = snapshot.error or StorageError(StorageErrorCode.UNKNOWN, "The task failed")
            self._outcome.set_exception(failure)

    @property
    def sync(self) -> sync_task.StorageTask | None:
        """The underlying :class:`fbstorage.StorageTask`; None while the task waits for its turn."""
        return self._task

    @property
    def reference(self) -> StorageReference:
        """The reference the task uploads to or downloads from."""
        return self._reference

    @property
    def snapshot(self) -> TaskSnapshot:
        """The task's latest state (status UNKNOWN while it waits for its turn)."""
        if self._task is None:
            return TaskSnapshot(TaskStatus.UNKNOWN, 0, None, None, None, self._reference.sync,
                                None)  # type: ignore[arg-type]  # no library task yet
        return self._task.snapshot

    def done(self) -> bool:
        """True once the task's outcome (SUCCESS or FAILURE) has reached the event loop."""
        return self._outcome.done()

    def pause(self) -> None:
        """Stops sending or receiving within ~100 ms (PAUSE event). A paused task keeps its
        place among the storage's running tasks."""
        self._paused = True
        if self._task is not None:
            self._task.pause()

    def resume(self) -> None:
        """Continues a paused task from where the server is (RESUME event)."""
        self._paused = False
        if self._task is not None:
            self._task.resume()

    def cancel(self) -> None:
        """Ends the task with FAILURE / StorageErrorCode.CANCELLED. A task waiting for its
        turn never starts: it ends at once, and its FAILURE observers see the cancellation.
        (Starting it only to cancel it raced: a small upload could be over first.)"""
        if self._task is None:
            if self._reference.storage._withdraw(self):
                error = StorageError(StorageErrorCode.CANCELLED, f"{self._reference} was cancelled before its turn")
                snapshot = TaskSnapshot(TaskStatus.FAILURE, 0, None, error, None, self._reference.sync,
                                        None)  # type: ignore[arg-type]  # no library task
                self._loop.call_soon(self._finish, snapshot)   # observers run on the loop, as ever
        else:
            self._task.cancel()

    def __await__(self) -> Generator[Any, None, StorageMetadata | None]:
        return self._wait().__await__()

    async def _wait(self) -> StorageMetadata | None:
        try:
            # Shielded: one awaiter's cancellation must not cancel the future others await.
            return await asyncio.shield(self._outcome)
        except asyncio.CancelledError:
            if not self._outcome.done():
                self.cancel()
            raise

    # -- events on the loop ------------------------------------------------------------------
    def observe(self, status: TaskStatus | int, observer: Observer) -> int:
        """Calls ``observer(snapshot)`` on the event loop at every event ``status``; returns a
        handle for :meth:`remove_observer`. If the task is in that status already, the
        observer also runs once soon. SUCCESS and FAILURE observers run before ``await task``
        returns. An exception in an observer goes to the loop's exception handler."""
        if not callable(observer):
            raise TypeError(f"observer must be callable, not {type(observer).__name__}")
        key = next(self._keys)
        status = TaskStatus(status)
        self._observers[key] = (status, observer)
        if status in _TERMINAL:  # run by _finish
            if self.done() and self.snapshot.status == status:
                self._loop.call_soon(self._dispatch, key, self.snapshot)
        elif self._task is not None:
            try:
                self._observe_natively(key, status)
            except BaseException:
                del self._observers[key]
                raise
        return key

    def _observe_natively(self, key: int, status: TaskStatus) -> None:
        assert self._task is not None
        loop, dispatch = self._loop, self._dispatch
        if status == TaskStatus.PROGRESS:
            relay = lambda snapshot: self._relay_holding_end(key, snapshot)  # noqa: E731
        else:
            relay = lambda snapshot: call_soon_threadsafe(loop, dispatch, key, snapshot)  # noqa: E731
        self._native_observers[key] = self._task.observe(status, relay)

    def _relay_holding_end(self, key: int, snapshot: TaskSnapshot) -> None:
        """Runs on the library's callback thread: hands a PROGRESS event to the loop and returns
        once its observer returned there, was removed, or the loop closed. The library ends a
        download only after its PROGRESS observers returned, so a pause() or cancel() that an
        observer on the loop calls takes effect before the end, as from a sync observer."""
        delivered = threading.Event()
        with self._holds_lock:
            self._holds.setdefault(key, set()).add(delivered)

        def deliver() -> None:
            try:
                self._dispatch(key, snapshot)
            finally:
                delivered.set()

        try:
            if call_soon_threadsafe(self._loop, deliver):
                while not delivered.wait(_HOLD_CHECK_SECONDS) and not self._loop.is_closed():
                    pass
        finally:
            with self._holds_lock:
                self._holds.get(key, set()).discard(delivered)

    def _dispatch(self, key: int, snapshot: TaskSnapshot) -> None:
        """Runs on the loop: calls the observer ``key`` unless it was removed meanwhile; what
        it raises goes to the loop's exception handler."""
        entry = self._observers.get(key)
        if entry is None:
            return
        if snapshot.status == TaskStatus.RESUME:
            self._resumed.add(key)
        try:
            entry[1](snapshot)
        except Exception as error:
            self._loop.call_exception_handler({
                "message": f"observer {entry[1]!r} for {snapshot.status.name} of {self!r} raised",
                "exception": error,
            })

    def remove_observer(self, handle: int) -> None:
        """Removes one observer, by the handle :meth:`observe` returned; it is not called
        again, even for events already on their way to the loop."""
        self._observers.pop(handle, None)
        # Its held events let the callback thread go (the library's removal waits for a
        # running observer, which may be waiting for this loop).
        with self._holds_lock:
            for held in self._holds.pop(handle, ()):
                held.set()
        native = self._native_observers.pop(handle, None)
        if native is not None and self._task is not None:
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

    _task: sync_task.UploadTask | None
    _session_at_end: tuple[str | None] | None = None  # (the session), once the task has ended

    def _ended(self, snapshot: TaskSnapshot) -> None:
        assert self._task is not None
        self._session_at_end = (self._task.upload_session,)
        super()._ended(snapshot)

    @property
    def upload_session(self) -> str | None:
        """The resumable session to persist for put_file_resuming(), or None while there is
        none (see :attr:`fbstorage.UploadTask.upload_session`). Once the task has ended, the
        session it ended with, also after its storage closed: a task stopped by
        ``close(CloseMode.KEEP_SESSIONS)`` gives the session to resume."""
        if self._session_at_end is not None:
            return self._session_at_end[0]
        return None if self._task is None else self._task.upload_session


class DownloadTask(StorageTask):
    """A download started by write_to_file()."""
