"""App Check on the Firebase (v0) API, in one middleware, before the rules run: `monitor` records
each request's verdict, `enforce` also refuses any request without a valid token with
production's 401. The GCS JSON and XML APIs are not behind App Check (as in production: they take
IAM credentials), and neither are the emulator's admin credentials (`Bearer owner`, a service
account's access token), which stand for the Admin SDK's privileged callers."""

from __future__ import annotations

from aiohttp import web

from ..auth import is_admin_credential
from ..errors import json_error
from ..state import STATE
from .paths import HEADER
from .tokens import VALID, VERDICT

V0_PREFIX = "/v0/"
#: What Firebase Storage answers, as the SDKs recognise it (storage/unauthorized-app).
INVALID_TOKEN = "Firebase App Check token is invalid."


@web.middleware
async def check_app_tokens(request: web.Request, handler) -> web.StreamResponse:
    app_check = request.app[STATE].app_check
    if (app_check.mode == "off" or not request.path.startswith(V0_PREFIX) or request.method == "OPTIONS"
            or is_admin_credential(request.headers.get("Authorization"))):
        return await handler(request)
    verdict = request[VERDICT] = app_check.verdict(request.headers.get(HEADER))
    if verdict != VALID and app_check.mode == "enforce":
        return json_error(401, INVALID_TOKEN)
    return await handler(request)
