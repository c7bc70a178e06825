"""Fault injection: make the next K matching requests fail, drop their connection, or stall.

A fault is JSON (see docs/emulator.md):

    {"match": {"method": "PUT", "path_prefix": "/v0/b/", "query_contains": "upload_id",
               "header": {"X-Goog-Upload-Command": "upload"}},
     "times": 2,
     "action": {"status": 503, "retry_after": 1, "body": "…"}   # or
               {"drop_after_bytes": 1000}                          # or
               {"delay_ms": 250}}

Every `match` key is optional; header values compare case-insensitively and exactly. The first
fault with requests left that matches a request is used, and `times` (default 1) counts down.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from aiohttp import web

from .bodies import DROP_AFTER_BYTES
from .json_input import load_json
from .errors import json_error

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


@dataclass
class Fault:
    method: str | None
    path_prefix: str
    query_contains: str
    headers: dict[str, str]
    remaining: int
    action: dict[str, Any]

    @classmethod
    def from_json(cls, spec: Any) -> "Fault":
        _require(isinstance(spec, dict), "a fault is a JSON object")
        match, action, times = spec.get("match", {}), spec.get("action"), spec.get("times", 1)
        _require(isinstance(match, dict), "'match' must be an object")
        _require(not set(match) - {"method", "path_prefix", "query_contains", "header"},
                 f"unknown 'match' keys: {sorted(set(match) - {'method', 'path_prefix', 'query_contains', 'header'})}")
        headers = match.get("header", {})
        _require(isinstance(headers, dict) and all(isinstance(v, str) for v in headers.values()),
                 "'match.header' must map header names to strings")
        for key in ("method", "path_prefix", "query_contains"):
            _require(isinstance(match.get(key, ""), str), f"'match.{key}' must be a string")
        _require(isinstance(times, int) and not isinstance(times, bool) and times >= 1, "'times' must be an integer >= 1")
        _require(isinstance(action, dict) and len(set(action) & {"status", "drop_after_bytes", "delay_ms"}) == 1,
                 "'action' must have exactly one of 'status', 'drop_after_bytes', 'delay_ms'")
        for key in ("status", "drop_after_bytes", "delay_ms", "retry_after"):
            if key in action:
                _require(isinstance(action[key], int) and not isinstance(action[key], bool) and action[key] >= 0,
                         f"'action.{key}' must be a non-negative integer")
        if "status" in action:
            _require(200 <= action["status"] <= 599, "'action.status' must be an HTTP status code")
            _require(isinstance(action.get("body", ""), str), "'action.body' must be a string")
        method = match.get("method")
        return cls(method.upper() if method else None, match.get("path_prefix", ""), match.get("query_contains", ""),
                   {name.lower(): value for name, value in headers.items()}, times, action)

    def matches(self, request: web.Request) -> bool:
        raw_path, _, raw_query = request.raw_path.partition("?")
        return ((self.method is None or request.method == self.method)
                and raw_path.startswith(self.path_prefix)
                and self.query_contains in raw_query
                and all(request.headers.get(name, "").lower() == value.lower() for name, value in self.headers.items()))

    def describe(self) -> dict[str, Any]:
        return {"match": {"method": self.method, "path_prefix": self.path_prefix, "query_contains": self.query_contains,
                          "header": self.headers},
                "remaining": self.remaining, "action": self.action}

    async def run(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Handle `request` the way this fault says."""
        if "status" in self.action:
            return _status_response(self.action)
        if "delay_ms" in self.action:
            await asyncio.sleep(self.action["delay_ms"] / 1000)
        else:
            request[DROP_AFTER_BYTES] = self.action["drop_after_bytes"]
        return await handler(request)


def _status_response(action: dict[str, Any]) -> web.Response:
    status = action["status"]
    headers = {"Retry-After": str(action["retry_after"])} if "retry_after" in action else {}
    if "body" not in action:
        return json_error(status, "Injected fault.", headers)
    body = action["body"]
    try:
        load_json(body)
        content_type = "application/json"
    except ValueError:
        content_type = "text/plain"
    return web.Response(status=status, text=body, content_type=content_type, headers=headers)


class FaultInjector:
    def __init__(self) -> None:
        self._faults: list[Fault] = []

    def add(self, spec: Any) -> Fault:
        fault = Fault.from_json(spec)
        self._faults.append(fault)
        return fault

    def take(self, request: web.Request) -> Fault | None:
        """The first fault matching `request`, counting this use; None when no fault applies."""
        for fault in self._faults:
            if fault.matches(request):
                fault.remaining -= 1
                if fault.remaining == 0:
                    self._faults.remove(fault)
                return fault
        return None

    def describe(self) -> list[dict[str, Any]]:
        return [fault.describe() for fault in self._faults]

    def clear(self) -> None:
        self._faults.clear()
