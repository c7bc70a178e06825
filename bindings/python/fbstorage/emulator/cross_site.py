"""Where a request comes from, judged in one place for the whole server (docs/security.md,
"Cross-site requests"): a page of another origin, in a browser on this machine, may use what
production serves to browsers, as the Firebase user whose ID token it holds; nothing else.

- Control routes (test control, harness, export, Auth reset, the UI's API) refuse any request of
  a foreign origin, its preflight included, and send it no CORS headers.
- On a foreign origin's request, only the browsers' APIs answer (the Firebase API, Auth's user
  routes, the OAuth token endpoint, App Check's token exchange and keys, signed URLs), and never to an admin credential: the GCS APIs
  take every caller as an admin, so they are closed to such a page too.
- Tools send no Origin (curl, firebase-tools, the SDKs, rules-unit-testing): nothing changes for them.
- `--cors-allow-origin ORIGIN` makes an origin the emulator's own.
"""

from __future__ import annotations

from aiohttp import web

from .app_check.paths import APP_CHECK_HOSTS
from .auth import is_admin_credential
from .errors import json_error
from .identity.paths import EMULATOR_API, IDENTITY_TOOLKIT, LEGACY_RELYING_PARTY, SECURE_TOKEN
from .oauth import TOKEN_PATH
from .origins import CrossSitePolicy
from .signed_urls import is_signed_url

CONTROL_PREFIXES = ("/_emulator/", "/internal/", "/_admin/", EMULATOR_API, "/ui/api/")
BROWSER_API_PREFIXES = ("/v0/", IDENTITY_TOOLKIT + "/accounts:", LEGACY_RELYING_PARTY + "/", SECURE_TOKEN,
                        TOKEN_PATH, *APP_CHECK_HOSTS)
# The UI's page and static files: no CORS, their own guard (ui/__init__.py). Exact: any other
# path under /ui could be the XML API's (a bucket named `ui`).
UI_PAGES = ("/ui", "/ui/")
UI_STATIC = "/ui/static/"
CORS_EXPOSED = ", ".join([
    "Content-Type", "X-Firebase-Storage-Version", "X-Goog-Upload-Size-Received", "X-Goog-Upload-URL",
    "X-Goog-Upload-Command", "X-GUploader-UploadID", "X-Goog-Upload-Header-Content-Length",
    "X-Goog-Upload-Header-Content-Type", "X-Goog-Upload-Protocol", "X-Goog-Upload-Status",
    "X-Goog-Upload-Chunk-Granularity", "X-Goog-Upload-Control-URL"])


# A response key: a foreign origin's request, refused; it gets no CORS headers.
REFUSED = "fbstorage.cross_site_refused"


def is_control(path: str) -> bool:
    return path.startswith(CONTROL_PREFIXES)


def _is_ui_page(path: str) -> bool:
    return path in UI_PAGES or path.startswith(UI_STATIC)


def _refusal(request: web.Request) -> str | None:
    """Why a foreign origin's request is refused, or None when it may be served."""
    path = request.path
    if _is_ui_page(path):
        return None  # the page itself: no CORS, no framing by other sites (ui/__init__.py)
    if is_control(path):
        return f"{path} is not open to other origins' pages (docs/security.md; --cors-allow-origin opens it to one)."
    if not (path.startswith(BROWSER_API_PREFIXES) or is_signed_url(request.query)):
        return (f"{path}: other origins' pages may use the Firebase API, Auth's user routes, App Check and signed "
                "URLs only "
                "(the GCS APIs take every caller as an admin; docs/security.md).")
    if is_admin_credential(request.headers.get("Authorization")):
        return "Admin credentials are not accepted from another origin's page (docs/security.md)."
    return None


def cross_site_guard(policy: CrossSitePolicy):
    """The middleware: refusals first, then the preflights it grants."""
    @web.middleware
    async def guard_cross_site(request: web.Request, handler) -> web.StreamResponse:
        refused = _refusal(request) if policy.foreign(request) else None
        if refused:
            response = json_error(403, refused)
            response[REFUSED] = True
            return response
        if request.method == "OPTIONS" and request.headers.get("Origin") and not _is_ui_page(request.path):
            return web.Response(status=204, headers={
                "Access-Control-Allow-Methods": "GET, HEAD, PUT, PATCH, POST, DELETE",
                "Access-Control-Allow-Headers": request.headers.get("Access-Control-Request-Headers", "*"),
                "Access-Control-Max-Age": "3600"})
        return await handler(request)
    return guard_cross_site


async def add_cors_headers(request: web.Request, response: web.StreamResponse) -> None:
    """An on_response_prepare hook (a download streamed by its handler gets them too): the
    request's origin may read the answer, unless it was refused or is the UI's page."""
    origin = request.headers.get("Origin")
    if not origin or response.get(REFUSED) or _is_ui_page(request.path):
        return
    response.headers["Access-Control-Allow-Origin"] = origin
    response.headers["Access-Control-Expose-Headers"] = CORS_EXPOSED
    response.headers["Vary"] = "Origin"
