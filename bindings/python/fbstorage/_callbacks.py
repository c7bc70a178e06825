"""Running Python code on the library's threads, and keeping what C may call alive.

ctypes does not keep a ``CFUNCTYPE`` object alive for C: if it is garbage-collected while the
library may still call it, the process crashes. Each :class:`~fbstorage.Storage` therefore owns
a :class:`CallbackKeeper` holding

* every token provider it was given (until the storage is closed), and
* every task that has observers and has not yet delivered its last event. A task's
  callback object lives on the task, so keeping the task keeps the callback.

A task's terminal event (SUCCESS or FAILURE) is fully delivered once :meth:`StorageTask.wait`
returned its outcome, or once the storage's callback thread, which runs one event at a time
in order, has moved on to an event of another task.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import traceback
import warnings
from typing import Any, Generic, Iterator, TypeVar

_thread_state = threading.local()

T = TypeVar("T")


class KeyedTable(Generic[T]):
    """Python objects the library calls back by key: the key is the C call's ``user_data``, so
    that one ``CFUNCTYPE`` object serves them all and none can be collected while the library
    may call it. An entry stays until its owner (or the library's destroy callback) pops it."""

    def __init__(self) -> None:
        self._entries: dict[int, T] = {}
        self._keys = itertools.count(1)   # user_data 0 would be NULL
        self._lock = threading.Lock()

    def add(self, entry: T) -> int:
        with self._lock:
            key = next(self._keys)
            self._entries[key] = entry
        return key

    def get(self, key: int | None) -> T | None:
        with self._lock:
            return self._entries.get(key or 0)

    def pop(self, key: int | None) -> T | None:
        with self._lock:
            return self._entries.pop(key or 0, None)

    def values(self) -> list[T]:
        with self._lock:
            return list(self._entries.values())


@contextlib.contextmanager
def running_callback() -> Iterator[None]:
    """Marks the current thread as running a callback of the library for the block."""
    _thread_state.in_callback = True
    try:
        yield
    finally:
        _thread_state.in_callback = False


def in_callback() -> bool:
    """True while the current thread runs a callback of the library (see running_callback)."""
    return getattr(_thread_state, "in_callback", False)


def report_callback_exception(description: str) -> None:
    """Reports the exception being handled, raised by user code called from the library.

    The library's thread must go on, so the exception is not propagated: it is reported as a
    :class:`RuntimeWarning` carrying the traceback (printed to stderr by default, and turned
    into an error by ``-W error`` or pytest's ``filterwarnings = error``).
    """
    message = f"{description} raised an exception (ignored):\n{traceback.format_exc()}"
    try:
        warnings.warn(message, RuntimeWarning, stacklevel=2)
    except Exception:  # warnings configured as errors: nobody can catch it here
        traceback.print_exc()


class CallbackKeeper:
    """Keeps the callback objects of one storage alive while the library may call them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._token_providers: list[Any] = []
        self._running_tasks: dict[int, Any] = {}
        self._finished_tasks: dict[int, Any] = {}

    def keep_token_provider(self, provider: Any) -> None:
        """Keeps a token provider's callback object until the storage is closed."""
        with self._lock:
            self._token_providers.append(provider)

    def task_observed(self, task: Any) -> None:
        """Keeps ``task`` (and so its callback object) until its last event is delivered."""
        with self._lock:
            self._finished_tasks.pop(id(task), None)
            self._running_tasks[id(task)] = task

    def event_delivered(self, task: Any, terminal: bool) -> None:
        """Called on the callback thread after each event of ``task`` reached its observers.

        The callback thread runs one event at a time, so tasks whose terminal event was seen
        before this event of another task are done being called.
        """
        with self._lock:
            for key in [key for key in self._finished_tasks if key != id(task)]:
                del self._finished_tasks[key]
            if terminal and self._running_tasks.pop(id(task), None) is not None:
                self._finished_tasks[id(task)] = task

    def task_finished(self, task: Any) -> None:
        """Releases ``task``: fbs_task_wait() said its last observers have returned."""
        with self._lock:
            self._running_tasks.pop(id(task), None)
            self._finished_tasks.pop(id(task), None)

    def clear(self) -> None:
        """Releases everything: the storage is freed and will call nothing any more."""
        with self._lock:
            self._token_providers.clear()
            self._running_tasks.clear()
            self._finished_tasks.clear()
