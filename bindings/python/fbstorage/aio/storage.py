"""Storage for asyncio: one bucket, its settings, references whose operations are coroutines."""

from __future__ import annotations

import asyncio
import collections
import weakref
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from .. import storage as sync_storage
from .._conversion import check_integer, check_number
from ..storage import CloseMode
from .reference import StorageReference

if TYPE_CHECKING:
    from ..app_check import AppCheck as SyncAppCheck
    from .app_check import AppCheck
    from ..auth import Auth as SyncAuth
    from ..token_request import TokenRequest
    from .auth import Auth
    from .task import StorageTask

from ..admin import ServiceAccount

#: ``async def provider(force_refresh) -> str | None``
AsyncTokenProvider = Callable[[bool], Awaitable["str | None"]]


#: Storage.max_running_tasks unless set: measured with 1000 small uploads (benchmarks).
DEFAULT_MAX_RUNNING_TASKS = 16


def _forwarded(setting: str) -> property:
    """A property read from and written to the sync storage's property of the same name."""
    sync_property = getattr(sync_storage.Storage, setting)

    def read(storage: Storage) -> Any:
        return getattr(storage._storage, setting)

    def write(storage: Storage, value: Any) -> None:
        setattr(storage._storage, setting, value)

    return property(read, write, doc=sync_property.__doc__)


class Storage:
    """Cloud Storage for Firebase, one bucket, for asyncio code.

    ``async with fbstorage.aio.Storage("my-app.appspot.com") as storage: …``. Settings and
    authentication are those of :class:`fbstorage.Storage` (``use_emulator``,
    ``set_auth_token``, ``upload_chunk_size``, …; ``FIREBASE_STORAGE_EMULATOR_HOST`` is read
    at creation). ``auth=`` (an :class:`fbstorage.aio.Auth` or :class:`fbstorage.Auth`) makes
    every request carry its current user's ID token. :meth:`close` (leaving ``async with``)
    ends the tasks as ``close_mode`` says, as :class:`fbstorage.Storage` does (by default it
    cancels them; ``CloseMode.KEEP_SESSIONS`` keeps uploads resumable; ``CloseMode.FINISH``
    first lets them finish within ``close_timeout``), waits for their ends without blocking
    the loop, then releases everything.
    """

    def __init__(self, bucket: str, *, auth: Auth | SyncAuth | None = None, app_check: AppCheck | SyncAppCheck | None = None,
                 close_mode: CloseMode = CloseMode.CANCEL, close_timeout: float = 0.0) -> None:
        self._close_mode = CloseMode(close_mode)
        self._close_timeout = check_number(close_timeout, "close_timeout")
        self._storage = sync_storage.Storage(bucket, auth=auth, app_check=app_check)
        self._tasks: weakref.WeakSet[StorageTask] = weakref.WeakSet()
        self._waiting: collections.deque[StorageTask] = collections.deque()
        self._running = 0
        self._max_running_tasks = DEFAULT_MAX_RUNNING_TASKS

    @property
    def sync(self) -> sync_storage.Storage:
        """The underlying :class:`fbstorage.Storage`."""
        return self._storage

    @property
    def max_running_tasks(self) -> int:
        """How many uploads and downloads run at once (default 16); later ones wait for their
        turn. Thousands of transfers at once would each hold a connection and go slower in
        total than a few at a time (benchmarks/README.md, workload "aio")."""
        return self._max_running_tasks

    @max_running_tasks.setter
    def max_running_tasks(self, count: int) -> None:
        if check_integer(count, "max_running_tasks") < 1:
            raise ValueError(f"max_running_tasks must be at least 1, not {count}")
        self._max_running_tasks = count
        self._start_waiting()

    def _schedule(self, task: StorageTask) -> None:
        """Starts a new task now if there is room, else when its turn comes; close() cancels
        and awaits it."""
        self._tasks.add(task)
        self._waiting.append(task)
        self._start_waiting()

    def _start_waiting(self) -> None:
        while self._waiting and self._running < self._max_running_tasks:
            self._start(self._waiting.popleft())

    def _start(self, task: StorageTask) -> None:
        self._running += 1
        task._outcome.add_done_callback(self._task_ended)
        task._begin()

    def _withdraw(self, task: StorageTask) -> bool:
        """Takes a waiting task out of the queue (it is cancelled before its turn); False if it
        was not waiting (withdrawn already)."""
        if task not in self._waiting:
            return False
        self._waiting.remove(task)
        return True

    def _task_ended(self, _: object) -> None:
        self._running -= 1
        self._start_waiting()

    async def close(self, mode: CloseMode | None = None, timeout: float | None = None) -> None:
        """Ends the tasks as ``mode`` says (default: the ``close_mode`` given at creation), waits
        for their ends without blocking the loop, releases every handle. Idempotent.

        ``CloseMode.CANCEL`` cancels them. ``CloseMode.KEEP_SESSIONS`` stops them, keeping each
        upload's session: when close returns, its ``upload_session`` is final and its FAILURE
        (CANCELLED) observers have run. ``CloseMode.FINISH`` lets running and waiting tasks go on
        for ``timeout`` seconds (default: ``close_timeout``), then stops the rest as KEEP_SESSIONS.
        A task still waiting for its turn then never starts: it ends CANCELLED."""
        if self.closed:
            return
        mode = self._close_mode if mode is None else CloseMode(mode)
        seconds = self._close_timeout if timeout is None else check_number(timeout, "timeout")
        if mode == CloseMode.FINISH:
            unfinished = [task._outcome for task in self._tasks if not task.done()]
            if unfinished:
                await asyncio.wait(unfinished, timeout=seconds)
        for task in list(self._waiting):
            task.cancel()
        unfinished = [task for task in self._tasks if not task.done()]
        if mode == CloseMode.CANCEL:
            for task in unfinished:
                task.cancel()
            await asyncio.gather(*(task._outcome for task in unfinished), return_exceptions=True)
            # Off the loop: the close lets the uploads' cancel commands reach the server (up to 3 s).
            await asyncio.get_running_loop().run_in_executor(None, self._storage.close, CloseMode.CANCEL)
        else:  # the library stops the running tasks and returns once their FAILURE callbacks ran
            await asyncio.get_running_loop().run_in_executor(None, self._storage.close, CloseMode.KEEP_SESSIONS)
            await asyncio.gather(*(task._outcome for task in unfinished), return_exceptions=True)

    @property
    def closed(self) -> bool:
        """True once close() was called."""
        return self._storage.closed

    async def __aenter__(self) -> Storage:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        state = " (closed)" if self.closed else ""
        return f"<fbstorage.aio.Storage gs://{self.bucket}{state}>"

    @property
    def bucket(self) -> str:
        """The bucket name, without "gs://"."""
        return self._storage.bucket

    def reference(self, path: str | None = None) -> StorageReference:
        """A reference to ``path`` in this bucket; None or "" gives the root."""
        return StorageReference(self, self._storage.reference(path))

    def reference_for_url(self, url: str) -> StorageReference:
        """A reference from "gs://bucket/path" or "https://host/v0/b/bucket/o/<escaped path>"."""
        return StorageReference(self, self._storage.reference_for_url(url))

    def use_emulator(self, host: str, port: int) -> None:
        """Sends every request to the emulator at http://host:port."""
        self._storage.use_emulator(host, port)

    def use_endpoint(self, url: str) -> None:
        """Sends every request to the server at ``url``, ``https://host[:port]`` or
        ``http://host[:port]`` (see the sync Storage)."""
        self._storage.use_endpoint(url)

    def set_proxy(self, url: str | None, *, username: str | None = None,
                  password: str | None = None, no_proxy: str | None = None) -> None:
        """Sends requests through the proxy at ``url`` (see the sync Storage)."""
        self._storage.set_proxy(url, username=username, password=password, no_proxy=no_proxy)

    def set_auth_token(self, token: str | None) -> None:
        """Sends a fixed Firebase Auth ID token; None clears it."""
        self._storage.set_auth_token(token)

    def set_auth_token_provider(self, provider: sync_storage.TokenProvider | None) -> None:
        """Supplies tokens on demand: ``provider(force_refresh) -> str | None``, a plain
        function run on the library's transfer thread (see the sync Storage)."""
        self._storage.set_auth_token_provider(provider)

    def use_service_account(self, account: ServiceAccount | None) -> None:
        """Acts as the service account (admin access); see
        :meth:`fbstorage.Storage.use_service_account`."""
        self._storage.use_service_account(account)

    def set_access_token(self, token: str | None) -> None:
        """Sends an OAuth2 access token as ``Bearer`` (admin access); None clears it."""
        self._storage.set_access_token(token)

    def use_auth(self, auth: Auth | SyncAuth | None) -> None:
        """Every request carries the ID token of ``auth``'s current user from now on (see the
        sync Storage); None detaches."""
        self._storage.use_auth(auth)

    @property
    def auth(self) -> Auth | SyncAuth | None:
        """The auth given to :meth:`use_auth` (or ``auth=``), or None."""
        return self._storage.auth

    def set_auth_token_provider_async(self, provider: AsyncTokenProvider | None) -> None:
        """Supplies tokens from a coroutine function, ``async def provider(force_refresh) ->
        str | None``, run on the loop running now (call this from a coroutine): transfers go on
        while it awaits. An exception it raises fails the waiting request (UNAUTHENTICATED).
        None removes it."""
        if provider is None:
            self._storage.set_auth_token_provider_async(None)
            return
        if not callable(provider):
            raise TypeError(f"provider must be callable or None, not {type(provider).__name__}")
        loop = asyncio.get_running_loop()

        def start(force_refresh: bool, request: TokenRequest) -> None:
            future = asyncio.run_coroutine_threadsafe(provider(force_refresh), loop)
            future.add_done_callback(lambda done: _answer(request, done))

        self._storage.set_auth_token_provider_async(start)

    def set_app_check_token(self, token: str | None) -> None:
        """Sends an App Check token ("X-Firebase-AppCheck"); None clears it."""
        self._storage.set_app_check_token(token)

    def use_app_check(self, app_check: AppCheck | SyncAppCheck | None) -> None:
        """Every request carries a token of ``app_check`` from now on (see
        :meth:`fbstorage.Storage.use_app_check`); the library fetches and renews it on its own
        threads, so the event loop never waits for the provider. None detaches."""
        self._storage.use_app_check(app_check)

    @property
    def app_check(self) -> AppCheck | SyncAppCheck | None:
        """The App Check given to :meth:`use_app_check` (or ``app_check=``), or None."""
        return self._storage.app_check

    max_upload_retry_time = _forwarded("max_upload_retry_time")
    max_download_retry_time = _forwarded("max_download_retry_time")
    max_operation_retry_time = _forwarded("max_operation_retry_time")
    connect_timeout = _forwarded("connect_timeout")
    loopback_refused_grace = _forwarded("loopback_refused_grace")
    upload_chunk_size = _forwarded("upload_chunk_size")
    verify_md5 = _forwarded("verify_md5")
    ca_file = _forwarded("ca_file")
    max_upload_speed = _forwarded("max_upload_speed")
    max_download_speed = _forwarded("max_download_speed")


def _answer(request: TokenRequest, done: Any) -> None:
    """Answers ``request`` with the outcome of an async token provider's coroutine."""
    error = None if done.cancelled() else done.exception()
    if done.cancelled() or error is not None:
        reason = "was cancelled" if error is None else f"raised {type(error).__name__}"
        request.fail(f"the token provider {reason}")
        return
    try:
        request.complete(done.result())
    except (TypeError, ValueError) as wrong:  # not a str: the message names the type, not the value
        request.fail(f"the token provider's result: {wrong}")
