"""Observable upload and download tasks, their statuses and snapshots."""

from __future__ import annotations

import ctypes
import dataclasses
import enum
import itertools
import math
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any, Callable

from ._callbacks import report_callback_exception, running_callback
from ._conversion import C_INT, check_integer, check_number
from ._handle import OwnedHandle
from ._native import TASK_CALLBACK, SnapshotHandle, call_for_out, library, take_string
from .errors import StorageError, StorageErrorCode, StorageTimeoutError
from .metadata import StorageMetadata

if TYPE_CHECKING:
    from .reference import StorageReference

#: How long one fbs_task_wait() call may block, so that Ctrl-C is handled in between.
_WAIT_SLICE_SECONDS = 0.2


class TaskStatus(enum.IntEnum):
    """The events of a task (``fbs_task_status``)."""

    UNKNOWN = 0
    RESUME = 1
    PROGRESS = 2
    PAUSE = 3
    SUCCESS = 4
    FAILURE = 5


_TERMINAL = (TaskStatus.SUCCESS, TaskStatus.FAILURE)

Observer = Callable[["TaskSnapshot"], object]


@dataclasses.dataclass(frozen=True)
class TaskSnapshot:
    """The state of a task at one event.

    Attributes:
        status: the event.
        bytes_transferred: bytes uploaded or downloaded so far.
        total_bytes: the size of the transfer, or None while unknown (downloads before the
            response).
        error: the failure (status FAILURE), else None.
        metadata: the object's metadata (uploads: after SUCCESS; downloads: once known).
        reference: the task's reference.
        task: the task.
    """

    status: TaskStatus
    bytes_transferred: int
    total_bytes: int | None
    error: StorageError | None
    metadata: StorageMetadata | None
    reference: StorageReference
    task: StorageTask

    @classmethod
    def _from_native(cls, snapshot: Any, task: StorageTask) -> TaskSnapshot:
        lib = library()
        total = lib.fbs_snapshot_total_bytes(snapshot)
        metadata = lib.fbs_snapshot_metadata(snapshot)
        return cls(
            status=_status(lib.fbs_snapshot_status(snapshot)),
            bytes_transferred=max(0, lib.fbs_snapshot_bytes_transferred(snapshot)),
            total_bytes=None if total < 0 else total,
            error=StorageError.from_snapshot(lib, snapshot),
            metadata=StorageMetadata._from_native(metadata) if metadata else None,
            reference=task.reference,
            task=task,
        )


def _status(value: int) -> TaskStatus:
    try:
        return TaskStatus(value)
    except ValueError:
        return TaskStatus.UNKNOWN


def _make_dispatcher(task: StorageTask) -> Any:
    """The task's one C callback: calls the observer whose key C passes as user_data.

    It holds the task weakly; while the task has observers that may run, its storage's
    CallbackKeeper holds the task (and so this callback).
    """
    task_ref = weakref.ref(task)

    def dispatch(snapshot: Any, key: int | None) -> None:
        observed = task_ref()
        if observed is None:
            return
        status = _status(library().fbs_snapshot_status(snapshot))
        try:
            entry = observed._observers.get(key or 0)
            if entry is not None:
                observer = entry[1]
                with running_callback():
                    try:
                        observer(TaskSnapshot._from_native(snapshot, observed))
                    except BaseException:
                        report_callback_exception(
                            f"observer {observer!r} for {status.name} of {observed.reference}"
                        )
        finally:
            observed._keeper.event_delivered(observed, terminal=status in _TERMINAL)

    return TASK_CALLBACK(dispatch)


class StorageTask(OwnedHandle):
    """A running upload or download, observable as in the Firebase Apple SDK.

    Events: RESUME when the task starts or resumes, PROGRESS as bytes move, PAUSE, then one
    SUCCESS or FAILURE, after which every observer is removed. Observers run on the
    storage's callback thread; an exception raised by one is reported as a RuntimeWarning
    and does not affect the task.
    """

    def __init__(self, handle: Any, reference: StorageReference) -> None:
        """Wraps an owned ``fbs_task`` handle (internal: tasks come from references)."""
        super().__init__(handle, "fbs_task_free")
        self._reference = reference
        self._keeper = reference.storage._keeper
        self._observers: dict[int, tuple[int, Observer]] = {}  # key -> (status, observer)
        self._observer_keys: dict[int, int] = {}  # C observer handle -> key in _observers
        self._observer_lock = threading.Lock()
        self._next_key = itertools.count(1)
        self._dispatcher = _make_dispatcher(self)
        reference.storage._adopt(self)

    @property
    def reference(self) -> StorageReference:
        """The reference the task uploads to or downloads from."""
        return self._reference

    def observe(self, status: TaskStatus | int, observer: Observer) -> int:
        """Calls ``observer(snapshot)`` at every event ``status``; returns a handle for
        :meth:`remove_observer`. If the task is in that status already, the observer also
        runs once at once."""
        check_integer(status, "status", C_INT)
        if not callable(observer):
            raise TypeError(f"observer must be callable, not {type(observer).__name__}")
        key = next(self._next_key)
        with self._observer_lock:
            self._observers[key] = (int(status), observer)
        self._keeper.task_observed(self)
        try:
            handle: int = call_for_out(
                library().fbs_task_observe,
                self._handle,
                int(status),
                self._dispatcher,
                key,
                out_type=ctypes.c_int64,
            ).value
        except BaseException:
            with self._observer_lock:
                del self._observers[key]
                unobserved = not self._observers
            if unobserved:
                self._keeper.task_finished(self)
            raise
        with self._observer_lock:
            self._observer_keys[handle] = key
        return handle

    def remove_observer(self, handle: int) -> None:
        """Removes one observer, by the handle :meth:`observe` returned."""
        library().fbs_task_remove_observer(self._handle, check_integer(handle, "handle"))
        with self._observer_lock:
            key = self._observer_keys.pop(handle, None)
            if key is not None:
                del self._observers[key]

    def remove_all_observers(self, status: TaskStatus | int | None = None) -> None:
        """Removes every observer, or only those of ``status``."""
        lib = library()
        if status is None:
            lib.fbs_task_remove_all_observers(self._handle)
            with self._observer_lock:
                self._observers.clear()
                self._observer_keys.clear()
            return
        lib.fbs_task_remove_all_observers_for_status(self._handle, check_integer(status, "status", C_INT))
        with self._observer_lock:
            for handle, key in list(self._observer_keys.items()):
                if self._observers[key][0] == status:
                    del self._observer_keys[handle]
                    del self._observers[key]

    def pause(self) -> None:
        """Stops sending or receiving within ~100 ms (PAUSE event)."""
        library().fbs_task_pause(self._handle)

    def resume(self) -> None:
        """Continues a paused task from where the server is (RESUME event)."""
        library().fbs_task_resume(self._handle)

    def cancel(self) -> None:
        """Ends the task with FAILURE / StorageErrorCode.CANCELLED."""
        library().fbs_task_cancel(self._handle)

    @property
    def max_speed(self) -> int:
        """This task's speed cap in bytes per second (0: none of its own), tightening the
        storage's; a change applies within about a second to the request in flight."""
        return int(call_for_out(library().fbs_task_get_max_speed, self._handle, out_type=ctypes.c_int64).value)

    @max_speed.setter
    def max_speed(self, bytes_per_second: int) -> None:
        library().fbs_task_set_max_speed(self._handle, check_integer(bytes_per_second, "max_speed"))

    @property
    def snapshot(self) -> TaskSnapshot:
        """The task's latest state."""
        lib = library()
        handle = call_for_out(lib.fbs_task_snapshot, self._handle, out_type=SnapshotHandle)
        try:
            return TaskSnapshot._from_native(handle, self)
        finally:
            lib.fbs_snapshot_free(handle)

    def wait(self, timeout: float | None = None) -> StorageMetadata | None:
        """Waits until the task has finished and its SUCCESS or FAILURE observers returned.

        Returns the object's metadata (always set for uploads), raises :class:`StorageError`
        when the task failed, or :class:`StorageTimeoutError` (TIMEOUT, a builtin
        :class:`TimeoutError` too) after ``timeout`` seconds: the task goes on. Waits in short
        slices, so Ctrl-C interrupts it.
        """
        if timeout is not None and math.isnan(check_number(timeout, "timeout")):
            raise ValueError("timeout must be a number of seconds, not NaN")
        deadline = None if timeout is None else time.monotonic() + timeout
        lib = library()
        while True:
            remaining = _WAIT_SLICE_SECONDS if deadline is None else deadline - time.monotonic()
            slice_ms = max(0, int(min(_WAIT_SLICE_SECONDS, remaining) * 1000))
            try:
                lib.fbs_task_wait(self._handle, slice_ms)
            except StorageTimeoutError:
                if deadline is not None and time.monotonic() >= deadline:
                    raise StorageError(StorageErrorCode.TIMEOUT,
                                       f"{self!r} has not finished after {timeout} s; the task goes on") from None
                continue
            except StorageError as error:
                # INVALID_ARGUMENT is also C refusing to wait on the task's own callback thread.
                if error.code != StorageErrorCode.INVALID_ARGUMENT or self._failed_with(error.code):
                    self._keeper.task_finished(self)
                raise
            self._keeper.task_finished(self)
            return self.snapshot.metadata

    def _failed_with(self, code: StorageErrorCode) -> bool:
        """True if the task ended with a FAILURE of ``code`` (raises for a released handle)."""
        snapshot = self.snapshot
        return snapshot.status == TaskStatus.FAILURE and snapshot.error is not None and (
            snapshot.error.code == code
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._reference}>"


class UploadTask(StorageTask):
    """An upload started by put_data(), put_file() or put_file_resuming()."""

    @property
    def upload_session(self) -> str | None:
        """The resumable session to persist for put_file_resuming(), or None while there is
        none (small uploads use one request; the session exists once the upload started)."""
        lib = library()
        address = call_for_out(lib.fbs_task_upload_session, self._handle, out_type=ctypes.c_void_p)
        return take_string(address.value)


class DownloadTask(StorageTask):
    """A download started by write_to_file()."""
