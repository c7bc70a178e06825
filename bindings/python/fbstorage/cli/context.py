"""What every command shares: the storages (one per bucket), parallelism, failures, output."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
from typing import Any, Awaitable, Callable, Iterable, TypeVar

from rich.console import Console

from .. import aio
from ..admin import ServiceAccount
from ..app_check import AppCheck
from ..auth import Auth
from ..errors import StorageError
from .locations import RemotePath, UsageError

STORAGE_EMULATOR_ENV_VAR = "FIREBASE_STORAGE_EMULATOR_HOST"  # the library reads it too

#: The environment variable read for a Firebase Auth ID token when --token is not given.
TOKEN_ENV_VAR = "FBSTORAGE_TOKEN"
#: The proxy's credentials (kept out of the process list).
PROXY_USER_ENV_VAR = "FBSTORAGE_PROXY_USER"
PROXY_PASSWORD_ENV_VAR = "FBSTORAGE_PROXY_PASSWORD"


@dataclasses.dataclass(frozen=True)
class Connection:
    """--endpoint, --ca-file, --proxy, --max-speed: None leaves the library's default."""

    endpoint: str | None = None
    ca_file: str | None = None
    proxy: str | None = None
    max_speed: int | None = None

    def apply(self, storage: aio.Storage) -> None:
        if self.endpoint:
            storage.use_endpoint(self.endpoint)
        if self.ca_file:
            storage.ca_file = self.ca_file
        if self.proxy is not None:
            storage.set_proxy(self.proxy, username=os.environ.get(PROXY_USER_ENV_VAR),
                              password=os.environ.get(PROXY_PASSWORD_ENV_VAR))
        if self.max_speed:
            storage.max_upload_speed = storage.max_download_speed = self.max_speed

T = TypeVar("T")


class CommandContext:
    """Storages configured from the command line, and the record of what failed.

    Use it with ``async with``: leaving it closes every storage, except when the command was
    interrupted: closing would cancel running uploads, and with them the sessions the next
    run is to continue.
    """

    def __init__(self, emulator: str | None, token: str | None, chunk_size: int | None,
                 retry_time: float | None, jobs: int, auth: Auth | None = None,
                 service_account: str | None = None, connection: Connection = Connection(),
                 app_check: Callable[[str, tuple[str, int] | None], AppCheck | None] | None = None) -> None:
        self._connection = connection
        self._app_check = app_check  # (bucket, emulator address) -> the App Check of its storage
        self._emulator = host_and_port(emulator) if emulator else None
        # Admin access: listings carry metadata, copies within a bucket stay on the server.
        self.service_account = ServiceAccount(service_account) if service_account else None
        self._token = token if token is not None else os.environ.get(TOKEN_ENV_VAR)
        self._auth = auth  # the signed-in user's (fbstorage login); a token given wins
        self._chunk_size = chunk_size
        self._retry_time = retry_time
        self.jobs = jobs
        self._storages: dict[str, aio.Storage] = {}
        self.failures = 0
        self.successes = 0
        # Progress bars and errors go to stderr, so stdout carries only results.
        self.stderr = Console(stderr=True, highlight=False)

    async def __aenter__(self) -> CommandContext:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, *_: Any) -> None:
        if exc_type is not None and issubclass(exc_type, asyncio.CancelledError):
            return
        await asyncio.gather(*(storage.close() for storage in self._storages.values()))
        if self.service_account is not None:
            self.service_account.close()

    @property
    def emulator_address(self) -> tuple[str, int] | None:
        """The emulator in use (--emulator or its variable), else None."""
        variable = os.environ.get(STORAGE_EMULATOR_ENV_VAR)
        return self._emulator or (host_and_port(variable) if variable else None)

    @property
    def emulator_url(self) -> str | None:
        """``http://host:port`` of the emulator in use (--emulator or its variable), else None."""
        address = self.emulator_address
        if address is None:
            return None
        host, port = address
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    def reference(self, remote: RemotePath) -> aio.StorageReference:
        storage = self._storages.get(remote.bucket)
        if storage is None:
            storage = self._storages[remote.bucket] = aio.Storage(remote.bucket)
            if self._emulator:
                storage.use_emulator(*self._emulator)
            self._connection.apply(storage)
            if self.service_account is not None:
                storage.use_service_account(self.service_account)
            elif self._token:
                storage.set_auth_token(self._token)
            elif self._auth is not None:
                storage.use_auth(self._auth)
            app_check = self._app_check(remote.bucket, self.emulator_address) if self._app_check else None
            if app_check is not None:
                storage.use_app_check(app_check)
                app_check.close()  # the storage keeps it
            if self._chunk_size:
                storage.upload_chunk_size = self._chunk_size
            if self._retry_time is not None:
                storage.max_upload_retry_time = self._retry_time
                storage.max_download_retry_time = self._retry_time
                storage.max_operation_retry_time = self._retry_time
        return storage.reference(remote.path)

    def fail(self, what: object, error: BaseException) -> None:
        """Reports a failure on stderr, naming ``what`` failed, and counts it."""
        self.failures += 1
        if isinstance(error, OSError) and error.strerror:
            reason = error.strerror
        else:
            reason = str(error)
        print(f"fbstorage: {what}: {reason}", file=sys.stderr, flush=True)

    async def each(self, items: Iterable[T], action: Callable[[T], Awaitable[object]],
                   jobs: int | None = None) -> None:
        """Runs ``action`` on every item, ``jobs`` (default: the command line's) at a time;
        a failing item is reported by its ``str`` and the others go on."""

        async def reported(item: T) -> None:
            try:
                await action(item)
            except (StorageError, OSError) as error:
                self.fail(item, error)
            else:
                self.successes += 1

        await self.gather_limited((reported(item) for item in items), jobs)

    async def gather_limited(self, coroutines: Iterable[Awaitable[T]],
                             jobs: int | None = None) -> list[T]:
        """The results of ``coroutines`` in order, ``jobs`` (default: the command line's)
        running at a time; raises the first failure."""
        running = asyncio.Semaphore(jobs or self.jobs)

        async def one(coroutine: Awaitable[T]) -> T:
            async with running:
                return await coroutine

        return await asyncio.gather(*(one(coroutine) for coroutine in coroutines))


def host_and_port(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"--emulator wants HOST:PORT, not {text!r}")
    return host.strip("[]"), int(port)


async def walk(reference: aio.StorageReference) -> list[aio.StorageReference]:
    """Every object below ``reference``, at any depth, in listing order."""
    listing = await reference.list_all()
    below = await asyncio.gather(*(walk(prefix) for prefix in listing.prefixes))
    return listing.items + [item for items in below for item in items]
