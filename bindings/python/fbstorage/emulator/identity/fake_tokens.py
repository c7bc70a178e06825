"""The tokens the official Auth emulator takes in place of signed ones (custom tokens, identity
providers' ID tokens): a JWT whose signature is not checked, or a strict JSON object of claims."""

from __future__ import annotations

from typing import Any

from ..json_input import load_json
from . import jwt
from .errors import require


def read_fake_token(token: str, not_json: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(header, claims): a JWT's, or ({}, the object) for text starting with `{`, which must be a
    JSON object (else the 400 `not_json`); None for anything else."""
    if not token.startswith("{"):
        return jwt.decode(token)
    try:
        claims = load_json(token)
    except ValueError:
        claims = None
    require(isinstance(claims, dict), not_json)
    return {}, claims
