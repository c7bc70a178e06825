"""Admin access: a service account (its JSON key, its OAuth2 access tokens, V4 signed URLs).

A storage that uses a service account (``Storage.use_service_account``) or an access token
(``Storage.set_access_token``) sends ``Authorization: Bearer``: Security Rules do not apply.
"""

from __future__ import annotations

import ctypes
import datetime
import os
import weakref
from typing import Any, Iterable, Mapping

from ._conversion import check_integer, decode, encode_optional_text, encode_text
from ._native import ServiceAccountHandle, call_for_out, library, take_string
from .errors import StorageError, StorageErrorCode

LocalPath = str | os.PathLike

#: How a signed URL addresses the bucket (fbs_url_style).
URL_STYLES = {"path": 0, "virtual-hosted": 1, "bucket-bound-hostname": 2}
_TIME_ABSENT = -(2**63)


def _pairs(items: Mapping[str, str] | Iterable[tuple[str, str]] | None, what: str) -> Any:
    """name, value, …, NULL as a ``const char *const *``; None for no pairs."""
    if not items:
        return None
    pairs = list(items.items()) if isinstance(items, Mapping) else list(items)
    strings = [encode_text(part, what) for pair in pairs for part in pair] + [None]
    return (ctypes.c_char_p * len(strings))(*strings)


class ServiceAccount:
    """A service-account key: ``ServiceAccount(path)``, ``ServiceAccount.from_json(text)`` or
    ``ServiceAccount.from_environment()`` (``GOOGLE_APPLICATION_CREDENTIALS``).

    Access tokens are obtained from the key's ``token_uri`` with a signed RS256 assertion, kept,
    and renewed 5 minutes before they expire. A malformed key, or one of another type, raises
    :class:`~fbstorage.StorageError` ``CREDENTIAL_INVALID`` at once; messages never quote the key.
    """

    def __init__(self, path: LocalPath | None = None, *, _handle: Any = None) -> None:
        if _handle is None:
            if path is None:
                raise TypeError("ServiceAccount needs a key file path (or use from_json / from_environment)")
            _handle = call_for_out(library().fbs_service_account_from_file, encode_text(os.fspath(path), "path"),
                                   out_type=ServiceAccountHandle)
        self._native = _handle
        self._finalizer = weakref.finalize(self, library().fbs_service_account_free, _handle)

    @classmethod
    def from_json(cls, text: str) -> ServiceAccount:
        return cls(_handle=call_for_out(library().fbs_service_account_from_json, encode_text(text, "json"),
                                        out_type=ServiceAccountHandle))

    @classmethod
    def from_environment(cls) -> ServiceAccount:
        return cls(_handle=call_for_out(library().fbs_service_account_from_environment, out_type=ServiceAccountHandle))

    @property
    def _handle(self) -> Any:
        if not self._finalizer.alive:
            raise StorageError(StorageErrorCode.INVALID_ARGUMENT, "This ServiceAccount is closed")
        return self._native

    def close(self) -> None:
        """Releases the key (idempotent); storages that use it keep it alive until they close."""
        self._finalizer()

    def __enter__(self) -> ServiceAccount:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def email(self) -> str:
        return decode(library().fbs_service_account_email(self._handle)) or ""

    @property
    def project_id(self) -> str | None:
        return decode(library().fbs_service_account_project_id(self._handle))

    def set_scopes(self, scopes: Iterable[str]) -> None:
        """The OAuth2 scopes asked for (default ``cloud-platform``); drops the current token."""
        library().fbs_service_account_set_scopes(self._handle, encode_text(" ".join(scopes), "scopes"))

    def access_token(self, force_refresh: bool = False) -> str:
        """A current access token (blocking: exchanged first when none is fresh)."""
        address = call_for_out(library().fbs_service_account_access_token, self._handle, 1 if force_refresh else 0,
                               out_type=ctypes.c_void_p)
        return take_string(address.value) or ""

    def signed_url(self, bucket: str, blob_name: str | None, *, expiration: int | datetime.timedelta,
                   method: str = "GET", headers: Mapping[str, str] | None = None,
                   query_parameters: Mapping[str, str] | None = None, api_access_endpoint: str | None = None,
                   url_style: str = "path", bucket_bound_hostname: str | None = None,
                   timestamp: datetime.datetime | None = None) -> str:
        """A V4 signed URL, the same as google-cloud-storage's
        ``blob.generate_signed_url(version="v4", ...)`` for the same arguments and time.

        ``expiration``: seconds (or a timedelta) up to 7 days; ``blob_name`` None signs the
        bucket (a listing); ``timestamp`` None is now.
        """
        seconds = int(expiration.total_seconds()) if isinstance(expiration, datetime.timedelta) else expiration
        if url_style not in URL_STYLES:
            raise ValueError(f"url_style must be one of {', '.join(URL_STYLES)}")
        endpoint = bucket_bound_hostname if url_style == "bucket-bound-hostname" else api_access_endpoint
        time_ms = _TIME_ABSENT if timestamp is None else int(timestamp.timestamp()) * 1000
        address = call_for_out(
            library().fbs_service_account_sign_url, self._handle, encode_text(method, "method"),
            encode_text(bucket, "bucket"), encode_optional_text(blob_name, "blob_name"),
            check_integer(seconds, "expiration"), time_ms, encode_optional_text(endpoint, "api_access_endpoint"),
            URL_STYLES[url_style], _pairs(headers, "headers"), _pairs(query_parameters, "query_parameters"),
            out_type=ctypes.c_void_p)
        return take_string(address.value) or ""

    def __repr__(self) -> str:
        return f"<fbstorage.ServiceAccount {self.email}>" if self._finalizer.alive else "<fbstorage.ServiceAccount closed>"


def native_service_account(account: Any) -> Any:
    if not isinstance(account, ServiceAccount):
        raise TypeError(f"account must be an fbstorage ServiceAccount or None, not {type(account).__name__}")
    return account._handle
