"""Compact JWS (JWT) encoding and decoding: unsigned (`alg: none`, as the Auth emulators of
firebase-tools make them) and RS256 (as Google signs ID tokens and service accounts sign assertions)."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from ..json_input import load_json

_JWS = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")


def encode_unsigned(payload: dict[str, Any]) -> str:
    """`alg: none`: header and payload, an empty signature."""
    header = {"alg": "none", "typ": "JWT"}
    return f"{_b64url_json(header)}.{_b64url_json(payload)}."


def encode_rs256(payload: dict[str, Any], private_key: rsa.RSAPrivateKey, kid: str) -> str:
    signing_input = f"{_b64url_json({'alg': 'RS256', 'kid': kid, 'typ': 'JWT'})}.{_b64url_json(payload)}"
    signature = private_key.sign(signing_input.encode("ascii"), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{_b64url(signature)}"


def rs256_verifies(token: str, public_key: rsa.RSAPublicKey) -> bool:
    """Whether the token's RS256 signature is the key's over its first two parts."""
    signing_input, _, signature = token.rpartition(".")
    try:
        public_key.verify(_b64url_decode(signature), signing_input.encode("ascii"), padding.PKCS1v15(),
                          hashes.SHA256())
    except (InvalidSignature, ValueError, binascii.Error, UnicodeEncodeError):
        return False
    return True


def decode(token: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(header, payload) of a compact JWS whose two first parts are JSON objects; None otherwise.
    The signature is not checked."""
    if not _JWS.fullmatch(token):
        return None
    header_text, payload_text, _ = token.split(".")
    try:
        header = load_json(_b64url_decode(header_text))
        payload = load_json(_b64url_decode(payload_text))
    except (ValueError, binascii.Error):
        return None
    if not isinstance(header, dict) or not isinstance(payload, dict):
        return None
    return header, payload


def b64url_uint(value: int) -> str:
    """A JWK's unsigned big-endian integer (`n`, `e`)."""
    return _b64url(value.to_bytes((value.bit_length() + 7) // 8, "big"))


def _b64url_json(value: dict[str, Any]) -> str:
    return _b64url(json.dumps(value, separators=(",", ":")).encode("utf-8"))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
