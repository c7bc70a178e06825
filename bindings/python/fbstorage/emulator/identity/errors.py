"""Identity Toolkit and Secure Token errors, in production's body:
`{"error": {"code", "message", "errors": [{"message", "domain", "reason"}], "status"}}`."""

from __future__ import annotations

from aiohttp import web

MISSING_API_KEY = "The request is missing a valid API key."
LOGIN_REQUIRED = ("Request is missing required authentication credential. Expected OAuth 2 access token, login "
                  "cookie or other valid authentication credential. See "
                  "https://developers.google.com/identity/sign-in/web/devconsole-project.")
INVALID_CREDENTIALS = ("Request had invalid authentication credentials. Expected OAuth 2 access token, login "
                       "cookie or other valid authentication credential. See "
                       "https://developers.google.com/identity/sign-in/web/devconsole-project.")


class AuthError(Exception):
    """`message` is the error code clients switch on, optionally followed by ` : details`
    (for example `WEAK_PASSWORD : Password should be at least 6 characters`)."""

    def __init__(self, message: str, status: int = 400, status_name: str = "INVALID_ARGUMENT",
                 reason: str = "invalid", location: str | None = None, item_message: str | None = None):
        super().__init__(message)
        self.item_message = item_message or message
        self.message = message
        self.status = status
        self.status_name = status_name
        self.reason = reason
        self.location = location

    def response(self) -> web.Response:
        item = {"message": self.item_message, "domain": "global", "reason": self.reason}
        if self.location:
            item.update(location=self.location, locationType="header")
        body = {"error": {"code": self.status, "message": self.message, "errors": [item], "status": self.status_name}}
        return web.json_response(body, status=self.status)


def require(condition: object, message: str) -> None:
    """Production's 400 INVALID_ARGUMENT with `message` unless `condition` holds."""
    if not condition:
        raise AuthError(message)


def missing_api_key() -> AuthError:
    return AuthError(MISSING_API_KEY, 403, "PERMISSION_DENIED", "forbidden")


def login_required() -> AuthError:
    return AuthError(LOGIN_REQUIRED, 401, "UNAUTHENTICATED", "required", location="Authorization",
                     item_message="Login Required.")


def invalid_credentials() -> AuthError:
    return AuthError(INVALID_CREDENTIALS, 401, "UNAUTHENTICATED", "authError", location="Authorization",
                     item_message="Invalid Credentials")
