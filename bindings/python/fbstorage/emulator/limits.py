"""The emulator's bounds on request bodies, in one table (docs/emulator.md, "Limits"), and the
middleware that gives each request its route's bound.

Every body is read through bodies.py: `iter_body` counts the bytes after decompression (a gzip
bomb stops at the bound, not at the end of its output) and `read_small_body` buffers at most the
bound. A declared Content-Length over the bound is refused before any byte is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from aiohttp import web

from .errors import ApiError
from .service_accounts import TOKEN_PATH

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
#: Request key: the route's bound on the request body, in bytes after decompression (None: none).
BODY_LIMIT = "fbstorage.emulator.body_limit"
#: Bodies buffered whole (JSON, forms, XML) on routes that otherwise stream (upload starts).
SMALL_BODY_BYTES = MIB
#: A compressed (Content-Encoding) upload expands to at most this.
DECOMPRESSED_UPLOAD_BYTES = GIB


@dataclass(frozen=True)
class RouteLimit:
    methods: frozenset[str]  # empty: any method
    path: re.Pattern[str]
    body_bytes: int | None  # None: streamed to disk, as large as the object (the upload's own rules)


def _route(methods: str, path: str, body_bytes: int | None) -> RouteLimit:
    return RouteLimit(frozenset(methods.split()), re.compile(path), body_bytes)


#: First match wins; a request no row matches gets SMALL_BODY_BYTES.
ROUTE_LIMITS = (
    _route("", re.escape(TOKEN_PATH) + "$", 64 * KIB),  # the OAuth2 token endpoint
    _route("", r"/batch/storage/v1$", 10 * MIB),  # GCS batch: "less than 10 MB", as Cloud Storage
    _route("", r"/upload/storage/v1/", None),  # GCS JSON API uploads
    _route("POST PUT", r"/v0/b/", None),  # Firebase (v0) uploads
)


def route_limit(request: web.Request) -> int | None:
    """The bound on this request's body: its row's, or SMALL_BODY_BYTES. The XML API and signed
    URLs, which match no route, stream object bytes when they PUT or POST."""
    for row in ROUTE_LIMITS:
        if (not row.methods or request.method in row.methods) and row.path.match(request.path):
            return row.body_bytes
    unrouted = getattr(request.match_info, "http_exception", None) is not None
    if request.method in ("PUT", "POST") and (unrouted or "X-Goog-Algorithm" in request.query):
        return None
    return SMALL_BODY_BYTES


def body_too_large(limit: int) -> ApiError:
    return ApiError(413, f"Request body larger than {limit} bytes.")


@web.middleware
async def bound_request_bodies(request: web.Request, handler) -> web.StreamResponse:
    """Give the request its route's body bound; refuse at once a declared length over it."""
    limit = route_limit(request)
    if limit is None and "Content-Encoding" in request.headers:
        limit = DECOMPRESSED_UPLOAD_BYTES
    request[BODY_LIMIT] = limit
    if limit is not None and (request.content_length or 0) > limit:
        raise body_too_large(limit)
    return await handler(request)


#: When the emulator stops, a request in flight gets this long to finish; then it is cut (an upload
#: cut short was never acknowledged, so nothing acknowledged is lost). So is the unread body of a
#: refused request, which aiohttp reads for up to 10 s so that its client sees the refusal rather
#: than a reset: without this bound one stalled client held a stop for 60 s (aiohttp's default).
STOP_GRACE_SECONDS = 2.0

#: Resumable upload sessions (uploads.py): a session URI expires a week after it started, as
#: Cloud Storage's; at most this many are open at once (each holds a staged file, not a descriptor).
SESSION_LIFETIME_SECONDS = 7 * 24 * 3600
MAX_OPEN_SESSIONS = 10_000
