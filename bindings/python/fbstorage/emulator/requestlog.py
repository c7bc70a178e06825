"""A bounded record of the requests (v0, GCS and Auth) the emulator received, for tests to inspect."""

from __future__ import annotations

import collections
import time
from typing import Any

from aiohttp import web

MAX_ENTRIES = 10000


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
