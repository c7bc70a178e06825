"""Service accounts: the keys the emulator trusts, the JWT-bearer assertions (RFC 7523) it
exchanges for access tokens, and those tokens, which are admin on both storage APIs.

The emulator knows the keys given with `--service-account key.json`: it keeps their public
halves only, and checks an assertion's RS256 signature, `aud` (this endpoint, or Google's),
`iat` and `exp` as Google does, answering with Google's error bodies."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from .identity import jwt
from .json_input import load_json

GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token"
#: Where the emulator serves that endpoint: its host as a path prefix (emulator/oauth.py).
TOKEN_PATH = "/oauth2.googleapis.com/token"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_LIFETIME = 3599  # what Google answers
MAX_ASSERTION_LIFETIME = 3600
CLOCK_SKEW = 300  # seconds an assertion's iat may be ahead of this clock
CLOCK_MESSAGE = ("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. "
                 "Check your iat and exp values in the JWT claim.")


class OAuthError(Exception):
    def __init__(self, status: int, error: str, description: str):
        super().__init__(description)
        self.status, self.error, self.description = status, error, description

    def response(self) -> web.Response:
        return web.json_response({"error": self.error, "error_description": self.description}, status=self.status)


@dataclass
class ServiceAccounts:
    """The keys the emulator trusts (email -> public key) and the access tokens it issued."""
    public_keys: dict[str, rsa.RSAPublicKey] = field(default_factory=dict)
    access_tokens: dict[str, tuple[str, float]] = field(default_factory=dict)  # token -> (email, expiry)

    @classmethod
    def from_key_files(cls, paths: list[str]) -> "ServiceAccounts":
        """Raises ValueError naming the file (never quoting it) when one is not a service-account key."""
        accounts = cls()
        for path in paths:
            accounts.add_key(Path(path))
        return accounts

    def add_key(self, path: Path) -> None:
        try:
            key = load_json(path.read_bytes())
            email, pem = key["client_email"], key["private_key"]
            if key.get("type") != "service_account" or not isinstance(email, str) or not isinstance(pem, str):
                raise ValueError
            private = serialization.load_pem_private_key(pem.encode(), password=None)
        except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
            raise ValueError(f"--service-account {path}: not a readable service-account JSON key") from None
        if not isinstance(private, rsa.RSAPrivateKey):
            raise ValueError(f"--service-account {path}: the private key is not an RSA key")
        self.public_keys[email] = private.public_key()

    def verify(self, email: str, message: bytes, signature: bytes) -> bool:
        key = self.public_keys.get(email)
        if key is None:
            return False
        try:
            key.verify(signature, message, padding.PKCS1v15(), hashes.SHA256())
        except InvalidSignature:
            return False
        return True

    def is_admin_token(self, token: str) -> bool:
        issued = self.access_tokens.get(token)
        return issued is not None and issued[1] > time.time()

    def exchange(self, assertion: str, endpoint_url: str) -> dict:
        """An access token for a valid assertion; OAuthError as Google answers otherwise."""
        decoded = jwt.decode(assertion)
        if decoded is None:
            raise OAuthError(400, "invalid_grant", "Invalid JWT: the assertion is not a compact JWS.")
        header, claims = decoded
        if header.get("alg") != "RS256":
            raise OAuthError(400, "invalid_grant", "Invalid JWT: the algorithm must be RS256.")
        email = claims.get("iss")
        if not isinstance(email, str) or email not in self.public_keys:
            raise OAuthError(401, "invalid_client", "The OAuth client was not found.")
        if not jwt.rs256_verifies(assertion, self.public_keys[email]):
            raise OAuthError(400, "invalid_grant", "Invalid JWT Signature.")
        if claims.get("aud") not in (endpoint_url, GOOGLE_TOKEN_URI):
            raise OAuthError(400, "invalid_grant", "Invalid JWT: Failed audience check.")
        issued, expires, now = claims.get("iat"), claims.get("exp"), time.time()
        if not (isinstance(issued, int) and isinstance(expires, int) and issued <= now + CLOCK_SKEW
                and expires > now and issued < expires <= issued + MAX_ASSERTION_LIFETIME):
            raise OAuthError(400, "invalid_grant", CLOCK_MESSAGE)
        token = "ya29.emulator-" + secrets.token_urlsafe(32)
        self.access_tokens = {kept: issued for kept, issued in self.access_tokens.items() if issued[1] > now}
        self.access_tokens[token] = (email, now + TOKEN_LIFETIME)
        return {"access_token": token, "expires_in": TOKEN_LIFETIME, "token_type": "Bearer"}
