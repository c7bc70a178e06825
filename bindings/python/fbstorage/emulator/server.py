"""The aiohttp application: middlewares (cross-site policy, request log, faults, errors) and routes."""

from __future__ import annotations

import logging
import time

from aiohttp import web

from .app_check.enforcement import check_app_tokens
from .app_check.exchange import add_app_check_routes
from .bodies import DROP_AFTER_BYTES, BodyDropped
from .control import routes as control_routes
from .cross_site import add_cors_headers, cross_site_guard
from .errors import ApiError, json_error
from .gcs import add_gcs_routes
from .gcs.batch import add_batch_route
from .harness import routes as harness_routes
from .identity.routes import add_identity_routes, ready as auth_ready
from .identity.signing import add_key_routes
from .limits import STOP_GRACE_SECONDS, bound_request_bodies
from . import malformed
from .gcs.xml_api import serve_xml_api
from .oauth import add_oauth_routes
from .object_api import handle_v0
from .production_headers import add_production_headers
from .requestlog import log_request
from .state import STATE, EmulatorState

# Test control, firebase-tools' harness routes and its hub's export: not logged, never faulted.
CONTROL_PREFIX = ("/_emulator/", "/internal/", "/_admin/")
UI_PREFIX = "/ui"  # the web UI (emulator/ui): not an API, neither recorded nor open to other origins
# Large body reads mean fewer, bigger pieces. Bodies are bounded per route by limits.py, not by
# aiohttp's client_max_size (it only applies to request.read()/post(), which the emulator does not use).
READ_BUFFER_BYTES = 1 << 20
MAX_BODY_BYTES = 1 << 50
log = logging.getLogger(__name__)


@web.middleware
async def record_requests(request: web.Request, handler) -> web.StreamResponse:
    """Log every API request (not control calls) with its outcome; count those in progress."""
    if request.path.startswith((*CONTROL_PREFIX, UI_PREFIX)):
        return await handler(request)
    requests = request.app[STATE].requests
    requests.in_flight += 1
    response = None
    started = time.perf_counter()
    try:
        response = await handler(request)
        return response
    finally:
        requests.in_flight -= 1
        # No response: the request was cut (the emulator stopping cancels what outlives its grace).
        dropped = response is None or request.transport is None or request.transport.is_closing()
        requests.record(request, None if dropped else response.status, dropped)
        log_request(request, None if dropped else response.status, time.perf_counter() - started,
                    request.app[STATE].service_accounts)


@web.middleware
async def inject_faults(request: web.Request, handler) -> web.StreamResponse:
    if request.path.startswith((*CONTROL_PREFIX, UI_PREFIX)):
        return await handler(request)
    fault = request.app[STATE].faults.take(request)
    if fault is None:
        return await handler(request)
    response = await fault.run(request, handler)
    if DROP_AFTER_BYTES in request and request.transport is not None:
        # Whatever the handler did, the client loses the connection instead of the response.
        request.transport.abort()
    return response


@web.middleware
async def render_errors(request: web.Request, handler) -> web.StreamResponse:
    """ApiError -> its reply; a lost client -> abort; anything else is a bug -> JSON 500, logged."""
    try:
        return await handler(request)
    except ApiError as error:
        return error.response(request.app[STATE].flavor)
    except (BodyDropped, ConnectionResetError):
        # The client is gone (or a fault cut it off, or it left while a fault delayed the reply):
        # there is no one to reply to.
        if request.transport is not None:
            request.transport.abort()
        return web.Response(status=499, text="connection dropped")
    except web.HTTPException as error:  # aiohttp's own routing errors (unknown path, bad method)
        if error.status < 400:
            raise
        return json_error(error.status, error.reason, {"Allow": error.headers["Allow"]} if "Allow" in error.headers else None)
    except Exception as error:  # the last resort: never a traceback or hang for the client
        log.exception("unexpected error handling %s %s", request.method, request.raw_path)
        return json_error(500, f"Internal emulator error: {type(error).__name__}: {error}")


def app_runner(app: web.Application) -> web.AppRunner:
    """The runner of each port the emulator serves: no access log (the request log has its
    own), signals handled by the emulator, and a stop that waits STOP_GRACE_SECONDS at most."""
    return web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=STOP_GRACE_SECONDS)


def _application(state: EmulatorState) -> web.Application:
    malformed.install()
    app = web.Application(
        client_max_size=MAX_BODY_BYTES,
        handler_args={"read_bufsize": READ_BUFFER_BYTES, **malformed.HANDLER_LIMITS},
        middlewares=[cross_site_guard(state.cross_site), record_requests, inject_faults, render_errors,
                     check_app_tokens, bound_request_bodies, serve_xml_api])
    app[STATE] = state
    app.on_response_prepare.append(add_cors_headers)
    app.on_response_prepare.append(add_production_headers)
    return app


def create_app(state: EmulatorState) -> web.Application:
    app = _application(state)
    app.add_routes(control_routes)
    app.add_routes(harness_routes)
    # Any character, newlines included: names are decoded and judged by the v0 handler.
    app.router.add_route("*", r"/v0{tail:[\s\S]*}", handle_v0)
    add_gcs_routes(app)  # the GCS JSON API, on the same store
    add_batch_route(app)  # and its batch endpoint
    add_identity_routes(app)  # Auth too, for convenience
    _add_published_keys(app, state)
    add_oauth_routes(app)  # service-account assertions -> access tokens
    add_app_check_routes(app)  # debug and custom tokens -> App Check tokens
    return app


def create_auth_app(state: EmulatorState) -> web.Application:
    """The Auth emulator's own port: the Auth routes only, on the same state."""
    app = _application(state)
    app.router.add_get("/", auth_ready)
    add_identity_routes(app)
    _add_published_keys(app, state)
    return app


def _add_published_keys(app: web.Application, state: EmulatorState) -> None:
    if state.accounts.id_token_keys is not None:
        add_key_routes(app, state.accounts.id_token_keys)
