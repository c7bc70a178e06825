"""Password hashing: scrypt with a random salt per password; only the hash and salt are kept."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os

# Cheap parameters: this is a local emulator, but a password must never sit on disk in clear.
_SCRYPT = {"n": 1 << 12, "r": 8, "p": 1, "dklen": 32}
MIN_LENGTH = 6


def hash_password(password: str) -> tuple[str, str]:
    """(hash, salt), both base64 as the Identity Toolkit shows them."""
    salt = os.urandom(16)
    return _b64(_scrypt(password, salt)), _b64(salt)


def verify_password(password: str, password_hash: str, salt: str) -> bool:
    return hmac.compare_digest(_scrypt(password, base64.b64decode(salt)), base64.b64decode(password_hash))


def _scrypt(password: str, salt: bytes) -> bytes:
    return hashlib.scrypt(password.encode("utf-8", "surrogatepass"), salt=salt, **_SCRYPT)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
