"""Bringing the library's completion callbacks to asyncio futures.

An ``fbs_reference_*_async`` or ``fbs_auth_*_async`` operation returns at once; its
completion callback later runs exactly once on the storage's (or auth's) callback thread (with
FBS_ERR_CANCELLED if the storage is closed first). The callback turns the borrowed result into Python values right there (the
result and the thread's last error are only valid during the call) and hands them to the
future's event loop with ``call_soon_threadsafe``: no thread per operation, and the loop
never waits for the library.

The C callback objects are module-level, one per callback type, so they are never
garbage-collected while the library may call them; ``user_data`` is the key of the waiting
future in :data:`_pending`.
"""

from __future__ import annotations

import asyncio
import ctypes
import itertools
import threading
from typing import Any, Callable

from .._native import (
    ACTION_CODE_CALLBACK,
    APP_CHECK_TOKEN_CALLBACK,
    COMPLETION_CALLBACK,
    DATA_CALLBACK,
    LIST_CALLBACK,
    METADATA_CALLBACK,
    STRING_CALLBACK,
    USER_CALLBACK,
    library,
)
from ..errors import FBS_OK, StorageError

#: Turns a callback's borrowed result arguments into the operation's Python result.
Converter = Callable[..., Any]

_pending: dict[int, tuple[asyncio.AbstractEventLoop, asyncio.Future[Any], Converter]] = {}
_pending_lock = threading.Lock()
_keys = itertools.count(1)  # user_data 0 would be NULL


def call_soon_threadsafe(
    loop: asyncio.AbstractEventLoop, function: Callable[..., Any], *arguments: Any
) -> bool:
    """Runs ``function(*arguments)`` on ``loop`` soon, from any thread; nothing when the loop
    is closed (nobody is left to tell). True when it was scheduled."""
    try:
        loop.call_soon_threadsafe(function, *arguments)
    except RuntimeError:
        return False
    return True


def settle_threadsafe(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[Any],
    result: Any = None,
    error: BaseException | None = None,
) -> None:
    """Sets ``future``'s outcome on its loop, from any thread. A future already done (its
    awaiting coroutine was cancelled) is left alone."""
    call_soon_threadsafe(loop, _settle, future, result, error)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


def _complete(status: int, key: int | None, *result: Any) -> None:
    """Runs on the callback thread: the operation behind ``key`` ended with ``status``."""
    with _pending_lock:
        entry = _pending.pop(key or 0, None)
    if entry is None:
        return
    loop, future, convert = entry
    try:
        if status == FBS_OK:
            settle_threadsafe(loop, future, convert(*result))
        else:
            settle_threadsafe(loop, future, error=StorageError.from_last_error(library(), status))
    except BaseException as error:  # a failing conversion fails the operation, not the thread
        settle_threadsafe(loop, future, error=error)


#: The module's C callback of each callback type, by type.
_CALLBACKS: dict[Any, Any] = {
    COMPLETION_CALLBACK: COMPLETION_CALLBACK(lambda status, key: _complete(status, key)),
    METADATA_CALLBACK: METADATA_CALLBACK(
        lambda status, metadata, key: _complete(status, key, metadata)
    ),
    LIST_CALLBACK: LIST_CALLBACK(lambda status, result, key: _complete(status, key, result)),
    STRING_CALLBACK: STRING_CALLBACK(lambda status, value, key: _complete(status, key, value)),
    DATA_CALLBACK: DATA_CALLBACK(
        lambda status, address, length, key: _complete(status, key, address, length)
    ),
    USER_CALLBACK: USER_CALLBACK(lambda status, user, key: _complete(status, key, user)),
    ACTION_CODE_CALLBACK: ACTION_CODE_CALLBACK(
        lambda status, operation, email, new_email, key: _complete(status, key, operation, email, new_email)
    ),
    APP_CHECK_TOKEN_CALLBACK: APP_CHECK_TOKEN_CALLBACK(
        lambda status, token, expire_time_ms, key: _complete(status, key, token, expire_time_ms)
    ),
}


def start(
    function_name: str, *arguments: Any, convert: Converter = lambda *_: None
) -> asyncio.Future[Any]:
    """Starts ``fbs_<…>_async(*arguments, callback, key)``; the future of its outcome.

    The future gets ``convert(*borrowed result)`` (run on the callback thread) or the
    operation's StorageError. Raises at once when the library refuses to start it. The
    library copies the arguments when the operation starts, so they need not outlive this
    call. Cancelling the future stops nothing: the operation runs to its end.
    """
    loop = asyncio.get_running_loop()
    future = loop.create_future()
    key = next(_keys)
    function = getattr(library(), function_name)
    with _pending_lock:
        _pending[key] = (loop, future, convert)
    try:
        function(*arguments, _CALLBACKS[function.argtypes[-2]], key)
    except BaseException:
        with _pending_lock:
            _pending.pop(key, None)
        raise
    return future


def copy_bytes(address: int | None, length: int) -> bytes:
    """A ``fbs_data_callback``'s borrowed bytes, copied."""
    return ctypes.string_at(address, length) if length else b""
