"""The headers production adds to every answer of its two APIs, whatever the handler: caching
(Cache-Control, Expires, Pragma) by route, `Vary` on the GCS JSON API, the Firebase API's CORS and
nosniff headers, and `charset=UTF-8` spelled as production spells it; and the Identity Toolkit's
own (never cached, `Vary` with Referer, anti-framing). Answers of the upload server
(errors.upload_server_answer) and the cross-site policy's refusals (cross_site.py) get none of them.

As recorded from production (tests/emulator/data/production-replay). Headers a handler set itself (an object's own
Cache-Control on a metadata answer, CORS for a request's Origin) are kept.
"""

from __future__ import annotations

from email.utils import formatdate

from aiohttp import web

from .auth import principal_from_header
from .cross_site import REFUSED
from .errors import UPLOAD_SERVER, ApiError
from .state import STATE

GCS_PREFIXES = ("/storage/v1/", "/upload/storage/v1/", "/download/storage/v1/")
NOT_STORED = {"Cache-Control": "no-cache, no-store, max-age=0, must-revalidate",
              "Expires": "Mon, 01 Jan 1990 00:00:00 GMT", "Pragma": "no-cache"}
FIREBASE_CORS = {"Access-Control-Allow-Origin": "*",
                 "Access-Control-Expose-Headers": "Content-Range, X-Firebase-Storage-XSRF",
                 "X-Content-Type-Options": "nosniff"}
IDENTITY_TOOLKIT_PREFIX = "/identitytoolkit.googleapis.com/"
IDENTITY_TOOLKIT = {**NOT_STORED, "Vary": "Origin, X-Origin, Referer", "X-Content-Type-Options": "nosniff",
                    "X-Frame-Options": "SAMEORIGIN", "X-XSS-Protection": "0"}


def _private(cache_control: str) -> dict[str, str]:
    """Cacheable by the caller only, and stale at once (Expires: now)."""
    return {"Cache-Control": cache_control, "Expires": formatdate(usegmt=True)}


def _caching(firebase: bool, method: str, status: int, media: bool, never_stored: bool,
             by_token: bool) -> dict[str, str]:
    if never_stored:
        return NOT_STORED
    if media and status < 300 and by_token:  # a download token's URL may be cached by the caller
        return _private("private, max-age=0")
    if firebase:  # reads and deletes; uploads and metadata updates carry none
        return _private("private, max-age=0") if method in ("GET", "HEAD", "DELETE") else {}
    reads = method in ("GET", "HEAD")
    if media and reads:  # a media download's error page, or its 304
        return _private("private, max-age=0")
    if reads and (status < 300 or status == 304):  # a resource or a listing, or its 304
        return _private("private, max-age=0, must-revalidate, no-transform")
    return NOT_STORED  # writes, and every JSON error


async def add_production_headers(request: web.Request, response: web.StreamResponse) -> None:
    """An on_response_prepare hook: runs as each answer's headers go out, streamed ones too."""
    if not request.app[STATE].flavor.production_headers or response.get(UPLOAD_SERVER) or response.get(REFUSED):
        return
    firebase = request.path.startswith("/v0/")
    identity_toolkit = request.path.startswith(IDENTITY_TOOLKIT_PREFIX)
    if not (firebase or identity_toolkit or request.path.startswith(GCS_PREFIXES)):
        return
    headers = response.headers
    content_type = headers.get("Content-Type", "")
    # The APIs spell it UTF-8; text/plain answers (the upload server's) keep utf-8.
    if content_type.endswith("charset=utf-8") and not content_type.startswith("text/plain"):
        headers["Content-Type"] = content_type[:-len("utf-8")] + "UTF-8"
    if identity_toolkit:
        headers.update(IDENTITY_TOOLKIT)
        return
    if not content_type and not firebase:
        headers["Content-Type"] = "application/json"  # even on an empty answer (a delete's 204)
    media = request.query.get("alt") == "media" or request.path.startswith("/download/")
    if firebase and not (media and response.status < 300):
        for name, value in FIREBASE_CORS.items():
            headers.setdefault(name, value)
    if not firebase:
        headers.setdefault("Vary", "Origin, X-Origin")
    # Object bytes are never cached when the owner (or anyone, on the JSON API) reads them,
    # whatever the object's own cacheControl says. A download token's URL may be cached by the
    # caller (private); a Firebase user's download keeps the object's, else the API's private one.
    bytes_sent = media and response.status < 300
    by_token = firebase and "token" in request.query
    never_stored = bytes_sent and (not firebase or (not by_token and _owner_call(request)))
    if "Cache-Control" not in headers or never_stored or (bytes_sent and by_token):
        headers.update(_caching(firebase, request.method, response.status, media, never_stored, by_token))


def _owner_call(request: web.Request) -> bool:
    """Whether the request carries the owner's (an OAuth principal's) credentials."""
    try:
        return principal_from_header(request.headers.get("Authorization"), request.app[STATE].service_accounts).is_admin
    except ApiError:
        return False
