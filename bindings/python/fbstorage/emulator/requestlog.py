"""A bounded record of the requests (v0, GCS and Auth) the emulator received, for tests to inspect,
and one debug log line per request for users debugging a client."""

from __future__ import annotations

import collections
import logging
import time
from typing import Any

from aiohttp import web

from .auth import caller_uid
from .service_accounts import ServiceAccounts

MAX_ENTRIES = 10000
log = logging.getLogger("fbstorage.emulator.requests")


def log_request(request: web.Request, status: int | None, seconds: float, service_accounts: ServiceAccounts) -> None:
    """`GET /v0/b/b/o/a%2Fb 200 1.3 ms admin`: the raw path without its query (a download token
    may be there), and who the caller is, never their credentials."""
    if log.isEnabledFor(logging.DEBUG):
        log.debug("%s %s %s %.1f ms %s", request.method, request.raw_path.partition("?")[0],
                  "dropped" if status is None else status, seconds * 1000, _principal(request, service_accounts))


def _principal(request: web.Request, service_accounts: ServiceAccounts) -> str:
    caller = caller_uid(request.headers.get("Authorization"), service_accounts)
    if not request.path.startswith("/v0") and caller != "invalid token":
        return "admin (GCS API)"  # rules never apply there, whatever the header
    return "anonymous" if caller is None else caller if caller in ("admin", "invalid token") else f"uid={caller}"


class RequestLog:
    def __init__(self) -> None:
        self._entries: collections.deque[dict[str, Any]] = collections.deque(maxlen=MAX_ENTRIES)
        #: Requests received and not yet answered (a test waits for 0 before it reads the log, so
        #: that a request of a client it killed or paused cannot land afterwards).
        self.in_flight = 0

    def record(self, request: web.Request, status: int | None, dropped: bool) -> None:
        """Headers are kept verbatim (Authorization included): tests check what clients send."""
        raw_path, _, raw_query = request.raw_path.partition("?")
        headers: dict[str, str] = {}
        for name, value in request.headers.items():
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        self._entries.append({
            "time": time.time(),
            "method": request.method,
            "path": raw_path,
            "query": raw_query,
            "headers": headers,
            "body_size": request.content.total_bytes,
            "status": status,
            "dropped": dropped,
        })

    def entries(self) -> list[dict[str, Any]]:
        return list(self._entries)

    def clear(self) -> None:
        self._entries.clear()
