"""Storage: one bucket, its settings, and the library's transfer and callback threads."""

from __future__ import annotations

import ctypes
import enum
import functools
import os
import weakref
from typing import TYPE_CHECKING, Any, Callable

from ._callbacks import CallbackKeeper, in_callback, report_callback_exception, running_callback
from ._conversion import (
    C_INT,
    check_integer,
    check_number,
    decode,
    encode_local_path,
    encode_optional_text,
    encode_text,
)
from ._handle import OwnedHandle
from ._native import (
    TOKEN_PROVIDER,
    TOKEN_PROVIDER_ASYNC,
    ReferenceHandle,
    StorageHandle,
    call_for_out,
    library,
    take_string,
)
from .admin import ServiceAccount, native_service_account
from .app_check import AppCheck, native_app_check
from .auth import native_auth
from .reference import StorageReference
from .token_request import TokenRequest

if TYPE_CHECKING:
    from .auth import Auth

TokenProvider = Callable[[bool], "str | None"]
#: ``provider(force_refresh, request)``: answers later with request.complete() or request.fail().
AsyncTokenProvider = Callable[[bool, TokenRequest], Any]

#: Keepers of storages freed from their own callback thread: the library finishes their
#: teardown after the running callback returns, so what it may still call must stay alive.
_keepers_of_storages_closing_late: list[CallbackKeeper] = []


def _free_storage(handle: Any, keeper: CallbackKeeper, creator_pid: int) -> None:
    if os.getpid() != creator_pid:
        # A child forked without exec (pty.fork before its exec, multiprocessing's fork)
        # finalizing its copy: freeing waits for the storage's threads, which live only in the
        # parent, so it would never return. The child leaves the handle alone.
        return
    library().fbs_storage_free(handle)
    if in_callback():
        _keepers_of_storages_closing_late.append(keeper)
    else:
        keeper.clear()


class CloseMode(enum.IntEnum):
    """How :meth:`Storage.close` ends the tasks still running (``fbs_close_mode``)."""

    #: Cancel them; uploads also cancel their sessions on the server.
    CANCEL = 0
    #: Stop them, keeping each upload's resumable session: its ``upload_session`` is final,
    #: and its FAILURE (CANCELLED) observers have run, when close returns.
    KEEP_SESSIONS = 1
    #: Let them finish within the close timeout, then stop the rest as KEEP_SESSIONS.
    FINISH = 2


@functools.cache
def certifi_fallback() -> str | None:
    """certifi's CA bundle, when the library found no system bundle (fbs_library_system_ca_bundle)
    and certifi is installed: the last resort of a wheel on an unknown layout."""
    found = call_for_out(library().fbs_library_system_ca_bundle, out_type=ctypes.c_void_p)
    if take_string(found.value) is not None:
        return None
    try:
        import certifi
    except ImportError:
        return None
    return str(certifi.where())


def _speed_setting(direction: str) -> property:
    """An int property backed by fbs_storage_get/set_max_<direction>_speed."""

    def read(storage: Storage) -> int:
        function = getattr(library(), f"fbs_storage_get_max_{direction}_speed")
        return int(call_for_out(function, storage._handle, out_type=ctypes.c_int64).value)

    def write(storage: Storage, bytes_per_second: int) -> None:
        function = getattr(library(), f"fbs_storage_set_max_{direction}_speed")
        function(storage._handle, check_integer(bytes_per_second, f"max_{direction}_speed"))

    return property(read, write, doc=f"""Cap on each request's {direction} speed in bytes per second (0:
        none). Applies at once, to running transfers too; a task's ``max_speed`` tightens it.""")


def _seconds_setting(setting: str, doc: str) -> property:
    """A float property backed by fbs_storage_get_<setting> / fbs_storage_set_<setting>."""

    def read(storage: Storage) -> float:
        function = getattr(library(), f"fbs_storage_get_{setting}")
        return float(call_for_out(function, storage._handle, out_type=ctypes.c_double).value)

    def write(storage: Storage, seconds: float) -> None:
        function = getattr(library(), f"fbs_storage_set_{setting}")
        function(storage._handle, check_number(seconds, setting))

    return property(read, write, doc=doc)


class Storage:
    """Cloud Storage for Firebase: one bucket.

    ``Storage("my-app.appspot.com")`` or ``Storage("gs://my-app.appspot.com")``. If
    ``FIREBASE_STORAGE_EMULATOR_HOST=host:port`` is set in the environment when the storage
    is created, it talks to that emulator; :meth:`use_emulator` overrides it. With
    ``auth=``, every request carries the ID token of that :class:`fbstorage.Auth`'s current
    user (:meth:`use_auth`).

    Use it as a context manager, or call :meth:`close`: closing ends the tasks still running
    as ``close_mode`` says (by default it cancels them: their FAILURE observers run with
    CANCELLED), waits until every callback has returned, and releases every reference and
    task handle obtained from this storage. ``close_mode=CloseMode.KEEP_SESSIONS`` keeps
    uploads resumable; ``CloseMode.FINISH`` first lets tasks finish within ``close_timeout``.
    """

    def __init__(self, bucket: str, *, auth: Auth | None = None, app_check: AppCheck | None = None,
                 close_mode: CloseMode = CloseMode.CANCEL, close_timeout: float = 0.0) -> None:
        self._close_mode = CloseMode(close_mode)
        self._close_timeout = check_number(close_timeout, "close_timeout")
        lib = library()
        handle = call_for_out(
            lib.fbs_storage_new, encode_text(bucket, "bucket"), out_type=StorageHandle
        )
        self._handle: Any = handle
        self._bucket = decode(lib.fbs_storage_bucket(handle)) or ""
        self._keeper = CallbackKeeper()
        self._derived: weakref.WeakSet[OwnedHandle] = weakref.WeakSet()
        self._verify_md5 = False
        self._ca_file: str | None = None
        fallback = certifi_fallback()
        if fallback is not None:
            self.ca_file = fallback
        self._auth: Auth | None = None
        self._app_check: AppCheck | None = None
        self._finalizer = weakref.finalize(self, _free_storage, handle, self._keeper, os.getpid())
        try:
            if auth is not None:
                self.use_auth(auth)
            if app_check is not None:
                self.use_app_check(app_check)
        except BaseException:
            self.close()
            raise

    def _adopt(self, owned: OwnedHandle) -> None:
        """Registers a handle obtained from this storage, to be released by close()."""
        self._derived.add(owned)

    def close(self, mode: CloseMode | None = None, timeout: float | None = None) -> None:
        """Ends running tasks as ``mode`` says (default: the ``close_mode`` given at creation),
        waits for callbacks to drain, releases every handle. ``timeout``: the seconds
        ``CloseMode.FINISH`` lets tasks run (default: ``close_timeout``).

        Idempotent. Objects obtained from this storage raise StorageError afterwards.
        """
        if not self._finalizer.alive:
            return
        mode = self._close_mode if mode is None else CloseMode(mode)
        seconds = self._close_timeout if timeout is None else check_number(timeout, "timeout")
        library().fbs_storage_close(self._handle, int(mode), seconds)
        self._handle = None
        self._finalizer()
        for owned in list(self._derived):
            owned._release()

    @property
    def closed(self) -> bool:
        """True once close() was called."""
        return not self._finalizer.alive

    def __enter__(self) -> Storage:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = " (closed)" if self.closed else ""
        return f"<Storage gs://{self._bucket}{state}>"

    @property
    def bucket(self) -> str:
        """The bucket name, without "gs://"."""
        return self._bucket

    # -- references --------------------------------------------------------------------------
    def reference(self, path: str | None = None) -> StorageReference:
        """A reference to ``path`` in this bucket; None or "" gives the root.

        Paths are normalised: "//" collapses, leading and trailing "/" are trimmed.
        """
        handle = call_for_out(
            library().fbs_storage_reference,
            self._handle,
            encode_optional_text(path, "path"),
            out_type=ReferenceHandle,
        )
        return StorageReference(self, handle)

    def reference_for_url(self, url: str) -> StorageReference:
        """A reference from "gs://bucket/path" or "https://host/v0/b/bucket/o/<escaped path>".

        Raises StorageError PATH_ERROR (unparsable) or BUCKET_MISMATCH (another bucket).
        """
        handle = call_for_out(
            library().fbs_storage_reference_for_url,
            self._handle,
            encode_text(url, "url"),
            out_type=ReferenceHandle,
        )
        return StorageReference(self, handle)

    # -- connection and authentication -------------------------------------------------------
    def use_emulator(self, host: str, port: int) -> None:
        """Sends every request to the emulator at http://host:port."""
        library().fbs_storage_use_emulator(
            self._handle, encode_text(host, "host"), check_integer(port, "port", C_INT)
        )

    def use_endpoint(self, url: str) -> None:
        """Sends every request to the server at ``url``: ``https://host[:port]`` or
        ``http://host[:port]`` (a private endpoint, a TLS-terminating proxy, an emulator
        serving https). https is always verified (:attr:`ca_file`)."""
        library().fbs_storage_use_endpoint(self._handle, encode_text(url, "url"))

    def set_proxy(self, url: str | None, *, username: str | None = None,
                  password: str | None = None, no_proxy: str | None = None) -> None:
        """Sends requests through the proxy at ``url`` (``http://host:port``; https goes
        through CONNECT), with optional basic credentials and ``no_proxy``, hosts reached
        directly (comma-separated). None goes back to the environment variables
        (``https_proxy``, ``http_proxy``, ``no_proxy``); ``""`` connects directly."""
        library().fbs_storage_set_proxy(
            self._handle, encode_optional_text(url, "url"), encode_optional_text(username, "username"),
            encode_optional_text(password, "password"), encode_optional_text(no_proxy, "no_proxy"))

    def set_auth_token(self, token: str | None) -> None:
        """Sends a fixed Firebase Auth ID token; None clears it.

        Tokens are sent only over https or to loopback hosts.
        """
        library().fbs_storage_set_auth_token(self._handle, encode_optional_text(token, "token"))
        self._auth = None

    def set_auth_token_provider(self, provider: TokenProvider | None) -> None:
        """Supplies tokens on demand: ``provider(force_refresh) -> str | None``.

        It runs on a library thread before requests, with ``force_refresh=True`` after the
        server answered 401. An exception in it is reported and counts as "no token". None
        removes the provider. A provider replaces a fixed token.
        """
        self._install_provider("fbs_storage_set_auth_token_provider", TOKEN_PROVIDER,
                               provider, _token_provider_callback)

    def use_service_account(self, account: ServiceAccount | None) -> None:
        """Acts as the service account: its OAuth2 access tokens, sent as ``Bearer``, give admin
        access (Security Rules do not apply). Replaces any other token source; None detaches."""
        handle = None if account is None else native_service_account(account)
        library().fbs_storage_use_service_account(self._handle, handle)  # the library keeps the key alive
        self._auth = None

    def set_access_token(self, token: str | None) -> None:
        """Sends a caller's OAuth2 access token (gcloud, a metadata server) as ``Bearer``; None
        clears it. Replaces any other token source."""
        library().fbs_storage_set_access_token(self._handle, encode_optional_text(token, "token"))
        self._auth = None

    def set_access_token_provider(self, provider: TokenProvider | None) -> None:
        """As :meth:`set_auth_token_provider`, its tokens sent as ``Bearer`` access tokens."""
        self._install_provider("fbs_storage_set_access_token_provider", TOKEN_PROVIDER,
                               provider, _token_provider_callback)

    def use_auth(self, auth: Auth | None) -> None:
        """From now on every request, of tasks already running too, carries the ID token of
        ``auth``'s current user (none while signed out); the library refreshes it before it
        expires and once after a 401. A user disabled, deleted or revoked meanwhile fails the
        request with that cause (UserDisabledError, …). Replaces a fixed token or a provider;
        None detaches."""
        handle = None if auth is None else native_auth(auth)
        library().fbs_storage_use_auth(self._handle, handle)
        self._auth = auth  # its listeners live as long as the Python object

    @property
    def auth(self) -> Auth | None:
        """The auth given to :meth:`use_auth` (or ``auth=``), or None."""
        return self._auth

    def set_auth_token_provider_async(self, provider: AsyncTokenProvider | None) -> None:
        """Supplies tokens that need a network call of their own without stalling transfers:
        ``provider(force_refresh, request)`` runs on the storage's callback thread and answers
        later, from any thread, exactly once, with ``request.complete(token_or_None)`` or
        ``request.fail(message)`` (the waiting request then fails with UNAUTHENTICATED). An
        exception it raises fails the request. Replaces a fixed token, a provider or an auth;
        None removes it."""
        self._install_provider("fbs_storage_set_auth_token_provider_async", TOKEN_PROVIDER_ASYNC,
                               provider, _async_token_provider_callback)

    def _install_provider(self, function_name: str, callback_type: Any, provider: Any,
                          c_callable: Callable[[Any], Any]) -> None:
        """Sets (or with None removes) a token provider, its callback object kept alive."""
        if provider is None:
            callback = callback_type()  # NULL
        elif callable(provider):
            callback = callback_type(c_callable(provider))
            self._keeper.keep_token_provider(callback)
        else:
            raise TypeError(f"provider must be callable or None, not {type(provider).__name__}")
        getattr(library(), function_name)(self._handle, callback, None)
        self._auth = None

    def set_app_check_token(self, token: str | None) -> None:
        """Sends an App Check token ("X-Firebase-AppCheck"); None clears it. Replaces an
        AppCheck."""
        library().fbs_storage_set_app_check_token(
            self._handle, encode_optional_text(token, "token")
        )
        self._app_check = None

    def use_app_check(self, app_check: AppCheck | None) -> None:
        """From now on every request, of tasks already running too, carries a token of
        ``app_check`` ("X-Firebase-AppCheck"), renewed before it expires and once after App
        Check's 401. A request the project refuses for it raises APP_CHECK_TOKEN_INVALID (or
        APP_CHECK_TOKEN_MISSING when none was sent). None detaches."""
        handle = None if app_check is None else native_app_check(app_check)
        library().fbs_storage_use_app_check(self._handle, handle)
        self._app_check = app_check

    @property
    def app_check(self) -> AppCheck | None:
        """The App Check given to :meth:`use_app_check` (or ``app_check=``), or None."""
        return self._app_check

    # -- settings ----------------------------------------------------------------------------
    max_upload_retry_time = _seconds_setting(
        "max_upload_retry_time", "Seconds an upload may keep retrying (default 600)."
    )
    max_download_retry_time = _seconds_setting(
        "max_download_retry_time", "Seconds a download may keep retrying (default 600)."
    )
    max_operation_retry_time = _seconds_setting(
        "max_operation_retry_time", "Seconds any other operation may keep retrying (default 120)."
    )
    connect_timeout = _seconds_setting(
        "connect_timeout", "TCP/TLS connect timeout in seconds, name lookup included (default 30)."
    )
    loopback_refused_grace = _seconds_setting(
        "loopback_refused_grace",
        "Seconds a loopback endpoint may refuse connections before an operation fails (default 2;"
        " 0: at the first refusal). Raise it to ride out a slower emulator restart.",
    )

    max_upload_speed = _speed_setting("upload")
    max_download_speed = _speed_setting("download")

    @property
    def upload_chunk_size(self) -> int:
        """Bytes per resumable-upload request (default 128 MiB; 256 KiB .. 1 GiB, rounded down
        to the server's unit). Uploads of at most 256 KiB go in one request."""
        lib = library()
        return int(call_for_out(
            lib.fbs_storage_get_upload_chunk_size, self._handle, out_type=ctypes.c_int64
        ).value)

    @upload_chunk_size.setter
    def upload_chunk_size(self, size: int) -> None:
        library().fbs_storage_set_upload_chunk_size(
            self._handle, check_integer(size, "upload_chunk_size")
        )

    @property
    def verify_md5(self) -> bool:
        """Also verify uploads against the server's md5Hash (CRC32C is always verified)."""
        return self._verify_md5

    @verify_md5.setter
    def verify_md5(self, enabled: bool) -> None:
        if not isinstance(enabled, bool):
            raise TypeError(f"verify_md5 must be a bool, not {type(enabled).__name__}")
        library().fbs_storage_set_verify_md5(self._handle, int(enabled))
        self._verify_md5 = enabled

    @property
    def ca_file(self) -> str | None:
        """A PEM file of CA certificates trusted instead of the system store, or None. The
        system store is found like Go's (``SSL_CERT_FILE``, then the bundle paths of the
        common distributions); when none exists, a new storage starts with ``certifi``'s
        bundle here if certifi is installed."""
        return self._ca_file

    @ca_file.setter
    def ca_file(self, path: str | os.PathLike[str] | None) -> None:
        encoded = None if path is None else encode_local_path(path, "ca_file")
        library().fbs_storage_set_ca_file(self._handle, encoded)
        self._ca_file = None if path is None else os.fsdecode(path)


def _token_provider_callback(provider: TokenProvider) -> Callable[[int, Any], int | None]:
    """The C-callable form of a token provider: returns the token's address, or None.

    The token's buffer stays referenced until the next call, as the library requires.
    """
    latest_token: list[ctypes.Array[ctypes.c_char]] = []

    def provide(force_refresh: int, _user_data: Any) -> int | None:
        try:
            token = provider(bool(force_refresh))
            if token is None:
                return None
            buffer = ctypes.create_string_buffer(
                encode_text(token, "the token provider's result")
            )
        except BaseException:
            report_callback_exception(f"auth token provider {provider!r}")
            return None
        latest_token[:] = [buffer]
        return ctypes.addressof(buffer)

    return provide


def _async_token_provider_callback(provider: AsyncTokenProvider) -> Callable[[int, Any, Any], None]:
    """The C-callable form of an asynchronous token provider."""

    def provide(force_refresh: int, request: Any, _user_data: Any) -> None:
        token_request = TokenRequest(request)
        with running_callback():
            try:
                provider(bool(force_refresh), token_request)
            except BaseException as error:
                report_callback_exception(f"auth token provider {provider!r}")
                token_request.fail_unless_answered(f"the token provider raised {type(error).__name__}")

    return provide
