"""fbstorage.aio.AppCheck: fbstorage.AppCheck for asyncio code, with a coroutine provider."""

from __future__ import annotations

import asyncio
import datetime
from typing import Any, Awaitable, Callable

from .. import app_check as sync_app_check
from ..app_check import AppCheckToken, AppCheckTokenListener, AppCheckTokenRequest
from . import _completion
from ._loop_listener import LoopListener

#: ``async def provider(limited_use) -> (token, expire_time)``: expire_time an aware datetime or
#: seconds since the Unix epoch.
AsyncAppCheckProvider = Callable[[bool], Awaitable[tuple[str, "datetime.datetime | float"]]]


class AppCheck:
    """App Check for one app, for asyncio code: ``fbstorage.aio.AppCheck(project_id, app_id,
    api_key=None, debug_token=None)``, as :class:`fbstorage.AppCheck`; the token calls are
    coroutines that wait without blocking the loop, and a custom provider may be a coroutine
    function. ``fbstorage.aio.Storage(bucket, app_check=...)`` takes it."""

    def __init__(self, project_id: str, app_id: str, api_key: str | None = None, *,
                 debug_token: str | bool | None = None) -> None:
        self._app_check = sync_app_check.AppCheck(project_id, app_id, api_key, debug_token=debug_token)
        self._loop_listeners: dict[int, LoopListener] = {}

    @property
    def sync(self) -> sync_app_check.AppCheck:
        """The underlying :class:`fbstorage.AppCheck`."""
        return self._app_check

    async def close(self) -> None:
        """Releases the App Check (storages that use it keep it alive in the library)."""
        self._app_check.close()

    async def __aenter__(self) -> AppCheck:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return repr(self._app_check).replace("fbstorage.AppCheck", "fbstorage.aio.AppCheck")

    def use_emulator(self, host: str, port: int) -> None:
        self._app_check.use_emulator(host, port)

    @property
    def token_auto_refresh_enabled(self) -> bool:
        """See :attr:`fbstorage.AppCheck.token_auto_refresh_enabled`."""
        return self._app_check.token_auto_refresh_enabled

    @token_auto_refresh_enabled.setter
    def token_auto_refresh_enabled(self, enabled: bool) -> None:
        self._app_check.token_auto_refresh_enabled = enabled

    def set_debug_provider(self, debug_token: str | None = None) -> None:
        self._app_check.set_debug_provider(debug_token)

    def set_token(self, token: str, expire_time: datetime.datetime | float) -> None:
        self._app_check.set_token(token, expire_time)

    def set_custom_provider(self, provider: AsyncAppCheckProvider | None) -> None:
        """A coroutine function, ``async def provider(limited_use) -> (token, expire_time)``, run
        on the loop running now (call this from a coroutine); an exception it raises fails the
        waiting request (APP_CHECK_PROVIDER_FAILED). None removes it."""
        if provider is None:
            self._app_check.set_custom_provider(None)
            return
        if not callable(provider):
            raise TypeError(f"provider must be callable or None, not {type(provider).__name__}")
        loop = asyncio.get_running_loop()

        def start(limited_use: bool, request: AppCheckTokenRequest) -> None:
            future = asyncio.run_coroutine_threadsafe(provider(limited_use), loop)
            future.add_done_callback(lambda done: _answer(request, done))

        self._app_check.set_custom_provider(start)

    def add_token_listener(self, listener: AppCheckTokenListener) -> int:
        """Calls ``listener(token)`` on the running event loop (call this from a coroutine) for
        every token the App Check keeps, as :meth:`fbstorage.AppCheck.add_token_listener`."""
        on_loop = LoopListener(listener)
        handle = self._app_check.add_token_listener(on_loop)
        self._loop_listeners[handle] = on_loop
        return handle

    def remove_token_listener(self, handle: int) -> None:
        """Stops a token listener: it is not called after this returns, even for a token
        already on its way to the loop."""
        self._app_check.remove_token_listener(handle)
        removed = self._loop_listeners.pop(handle, None)
        if removed is not None:
            removed.active = False

    async def get_token(self, force_refresh: bool = False) -> AppCheckToken:
        """The current token, renewed first when about to expire or ``force_refresh``."""
        return await _completion.start("fbs_app_check_get_token_async", self._app_check._handle,
                                       int(bool(force_refresh)), convert=sync_app_check.token_of)

    async def get_limited_use_token(self) -> AppCheckToken:
        """A new limited-use token (see :meth:`fbstorage.AppCheck.get_limited_use_token`)."""
        return await _completion.start("fbs_app_check_get_limited_use_token_async", self._app_check._handle,
                                       convert=sync_app_check.token_of)


def _answer(request: AppCheckTokenRequest, done: Any) -> None:
    """Answers ``request`` with the outcome of a coroutine provider."""
    error = None if done.cancelled() else done.exception()
    if done.cancelled() or error is not None:
        request.fail(f"the App Check provider {'was cancelled' if error is None else f'raised {type(error).__name__}'}")
        return
    try:
        token, expire_time = done.result()
        request.complete(token, expire_time)
    except (TypeError, ValueError) as wrong:  # not (str, time): the message names the type, not the value
        request.fail_unless_answered(f"the App Check provider's result: {wrong}")
