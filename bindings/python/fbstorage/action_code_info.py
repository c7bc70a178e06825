"""What an email action code is for: :meth:`fbstorage.Auth.check_action_code`'s answer."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ActionCodeInfo:
    """``operation``: "PASSWORD_RESET", "VERIFY_EMAIL", "EMAIL_SIGNIN",
    "VERIFY_AND_CHANGE_EMAIL", "RECOVER_EMAIL", … ``email``: the address the code was sent to
    (None for a sign-in code, which does not reveal it); ``new_email``: the address an email
    change code makes the account's."""

    operation: str
    email: str | None
    new_email: str | None
