"""A project's sign-in settings, as firebase-tools' emulator config route reads and changes them
(GET / PATCH /emulator/v1/projects/{id}/config): one account per email (or duplicates allowed) and
email enumeration protection ("improved email privacy")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import AuthError


@dataclass
class SignInConfig:
    allow_duplicate_emails: bool = False
    improved_email_privacy: bool = False

    def to_api(self) -> dict[str, Any]:
        return {"signIn": {"allowDuplicateEmails": self.allow_duplicate_emails},
                "emailPrivacyConfig": {"enableImprovedEmailPrivacy": self.improved_email_privacy}}

    def update(self, body: dict[str, Any]) -> None:
        """Only the fields given change; each checked before any changes."""
        duplicates = _flag(body, "signIn", "allowDuplicateEmails")
        privacy = _flag(body, "emailPrivacyConfig", "enableImprovedEmailPrivacy")
        if duplicates is not None:
            self.allow_duplicate_emails = duplicates
        if privacy is not None:
            self.improved_email_privacy = privacy


def _flag(body: dict[str, Any], section: str, name: str) -> bool | None:
    group = body.get(section)
    if group is None:
        return None
    if not isinstance(group, dict):
        raise AuthError(f"Invalid JSON payload received. '{section}' must be an object.")
    value = group.get(name)
    if value is not None and not isinstance(value, bool):
        raise AuthError(f"Invalid JSON payload received. Invalid value at '{section}.{name}' (TYPE_BOOL).")
    return value
