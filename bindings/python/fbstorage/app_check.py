"""AppCheck: the attestation token storages send to a project that enforces App Check.

One :class:`AppCheck` per Firebase app (project id, app id), usable by any number of storages
(``Storage(bucket, app_check=app_check)``). Its provider attests the app: the debug provider
(a secret registered in the console or with the emulator), a custom provider (your backend
mints tokens), or a token minted elsewhere. The library keeps a token fresh, renews it before it
expires and once after App Check's 401, and sends it as ``X-Firebase-AppCheck`` on every
Storage request. docs/app-check.md tells the whole story.
"""

from __future__ import annotations

import ctypes
import datetime
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from ._callbacks import KeyedTable, report_callback_exception, running_callback
from ._conversion import check_integer, encode_optional_text, encode_text
from ._native import (
    APP_CHECK_PROVIDER,
    APP_CHECK_TOKEN_LISTENER,
    DESTROY_NOTIFY,
    AppCheckHandle,
    call_for_out,
    library,
    take_string,
)
from .errors import StorageError, StorageErrorCode

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


@dataclass(frozen=True)
class AppCheckToken:
    """An App Check token and when it expires (timezone-aware UTC). The token is a credential:
    it is left out of ``repr()``; never log it."""

    token: str = field(repr=False)
    expire_time: datetime.datetime


class AppCheckTokenRequest:
    """What a custom provider answers, exactly once, from any thread: :meth:`complete` with a
    token and its expiry, or :meth:`fail`."""

    def __init__(self, handle: Any) -> None:
        self._native = handle  # the library's; it stays valid until answered
        self._lock = threading.Lock()
        self._answered = False

    def _take(self) -> Any:
        with self._lock:
            if self._answered:  # the library may have released the request: never pass it again
                raise StorageError(StorageErrorCode.INVALID_ARGUMENT, "This App Check token request was already answered")
            self._answered = True
        return self._native

    def complete(self, token: str, expire_time: datetime.datetime | float) -> None:
        """Answers with ``token``, valid until ``expire_time`` (an aware datetime, or seconds
        since the Unix epoch). Raises StorageError INVALID_ARGUMENT for an empty token, one with
        a control character, or an expiry already past (the waiting request then fails with
        APP_CHECK_PROVIDER_FAILED)."""
        milliseconds = _milliseconds(expire_time)
        library().fbs_app_check_request_complete(self._take(), encode_text(token, "token"), milliseconds)

    def fail(self, message: str | None = None) -> None:
        """Fails the waiting request with APP_CHECK_PROVIDER_FAILED and ``message``."""
        library().fbs_app_check_request_fail(self._take(), encode_optional_text(message, "message"))

    def fail_unless_answered(self, message: str) -> None:
        """Fails the request if nobody answered it yet (a provider that raised)."""
        try:
            self.fail(message)
        except StorageError:  # answered already, or meanwhile from another thread
            pass


#: A custom provider: ``provider(limited_use, request)`` on the App Check's callback thread;
#: it answers through ``request``, at once or later from any thread.
AppCheckProvider = Callable[[bool, AppCheckTokenRequest], Any]

# Custom providers' C callbacks, alive until the library's destroy callback says it dropped them
# (a storage may keep the App Check, and so the provider, after the Python object is gone).
_providers: KeyedTable[Any] = KeyedTable()
_DESTROY_PROVIDER = DESTROY_NOTIFY(_providers.pop)


#: A token listener: called with every token the App Check keeps.
AppCheckTokenListener = Callable[[AppCheckToken], Any]

# Token listeners, by the key passed as their user_data. The library's destroy callback forgets
# a listener once it dropped it (removed, or its App Check freed).
_token_listeners: KeyedTable[AppCheckTokenListener] = KeyedTable()


def _call_token_listener(token: bytes, expire_time_ms: int, key: int | None) -> None:
    listener = _token_listeners.get(key)
    if listener is None:
        return
    with running_callback():
        try:
            listener(token_of(token, expire_time_ms))
        except BaseException:
            report_callback_exception(f"App Check token listener {listener!r}")


_TOKEN_LISTENER_CALLBACK = APP_CHECK_TOKEN_LISTENER(_call_token_listener)
_DESTROY_TOKEN_LISTENER = DESTROY_NOTIFY(_token_listeners.pop)


def _milliseconds(moment: datetime.datetime | float) -> int:
    if isinstance(moment, datetime.datetime):
        if moment.tzinfo is None:
            raise ValueError("expire_time must be timezone-aware")
        return int((moment - _EPOCH) / datetime.timedelta(milliseconds=1))
    if isinstance(moment, bool) or not isinstance(moment, (int, float)):
        raise TypeError(f"expire_time must be a datetime or seconds since the epoch, not {type(moment).__name__}")
    return int(moment * 1000)


def _c_provider(provider: AppCheckProvider) -> Callable[[int, Any, Any], None]:
    def provide(limited_use: int, request: Any, _user_data: Any) -> None:
        token_request = AppCheckTokenRequest(request)
        with running_callback():
            try:
                provider(bool(limited_use), token_request)
            except BaseException as error:
                report_callback_exception(f"App Check provider {provider!r}")
                token_request.fail_unless_answered(f"the App Check provider raised {type(error).__name__}")

    return provide


class AppCheck:
    """App Check for one app: ``AppCheck(project_id, app_id, api_key=None)``.

    ``api_key`` is sent with the token exchange (production needs it). If
    ``FIREBASE_APP_CHECK_EMULATOR_HOST=host:port`` is set when it is created, the exchange goes
    to that emulator; :meth:`use_emulator` overrides it. ``debug_token``: sets the debug
    provider at once (``True`` reads the secret from ``FIREBASE_APP_CHECK_DEBUG_TOKEN``, or the
    Apple SDK's ``FIRAAppCheckDebugToken``/``AppCheckDebugToken``). Use it as a context
    manager, or call :meth:`close`; storages that use it keep working after it is closed.
    """

    def __init__(self, project_id: str, app_id: str, api_key: str | None = None, *,
                 debug_token: str | bool | None = None) -> None:
        self._native: Any = call_for_out(
            library().fbs_app_check_new, encode_text(project_id, "project_id"), encode_text(app_id, "app_id"),
            encode_optional_text(api_key, "api_key"), out_type=AppCheckHandle)
        self._project_id, self._app_id = project_id, app_id
        if debug_token not in (None, False):
            try:
                self.set_debug_provider(None if debug_token is True else debug_token)  # type: ignore[arg-type]
            except BaseException:
                self.close()
                raise

    @property
    def _handle(self) -> Any:
        if self._native is None:
            raise StorageError(StorageErrorCode.INVALID_ARGUMENT, "This AppCheck is closed")
        return self._native

    def close(self) -> None:
        """Releases the App Check (idempotent); its token listeners are removed. Storages
        that use it keep it alive in the library until they are closed."""
        native, self._native = self._native, None
        if native is not None:
            library().fbs_app_check_free(native)

    def __del__(self) -> None:
        if getattr(self, "_native", None) is not None:
            self.close()

    @property
    def closed(self) -> bool:
        return self._native is None

    def __enter__(self) -> AppCheck:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<fbstorage.AppCheck {self._project_id} {self._app_id}{' (closed)' if self.closed else ''}>"

    # -- configuration -----------------------------------------------------------------------
    def use_emulator(self, host: str, port: int) -> None:
        """Sends the token exchange to an emulator at http://host:port."""
        library().fbs_app_check_use_emulator(self._handle, encode_text(host, "host"), port)

    @property
    def token_auto_refresh_enabled(self) -> bool:
        """Whether the kept token is renewed in the background before requests need it, as the
        SDKs' token refreshers do: halfway through each kept token's life, and after a failed
        renewal again with backoff (1 s, doubling, at most 5 minutes); token listeners hear of
        each. False (the default): a token is renewed when a request needs one. The first token
        is always asked for by a request; a token given with :meth:`set_token` is never
        refreshed."""
        return library().fbs_app_check_is_token_auto_refresh_enabled(self._handle) == 1

    @token_auto_refresh_enabled.setter
    def token_auto_refresh_enabled(self, enabled: bool) -> None:
        if not isinstance(enabled, bool):
            raise TypeError(f"token_auto_refresh_enabled must be a bool, not {type(enabled).__name__}")
        library().fbs_app_check_set_token_auto_refresh_enabled(self._handle, int(enabled))

    def set_debug_provider(self, debug_token: str | None = None) -> None:
        """The debug provider: exchanges ``debug_token`` (None: read from the environment, see
        the class) for App Check tokens. Raises StorageError INVALID_ARGUMENT when there is
        none. Replaces any other provider."""
        library().fbs_app_check_set_debug_provider(self._handle, encode_optional_text(debug_token, "debug_token"))

    def set_custom_provider(self, provider: AppCheckProvider | None) -> None:
        """A custom provider, ``provider(limited_use, request)``, run on the App Check's
        callback thread; it answers with ``request.complete(token, expire_time)`` or
        ``request.fail(message)``, at once or later from any thread. An exception it raises
        fails the request. None removes the provider."""
        if provider is None:
            library().fbs_app_check_set_custom_provider_full(self._handle, APP_CHECK_PROVIDER(), None, DESTROY_NOTIFY())
            return
        if not callable(provider):
            raise TypeError(f"provider must be callable or None, not {type(provider).__name__}")
        callback = APP_CHECK_PROVIDER(_c_provider(provider))
        key = _providers.add(callback)
        library().fbs_app_check_set_custom_provider_full(self._handle, callback, key, _DESTROY_PROVIDER)

    def set_token(self, token: str, expire_time: datetime.datetime | float) -> None:
        """A token minted elsewhere, used until ``expire_time``; then requests fail with
        APP_CHECK_PROVIDER_FAILED until a new one is set. Replaces any other provider."""
        library().fbs_app_check_set_token(self._handle, encode_text(token, "token"), _milliseconds(expire_time))

    # -- token listeners ---------------------------------------------------------------------
    def add_token_listener(self, listener: AppCheckTokenListener) -> int:
        """Calls ``listener(token)`` (an :class:`AppCheckToken`) for every token the App
        Check keeps — each renewal's, a token given to :meth:`set_token` — and once now when a
        fresh token is kept already; never for limited-use tokens. It runs on the App Check's
        callback thread, one call at a time; an exception it raises is reported as a
        RuntimeWarning. Returns a handle for :meth:`remove_token_listener`."""
        if not callable(listener):
            raise TypeError(f"listener must be callable, not {type(listener).__name__}")
        handle = self._handle
        key = _token_listeners.add(listener)   # registered first: it may run before the call returns
        # On failure the library calls the destroy callback, which forgets the listener.
        return int(call_for_out(library().fbs_app_check_add_token_listener, handle, _TOKEN_LISTENER_CALLBACK, key,
                                _DESTROY_TOKEN_LISTENER, out_type=ctypes.c_int64).value)

    def remove_token_listener(self, handle: int) -> None:
        """Stops a token listener; it is not called after this returns (unless called from a
        listener: then after the running call). Raises StorageError INVALID_ARGUMENT for an
        unknown handle."""
        library().fbs_app_check_remove_token_listener(self._handle, check_integer(handle, "handle"))

    # -- tokens ------------------------------------------------------------------------------
    def _token(self, function_name: str, *arguments: Any) -> AppCheckToken:
        address, expiry = ctypes.c_void_p(), ctypes.c_int64()
        getattr(library(), function_name)(self._handle, *arguments, ctypes.byref(address), ctypes.byref(expiry))
        token = take_string(address.value)
        assert token is not None, f"{function_name} succeeded without a token"
        return token_of(token.encode(), expiry.value)

    def get_token(self, force_refresh: bool = False) -> AppCheckToken:
        """The current token, renewed first when it is about to expire or ``force_refresh``.
        Raises StorageError APP_CHECK_NO_PROVIDER, or the provider's error."""
        return self._token("fbs_app_check_get_token", int(bool(force_refresh)))

    def get_limited_use_token(self) -> AppCheckToken:
        """A new limited-use token for one replay-protected call of your own backend: asked of
        the provider each time, never cached nor sent by storages."""
        return self._token("fbs_app_check_get_limited_use_token")


def token_of(token: bytes, expire_time_ms: int) -> AppCheckToken:
    """An AppCheckToken from the library's borrowed token and expiry."""
    return AppCheckToken(token.decode("utf-8"), _EPOCH + datetime.timedelta(milliseconds=expire_time_ms))


def native_app_check(app_check: Any) -> Any:
    """The ``fbs_app_check`` handle of an :class:`AppCheck` or a :class:`fbstorage.aio.AppCheck`."""
    app_check = getattr(app_check, "sync", app_check)
    if not isinstance(app_check, AppCheck):
        raise TypeError(f"app_check must be an fbstorage AppCheck or None, not {type(app_check).__name__}")
    return app_check._handle
