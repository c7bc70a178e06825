"""How production Storage judges an ID token beyond decoding it, as far as this process knows:
its claims (for this project, times that are numbers and in range), then whether it stands for a
user its Auth emulator knows to be deleted, disabled or revoked."""

from __future__ import annotations

import time
from typing import Any

from .accounts import AccountStore
from .tokens import ISSUER_PREFIX

_REASONS = {"USER_NOT_FOUND": "the user was deleted", "TOKEN_EXPIRED": "the user's sessions were revoked",
            "USER_DISABLED": "the user is disabled"}


# Seconds an ID token's iat may be ahead of this clock (the Admin SDKs allow the same skew).
CLOCK_SKEW = 300


def refusal(store: AccountStore, claims: dict[str, Any]) -> str | None:
    """Why the token is refused (a phrase for the 401 message), or None. Tokens of users this
    emulator never had (hand-made ones) are judged by their claims only; a claim a hand-made token
    leaves out is not required (docs/security.md, "Tokens")."""
    problem = _claims_problem(claims, store.default_project)
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


def _claims_problem(claims: dict[str, Any], project: str) -> str | None:
    """For another project (aud, iss), or times that are not numbers, expired or yet to come."""
    if "aud" in claims and claims["aud"] != project:
        return f"the Firebase ID token has an incorrect aud (audience) claim: expected {project!r}"
    if "iss" in claims and claims["iss"] != ISSUER_PREFIX + project:
        return f"the Firebase ID token has an incorrect iss (issuer) claim: expected {ISSUER_PREFIX + project!r}"
    now = time.time()
    for name in ("exp", "iat", "auth_time"):
        if name in claims and not _is_number(claims[name]):
            return f"the Firebase ID token's {name} claim is not a number"
    if "exp" in claims and claims["exp"] <= now:
        return "the Firebase ID token has expired"
    if "iat" in claims and claims["iat"] > now + CLOCK_SKEW:
        return "the Firebase ID token was issued in the future (iat)"
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value  # not NaN
