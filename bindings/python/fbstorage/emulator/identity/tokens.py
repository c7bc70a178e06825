"""ID tokens shaped as production's (signed by the production flavor, unsigned as the official Auth
emulator's otherwise), and custom tokens as the official Auth emulator accepts them."""

from __future__ import annotations

import logging
import time
from typing import Any

from ..json_input import load_json
from . import jwt
from .accounts import Account
from .errors import require
from .fake_tokens import read_fake_token
from .signing import SigningKeys

log = logging.getLogger(__name__)
CUSTOM_TOKEN_AUDIENCE = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
ISSUER_PREFIX = "https://securetoken.google.com/"
# Claims a developer may not set (custom claims and custom tokens' `claims`).
RESERVED_CLAIMS = frozenset({"iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf",
                             "auth_time", "firebase", "at_hash", "c_hash"})
MAX_CUSTOM_ATTRIBUTES = 1000


def mint_id_token(account: Account, project_id: str, provider: str, extra_claims: dict[str, Any],
                  lifetime: int, keys: SigningKeys | None) -> str:
    """Custom claims at the top level, under the reserved fields, as production and firebase-tools."""
    now = int(time.time())
    identities = account.identities()
    payload: dict[str, Any] = {}
    if account.display_name is not None:
        payload["name"] = account.display_name
    if account.photo_url is not None:
        payload["picture"] = account.photo_url
    payload.update(account.custom_claims())
    payload.update(extra_claims)
    if provider == "anonymous":
        payload["provider_id"] = "anonymous"
    if account.email is not None:
        payload["email"] = account.email
        payload["email_verified"] = account.email_verified
    if account.phone_number is not None:
        payload["phone_number"] = account.phone_number
    auth_time = account.last_login_at_ms // 1000 if account.last_login_at_ms is not None else now
    payload.update({
        "auth_time": auth_time, "user_id": account.local_id,
        "firebase": {"identities": identities, "sign_in_provider": provider},
        **standard_claims(project_id, account.local_id, now, lifetime)})
    return encode_id_token(payload, keys)


def standard_claims(project_id: str, uid: str, now: int, lifetime: int) -> dict[str, Any]:
    return {"iat": now, "exp": now + lifetime, "aud": project_id, "iss": ISSUER_PREFIX + project_id, "sub": uid}


def encode_id_token(payload: dict[str, Any], keys: SigningKeys | None) -> str:
    return keys.sign(payload) if keys else jwt.encode_unsigned(payload)


def read_custom_token(token: str) -> tuple[str, dict[str, Any]]:
    """(uid, developer claims) of a custom token: a JWT for the Identity Toolkit audience, signed or
    not (signatures are not checked, as in firebase-tools), or the emulator-only `{"uid": …}` JSON."""
    decoded = read_fake_token(
        token, "INVALID_CUSTOM_TOKEN : ((Auth Emulator only accepts strict JSON or JWTs as fake custom tokens.))")
    require(decoded, "INVALID_CUSTOM_TOKEN : Invalid assertion format")
    header, payload = decoded
    if not token.startswith("{"):
        if header.get("alg") != "none":
            log.warning("accepted a signed custom token without checking its signature (emulator)")
        require(payload.get("aud") == CUSTOM_TOKEN_AUDIENCE,
                f"INVALID_CUSTOM_TOKEN : ((Invalid aud (audience): {payload.get('aud')} Note: Firebase ID Tokens / "
                "third-party tokens cannot be used with signInWithCustomToken.))")
    uid = _as_text(payload.get("uid"))
    if uid is None:
        uid = _as_text(payload.get("user_id"))
    require(uid, "MISSING_IDENTIFIER")
    claims = payload.get("claims", {})
    check_claims(claims)
    return uid, claims


def check_claims(claims: Any) -> None:
    require(isinstance(claims, dict), "INVALID_CLAIMS")
    for name in sorted(RESERVED_CLAIMS & claims.keys()):
        require(False, f"FORBIDDEN_CLAIM : {name}")


def check_custom_attributes(text: str) -> dict[str, Any]:
    """The JSON text of accounts:update's `customAttributes`: an object without reserved claims."""
    require(len(text) <= MAX_CUSTOM_ATTRIBUTES, "CLAIMS_TOO_LARGE")
    try:
        claims = load_json(text)
    except ValueError:
        claims = None
    check_claims(claims)
    return claims


def _as_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None
