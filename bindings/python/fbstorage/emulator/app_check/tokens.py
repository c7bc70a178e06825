"""The App Check tokens the emulator issues and judges: RS256 with a key pair of its own (made
anew each run, like the ID-token key), with production's claims, and each token's verdict."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..identity import jwt
from ..identity.operations import PROJECT_NUMBER
from ..identity.signing import SigningKeys
from .paths import ISSUER_PREFIX

MODES = ("off", "monitor", "enforce")
DEFAULT_TTL_SECONDS = 3600  # production's default for debug and custom providers
MIN_CUSTOM_TTL_SECONDS, MAX_CUSTOM_TTL_SECONDS = 30 * 60, 7 * 24 * 3600  # createToken's ttlMillis bounds
#: Request key: the App Check verdict of a v0 request (absent when App Check is off or not asked).
VERDICT = "fbstorage.app_check_verdict"
#: Verdicts, as the request log and the UI show them: never the token itself.
VALID, MISSING, MALFORMED, BAD_SIGNATURE, OTHER_PROJECT, EXPIRED = (
    "valid", "missing", "malformed", "bad signature", "other project", "expired")


@dataclass
class AppCheck:
    """`--app-check MODE`, the registered debug tokens, the project the tokens are for."""
    project: str = "demo-project"
    mode: str = "off"
    debug_tokens: frozenset[str] = frozenset()
    ttl_seconds: int = DEFAULT_TTL_SECONDS
    project_number: str = field(default=PROJECT_NUMBER)

    @cached_property
    def keys(self) -> SigningKeys:
        """The key pair, made on first use (a 2048-bit key takes tens of milliseconds)."""
        return SigningKeys()

    @property
    def issuer(self) -> str:
        return ISSUER_PREFIX + self.project_number

    def audience(self, project: str | None = None) -> list[str]:
        return [f"projects/{self.project_number}", f"projects/{project or self.project}"]

    def issue(self, app_id: str, *, limited_use: bool = False, ttl_seconds: int | None = None,
              project: str | None = None) -> dict[str, str]:
        """The exchange's answer: the signed token and its `ttl` as a protobuf Duration."""
        ttl = self.ttl_seconds if ttl_seconds is None else ttl_seconds
        now = int(time.time())
        claims: dict[str, Any] = {"sub": app_id, "aud": self.audience(project),
                                  "iss": self.issuer, "exp": now + ttl, "iat": now}
        if limited_use:
            claims["jti"] = secrets.token_urlsafe(16)
        return {"token": self.keys.sign(claims), "ttl": f"{ttl}s"}

    def verdict(self, token: str | None) -> str:
        """What a request's X-Firebase-AppCheck header is worth."""
        if not token:
            return MISSING
        decoded = jwt.decode(token)
        if decoded is None:
            return MALFORMED
        header, claims = decoded
        if self.keys.signature_problem(token, header):
            return BAD_SIGNATURE
        audience = claims.get("aud")
        if claims.get("iss") != self.issuer or not isinstance(audience, list) or f"projects/{self.project}" not in audience:
            return OTHER_PROJECT
        expires = claims.get("exp")
        if not isinstance(expires, int) or expires <= time.time():
            return EXPIRED
        return VALID
