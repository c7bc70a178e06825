"""The headers production adds to every answer of its two APIs, whatever the handler: caching
(Cache-Control, Expires, Pragma) by route, `Vary` on the GCS JSON API, the Firebase API's CORS and
nosniff headers, and `charset=UTF-8` spelled as production spells it. Answers of the upload server
(errors.upload_server_answer) get none of them.

As recorded from production (tests/emulator/data/production-replay). Headers a handler set itself (an object's own
Cache-Control on a metadata answer, CORS for a request's Origin) are kept.
"""

from __future__ import annotations

from email.utils import formatdate

from aiohttp import web

from .errors import UPLOAD_SERVER
from .state import STATE

GCS_PREFIXES = ("/storage/v1/", "/upload/storage/v1/", "/download/storage/v1/")
NOT_STORED = {"Cache-Control": "no-cache, no-store, max-age=0, must-revalidate",
              "Expires": "Mon, 01 Jan 1990 00:00:00 GMT", "Pragma": "no-cache"}
FIREBASE_CORS = {"Access-Control-Allow-Origin": "*",
                 "Access-Control-Expose-Headers": "Content-Range, X-Firebase-Storage-XSRF",
                 "X-Content-Type-Options": "nosniff"}


def _private(cache_control: str) -> dict[str, str]:
    """Cacheable by the caller only, and stale at once (Expires: now)."""
    return {"Cache-Control": cache_control, "Expires": formatdate(usegmt=True)}


def _caching(firebase: bool, method: str, status: int, media: bool, content_type: str,
             by_token: bool) -> dict[str, str]:
    if media and status < 300:  # object bytes, on either API; a download token's URL may be cached
        return _private("private, max-age=0") if by_token else NOT_STORED
    if firebase:  # reads and deletes; uploads and metadata updates carry none
        return _private("private, max-age=0") if method in ("GET", "HEAD", "DELETE") else {}
    if content_type.startswith("text/") and method in ("GET", "HEAD"):  # a media download's error page
        return _private("private, max-age=0")
    if method in ("GET", "HEAD") and status < 300:  # a resource or a listing
        return _private("private, max-age=0, must-revalidate, no-transform")
    return NOT_STORED  # writes, and every JSON error


async def add_production_headers(request: web.Request, response: web.StreamResponse) -> None:
    """An on_response_prepare hook: runs as each answer's headers go out, streamed ones too."""
    if not request.app[STATE].flavor.production_headers or response.get(UPLOAD_SERVER):
        return
    firebase = request.path.startswith("/v0/")
    if not (firebase or request.path.startswith(GCS_PREFIXES)):
        return
    headers = response.headers
    content_type = headers.get("Content-Type", "")
    # The APIs spell it UTF-8; text/plain answers (the upload server's) keep utf-8.
    if content_type.endswith("charset=utf-8") and not content_type.startswith("text/plain"):
        headers["Content-Type"] = content_type[:-len("utf-8")] + "UTF-8"
    elif not content_type and not firebase:
        headers["Content-Type"] = "application/json"  # even on an empty answer (a delete's 204)
    media = request.query.get("alt") == "media" or request.path.startswith("/download/")
    if firebase and not (media and response.status < 300):
        for name, value in FIREBASE_CORS.items():
            headers.setdefault(name, value)
    if not firebase:
        headers.setdefault("Vary", "Origin, X-Origin")
    # Downloads are never cached (but by the caller, through a download token), whatever the
    # object's own cacheControl says.
    if "Cache-Control" not in headers or (media and response.status < 300):
        by_token = firebase and "token" in request.query
        headers.update(_caching(firebase, request.method, response.status, media, content_type, by_token))
