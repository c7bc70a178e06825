"""Auth for asyncio: the sync Auth's surface, its sign-in calls as coroutines."""

from __future__ import annotations

from typing import Any

from .. import auth as sync_auth
from .._conversion import LocalPath, decode, encode_text
from ..action_code_info import ActionCodeInfo
from ..auth import AuthListener, User, split_methods
from ..action_code_settings import ActionCodeSettings, native_action_code_settings
from ..credentials import AuthCredential, native_credential
from . import _completion
from ._loop_listener import LoopListener


def _user(handle: Any) -> User:
    return User.from_native(handle)


def _action_code_info(operation: bytes, email: bytes | None, new_email: bytes | None) -> ActionCodeInfo:
    return ActionCodeInfo(operation=decode(operation) or "", email=decode(email), new_email=decode(new_email))


class Auth:
    """Firebase Auth for one app, for asyncio code: ``fbstorage.aio.Auth(api_key, project_id)``.

    ``async with`` closes it. Configuration, :attr:`current_user`, :meth:`sign_out` and the
    listeners are those of :class:`fbstorage.Auth` (no network, so plain calls); the sign-in
    calls, :meth:`delete_user` and :meth:`get_id_token` are coroutines that wait without
    blocking the loop. Cancelling one stops waiting; the sign-in still completes.
    """

    def __init__(
        self, api_key: str, project_id: str | None = None, *, persistence_file: LocalPath | None = None
    ) -> None:
        self._auth = sync_auth.Auth(api_key, project_id, persistence_file=persistence_file)
        self._loop_listeners: dict[int, LoopListener] = {}

    @property
    def sync(self) -> sync_auth.Auth:
        """The underlying :class:`fbstorage.Auth`."""
        return self._auth

    async def close(self) -> None:
        """Releases the auth (idempotent); storages that use it keep working."""
        self._auth.close()

    @property
    def closed(self) -> bool:
        return self._auth.closed

    async def __aenter__(self) -> Auth:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return repr(self._auth).replace("fbstorage.Auth", "fbstorage.aio.Auth")

    def use_emulator(self, host: str, port: int) -> None:
        """Sends Auth requests to the Auth emulator at http://host:port."""
        self._auth.use_emulator(host, port)

    def set_persistence_file(self, path: LocalPath | None) -> None:
        """Keeps the signed-in user in ``path`` (see :meth:`fbstorage.Auth.set_persistence_file`)."""
        self._auth.set_persistence_file(path)

    def set_persistence_for_app(self, program: str, app_name: str) -> None:
        """Keeps the signed-in user in the user's configuration folder (see
        :meth:`fbstorage.Auth.set_persistence_for_app`)."""
        self._auth.set_persistence_for_app(program, app_name)

    def _start(self, function_name: str, *arguments: Any, convert: Any = _user) -> Any:
        return _completion.start(function_name, self._auth._handle, *arguments, convert=convert)

    async def sign_in_anonymously(self) -> User:
        return await self._start("fbs_auth_sign_in_anonymously_async")

    async def create_user(self, email: str, password: str) -> User:
        return await self._start("fbs_auth_create_user_async", *sync_auth._credentials(email, password))

    async def sign_in_with_email(self, email: str, password: str) -> User:
        return await self._start(
            "fbs_auth_sign_in_with_email_async", *sync_auth._credentials(email, password)
        )

    async def sign_in_with_custom_token(self, token: str) -> User:
        return await self._start("fbs_auth_sign_in_with_custom_token_async", encode_text(token, "token"))

    async def sign_in_with_refresh_token(self, refresh_token: str) -> User:
        return await self._start(
            "fbs_auth_sign_in_with_refresh_token_async", encode_text(refresh_token, "refresh_token")
        )

    def sign_out(self) -> None:
        """Forgets the current user (no request is sent)."""
        self._auth.sign_out()

    async def delete_user(self) -> None:
        """Deletes the current user's account, then signs out."""
        await self._start("fbs_auth_delete_user_async", convert=lambda: None)

    # -- credentials and the account lifecycle: as the sync Auth's -------------------------
    async def sign_in_with_credential(self, credential: AuthCredential) -> User:
        return await self._start("fbs_auth_sign_in_with_credential_async", native_credential(credential))

    async def link_with_credential(self, credential: AuthCredential) -> User:
        return await self._start("fbs_auth_link_with_credential_async", native_credential(credential))

    async def reauthenticate(self, credential: AuthCredential) -> User:
        return await self._start("fbs_auth_reauthenticate_async", native_credential(credential))

    async def unlink(self, provider_id: str) -> User:
        return await self._start("fbs_auth_unlink_async", encode_text(provider_id, "provider_id"))

    async def update_email(self, email: str) -> User:
        return await self._start("fbs_auth_update_email_async", encode_text(email, "email"))

    async def update_password(self, password: str) -> User:
        return await self._start("fbs_auth_update_password_async", encode_text(password, "password"))

    async def reload(self) -> User:
        return await self._start("fbs_auth_reload_async")

    async def send_email_verification(self) -> None:
        await self._start("fbs_auth_send_email_verification_async", convert=lambda: None)

    async def verify_before_update_email(self, email: str) -> None:
        await self._start("fbs_auth_verify_before_update_email_async", encode_text(email, "email"), convert=lambda: None)

    async def send_password_reset_email(self, email: str) -> None:
        await self._start("fbs_auth_send_password_reset_email_async", encode_text(email, "email"), convert=lambda: None)

    async def verify_password_reset_code(self, code: str) -> str:
        return await self._start("fbs_auth_verify_password_reset_code_async", encode_text(code, "code"),
                                 convert=lambda email: email.decode("utf-8"))

    async def fetch_sign_in_methods(self, email: str) -> list[str]:
        return await self._start("fbs_auth_fetch_sign_in_methods_async", encode_text(email, "email"),
                                 convert=lambda joined: split_methods(joined.decode("utf-8")))

    async def confirm_password_reset(self, code: str, new_password: str) -> None:
        await self._start("fbs_auth_confirm_password_reset_async", encode_text(code, "code"),
                          encode_text(new_password, "new_password"), convert=lambda: None)

    async def check_action_code(self, code: str) -> ActionCodeInfo:
        return await self._start("fbs_auth_check_action_code_async", encode_text(code, "code"),
                                 convert=_action_code_info)

    async def apply_action_code(self, code: str) -> None:
        await self._start("fbs_auth_apply_action_code_async", encode_text(code, "code"), convert=lambda: None)

    async def send_sign_in_link_to_email(self, email: str, action_code_settings: ActionCodeSettings) -> None:
        """As :meth:`fbstorage.Auth.send_sign_in_link_to_email`."""
        with native_action_code_settings(action_code_settings) as settings:
            # The call copies the settings before it returns: the handle may go when it has.
            waiting = self._start("fbs_auth_send_sign_in_link_to_email_async", encode_text(email, "email"), settings,
                                  convert=lambda: None)
        await waiting

    def is_sign_in_with_email_link(self, link: str) -> bool:
        return self._auth.is_sign_in_with_email_link(link)

    async def sign_in_with_email_link(self, email: str, link: str) -> User:
        return await self._start("fbs_auth_sign_in_with_email_link_async", encode_text(email, "email"),
                                 encode_text(link, "link"))

    async def update_profile(self, *, display_name: Any = sync_auth.UNCHANGED,
                             photo_url: Any = sync_auth.UNCHANGED) -> User:
        """As :meth:`fbstorage.Auth.update_profile`."""
        return await self._start("fbs_auth_update_profile_async", *sync_auth._profile_changes(display_name, photo_url))

    @property
    def current_user(self) -> User | None:
        return self._auth.current_user

    async def get_id_token(self, force_refresh: bool = False) -> str:
        """The current user's ID token, refreshed first when about to expire or forced."""
        force = sync_auth._check_bool(force_refresh, "force_refresh")
        return await self._start(
            "fbs_auth_get_id_token_async", int(force), convert=lambda token: token.decode("utf-8")
        )

    def add_state_listener(self, listener: AuthListener) -> int:
        """Calls ``listener(user_or_None)`` on the running event loop, soon after this call
        and on every sign-in, sign-out and change of user (call it from a coroutine)."""
        return self._add(self._auth.add_state_listener, listener)

    def add_id_token_listener(self, listener: AuthListener) -> int:
        """Like :meth:`add_state_listener`, and also on every new ID token."""
        return self._add(self._auth.add_id_token_listener, listener)

    def _add(self, add: Any, listener: AuthListener) -> int:
        on_loop = LoopListener(listener)
        handle: int = add(on_loop)
        self._loop_listeners[handle] = on_loop
        return handle

    def remove_listener(self, handle: int) -> None:
        """Stops a listener: it is not called after this returns, even for a change already
        on its way to the loop."""
        self._auth.remove_listener(handle)
        removed = self._loop_listeners.pop(handle, None)
        if removed is not None:
            removed.active = False
