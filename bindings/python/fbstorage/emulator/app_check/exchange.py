"""The token exchange: `POST …/projects/{project}/apps/{app}:exchangeDebugToken` (a registered
debug secret) and `:exchangeCustomToken` (a JWT a `--service-account` key signed, as
firebase-admin's createToken mints it), answered with an App Check token; and the JWKS that
verifies those tokens, at production's URL."""

from __future__ import annotations

import re
import time

from aiohttp import web

from ..bodies import read_small_body
from ..identity import jwt
from ..identity.signing import KEYS_MAX_AGE
from ..json_input import load_json
from ..state import STATE
from .paths import CUSTOM_TOKEN_AUDIENCE, EXCHANGE_PREFIXES, JWKS_PATH
from .tokens import MAX_CUSTOM_TTL_SECONDS, MIN_CUSTOM_TTL_SECONDS

ATTESTATION_FAILED = "App attestation failed."
MAX_CUSTOM_TOKEN_LIFETIME = 3600  # seconds between a custom token's iat and exp (createToken: 5 minutes)
CLOCK_SKEW = 300
_DURATION = re.compile(r"(\d{1,9})(?:\.\d{1,9})?s")


class ExchangeError(Exception):
    """Google's API error body: `{"error": {"code", "message", "status"}}`."""

    def __init__(self, status: int, status_name: str, message: str):
        super().__init__(message)
        self.status, self.status_name, self.message = status, status_name, message

    def response(self) -> web.Response:
        return web.json_response({"error": {"code": self.status, "message": self.message, "status": self.status_name}},
                                 status=self.status)


def _attestation_failed() -> ExchangeError:
    return ExchangeError(403, "PERMISSION_DENIED", ATTESTATION_FAILED)


def _invalid(message: str) -> ExchangeError:
    return ExchangeError(400, "INVALID_ARGUMENT", message)


async def exchange(request: web.Request) -> web.Response:
    app_check = request.app[STATE].app_check
    project, app_id, method = (request.match_info[name] for name in ("project", "app", "method"))
    try:
        if project not in (app_check.project, app_check.project_number):
            raise ExchangeError(404, "NOT_FOUND", f"Project {project[:100]!r} not found (this emulator's is "
                                                  f"{app_check.project!r}).")
        fields = await _json_fields(request)
        limited_use = fields.get("limitedUse", fields.get("limited_use", False)) is True
        if method == "exchangeDebugToken":
            debug_token = fields.get("debugToken", fields.get("debug_token"))
            if not isinstance(debug_token, str) or not debug_token:
                raise _invalid("debug_token is required.")
            if debug_token not in app_check.debug_tokens:
                raise _attestation_failed()
            answer = app_check.issue(app_id, limited_use=limited_use)
        elif method == "exchangeCustomToken":
            custom_token = fields.get("customToken", fields.get("custom_token"))
            if not isinstance(custom_token, str) or not custom_token:
                raise _invalid("custom_token is required.")
            ttl = _custom_token_ttl(request, custom_token, app_id)
            answer = app_check.issue(app_id, limited_use=limited_use, ttl_seconds=ttl)
        else:
            raise ExchangeError(404, "NOT_FOUND", f"Method {method[:60]!r} is not served by the emulator's App Check.")
    except ExchangeError as error:
        return error.response()
    if "/v1beta/" in request.path:  # v1beta's AppCheckToken also has the deprecated name, which the web SDK reads
        answer = {"attestationToken": answer["token"], **answer}
    return web.json_response(answer)


async def _json_fields(request: web.Request) -> dict:
    try:
        fields = load_json(await read_small_body(request))
    except (ValueError, UnicodeDecodeError):
        fields = None
    if not isinstance(fields, dict):
        raise _invalid("The request body is not a JSON object.")
    return fields


def _custom_token_ttl(request: web.Request, token: str, app_id: str) -> int | None:
    """The lifetime the custom token asks for (None: the default), once it is found valid: signed
    by a known service account, for the exchange service, this app, and current."""
    decoded = jwt.decode(token)
    if decoded is None:
        raise _invalid("The custom token is not a compact JWS.")
    header, claims = decoded
    email = claims.get("iss")
    key = request.app[STATE].service_accounts.public_keys.get(email) if isinstance(email, str) else None
    if header.get("alg") != "RS256" or key is None or claims.get("sub") != email or not jwt.rs256_verifies(token, key):
        raise _attestation_failed()
    if claims.get("aud") != CUSTOM_TOKEN_AUDIENCE or claims.get("app_id") != app_id:
        raise _attestation_failed()
    issued, expires, now = claims.get("iat"), claims.get("exp"), time.time()
    if not (isinstance(issued, int) and isinstance(expires, int) and issued <= now + CLOCK_SKEW
            and now < expires <= issued + MAX_CUSTOM_TOKEN_LIFETIME):
        raise _attestation_failed()
    ttl = claims.get("ttl")
    if ttl is None:
        return None
    match = _DURATION.fullmatch(ttl) if isinstance(ttl, str) else None
    if not match or not MIN_CUSTOM_TTL_SECONDS <= int(match[1]) <= MAX_CUSTOM_TTL_SECONDS:
        raise _invalid("ttl must be a duration between 30 minutes and 7 days.")
    return int(match[1])


async def jwks(request: web.Request) -> web.Response:
    return web.json_response(request.app[STATE].app_check.keys.jwks(),
                             headers={"Cache-Control": f"public, max-age={KEYS_MAX_AGE}"})


def add_app_check_routes(app: web.Application) -> None:
    for prefix in EXCHANGE_PREFIXES:
        app.router.add_post(prefix + r"{project}/apps/{app:[^/]+}:{method:[A-Za-z]+}", exchange)
    app.router.add_get(JWKS_PATH, jwks)
