"""Compact JWS (JWT) encoding and decoding without signatures, as the Auth emulators use them."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from ..json_input import load_json

_JWS = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")


def encode_unsigned(payload: dict[str, Any]) -> str:
    """`alg: none`: header and payload, an empty signature."""
    header = {"alg": "none", "typ": "JWT"}
    return f"{_b64url_json(header)}.{_b64url_json(payload)}."


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


def _b64url_json(value: dict[str, Any]) -> str:
    text = json.dumps(value, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(text).rstrip(b"=").decode("ascii")


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
