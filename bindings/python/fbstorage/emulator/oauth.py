"""Google's OAuth2 token endpoint for service-account assertions, at `/oauth2.googleapis.com/token`
(the production host as a path prefix, the Auth emulator's convention), so a key file whose
`token_uri` points there works with google-auth unchanged."""

from __future__ import annotations

from urllib.parse import parse_qsl

from aiohttp import web

from .bodies import read_small_body
from .json_input import load_json
from .service_accounts import JWT_BEARER, TOKEN_PATH, OAuthError
from .state import STATE


async def token_endpoint(request: web.Request) -> web.Response:
    """Form (as google-auth sends it) or JSON: `grant_type` and `assertion`."""
    accounts = request.app[STATE].service_accounts
    body = await read_small_body(request)
    try:
        if request.content_type == "application/json":
            fields = load_json(body)
            if not isinstance(fields, dict):
                raise ValueError
        else:
            fields = dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
    except (ValueError, UnicodeDecodeError):
        return OAuthError(400, "invalid_request", "The request body is not a form or a JSON object.").response()
    if fields.get("grant_type") != JWT_BEARER:
        return OAuthError(400, "unsupported_grant_type", f"Invalid grant_type: {str(fields.get('grant_type'))[:80]}").response()
    assertion = fields.get("assertion")
    if not isinstance(assertion, str) or not assertion:
        return OAuthError(400, "invalid_request", "Missing required parameter: assertion").response()
    try:
        return web.json_response(accounts.exchange(assertion, f"{request.scheme}://{request.host}{TOKEN_PATH}"))
    except OAuthError as error:
        return error.response()


def add_oauth_routes(app: web.Application) -> None:
    app.router.add_post(TOKEN_PATH, token_endpoint)
