"""The emulator's web UI: a storage browser, the live request log with rules explanations, the
rules and their playground (and Auth users when that emulator runs). Static files written here,
no build step, no network; served under /ui/ on the storage port and on its own port."""

from __future__ import annotations

import logging
import secrets
from pathlib import Path

from aiohttp import web

from ..cross_site import cross_site_guard
from ..errors import ApiError, json_error
from ..identity.paths import EMULATOR_ACTION, EMULATOR_API, IDENTITY_TOOLKIT, LEGACY_RELYING_PARTY, SECURE_TOKEN
from ..server import CONTROL_PREFIX, UI_PREFIX as PREFIX, app_runner
from ..state import STATE, EmulatorState
from .activity import recorder
from .api import routes as api_routes
from .settings import SETTINGS, UiSettings

STATIC = Path(__file__).parent / "static"
# Not storage requests: the UI's own, control calls, Auth (its routes on the storage port).
UNLOGGED = (PREFIX, *CONTROL_PREFIX, IDENTITY_TOOLKIT, SECURE_TOKEN, LEGACY_RELYING_PARTY, EMULATOR_API,
            EMULATOR_ACTION)
# Served by name from this fixed set, so no request path can reach another file.
STATIC_TYPES = {".html": "text/html", ".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}
STATIC_FILES = {path.name: path for path in STATIC.iterdir() if path.suffix in STATIC_TYPES}
SAFE_METHODS = ("GET", "HEAD")
log = logging.getLogger(__name__)

__all__ = ["UiSettings", "add_to_storage_app", "start_ui_server"]


@web.middleware
async def guard(request: web.Request, handler) -> web.StreamResponse:
    """Host check and CSRF token; JSON errors, never a traceback."""
    settings = request.app[SETTINGS]
    try:
        if not settings.host_allowed(request.host):
            raise ApiError(403, f"The UI does not answer for host {request.host!r}.")
        if request.method not in SAFE_METHODS and not secrets.compare_digest(
                request.headers.get("X-UI-Token", "").encode(), settings.token.encode()):
            raise ApiError(403, "Missing or wrong X-UI-Token: this run's UI page sends it.")
        return await handler(request)
    except ApiError as error:
        return json_error(error.status, error.message)
    except web.HTTPException as error:
        if error.status < 400:
            raise
        return json_error(error.status, error.reason)
    except Exception as error:  # the last resort
        log.exception("unexpected error handling %s %s", request.method, request.path)
        return json_error(500, f"Internal UI error: {type(error).__name__}: {error}")


async def index(request: web.Request) -> web.Response:
    settings = request.app[SETTINGS]
    page = STATIC_FILES["index.html"].read_text(encoding="utf-8").replace("{{UI_TOKEN}}", settings.token)
    return web.Response(text=page, content_type="text/html", headers=_page_headers(settings, request))


def _page_headers(settings: UiSettings, request: web.Request) -> dict[str, str]:
    """Nothing but this server and the emulators: no other network, no framing by other sites."""
    return {"Content-Security-Policy": f"default-src 'self'; connect-src 'self' {settings.storage_url or ''}; img-src 'self' blob: data:; "
                                       f"frame-src blob:; frame-ancestors 'none'; form-action 'none'",
            "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}


async def static_file(request: web.Request) -> web.StreamResponse:
    path = STATIC_FILES.get(request.match_info["name"])
    if path is None or path.name == "index.html":
        raise ApiError(404, "No such UI file.")
    return web.Response(body=path.read_bytes(), content_type=STATIC_TYPES[path.suffix],
                        headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"})


async def to_index(request: web.Request) -> web.Response:
    raise web.HTTPFound(PREFIX + "/")


def _ui_app(state: EmulatorState, settings: UiSettings, guarded: bool = True) -> web.Application:
    """`guarded`: with its own guard (not needed when the parent app has one)."""
    app = web.Application(middlewares=[guard] if guarded else [])
    app[STATE], app[SETTINGS] = state, settings
    app.router.add_get("/", index)
    app.router.add_get("/static/{name}", static_file)
    app.add_routes(api_routes)
    return app


def add_to_storage_app(storage_app: web.Application, state: EmulatorState, settings: UiSettings) -> None:
    """The UI under /ui/ of the storage port, and the request log it shows (of storage requests)."""
    settings.storage_app = storage_app
    storage_app.middlewares.insert(1, recorder(settings.activity, UNLOGGED))
    storage_app.router.add_get(PREFIX, to_index)
    storage_app.add_subapp(PREFIX, _ui_app(state, settings))


async def start_ui_server(state: EmulatorState, settings: UiSettings, storage_url: str, host: str,
                          port: int) -> web.AppRunner:
    """The UI on its own port, talking to the storage API at `storage_url`; OSError names the port."""
    runner = app_runner(_ui_server(state, settings, storage_url))
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port, reuse_address=True).start()
    except OSError as error:
        await runner.cleanup()
        raise OSError(f"web UI port {port}: {error.strerror or error} (--ui-port 0 picks a free one, "
                      "--no-ui serves none)") from None
    return runner


def _ui_server(state: EmulatorState, settings: UiSettings, storage_url: str) -> web.Application:
    own = UiSettings(settings.bind_host, settings.activity, settings.token, storage_url, settings.storage_app)
    app = web.Application(middlewares=[cross_site_guard(state.cross_site), guard])
    app[SETTINGS] = own
    app.router.add_get("/", to_index)
    app.router.add_get(PREFIX, to_index)
    app.add_subapp(PREFIX, _ui_app(state, own, guarded=False))
    return app
