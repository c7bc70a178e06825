"""Who is calling, read as the official emulator reads the Authorization header: the admin
credential, or the payload of a JWT decoded without any signature check (an unreadable one
means no user)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .identity import jwt

ADMIN_TOKEN = "owner"


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
    decoded = jwt.decode(token)
    claims = decoded[1] if decoded else None
    return Principal(claims=claims, token_invalid=claims is None)
