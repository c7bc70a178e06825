"""The key the production flavor's Auth signs ID tokens with (RS256, `kid` in the header), made
anew for each emulator run, and published as Google publishes securetoken's keys: an x509
certificate map and a JWKS, under the production URLs with their host as a path prefix. A token
of an earlier run no longer verifies: the client refreshes it, as after a key rotation."""

from __future__ import annotations

import datetime
import hashlib
from typing import Any

from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from . import jwt

SECURETOKEN_ACCOUNT = "securetoken@system.gserviceaccount.com"
X509_PATH = "/www.googleapis.com/robot/v1/metadata/x509/" + SECURETOKEN_ACCOUNT
JWKS_PATH = "/www.googleapis.com/service_accounts/v1/jwk/" + SECURETOKEN_ACCOUNT
KEY_BITS = 2048
CERTIFICATE_DAYS = 2  # Google's certificates live days too; this one outlives any emulator run's tokens
KEYS_MAX_AGE = 3600  # seconds the published keys may be cached (Google sends a few hours)


class SigningKeys:
    """An RS256 key pair, published as Google publishes its keys: the Auth emulator's ID tokens
    (production flavor) and the App Check tokens are signed with one each."""

    def __init__(self) -> None:
        self._private = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
        self._public = self._private.public_key()
        der = self._public.public_bytes(serialization.Encoding.DER,
                                        serialization.PublicFormat.SubjectPublicKeyInfo)
        self.kid = hashlib.sha1(der).hexdigest()
        self._certificate = _self_signed(self._private)

    def sign(self, payload: dict[str, Any]) -> str:
        return jwt.encode_rs256(payload, self._private, self.kid)

    def signature_problem(self, token: str, header: dict[str, Any]) -> str | None:
        """Why the token is not one this key signed (a phrase), or None."""
        if header.get("alg") != "RS256":
            return f"the Firebase ID token has incorrect algorithm {str(header.get('alg'))[:20]!r}: expected 'RS256'"
        if header.get("kid") != self.kid:
            return "the Firebase ID token has a 'kid' claim that does not correspond to a known public key"
        if not jwt.rs256_verifies(token, self._public):
            return "the Firebase ID token has an invalid signature"
        return None

    def x509_map(self) -> dict[str, str]:
        return {self.kid: self._certificate.public_bytes(serialization.Encoding.PEM).decode("ascii")}

    def jwks(self) -> dict[str, Any]:
        numbers = self._public.public_numbers()
        return {"keys": [{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": self.kid,
                          "n": jwt.b64url_uint(numbers.n), "e": jwt.b64url_uint(numbers.e)}]}


def _self_signed(private_key: rsa.RSAPrivateKey) -> x509.Certificate:
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "securetoken.system.gserviceaccount.com")])
    start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
    return (x509.CertificateBuilder()
            .subject_name(subject).issuer_name(subject)
            .public_key(private_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(start + datetime.timedelta(days=CERTIFICATE_DAYS))
            .sign(private_key, hashes.SHA256()))


def add_key_routes(app: web.Application, keys: SigningKeys) -> None:
    """The published keys, cacheable as Google's are (firebase-admin and google-auth honour max-age)."""
    cache = {"Cache-Control": f"public, max-age={KEYS_MAX_AGE}, must-revalidate, no-transform"}

    async def x509_map(request: web.Request) -> web.Response:
        return web.json_response(keys.x509_map(), headers=cache)

    async def jwks(request: web.Request) -> web.Response:
        return web.json_response(keys.jwks(), headers=cache)

    app.router.add_get(X509_PATH, x509_map)
    app.router.add_get(JWKS_PATH, jwks)
