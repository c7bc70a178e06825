"""fbstorage: a Cloud Storage for Firebase client (pure ctypes over libfbstorage.so).

The library is loaded on first use: importing this package needs no library. It is found at
``$FBSTORAGE_LIBRARY``, else inside this package (wheels), else in the project's build
folder (``build/lib/libfbstorage.so``, made by ``make lib``). On loading it, the binding checks
its copies of the header's constants against the library's and raises ImportError on a mismatch.
"""

from __future__ import annotations

from ._conversion import decode
from ._native import library
from .admin import ServiceAccount
from .app_check import AppCheck, AppCheckToken, AppCheckTokenRequest
from .auth import Auth, User
from .action_code_info import ActionCodeInfo
from .action_code_settings import ActionCodeSettings
from .credentials import AuthCredential, EmailAuthProvider, GoogleAuthProvider, OAuthProvider, TwitterAuthProvider
from .errors import (
    AccountExistsWithDifferentCredentialError,
    AuthError,
    CredentialAlreadyInUseError,
    EmailAlreadyInUseError,
    ExpiredActionCodeError,
    InvalidAPIKeyError,
    InvalidActionCodeError,
    InvalidCredentialError,
    InvalidCustomTokenError,
    InvalidEmailError,
    InvalidRefreshTokenError,
    NoUserError,
    OperationNotAllowedError,
    ProviderAlreadyLinkedError,
    RequiresRecentLoginError,
    StorageError,
    StorageErrorCode,
    StorageTimeoutError,
    TooManyRequestsError,
    UserDisabledError,
    UserMismatchError,
    InvalidUserTokenError,
    UserNotFoundError,
    UserTokenExpiredError,
    WeakPasswordError,
    WrongPasswordError,
)
from .list_result import StorageListResult
from .log import log_to_logging, set_log_handler
from .metadata import StorageMetadata
from .reference import StorageReference
from .storage import CloseMode, Storage
from .streams import ObjectReader, ObjectWriter
from .task import DownloadTask, StorageTask, TaskSnapshot, TaskStatus, UploadTask
from .token_request import TokenRequest
from .user_info import AdditionalUserInfo, UserInfo, UserMetadata

__version__ = "0.2.0"

__all__ = [
    "ServiceAccount",
    "AppCheck",
    "AppCheckToken",
    "AppCheckTokenRequest",
    "AccountExistsWithDifferentCredentialError",
    "ActionCodeInfo",
    "AdditionalUserInfo",
    "ActionCodeSettings",
    "Auth",
    "AuthCredential",
    "AuthError",
    "CloseMode",
    "CredentialAlreadyInUseError",
    "DownloadTask",
    "EmailAlreadyInUseError",
    "EmailAuthProvider",
    "ExpiredActionCodeError",
    "GoogleAuthProvider",
    "InvalidAPIKeyError",
    "InvalidActionCodeError",
    "InvalidCredentialError",
    "InvalidCustomTokenError",
    "InvalidEmailError",
    "InvalidRefreshTokenError",
    "NoUserError",
    "OAuthProvider",
    "ObjectReader",
    "ObjectWriter",
    "OperationNotAllowedError",
    "ProviderAlreadyLinkedError",
    "RequiresRecentLoginError",
    "Storage",
    "StorageError",
    "StorageErrorCode",
    "StorageListResult",
    "StorageMetadata",
    "StorageReference",
    "StorageTask",
    "StorageTimeoutError",
    "TaskSnapshot",
    "TaskStatus",
    "TokenRequest",
    "TooManyRequestsError",
    "TwitterAuthProvider",
    "UploadTask",
    "User",
    "UserDisabledError",
    "UserInfo",
    "UserMetadata",
    "UserMismatchError",
    "InvalidUserTokenError",
    "UserNotFoundError",
    "UserTokenExpiredError",
    "WeakPasswordError",
    "WrongPasswordError",
    "log_to_logging",
    "set_log_handler",
    "version",
]


def version() -> str:
    """The version of the loaded libfbstorage.so, e.g. "0.2.0" (loads the library)."""
    return decode(library().fbs_version()) or ""
