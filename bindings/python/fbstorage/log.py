"""The library's debug log (``fbs_library_set_log_handler``), as a callable or the ``logging`` module.

One line per HTTP attempt at DEBUG (method, URL, resumable command and offset, status or
transport error, body bytes sent), retries and upload restarts at WARNING, a resumable upload's
position after asking the server at INFO, failures at ERROR. Lines never contain header values,
tokens or upload session IDs.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from ._callbacks import report_callback_exception
from ._native import LOG_HANDLER, library

#: ``fbs_log_level`` values.
ERROR, WARNING, INFO, DEBUG = 1, 2, 3, 4

_LOGGING_LEVELS = {ERROR: logging.ERROR, WARNING: logging.WARNING, INFO: logging.INFO, DEBUG: logging.DEBUG}

LogHandler = Callable[[int, str], Any]

_installed: Any = None  # the CFUNCTYPE object C may call: kept alive while installed
_install_lock = threading.Lock()


def set_log_handler(handler: LogHandler | None) -> None:
    """Sends every log line of every storage to ``handler(level, line)``; None stops logging.

    The handler runs on a storage's transfer thread, possibly on several at once: keep it quick
    and do not call fbstorage from it. An exception it raises is reported as a RuntimeWarning.
    When this returns, the previous handler is not running and will not be called again.
    """
    global _installed
    if handler is not None and not callable(handler):
        raise TypeError(f"handler must be callable or None, not {type(handler).__name__}")
    callback = LOG_HANDLER() if handler is None else LOG_HANDLER(_c_handler(handler))
    with _install_lock:
        library().fbs_library_set_log_handler(callback, None)
        _installed = callback


def log_to_logging(logger: logging.Logger | None = None) -> None:
    """Sends the log to ``logger`` (default: ``logging.getLogger("fbstorage")``) at the matching levels."""
    target = logger or logging.getLogger("fbstorage")
    set_log_handler(lambda level, line: target.log(_LOGGING_LEVELS.get(level, logging.DEBUG), "%s", line))


def _c_handler(handler: LogHandler) -> Callable[[int, bytes, Any], None]:
    def call(level: int, line: bytes, _user_data: Any) -> None:
        try:
            handler(level, line.decode("utf-8", "replace"))
        except BaseException:
            report_callback_exception(f"log handler {handler!r}")

    return call
