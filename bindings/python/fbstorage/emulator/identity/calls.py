"""What an Auth request carries: its body (JSON or form, snake_case or camelCase keys, typed
field reads that answer production's 400), its API key and whether it is an admin call."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import web

from ..bodies import read_small_body
from ..json_input import load_json
from .errors import AuthError, invalid_credentials, missing_api_key

SERVICE_ACCOUNT_TOKEN_PREFIX = "ya29."
_SNAKE_PART = re.compile(r"_([a-z0-9])")


async def read_body(request: web.Request) -> dict[str, Any]:
    """The body as an object with camelCase keys; {} when empty."""
    raw = await read_small_body(request)
    if request.content_type == "application/x-www-form-urlencoded":
        try:
            return {_camel(key): value for key, value in parse_qsl(raw.decode("utf-8"), keep_blank_values=True)}
        except UnicodeDecodeError:
            raise AuthError("Invalid form payload received: the body is not UTF-8.") from None
    if not raw.strip():
        return {}
    try:
        body = load_json(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise AuthError(f"Invalid JSON payload received. {error}") from None
    if not isinstance(body, dict):
        raise AuthError(f"Invalid JSON payload received. Expected an object, got {type(body).__name__}.")
    return {_camel(key): value for key, value in body.items()}


def require_api_key(request: web.Request) -> None:
    """Any non-empty key is accepted, as by firebase-tools; a missing one is refused as in production."""
    if not (request.query.get("key") or request.headers.get("X-Goog-Api-Key")):
        raise missing_api_key()


def is_admin(request: web.Request) -> bool:
    """`Authorization: Bearer owner` or a service account's `ya29.` token make an admin call; any
    other Bearer token is refused, as by firebase-tools."""
    authorization = request.headers.get("Authorization", "")
    if not authorization.lower().startswith("bearer "):
        return False
    token = authorization[len("bearer "):].strip()
    if token.lower() == "owner" or token.startswith(SERVICE_ACCOUNT_TOKEN_PREFIX):
        return True
    raise invalid_credentials()


class Fields:
    """Typed reads of request fields: a value of the wrong type is production's 400."""

    def __init__(self, body: dict[str, Any]):
        self.body = body

    def __contains__(self, name: str) -> bool:
        return self.body.get(name) is not None

    def text(self, name: str) -> str | None:
        return self._typed(name, str, "TYPE_STRING")

    def flag(self, name: str) -> bool | None:
        value = self.body.get(name)
        if isinstance(value, str) and value in ("true", "false"):  # form bodies
            return value == "true"
        return self._typed(name, bool, "TYPE_BOOL")

    def integer(self, name: str) -> int | None:
        value = self.body.get(name)
        if isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value):  # int64 travels as a string
            return int(value)
        return self._typed(name, int, "TYPE_INT64")

    def texts(self, name: str) -> list[str]:
        values = self.body.get(name)
        if values is None:
            return []
        if isinstance(values, str):
            values = [values]
        if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
            raise _wrong_type(name, "TYPE_STRING", values)
        return values

    def _typed(self, name: str, kind: type, type_name: str) -> Any:
        value = self.body.get(name)
        if value is None:
            return None
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise _wrong_type(name, type_name, value)
        return value


def _wrong_type(name: str, type_name: str, value: Any) -> AuthError:
    """Production echoes the value; not here, since it may be a password."""
    return AuthError(f"Invalid JSON payload received. Invalid value at '{name}' ({type_name}): "
                     f"got {type(value).__name__}")


def _camel(key: str) -> str:
    return _SNAKE_PART.sub(lambda match: match.group(1).upper(), key)
