"""A bounded record of the requests (v0, GCS and Auth) the emulator received, for tests to inspect,
and one debug log line per request for users debugging a client."""

from __future__ import annotations

import collections
import logging
import sys
import time
from typing import Any

from aiohttp import web

from .app_check.tokens import VERDICT as APP_CHECK_VERDICT
from .app_check.paths import APP_CHECK_HOSTS
from .auth import caller_uid
from .identity.paths import EMULATOR_ACTION, EMULATOR_API, IDENTITY_TOOLKIT, LEGACY_RELYING_PARTY, SECURE_TOKEN
from .service_accounts import TOKEN_PATH, ServiceAccounts

MAX_ENTRIES = 10000
log = logging.getLogger("fbstorage.emulator.requests")


def log_request(request: web.Request, status: int | None, seconds: float, service_accounts: ServiceAccounts) -> None:
    """`GET /v0/b/b/o/a%2Fb 200 1.3 ms admin`: the raw path without its query (a download token
    may be there), and who the caller is, never their credentials; then `app-check=<verdict>`
    when App Check judged the request (never the token)."""
    if log.isEnabledFor(logging.DEBUG):
        verdict = request.get(APP_CHECK_VERDICT)
        log.debug("%s %s %s %.1f ms %s%s", request.method, request.raw_path.partition("?")[0],
                  "dropped" if status is None else status, seconds * 1000, _principal(request, service_accounts),
                  "" if verdict is None else f" app-check={verdict}")


# Calls to Auth and to the OAuth2 token endpoint: who calls is in the body (an API key, a password,
# a refresh token, an assertion), not in an Authorization header, so they get the service's name.
_SERVICES = ((IDENTITY_TOOLKIT, "Auth API"), (LEGACY_RELYING_PARTY, "Auth API"), (SECURE_TOKEN, "Auth token refresh"),
             (EMULATOR_API, "Auth emulator API"), (EMULATOR_ACTION, "Auth email link"),
             (TOKEN_PATH, "OAuth2 token endpoint"), *((host, "App Check") for host in APP_CHECK_HOSTS))


def _principal(request: web.Request, service_accounts: ServiceAccounts) -> str:
    for prefix, service in _SERVICES:
        if request.path.startswith(prefix):
            return service
    caller = caller_uid(request.headers.get("Authorization"), service_accounts)
    if not request.path.startswith("/v0") and caller != "invalid token":
        return "admin (GCS API)"  # rules never apply there, whatever the header
    return "anonymous" if caller is None else caller if caller in ("admin", "invalid token") else f"uid={caller}"


class RequestLog:
    def __init__(self) -> None:
        # An entry is a tuple (time, method, raw target, headers joined in one string, body size,
        # status, dropped, App Check verdict), made a dict when read: ~0.55 KB, where the dict with
        # the request's own header strings took ~1.25 KB (tracemalloc), more than a small object's metadata.
        self._entries: collections.deque[tuple] = collections.deque(maxlen=MAX_ENTRIES)
        #: Requests received and not yet answered (a test waits for 0 before it reads the log, so
        #: that a request of a client it killed or paused cannot land afterwards).
        self.in_flight = 0

    def record(self, request: web.Request, status: int | None, dropped: bool) -> None:
        """Headers are kept verbatim (Authorization included): tests check what clients send."""
        headers = _HEADER_SEPARATOR.join(f"{name}: {value}" for name, value in request.headers.items())
        self._entries.append((time.time(), sys.intern(request.method), request.raw_path, headers,
                              request.content.total_bytes, status, dropped, request.get(APP_CHECK_VERDICT)))

    def entries(self) -> list[dict[str, Any]]:
        return [_entry(*entry) for entry in self._entries]

    def clear(self) -> None:
        self._entries.clear()


# A header value holds no line break (the HTTP parser ends a field at one).
_HEADER_SEPARATOR = "\n"


def _entry(when: float, method: str, raw_target: str, joined_headers: str, body_size: int, status: int | None,
           dropped: bool, app_check: str | None) -> dict[str, Any]:
    raw_path, _, raw_query = raw_target.partition("?")
    headers: dict[str, str] = {}
    for field in joined_headers.split(_HEADER_SEPARATOR) if joined_headers else ():
        name, _, value = field.partition(": ")
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return {"time": when, "method": method, "path": raw_path, "query": raw_query, "headers": headers,
            "body_size": body_size, "status": status, "dropped": dropped, "app_check": app_check}
