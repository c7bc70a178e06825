"""Auth: signing in to Firebase Auth, as the user whose ID token storages send.

One :class:`Auth` per Firebase app (Web API key, project id), usable by any number of storages
(``Storage(bucket, auth=auth)``). The library signs in through Firebase Auth's REST API and
keeps the ID token fresh by itself; :class:`User` is a snapshot of the signed-in user.
"""

from __future__ import annotations

import ctypes
import datetime
import json
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ._callbacks import KeyedTable, report_callback_exception, running_callback
from ._conversion import (
    C_INT,
    LocalPath,
    check_integer,
    decode,
    encode_local_path,
    encode_optional_text,
    encode_text,
)
from ._native import (
    AUTH_LISTENER,
    AuthHandle,
    UserHandle,
    call_for_out,
    library,
    take_string,
)
from .action_code_info import ActionCodeInfo
from .action_code_settings import ActionCodeSettings, native_action_code_settings
from .credentials import AuthCredential, native_credential
from .errors import StorageError, StorageErrorCode
from .user_info import AdditionalUserInfo, UserInfo, UserMetadata, additional_user_info, provider_data, user_metadata, utc_time

#: A state or ID-token listener: called with the current user, or None when signed out.
AuthListener = Callable[[Optional["User"]], Any]


class _Unchanged:
    """The default of :meth:`Auth.update_profile`'s fields: leave the field as it is."""

    def __repr__(self) -> str:
        return "UNCHANGED"


UNCHANGED: Any = _Unchanged()


@dataclass(frozen=True)
class User:
    """A signed-in user at one moment: profile, tokens and the ID token's claims.

    ``id_token`` and ``refresh_token`` are credentials: they are left out of ``repr()``; never
    log them. Times are timezone-aware UTC datetimes (None when the token has no such claim,
    e.g. a session restored from a file before its first ID token).
    """

    uid: str
    email: str | None
    #: As of the ID token, or of the last :meth:`Auth.reload` or account change.
    email_verified: bool
    display_name: str | None
    photo_url: str | None
    is_anonymous: bool
    #: The ID token's firebase.sign_in_provider: "anonymous", "password", "custom", …
    sign_in_provider: str | None
    id_token: str | None = field(repr=False)
    refresh_token: str | None = field(repr=False)
    #: Every claim of the ID token, custom claims included (id_token already says them: left
    #: out of comparisons and hashing).
    claims: dict[str, Any] = field(repr=False, compare=False)
    token_expiration: datetime.datetime | None
    issued_at: datetime.datetime | None
    auth_time: datetime.datetime | None
    #: The account's sign-in methods and dates, as of the sign-in (which reads the account), the
    #: last :meth:`Auth.reload` or account change.
    provider_data: tuple[UserInfo, ...]
    metadata: UserMetadata
    #: What the sign-in that answered this user said beyond it; None on any other user (left out
    #: of comparisons: the same user without it is equal).
    additional_user_info: AdditionalUserInfo | None = field(default=None, compare=False)

    @classmethod
    def from_native(cls, handle: Any) -> User:
        """Copies an ``fbs_user`` snapshot (borrowed or owned: the caller keeps it)."""
        lib = library()

        def text(name: str) -> str | None:
            return decode(getattr(lib, f"fbs_user_{name}")(handle))

        claims = json.loads(text("claims_json") or "{}")
        return cls(
            uid=text("uid") or "",
            email=text("email"),
            email_verified=lib.fbs_user_is_email_verified(handle) == 1,
            display_name=text("display_name"),
            photo_url=text("photo_url"),
            is_anonymous=lib.fbs_user_is_anonymous(handle) == 1,
            sign_in_provider=text("sign_in_provider"),
            id_token=text("id_token"),
            refresh_token=text("refresh_token"),
            claims=claims if isinstance(claims, dict) else {},
            token_expiration=utc_time(lib.fbs_user_token_expiration(handle)),
            issued_at=utc_time(lib.fbs_user_token_issued_at(handle)),
            auth_time=utc_time(lib.fbs_user_auth_time(handle)),
            provider_data=provider_data(handle),
            metadata=user_metadata(handle),
            additional_user_info=additional_user_info(handle),
        )


def take_user(handle: Any) -> User | None:
    """Copies and releases an owned ``fbs_user`` (None for NULL)."""
    if not handle:
        return None
    try:
        return User.from_native(handle)
    finally:
        library().fbs_user_free(handle)


# -- listeners ------------------------------------------------------------------------------
_listeners: KeyedTable[AuthListener] = KeyedTable()


def _call_listener(user: Any, key: int | None) -> None:
    listener = _listeners.get(key)
    if listener is None:  # removed, or its Auth closed
        return
    with running_callback():
        try:
            listener(User.from_native(user) if user else None)
        except BaseException:
            report_callback_exception(f"auth listener {listener!r}")


_LISTENER_CALLBACK = AUTH_LISTENER(_call_listener)


def _forget_listeners(keys: dict[int, int]) -> None:
    for key in keys.values():
        _listeners.pop(key)
    keys.clear()


def _free_auth(handle: Any, listener_keys: dict[int, int]) -> None:
    library().fbs_auth_free(handle)
    _forget_listeners(listener_keys)


class Auth:
    """Firebase Auth for one app: ``Auth(api_key, project_id=None)``.

    If ``FIREBASE_AUTH_EMULATOR_HOST=host:port`` is set when the auth is created, it talks to
    that Auth emulator; :meth:`use_emulator` overrides it. ``persistence_file`` keeps the
    signed-in user in that file (see :meth:`set_persistence_file`).

    Sign-in failures raise a subclass of :class:`fbstorage.AuthError` per cause
    (:class:`~fbstorage.WrongPasswordError`, :class:`~fbstorage.UserDisabledError`, …); a failed
    sign-in keeps the current user. Use it as a context manager, or call :meth:`close`; storages
    that use it keep working after it is closed.
    """

    def __init__(
        self, api_key: str, project_id: str | None = None, *, persistence_file: LocalPath | None = None
    ) -> None:
        self._native: Any = call_for_out(
            library().fbs_auth_new,
            encode_text(api_key, "api_key"),
            encode_optional_text(project_id, "project_id"),
            out_type=AuthHandle,
        )
        self._project_id = project_id
        self._listener_keys: dict[int, int] = {}  # C listener handle -> key in _listeners
        self._finalizer = weakref.finalize(self, _free_auth, self._native, self._listener_keys)
        if persistence_file is not None:
            try:
                self.set_persistence_file(persistence_file)
            except BaseException:
                self.close()
                raise

    @property
    def _handle(self) -> Any:
        if not self._finalizer.alive:
            raise StorageError(StorageErrorCode.INVALID_ARGUMENT, "This Auth is closed")
        return self._native

    def close(self) -> None:
        """Releases the auth (idempotent); its listeners are not called any more. Storages
        that use it keep it alive in the library until they are closed."""
        self._finalizer()

    @property
    def closed(self) -> bool:
        """True once close() was called."""
        return not self._finalizer.alive

    def __enter__(self) -> Auth:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        project = f" {self._project_id}" if self._project_id else ""
        state = " (closed)" if self.closed else ""
        return f"<fbstorage.Auth{project}{state}>"

    # -- configuration -----------------------------------------------------------------------
    def use_emulator(self, host: str, port: int) -> None:
        """Sends Auth requests to the Auth emulator at http://host:port (the bundled emulator
        serves Auth on its storage port too)."""
        library().fbs_auth_use_emulator(
            self._handle, encode_text(host, "host"), check_integer(port, "port", C_INT)
        )

    def set_persistence_file(self, path: LocalPath | None) -> None:
        """Keeps the signed-in user (refresh token and profile) in ``path``: written
        atomically with mode 0600 on every sign-in and token refresh, removed on sign-out. If
        the file exists now, its user becomes the current user at once. None stops persisting
        (the file is left). Raises StorageError INVALID_ARGUMENT for an unreadable or
        malformed file."""
        encoded = None if path is None else encode_local_path(path, "persistence_file")
        library().fbs_auth_set_persistence_file(self._handle, encoded)

    def set_persistence_for_app(self, program: str, app_name: str) -> None:
        """Keeps the signed-in user between runs in the user's configuration folder, as the
        SDKs keep it in the keychain: :meth:`set_persistence_file` on
        ``$XDG_CONFIG_HOME/<program>/<app_name>-<API key hash>.json`` (``~/.config`` without
        XDG_CONFIG_HOME; missing folders made with mode 0700). ``program`` is one path
        component naming the program. Raises StorageError INVALID_ARGUMENT for an empty name,
        a ``program`` with '/', no absolute XDG_CONFIG_HOME or HOME, or a folder that cannot be
        made."""
        library().fbs_auth_set_persistence_for_app(
            self._handle, encode_text(program, "program"), encode_text(app_name, "app_name")
        )

    # -- signing in and out ------------------------------------------------------------------
    def _sign_in(self, function_name: str, *arguments: bytes) -> User:
        out = UserHandle()
        getattr(library(), function_name)(self._handle, *arguments, ctypes.byref(out))
        user = take_user(out)
        assert user is not None, f"{function_name} succeeded without a user"
        return user

    def sign_in_anonymously(self) -> User:
        """Signs in as a new anonymous user."""
        return self._sign_in("fbs_auth_sign_in_anonymously")

    def create_user(self, email: str, password: str) -> User:
        """Creates an email/password account and signs in as it. Raises
        EmailAlreadyInUseError, WeakPasswordError or InvalidEmailError."""
        return self._sign_in("fbs_auth_create_user", *_credentials(email, password))

    def sign_in_with_email(self, email: str, password: str) -> User:
        """Raises WrongPasswordError, UserNotFoundError or UserDisabledError."""
        return self._sign_in("fbs_auth_sign_in_with_email", *_credentials(email, password))

    def sign_in_with_custom_token(self, token: str) -> User:
        """Signs in with a custom token minted by a backend (firebase-admin's
        ``auth.create_custom_token``). Raises InvalidCustomTokenError."""
        return self._sign_in("fbs_auth_sign_in_with_custom_token", encode_text(token, "token"))

    def sign_in_with_refresh_token(self, refresh_token: str) -> User:
        """Restores a session from a refresh token saved earlier (``User.refresh_token``),
        e.g. by another process. Raises InvalidRefreshTokenError, UserTokenExpiredError
        (revoked), UserDisabledError or UserNotFoundError."""
        return self._sign_in(
            "fbs_auth_sign_in_with_refresh_token", encode_text(refresh_token, "refresh_token")
        )

    def sign_out(self) -> None:
        """Forgets the current user (no request is sent); nothing when signed out."""
        library().fbs_auth_sign_out(self._handle)

    def delete_user(self) -> None:
        """Deletes the current user's account, then signs out. Raises NoUserError or
        RequiresRecentLoginError."""
        library().fbs_auth_delete_user(self._handle)

    def update_profile(self, *, display_name: Any = UNCHANGED, photo_url: Any = UNCHANGED) -> User:
        """Changes the current user's display name and photo URL (``accounts:update``); a field
        left out stays as it is, None deletes it. Returns the updated user (the user stays signed
        in; ID-token listeners hear of it). Raises NoUserError when signed out; an answer that
        ends the session (UserDisabledError, UserNotFoundError, UserTokenExpiredError,
        InvalidUserTokenError) signs the user out first."""
        return self._sign_in("fbs_auth_update_profile", *_profile_changes(display_name, photo_url))

    # -- credentials and the account lifecycle -----------------------------------------------
    # Calls on the current user return the updated user (ID-token listeners hear of the new
    # tokens; the uid stays) and raise NoUserError when signed out.
    def sign_in_with_credential(self, credential: AuthCredential) -> User:
        """Signs in with an ``EmailAuthProvider``/``GoogleAuthProvider``/``OAuthProvider``
        credential (a new account for a new identity). Raises WrongPasswordError,
        InvalidCredentialError, AccountExistsWithDifferentCredentialError, …"""
        return self._sign_in("fbs_auth_sign_in_with_credential", native_credential(credential))

    def link_with_credential(self, credential: AuthCredential) -> User:
        """Adds the credential's sign-in method to the current user, who keeps the uid (and its
        files). Raises ProviderAlreadyLinkedError, CredentialAlreadyInUseError,
        EmailAlreadyInUseError."""
        return self._sign_in("fbs_auth_link_with_credential", native_credential(credential))

    def reauthenticate(self, credential: AuthCredential) -> User:
        """Signs the current user in again (for RequiresRecentLoginError). Raises
        UserMismatchError for another user's credential."""
        return self._sign_in("fbs_auth_reauthenticate", native_credential(credential))

    def unlink(self, provider_id: str) -> User:
        """Removes a sign-in method ("password", "google.com", …) from the current user."""
        return self._sign_in("fbs_auth_unlink", encode_text(provider_id, "provider_id"))

    def update_email(self, email: str) -> User:
        """Raises RequiresRecentLoginError, EmailAlreadyInUseError, InvalidEmailError."""
        return self._sign_in("fbs_auth_update_email", encode_text(email, "email"))

    def update_password(self, password: str) -> User:
        """Raises RequiresRecentLoginError, WeakPasswordError."""
        return self._sign_in("fbs_auth_update_password", encode_text(password, "password"))

    def reload(self) -> User:
        """Refreshes the ID token and reads the account: ``email_verified`` and the profile as
        the server has them now (the token's claims too, which storage rules see)."""
        return self._sign_in("fbs_auth_reload")

    def send_email_verification(self) -> None:
        """Mails the current user a code verifying their email (:meth:`apply_action_code`)."""
        library().fbs_auth_send_email_verification(self._handle)

    def verify_before_update_email(self, email: str) -> None:
        """Mails ``email`` a code that, applied, makes it the current user's email."""
        library().fbs_auth_verify_before_update_email(self._handle, encode_text(email, "email"))

    def send_password_reset_email(self, email: str) -> None:
        """Mails a password-reset code. Raises UserNotFoundError, InvalidEmailError."""
        library().fbs_auth_send_password_reset_email(self._handle, encode_text(email, "email"))

    def verify_password_reset_code(self, code: str) -> str:
        """The email a password-reset code is for. Raises InvalidActionCodeError,
        ExpiredActionCodeError."""
        address = call_for_out(library().fbs_auth_verify_password_reset_code, self._handle,
                               encode_text(code, "code"), out_type=ctypes.c_void_p)
        email = take_string(address.value)
        assert email is not None, "fbs_auth_verify_password_reset_code succeeded without an email"
        return email

    def fetch_sign_in_methods(self, email: str) -> list[str]:
        """How ``email`` can sign in: "password", "emailLink" and the identity providers linked
        to its account; ``[]`` when no account has it, and always when the project protects
        against email enumeration (the default for new projects). Raises InvalidEmailError."""
        joined = call_for_out(library().fbs_auth_fetch_sign_in_methods, self._handle,
                              encode_text(email, "email"), out_type=ctypes.c_void_p)
        return split_methods(take_string(joined.value) or "")

    def confirm_password_reset(self, code: str, new_password: str) -> None:
        """Sets the password of a reset code's account. Raises InvalidActionCodeError,
        ExpiredActionCodeError, WeakPasswordError."""
        library().fbs_auth_confirm_password_reset(self._handle, encode_text(code, "code"),
                                                  encode_text(new_password, "new_password"))

    def check_action_code(self, code: str) -> ActionCodeInfo:
        """What an action code is for; the code stays usable. Raises InvalidActionCodeError,
        ExpiredActionCodeError."""
        operation, email, new_email = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        library().fbs_auth_check_action_code(self._handle, encode_text(code, "code"), ctypes.byref(operation),
                                             ctypes.byref(email), ctypes.byref(new_email))
        texts = [take_string(address.value) for address in (operation, email, new_email)]
        assert texts[0] is not None, "fbs_auth_check_action_code succeeded without an operation"
        return ActionCodeInfo(operation=texts[0], email=texts[1], new_email=texts[2])

    def apply_action_code(self, code: str) -> None:
        """Applies an email verification or email change code; :meth:`reload` shows it."""
        library().fbs_auth_apply_action_code(self._handle, encode_text(code, "code"))

    # -- email-link sign-in ------------------------------------------------------------------
    def send_sign_in_link_to_email(self, email: str, action_code_settings: ActionCodeSettings) -> None:
        """Mails ``email`` a sign-in link leading to ``action_code_settings.url`` (which must
        have ``handle_code_in_app=True``). Raises InvalidEmailError; StorageError
        INVALID_ARGUMENT for settings the server refuses (continue URL)."""
        with native_action_code_settings(action_code_settings) as settings:
            library().fbs_auth_send_sign_in_link_to_email(self._handle, encode_text(email, "email"), settings)

    def is_sign_in_with_email_link(self, link: str) -> bool:
        """Whether ``link`` is an email sign-in link (``mode=signIn`` with an ``oobCode``, also
        inside a Dynamic Link); no request is sent."""
        return bool(library().fbs_auth_is_sign_in_with_email_link(self._handle, encode_text(link, "link")) == 1)

    def sign_in_with_email_link(self, email: str, link: str) -> User:
        """Signs in as the owner of ``email`` with the link mailed to it (a new account the
        first time; the email is verified). Raises InvalidActionCodeError (used or unknown),
        ExpiredActionCodeError, InvalidEmailError (another address than the link's); StorageError
        INVALID_ARGUMENT for a link that is not a sign-in link."""
        return self._sign_in("fbs_auth_sign_in_with_email_link", encode_text(email, "email"), encode_text(link, "link"))

    # -- the current user --------------------------------------------------------------------
    @property
    def current_user(self) -> User | None:
        """A snapshot of the signed-in user, or None."""
        return take_user(call_for_out(library().fbs_auth_current_user, self._handle, out_type=UserHandle))

    def get_id_token(self, force_refresh: bool = False) -> str:
        """The current user's ID token, refreshed first when it is about to expire or
        ``force_refresh`` is true. Raises NoUserError when signed out."""
        address = call_for_out(
            library().fbs_auth_get_id_token,
            self._handle,
            int(_check_bool(force_refresh, "force_refresh")),
            out_type=ctypes.c_void_p,
        )
        token = take_string(address.value)
        assert token is not None, "fbs_auth_get_id_token succeeded without a token"
        return token

    # -- listeners ---------------------------------------------------------------------------
    def add_state_listener(self, listener: AuthListener) -> int:
        """Calls ``listener(user_or_None)`` now and on every sign-in, sign-out, restored
        session and change of user; returns a handle for :meth:`remove_listener`. It runs on
        the auth's callback thread, one call at a time; an exception it raises is reported as
        a RuntimeWarning."""
        return self._add_listener("fbs_auth_add_state_listener", listener)

    def add_id_token_listener(self, listener: AuthListener) -> int:
        """Like :meth:`add_state_listener`, and also on every new ID token (refreshes)."""
        return self._add_listener("fbs_auth_add_id_token_listener", listener)

    def _add_listener(self, function_name: str, listener: AuthListener) -> int:
        if not callable(listener):
            raise TypeError(f"listener must be callable, not {type(listener).__name__}")
        handle = self._handle
        key = _listeners.add(listener)   # registered first: it runs once before the call returns
        try:
            registered = call_for_out(
                getattr(library(), function_name), handle, _LISTENER_CALLBACK, key,
                out_type=ctypes.c_int64,
            ).value
        except BaseException:
            _listeners.pop(key)
            raise
        self._listener_keys[registered] = key
        return int(registered)

    def remove_listener(self, handle: int) -> None:
        """Stops a listener; it is not called after this returns. Raises StorageError
        INVALID_ARGUMENT for an unknown handle."""
        library().fbs_auth_remove_listener(self._handle, check_integer(handle, "handle"))
        _listeners.pop(self._listener_keys.pop(handle, None))


def _check_bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be a bool, not {type(value).__name__}")
    return value


def _profile_changes(display_name: Any, photo_url: Any) -> tuple[bytes | None, bytes | None]:
    """The C call's convention: NULL leaves a field, "" deletes it (None here)."""
    def change(value: Any, what: str) -> bytes | None:
        if value is UNCHANGED:
            return None
        return encode_text("" if value is None else value, what)
    return change(display_name, "display_name"), change(photo_url, "photo_url")


def _credentials(email: Any, password: Any) -> tuple[bytes, bytes]:
    return encode_text(email, "email"), encode_text(password, "password")


def native_auth(auth: Any) -> Any:
    """The ``fbs_auth`` handle of a :class:`Auth` or a :class:`fbstorage.aio.Auth`."""
    unwrapped = getattr(auth, "sync", auth)
    if not isinstance(unwrapped, Auth):
        raise TypeError(f"auth must be an fbstorage Auth or None, not {type(auth).__name__}")
    return unwrapped._handle


def split_methods(joined: str) -> list[str]:
    """fbs_auth_fetch_sign_in_methods' answer: the methods joined by ","."""
    return joined.split(",") if joined else []
