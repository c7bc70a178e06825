"""Out-of-band codes: what the emails of Auth would carry (verify an email, reset a password, sign
in by link, change the email). As firebase-tools' Auth emulator, nothing is mailed: the codes wait
in the project, listed at GET /emulator/v1/projects/{id}/oobCodes with the link a user would click.
Unlike firebase-tools', they expire as production's do (EXPIRED_OOB_CODE)."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from .errors import require
from .paths import EMULATOR_ACTION

# requestType → the `mode` of the action link (firebase-tools' createOobRecord).
MODES = {"VERIFY_EMAIL": "verifyEmail", "PASSWORD_RESET": "resetPassword", "EMAIL_SIGNIN": "signIn",
         "VERIFY_AND_CHANGE_EMAIL": "verifyAndChangeEmail"}
MAX_PENDING = 10_000  # per project; the oldest code goes first


@dataclass
class OobCode:
    code: str
    email: str
    request_type: str
    link: str
    created_at: float
    new_email: str | None = None
    continue_url: str | None = None  # where the action link sends the user once it is done

    def to_api(self) -> dict[str, Any]:
        """As firebase-tools lists it (its OobRecord)."""
        record = {"email": self.email, "oobCode": self.code, "oobLink": self.link, "requestType": self.request_type}
        if self.new_email is not None:
            record["newEmail"] = self.new_email
        return record


def new_oob_code(email: str, request_type: str, origin: str, continue_url: str | None = None,
                 new_email: str | None = None) -> OobCode:
    code = secrets.token_urlsafe(40)  # 54 characters, as firebase-tools' codes
    query = {"mode": MODES[request_type], "lang": "en", "oobCode": code, "apiKey": "fake-api-key"}
    if continue_url:
        query["continueUrl"] = continue_url
    return OobCode(code, email, request_type, f"{origin}{EMULATOR_ACTION}?{urlencode(query)}", time.time(), new_email,
                   continue_url)


class PendingCodes:
    """One project's codes, oldest first; a used code is gone (INVALID_OOB_CODE), an expired one
    stays until used so that it answers EXPIRED_OOB_CODE."""

    def __init__(self, codes: dict[str, OobCode] | None = None):
        self.codes = codes or {}

    def add(self, code: OobCode) -> OobCode:
        while len(self.codes) >= MAX_PENDING:
            del self.codes[next(iter(self.codes))]
        self.codes[code.code] = code
        return code

    def find(self, code: str | None, lifetime: int) -> OobCode:
        require(code, "MISSING_OOB_CODE")
        found = self.codes.get(code)
        require(found, "INVALID_OOB_CODE")
        require(not self.expired(found, lifetime), "EXPIRED_OOB_CODE")
        return found

    def use(self, code: OobCode) -> None:
        self.codes.pop(code.code, None)

    def pending(self, lifetime: int) -> list[OobCode]:
        return [code for code in self.codes.values() if not self.expired(code, lifetime)]

    @staticmethod
    def expired(code: OobCode, lifetime: int) -> bool:
        return time.time() >= code.created_at + lifetime
