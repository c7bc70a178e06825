"""Error codes and the exception raised for every failure the library reports."""

from __future__ import annotations

import enum
from typing import Any

from ._conversion import decode

#: ``FBS_OK``: the status of a call that succeeded.
FBS_OK = 0


class StorageErrorCode(enum.IntEnum):
    """The ``fbs_error_code`` values: the Firebase ``StorageErrorCode`` raw values."""

    UNKNOWN = -13000
    OBJECT_NOT_FOUND = -13010
    BUCKET_NOT_FOUND = -13011
    PROJECT_NOT_FOUND = -13012
    QUOTA_EXCEEDED = -13013
    UNAUTHENTICATED = -13020
    UNAUTHORIZED = -13021
    RETRY_LIMIT_EXCEEDED = -13030
    NON_MATCHING_CHECKSUM = -13031
    DOWNLOAD_SIZE_EXCEEDED = -13032
    CANCELLED = -13040
    INVALID_ARGUMENT = -13050
    BUCKET_MISMATCH = -13051
    INTERNAL = -13052
    PATH_ERROR = -13053
    TIMEOUT = -13060
    TLS = -13061
    RANGE_NOT_SATISFIABLE = -13062
    OBJECT_CHANGED = -13063
    HOST_NOT_FOUND = -13064
    # Firebase Auth (fbstorage/auth.h)
    AUTH_INVALID_API_KEY = -13100
    AUTH_INVALID_EMAIL = -13101
    AUTH_WRONG_PASSWORD = -13102
    AUTH_USER_NOT_FOUND = -13103
    AUTH_EMAIL_ALREADY_IN_USE = -13104
    AUTH_WEAK_PASSWORD = -13105
    AUTH_USER_DISABLED = -13106
    AUTH_INVALID_CUSTOM_TOKEN = -13107
    AUTH_TOO_MANY_REQUESTS = -13108
    AUTH_OPERATION_NOT_ALLOWED = -13109
    AUTH_USER_TOKEN_EXPIRED = -13110
    AUTH_INVALID_REFRESH_TOKEN = -13111
    AUTH_NO_USER = -13112
    AUTH_REQUIRES_RECENT_LOGIN = -13113
    AUTH_CREDENTIAL_ALREADY_IN_USE = -13114
    AUTH_PROVIDER_ALREADY_LINKED = -13115
    AUTH_INVALID_ACTION_CODE = -13116
    AUTH_EXPIRED_ACTION_CODE = -13117
    AUTH_INVALID_CREDENTIAL = -13118
    AUTH_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL = -13119
    AUTH_USER_MISMATCH = -13120
    AUTH_INVALID_USER_TOKEN = -13121
    # Service accounts (fbstorage/admin.h)
    CREDENTIAL_INVALID = -13200
    CREDENTIAL_CLOCK_SKEW = -13201
    CREDENTIAL_REJECTED = -13202
    # App Check (fbstorage/app_check.h)
    APP_CHECK_TOKEN_INVALID = -13300
    APP_CHECK_TOKEN_MISSING = -13301
    APP_CHECK_PROVIDER_FAILED = -13302
    APP_CHECK_ATTESTATION_FAILED = -13303
    APP_CHECK_NO_PROVIDER = -13304


class StorageError(Exception):
    """A failure reported by libfbstorage.

    ``StorageError(code, ...)`` builds the subclass of the code when it has one (as pygit2 does):
    a TIMEOUT error is a :class:`StorageTimeoutError`, also a builtin :class:`TimeoutError`;
    each AUTH_* code has its subclass of :class:`AuthError` (``WrongPasswordError``, …).

    Attributes:
        code: what went wrong, a :class:`StorageErrorCode`.
        message: the library's description (it never contains tokens).
        http_status: the HTTP status of the server response behind the failure, or None.
        server_response: the body of that response, or None.
    """

    def __new__(cls, code: StorageErrorCode | int, *arguments: Any, **keywords: Any) -> StorageError:
        if cls is StorageError:
            cls = _CODE_CLASSES.get(code, cls)
        return super().__new__(cls, code, *arguments, **keywords)

    def __init__(
        self,
        code: StorageErrorCode | int,
        message: str,
        http_status: int | None = None,
        server_response: str | None = None,
    ) -> None:
        try:
            code = StorageErrorCode(code)
        except ValueError:
            message = f"{message} (unexpected code {code})"
            code = StorageErrorCode.UNKNOWN
        super().__init__(code, message, http_status, server_response)
        self.code: StorageErrorCode = code
        self.message = message
        self.http_status = http_status
        self.server_response = server_response

    def __str__(self) -> str:
        http = f" (HTTP {self.http_status})" if self.http_status is not None else ""
        return f"{self.code.name}: {self.message}{http}"

    @classmethod
    def from_last_error(cls, library: Any, code: int) -> StorageError:
        """The error for status ``code`` from the calling thread's last error.

        Call it on the thread of the failing call, right after it: the last error is
        thread-local and the next call may replace it.
        """
        message = library.fbs_last_error_message()
        http_status = library.fbs_last_error_http_status()
        server_response = library.fbs_last_error_server_response()
        return cls(
            code,
            decode(message) or "",
            http_status or None,
            decode(server_response),
        )

    @classmethod
    def from_snapshot(cls, library: Any, snapshot: Any) -> StorageError | None:
        """The failure recorded in an ``fbs_snapshot``, or None when there is none."""
        code = library.fbs_snapshot_error_code(snapshot)
        if code == FBS_OK:
            return None
        return cls(
            code,
            decode(library.fbs_snapshot_error_message(snapshot)) or "",
            library.fbs_snapshot_error_http_status(snapshot) or None,
            decode(library.fbs_snapshot_error_server_response(snapshot)),
        )


class StorageTimeoutError(StorageError, TimeoutError):
    """TIMEOUT: a wait ended before the task did (the task goes on). Catchable as
    :class:`StorageError` and as the builtin :class:`TimeoutError`."""


class AuthError(StorageError):
    """A Firebase Auth failure (an AUTH_* code): signing in, refreshing the ID token, or a
    storage request whose user was disabled, deleted or revoked meanwhile."""


class InvalidAPIKeyError(AuthError):
    """AUTH_INVALID_API_KEY: the API key is not valid for this project."""


class InvalidEmailError(AuthError):
    """AUTH_INVALID_EMAIL: a malformed email address."""


class WrongPasswordError(AuthError):
    """AUTH_WRONG_PASSWORD: the password is wrong (or, on newer projects, the email unknown)."""


class UserNotFoundError(AuthError):
    """AUTH_USER_NOT_FOUND: no such account (deleted?)."""


class EmailAlreadyInUseError(AuthError):
    """AUTH_EMAIL_ALREADY_IN_USE: an account with this email exists."""


class WeakPasswordError(AuthError):
    """AUTH_WEAK_PASSWORD: the password has fewer than 6 characters."""


class UserDisabledError(AuthError):
    """AUTH_USER_DISABLED: an administrator disabled the account."""


class InvalidCustomTokenError(AuthError):
    """AUTH_INVALID_CUSTOM_TOKEN: malformed, expired, or for another project."""


class TooManyRequestsError(AuthError):
    """AUTH_TOO_MANY_REQUESTS: the service throttles this device or account."""


class OperationNotAllowedError(AuthError):
    """AUTH_OPERATION_NOT_ALLOWED: this sign-in provider is disabled in the console."""


class UserTokenExpiredError(AuthError):
    """AUTH_USER_TOKEN_EXPIRED: the session was revoked; sign in again."""


class InvalidRefreshTokenError(AuthError):
    """AUTH_INVALID_REFRESH_TOKEN: the refresh token is malformed or unknown."""


class NoUserError(AuthError):
    """AUTH_NO_USER: the call needs a signed-in user."""


class RequiresRecentLoginError(AuthError):
    """AUTH_REQUIRES_RECENT_LOGIN: sign in again before this sensitive call."""


class CredentialAlreadyInUseError(AuthError):
    """AUTH_CREDENTIAL_ALREADY_IN_USE: the credential belongs to another account (FEDERATED_USER_ID_ALREADY_LINKED)."""


class ProviderAlreadyLinkedError(AuthError):
    """AUTH_PROVIDER_ALREADY_LINKED: the user already has an identity of this provider."""


class InvalidActionCodeError(AuthError):
    """AUTH_INVALID_ACTION_CODE: the email action code is malformed, used, or of another kind (INVALID_OOB_CODE)."""


class ExpiredActionCodeError(AuthError):
    """AUTH_EXPIRED_ACTION_CODE: the email action code has expired (EXPIRED_OOB_CODE)."""


class InvalidCredentialError(AuthError):
    """AUTH_INVALID_CREDENTIAL: the identity provider's token is malformed or refused (INVALID_IDP_RESPONSE)."""


class AccountExistsWithDifferentCredentialError(AuthError):
    """AUTH_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL: the email's account signs in another way (needConfirmation)."""


class UserMismatchError(AuthError):
    """AUTH_USER_MISMATCH: reauthentication with another user's credential."""


class InvalidUserTokenError(AuthError):
    """AUTH_INVALID_USER_TOKEN: the server refuses the user's ID token (INVALID_ID_TOKEN); sign in again."""


_CODE_CLASSES: dict[int, type[StorageError]] = {
    StorageErrorCode.TIMEOUT: StorageTimeoutError,
    StorageErrorCode.AUTH_INVALID_API_KEY: InvalidAPIKeyError,
    StorageErrorCode.AUTH_INVALID_EMAIL: InvalidEmailError,
    StorageErrorCode.AUTH_WRONG_PASSWORD: WrongPasswordError,
    StorageErrorCode.AUTH_USER_NOT_FOUND: UserNotFoundError,
    StorageErrorCode.AUTH_EMAIL_ALREADY_IN_USE: EmailAlreadyInUseError,
    StorageErrorCode.AUTH_WEAK_PASSWORD: WeakPasswordError,
    StorageErrorCode.AUTH_USER_DISABLED: UserDisabledError,
    StorageErrorCode.AUTH_INVALID_CUSTOM_TOKEN: InvalidCustomTokenError,
    StorageErrorCode.AUTH_TOO_MANY_REQUESTS: TooManyRequestsError,
    StorageErrorCode.AUTH_OPERATION_NOT_ALLOWED: OperationNotAllowedError,
    StorageErrorCode.AUTH_USER_TOKEN_EXPIRED: UserTokenExpiredError,
    StorageErrorCode.AUTH_INVALID_REFRESH_TOKEN: InvalidRefreshTokenError,
    StorageErrorCode.AUTH_NO_USER: NoUserError,
    StorageErrorCode.AUTH_REQUIRES_RECENT_LOGIN: RequiresRecentLoginError,
    StorageErrorCode.AUTH_CREDENTIAL_ALREADY_IN_USE: CredentialAlreadyInUseError,
    StorageErrorCode.AUTH_PROVIDER_ALREADY_LINKED: ProviderAlreadyLinkedError,
    StorageErrorCode.AUTH_INVALID_ACTION_CODE: InvalidActionCodeError,
    StorageErrorCode.AUTH_EXPIRED_ACTION_CODE: ExpiredActionCodeError,
    StorageErrorCode.AUTH_INVALID_CREDENTIAL: InvalidCredentialError,
    StorageErrorCode.AUTH_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL: AccountExistsWithDifferentCredentialError,
    StorageErrorCode.AUTH_USER_MISMATCH: UserMismatchError,
    StorageErrorCode.AUTH_INVALID_USER_TOKEN: InvalidUserTokenError,
}
