"""Credentials as the logs show them: a short fingerprint, never the secret (docs/security.md,
"Credentials in logs"). Two entries with the same fingerprint carried the same credential."""

from __future__ import annotations

import hashlib
from urllib.parse import unquote

# Query parameters that are credentials: a download token, a signed URL's signature, an OAuth
# access token, a resumable upload's session (whoever knows it may upload into it).
CREDENTIAL_PARAMETERS = frozenset({"token", "X-Goog-Signature", "access_token", "upload_id"})


def fingerprint(secret: str) -> str:
    """`#` and the first 8 hex digits of its SHA-256: enough to tell credentials apart."""
    return "#" + hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()[:8]


def redact_target(raw_target: str) -> str:
    """A raw request target (path and query) with each credential parameter's value fingerprinted."""
    path, separator, query = raw_target.partition("?")
    if not separator:
        return raw_target
    fields = []
    for field in query.split("&"):
        name, equals, value = field.partition("=")
        fields.append(f"{name}={fingerprint(unquote(value))}" if equals and unquote(name) in CREDENTIAL_PARAMETERS
                      else field)
    return f"{path}?{'&'.join(fields)}"

