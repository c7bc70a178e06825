"""TokenRequest: one request of a storage for a token, answered later by an asynchronous provider."""

from __future__ import annotations

import threading
from typing import Any

from ._conversion import encode_optional_text
from ._native import library
from .errors import StorageError, StorageErrorCode


class TokenRequest:
    """What ``Storage.set_auth_token_provider_async``'s provider answers, exactly once, from
    any thread: :meth:`complete` with a token (or None: no token) or :meth:`fail`."""

    def __init__(self, handle: Any) -> None:
        self._native = handle  # the library's; it stays valid until answered
        self._lock = threading.Lock()
        self._answered = False

    def _answer(self, function_name: str, text: bytes | None) -> None:
        with self._lock:
            if self._answered:  # the library may have released the request: never pass it again
                raise StorageError(StorageErrorCode.INVALID_ARGUMENT,
                                   "This token request was already answered")
            self._answered = True
        getattr(library(), function_name)(self._native, text)

    def complete(self, token: str | None) -> None:
        """Answers with ``token`` (None: the request goes without a token). Raises
        StorageError INVALID_ARGUMENT for a token with a control character (the request then
        fails too)."""
        self._answer("fbs_token_request_complete", encode_optional_text(token, "token"))

    def fail(self, message: str | None = None) -> None:
        """Fails the waiting request with UNAUTHENTICATED and ``message``."""
        self._answer("fbs_token_request_fail", encode_optional_text(message, "message"))

    def fail_unless_answered(self, message: str) -> None:
        """Fails the request if nobody answered it yet (a provider that raised)."""
        with self._lock:
            if self._answered:
                return
        try:
            self.fail(message)
        except StorageError:  # answered meanwhile from another thread
            pass
