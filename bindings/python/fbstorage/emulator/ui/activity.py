"""The web UI's live request log: every storage request (v0 and GCS) with who sent it, its status,
its duration and the rules' decisions, explained on demand. Bounded: the oldest entries go first."""

from __future__ import annotations

import collections
import itertools
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import unquote

from aiohttp import web

from ..app_check.tokens import VERDICT as APP_CHECK_VERDICT
from ..auth import caller_uid, uid_label
from ..redaction import redact_target
from ..rules.access import DECISIONS
from ..rules.explain import Decision
from ..service_accounts import ServiceAccounts
from ..state import STATE

MAX_ENTRIES = 2000
MAX_PAGE = 500
V0_PREFIX = "/v0/"


@dataclass
class Activity:
    id: int
    time: float
    method: str
    path: str  # as sent, with the query (an upload names its object there); shown redacted
    authorization: str | None  # read when the log is read, not while the request is served
    service_accounts: ServiceAccounts  # the access tokens the emulator issued, for reading it
    status: int | None = None
    duration_ms: float = 0.0
    decisions: list[Decision] = field(default_factory=list)
    app_check: str | None = None  # the App Check verdict (app_check/tokens.py), None when not judged

    @cached_property
    def user(self) -> str:
        """Who the rules saw (an upload's later requests act for the user who started it), else
        who the Authorization header names. The GCS JSON API treats every caller as an admin."""
        if not self.path.startswith(V0_PREFIX):  # the rest is the GCS JSON API (Auth is not logged)
            return "admin"
        for decision in self.decisions:
            if decision.variables:
                auth = decision.variables["request"]["auth"]
                return "anonymous" if auth is None else uid_label(auth["token"])
        return user_label(self.authorization, self.service_accounts)

    @property
    def verdict(self) -> str | None:
        """denied if any decision denied, allowed if all allowed, None when the rules were not asked."""
        if not self.decisions:
            return None
        return "allowed" if all(decision.allowed for decision in self.decisions) else "denied"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "time": self.time, "method": self.method, "path": unquote(redact_target(self.path)),
                "user": self.user,
                "status": self.status, "duration_ms": round(self.duration_ms, 2), "verdict": self.verdict,
                "app_check": self.app_check, "decisions": [decision.explain() for decision in self.decisions]}


def user_label(authorization: str | None, service_accounts: ServiceAccounts) -> str:
    return caller_uid(authorization, service_accounts) or "anonymous"


class ActivityLog:
    def __init__(self, limit: int = MAX_ENTRIES) -> None:
        self.limit = limit
        self._entries: collections.deque[Activity] = collections.deque(maxlen=limit)
        self._ids = itertools.count(1)

    def start(self, request: web.Request) -> Activity:
        return Activity(next(self._ids), time.time(), request.method, request.raw_path,
                        request.headers.get("Authorization"), request.app[STATE].service_accounts)

    def add(self, entry: Activity) -> None:
        self._entries.append(entry)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def page(self, after: int, path: str, user: str, verdict: str, limit: int = MAX_PAGE) -> list[Activity]:
        """Entries newer than id `after`, oldest first, that contain `path` and `user` and have
        `verdict` (allowed, denied, none; empty: any); the newest `limit` of them."""
        wanted_verdict = None if verdict == "none" else verdict
        chosen = [entry for entry in self._entries
                  if entry.id > after and (not path or path in unquote(entry.path)) and user in entry.user
                  and (not verdict or entry.verdict == wanted_verdict)]
        return chosen[-limit:]


def recorder(log: ActivityLog, skip: tuple[str, ...]):
    """A middleware that logs each request whose path starts with none of `skip`."""
    @web.middleware
    async def record_activity(request: web.Request, handler) -> web.StreamResponse:
        if request.path.startswith(skip):
            return await handler(request)
        entry = log.start(request)
        started = time.perf_counter()
        context = DECISIONS.set(entry.decisions)
        try:
            response = await handler(request)
            entry.status = response.status
            return response
        finally:
            DECISIONS.reset(context)
            entry.duration_ms = (time.perf_counter() - started) * 1000
            entry.app_check = request.get(APP_CHECK_VERDICT)
            log.add(entry)
    return record_activity
