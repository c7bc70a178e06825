"""How production Storage judges an ID token beyond decoding it, as far as this process knows:
its signature (this emulator's Auth signed it), its claims (all there, for this project, times
that are numbers and in range), then whether it stands for a user its Auth emulator knows to be
deleted, disabled or revoked."""

from __future__ import annotations

import time
from typing import Any

from . import jwt
from .accounts import AccountStore
from .tokens import ISSUER_PREFIX

_REASONS = {"USER_NOT_FOUND": "the user was deleted", "TOKEN_EXPIRED": "the user's sessions were revoked",
            "USER_DISABLED": "the user is disabled"}


# Seconds an ID token's iat may be ahead of this clock (the Admin SDKs allow the same skew).
CLOCK_SKEW = 300
# Claims production requires (`sub` a non-empty string; the others judged by _claims_problem).
REQUIRED_CLAIMS = ("aud", "iss", "exp", "iat", "sub")


def refusal(store: AccountStore, token: str) -> str | None:
    """Why the token, a decodable JWT, is refused (a phrase for the 401 message), or None. Tokens of
    users this emulator never had (minted by the control API for given claims) are judged by their
    signature and claims only."""
    header, claims = jwt.decode(token)
    problem = (store.id_token_keys.signature_problem(token, header) or _missing_claim(claims)
               or _claims_problem(claims, store.default_project))
    if problem:
        return problem
    issuer, uid = claims.get("iss"), claims.get("user_id")
    if not isinstance(issuer, str) or not issuer.startswith(ISSUER_PREFIX) or not isinstance(uid, str):
        return None
    accounts = store.find_project(issuer[len(ISSUER_PREFIX):])
    if accounts is None or not accounts.knows(uid):
        return None
    problem = accounts.token_problem(claims)
    return _REASONS[problem] if problem else None


def _missing_claim(claims: dict[str, Any]) -> str | None:
    for name in REQUIRED_CLAIMS:
        if name not in claims:
            return f"the Firebase ID token has no {name!r} claim"
    if not isinstance(claims["sub"], str) or not claims["sub"] or len(claims["sub"]) > 128:
        return "the Firebase ID token's 'sub' (subject) claim must be a non-empty string of at most 128 characters"
    return None


def _claims_problem(claims: dict[str, Any], project: str) -> str | None:
    """For another project (aud, iss), or times that are not numbers, expired or yet to come; every
    required claim is there."""
    if claims["aud"] != project:
        return f"the Firebase ID token has an incorrect aud (audience) claim: expected {project!r}"
    if claims["iss"] != ISSUER_PREFIX + project:
        return f"the Firebase ID token has an incorrect iss (issuer) claim: expected {ISSUER_PREFIX + project!r}"
    now = time.time()
    for name in ("exp", "iat", "auth_time"):
        if name in claims and not _is_number(claims[name]):
            return f"the Firebase ID token's {name} claim is not a number"
    if claims["exp"] <= now:
        return "the Firebase ID token has expired"
    if claims["iat"] > now + CLOCK_SKEW:
        return "the Firebase ID token was issued in the future (iat)"
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value  # not NaN
