"""Who is calling: the admin credential, a signed-in user (from an unverified JWT), or nobody."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

ADMIN_TOKEN = "owner"


@dataclass(frozen=True)
class Principal:
    is_admin: bool = False
    uid: str | None = None
    token_invalid: bool = False  # a token was sent but could not be read

    @property
    def signed_in(self) -> bool:
        return self.is_admin or self.uid is not None


ANONYMOUS = Principal()


def principal_from_header(authorization: str | None) -> Principal:
    """Parse `Authorization: Firebase <token>` (or `Bearer`); signatures are not checked."""
    if not authorization:
        return ANONYMOUS
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() not in ("firebase", "bearer") or not token:
        return Principal(token_invalid=True)
    if token == ADMIN_TOKEN:
        return Principal(is_admin=True)
    uid = _uid_from_jwt(token)
    return Principal(uid=uid) if uid else Principal(token_invalid=True)


def _uid_from_jwt(token: str) -> str | None:
    parts = token.split(".")
    if len(parts) not in (2, 3):
        return None
    try:
        claims = json.loads(_b64url_decode(parts[1]))
    except (ValueError, binascii.Error):
        return None
    if not isinstance(claims, dict):
        return None
    uid = claims.get("user_id") or claims.get("sub")
    return uid if isinstance(uid, str) and uid else None


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
