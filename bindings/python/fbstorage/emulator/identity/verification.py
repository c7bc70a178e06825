"""How production Storage judges an ID token beyond decoding it, as far as this process knows:
expired, or standing for a user its Auth emulator knows to be deleted, disabled or revoked."""

from __future__ import annotations

import time
from typing import Any

from .accounts import AccountStore
from .tokens import ISSUER_PREFIX

_REASONS = {"USER_NOT_FOUND": "the user was deleted", "TOKEN_EXPIRED": "the user's sessions were revoked",
            "USER_DISABLED": "the user is disabled"}


def refusal(store: AccountStore, claims: dict[str, Any]) -> str | None:
    """Why the token is refused (a phrase for the 401 message), or None. Tokens of users this
    emulator never had (hand-made ones) are judged by their expiry only."""
    expires = claims.get("exp")
    if isinstance(expires, (int, float)) and not isinstance(expires, bool) and expires <= time.time():
        return "the Firebase ID token has expired"
    issuer, uid = claims.get("iss"), claims.get("user_id")
    if not isinstance(issuer, str) or not issuer.startswith(ISSUER_PREFIX):
        return None
    accounts = store.find_project(issuer[len(ISSUER_PREFIX):])
    if accounts is None or not accounts.knows(uid):
        return None
    problem = accounts.token_problem(claims)
    return _REASONS[problem] if problem else None
