"""Who is calling, read as the official emulator reads the Authorization header: the admin
credential, or the payload of a JWT (an unreadable one means no user; where the flavor verifies ID
tokens, identity/verification.py judges its signature and claims). OAuth2 access tokens the
emulator issued to a service account are admin too; any other `Bearer` token that is no JWT is
refused with 401, as Google refuses unknown ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import ApiError
from .identity import jwt
from .identity.calls import SERVICE_ACCOUNT_TOKEN_PREFIX
from .identity.signing import SigningKeys
from .service_accounts import ServiceAccounts

ADMIN_TOKEN = "owner"


@dataclass(frozen=True)
class Principal:
    is_admin: bool = False
    claims: dict[str, Any] | None = None  # the token's payload: request.auth.token
    id_token: str | None = None  # the JWT the claims come from
    token_invalid: bool = False  # an Authorization header was sent but held no readable token


ANONYMOUS = Principal()
ADMIN = Principal(is_admin=True)  # the GCS JSON API's callers: rules never apply to them


def principal_from_header(authorization: str | None, service_accounts: ServiceAccounts) -> Principal:
    """`<scheme> <token>`: any scheme word works, as in the official emulator."""
    if not authorization:
        return ANONYMOUS
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() in ("firebase", "bearer") and token == ADMIN_TOKEN:
        return Principal(is_admin=True)
    if scheme.lower() == "bearer" and not jwt.decode(token):
        check_access_token(token, service_accounts)
        return ADMIN
    decoded = jwt.decode(token)
    if decoded is None:
        return Principal(token_invalid=True)
    return Principal(claims=decoded[1], id_token=token)


def is_admin_credential(authorization: str | None) -> bool:
    """Whether the header holds a credential that is admin somewhere in the emulator: `owner`
    (`Bearer` or `Firebase`, any case) or a service account's access token."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    token = token.strip()
    return scheme.lower() in ("firebase", "bearer") and (
        token.lower() == ADMIN_TOKEN or token.startswith(SERVICE_ACCOUNT_TOKEN_PREFIX))


def caller_uid(authorization: str | None, service_accounts: ServiceAccounts) -> str | None:
    """Who a request's Authorization header names, for logs and the UI: "admin", the user's uid,
    None when anonymous, "invalid token" for a token that is unreadable or refused; never the
    credential itself."""
    try:
        principal = principal_from_header(authorization, service_accounts)
    except ApiError:
        return "invalid token"
    if principal.is_admin:
        return "admin"
    if principal.token_invalid:
        return "invalid token"
    return None if principal.claims is None else uid_label(principal.claims)


def uid_label(claims: dict[str, Any]) -> str:
    """The uid an ID token's claims name."""
    uid = claims.get("user_id", claims.get("sub"))
    return str(uid) if uid is not None else "token without uid"


def check_access_token(token: str, service_accounts: ServiceAccounts) -> None:
    """An access token this emulator issued and that has not expired; else 401."""
    if not service_accounts.is_admin_token(token):
        raise ApiError(401, "Invalid Credentials: the access token is unknown or expired.")


def check_gcs_authorization(authorization: str | None, service_accounts: ServiceAccounts,
                            id_token_keys: SigningKeys | None) -> None:
    """The GCS API takes any caller as admin (as the official emulator), but a `Bearer` token
    that is neither `owner`, an ID token nor one of its access tokens is refused, and so is an ID
    token the emulator's Auth did not sign when it signs them (the production flavor)."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or token == ADMIN_TOKEN:
        return
    decoded = jwt.decode(token)
    if decoded is None:
        check_access_token(token, service_accounts)
    elif id_token_keys is not None:
        problem = id_token_keys.signature_problem(token, decoded[0])
        if problem:
            raise ApiError(401, f"Invalid Credentials: {problem}.")
