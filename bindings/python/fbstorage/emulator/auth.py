"""Who is calling, read as the official emulator reads the Authorization header: the admin
credential, or the payload of a JWT decoded without any signature check (an unreadable one
means no user)."""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Any

ADMIN_TOKEN = "owner"
_JWS = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")


@dataclass(frozen=True)
class Principal:
    is_admin: bool = False
    claims: dict[str, Any] | None = None  # the token's payload: request.auth.token
    token_invalid: bool = False  # an Authorization header was sent but held no readable token


ANONYMOUS = Principal()
ADMIN = Principal(is_admin=True)  # the GCS JSON API's callers: rules never apply to them


def principal_from_header(authorization: str | None) -> Principal:
    """`<scheme> <token>`: any scheme word works, as in the official emulator."""
    if not authorization:
        return ANONYMOUS
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() in ("firebase", "bearer") and token == ADMIN_TOKEN:
        return Principal(is_admin=True)
    claims = _jwt_payload(token)
    return Principal(claims=claims, token_invalid=claims is None)


def _jwt_payload(token: str) -> dict[str, Any] | None:
    """The payload object of a compact JWS (header and payload JSON), like `jwt.decode`."""
    if not _JWS.fullmatch(token):
        return None
    header, payload, _ = token.split(".")
    try:
        if not isinstance(json.loads(_b64url_decode(header)), dict):
            return None
        claims = json.loads(_b64url_decode(payload))
    except (ValueError, binascii.Error):
        return None
    return claims if isinstance(claims, dict) else None


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
