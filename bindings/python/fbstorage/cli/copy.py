"""cp and mv: local → remote, remote → local and remote → remote, files or whole folders.

Destinations follow cp's rule: a destination written as a folder (a trailing "/", a bucket's
root, an existing local directory, or any destination of several sources) receives each
source under its own name; otherwise the destination is the copy's name.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import sys
import tempfile
from pathlib import Path
from typing import Awaitable, Callable

from .. import aio
from ..errors import StorageError
from ..metadata import StorageMetadata
from ..task import TaskStatus
from .context import CommandContext, walk
from .locations import RemotePath, UsageError, is_remote, names_folder
from .progress import TransferBar, TransferDisplay
from .session_cache import RESUMABLE_FAILURES, SessionRecord


@dataclasses.dataclass(frozen=True)
class MetadataFlags:
    """--content-type and --metadata k=v, applied to every upload."""

    content_type: str | None
    custom: dict[str, str]

    @property
    def changes(self) -> bool:
        return self.content_type is not None or bool(self.custom)

    def applied_to(self, metadata: StorageMetadata | None) -> StorageMetadata | None:
        """``metadata`` (None: none) with the flags set over it."""
        if metadata is None and self.content_type is None and not self.custom:
            return None
        result = metadata if metadata is not None else StorageMetadata()
        if self.content_type is not None:
            result.content_type = self.content_type
        if self.custom:
            result.custom_metadata = {**(result.custom_metadata or {}), **self.custom}
        return result


@dataclasses.dataclass
class Transfer:
    """One file or object to copy: ``run`` moves the bytes, ``remove_source`` is for mv;
    ``label`` names it on its progress bar."""

    label: str
    source: str
    destination: str
    size: int | None
    run: Callable[[TransferBar], Awaitable[None]]
    remove_source: Callable[[], Awaitable[None]]

    def __str__(self) -> str:
        return f"{self.source} -> {self.destination}"


async def copy(ctx: CommandContext, sources: list[str], destination: str, recursive: bool,
               flags: MetadataFlags, move: bool = False) -> None:
    if "-" in sources or destination == "-":
        if move or recursive:
            raise UsageError("'-' (stdin or stdout) cannot be moved or copied recursively")
        return await _copy_stream(ctx, sources, destination, flags)
    planner = _Planner(ctx, destination, recursive, flags, into_folder=len(sources) > 1)
    for source in sources:
        try:
            await planner.add(source)
        except (StorageError, OSError) as error:
            ctx.fail(source, error)
    transfers = planner.transfers
    known_sizes = sum(transfer.size or 0 for transfer in transfers)
    with TransferDisplay(ctx.stderr, len(transfers), known_sizes) as display:

        async def run(transfer: Transfer) -> None:
            bar = display.start(transfer.label, transfer.size)
            await transfer.run(bar)
            display.remove_finished(bar)
            if move:
                await transfer.remove_source()

        await ctx.each(transfers, run)


class _Planner:
    """Turns the command line's sources into transfers."""

    def __init__(self, ctx: CommandContext, destination: str, recursive: bool,
                 flags: MetadataFlags, into_folder: bool) -> None:
        self.ctx = ctx
        self.destination = destination
        self.recursive = recursive
        self.flags = flags
        self.into_folder = into_folder or names_folder(destination) or (
            not is_remote(destination) and os.path.isdir(destination))
        self.transfers: list[Transfer] = []

    def target(self, name: str, relative: str | None = None) -> str:
        """Where source ``name`` (and ``relative`` below it, for folders) goes."""
        base = self.destination
        if self.into_folder:
            base = _joined(base, name)
        return _joined(base, relative) if relative else base.rstrip("/") or base

    async def add(self, source: str) -> None:
        if is_remote(source):
            await self.add_remote(RemotePath.parse(source))
        elif not is_remote(self.destination):
            raise UsageError(f"cp {source} {self.destination}: one side must be a gs:// path")
        elif os.path.isdir(source):
            if not self.recursive:
                raise IsADirectoryError(0, "is a directory (use -r to copy it)")
            root = Path(source)
            name = root.resolve().name
            for path in sorted(p for p in root.rglob("*") if p.is_file()):
                relative = path.relative_to(root).as_posix()
                self.add_upload(str(path), self.target(name, relative), f"{name}/{relative}")
        elif os.path.isfile(source):
            name = os.path.basename(source)
            self.add_upload(source, self.target(name), name)
        else:
            raise FileNotFoundError(2, os.strerror(2))

    async def add_remote(self, source: RemotePath) -> None:
        reference = self.ctx.reference(source)
        # Recursive: every object below the source; otherwise (or if there are none) the
        # source is one object.
        objects = await walk(reference) if self.recursive else []
        if not objects:
            metadata = await reference.get_metadata()
            self.add_from_remote(reference, metadata, self.target(source.name))
            return
        name = source.name or source.bucket
        all_metadata = await self.ctx.gather_limited(item.get_metadata() for item in objects)
        for item, metadata in zip(objects, all_metadata):
            relative = item.full_path[len(source.path):].lstrip("/")
            self.add_from_remote(item, metadata, self.target(name, relative))

    def add_upload(self, local_path: str, destination: str, label: str) -> None:
        remote = RemotePath.parse(destination)
        metadata = self.flags.applied_to(None)

        async def run(bar: TransferBar) -> None:
            await _upload(self.ctx.reference(remote), local_path, metadata, bar)

        async def remove_source() -> None:
            os.remove(local_path)

        size = os.path.getsize(local_path)
        self.transfers.append(Transfer(label, local_path, str(remote), size, run, remove_source))

    def add_from_remote(self, source: aio.StorageReference, metadata: StorageMetadata,
                        destination: str) -> None:
        size = metadata.size or 0
        if is_remote(destination):
            remote = RemotePath.parse(destination)
            if self.ctx.service_account is not None and remote.bucket == source.bucket and not self.flags.changes:
                run = self._copy_on_server(source, remote, size)
                self.transfers.append(Transfer(source.full_path, str(source), str(remote), size, run, source.delete))
                return
            run = self._copy_between_buckets(source, metadata, remote)
            # Downloaded, then uploaded: the bar counts both.
            self.transfers.append(Transfer(source.full_path, str(source), str(remote), 2 * size, run,
                                           source.delete))
        else:
            run = self._download(source, destination)
            self.transfers.append(Transfer(source.full_path, str(source), destination, size, run,
                                           source.delete))

    def _download(self, source: aio.StorageReference, local_path: str
                  ) -> Callable[[TransferBar], Awaitable[None]]:
        async def run(bar: TransferBar) -> None:
            os.makedirs(os.path.dirname(os.path.abspath(local_path)), exist_ok=True)
            await _observed(source.write_to_file(local_path), bar)

        return run

    def _copy_on_server(self, source: aio.StorageReference, destination: RemotePath,
                        size: int) -> Callable[[TransferBar], Awaitable[None]]:
        """Within a bucket, with admin access: the server copies (no bytes through here)."""
        async def run(bar: TransferBar) -> None:
            await source.copy_to(self.ctx.reference(destination))
            bar.move_to(size)

        return run

    def _copy_between_buckets(self, source: aio.StorageReference, metadata: StorageMetadata,
                              destination: RemotePath) -> Callable[[TransferBar], Awaitable[None]]:
        """Remote → remote goes through a temporary file: the API has no server-side copy."""
        upload_metadata = self.flags.applied_to(metadata)

        async def run(bar: TransferBar) -> None:
            with tempfile.TemporaryDirectory(prefix="fbstorage-cp-") as folder:
                local_path = os.path.join(folder, "object")
                await _observed(source.write_to_file(local_path), bar)
                task = self.ctx.reference(destination).put_file(local_path, upload_metadata)
                await _observed(task, bar, offset=metadata.size or 0)

        return run


async def _upload(reference: aio.StorageReference, local_path: str,
                  metadata: StorageMetadata | None, bar: TransferBar) -> None:
    """Uploads ``local_path``, continuing the session a previous run saved; saves this one's
    session as soon as it exists, and forgets it once the upload succeeded or cannot go on."""
    record = SessionRecord(local_path, str(reference))
    session = record.load()
    task: aio.UploadTask | None = None
    if session:
        try:
            task = reference.put_file_resuming(local_path, session, metadata)
        except StorageError:  # a session the library refuses: start over
            record.forget()
    if task is None:
        task = reference.put_file(local_path, metadata)

    def save_session(_: object) -> None:
        nonlocal session
        current = task.upload_session
        if current and current != session:
            record.save(current)
            session = current

    task.observe(TaskStatus.PROGRESS, save_session)
    try:
        await _observed(task, bar)
    except asyncio.CancelledError:
        if task.upload_session is not None:
            await _paused(task)
            save_session(None)  # taken paused: it vouches for every byte the server can have
        raise
    except StorageError as error:
        if error.code not in RESUMABLE_FAILURES:
            record.forget()
        raise
    record.forget()


async def _paused(task: aio.UploadTask) -> None:
    """Pauses ``task`` and waits (5 s at most) for its PAUSE: from then on it reads no more of its
    file. A session string taken before may vouch for fewer bytes than the server ends up with,
    and the next run would have to start over."""
    paused = asyncio.get_running_loop().create_future()
    task.observe(TaskStatus.PAUSE, lambda _: paused.done() or paused.set_result(None))
    task.pause()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(paused, 5)


async def _observed(task: aio.StorageTask, bar: TransferBar, offset: int = 0) -> None:
    """Awaits ``task`` while its progress moves ``bar``.

    Interrupted (Ctrl-C), a download is cancelled and waited for, so that its partial file is
    removed; an upload is left as it is: cancelling it would cancel its session on the
    server, which the next run is to continue (the command then exits without closing the
    storage, see cli.main).
    """
    try:
        async for snapshot in task.progress():
            bar.show(snapshot, offset)
    except asyncio.CancelledError:
        if isinstance(task, aio.DownloadTask):
            task.cancel()
            with contextlib.suppress(StorageError):
                await task
        raise
    await task


async def _copy_stream(ctx: CommandContext, sources: list[str], destination: str, flags: MetadataFlags) -> None:
    """``cp - gs://…`` uploads stdin (of any length, in constant memory); ``cp gs://… -`` writes
    the objects to stdout, one after the other."""
    if sources == ["-"] and is_remote(destination) and not names_folder(destination):
        remote = RemotePath.parse(destination)
        await ctx.each([remote], lambda target: ctx.reference(target).put_fd(sys.stdin.fileno(),
                                                                             flags.applied_to(None)), jobs=1)
    elif destination == "-" and all(is_remote(source) for source in sources):
        sys.stdout.flush()

        async def write(target: RemotePath) -> None:
            await ctx.reference(target).write_to_fd(sys.stdout.fileno())

        await ctx.each([RemotePath.parse(source) for source in sources], write, jobs=1)
    else:
        raise UsageError("'-' is stdin as the only source of an upload to one gs:// object, or stdout "
                         "as the destination of gs:// objects")


def _joined(base: str, relative: str) -> str:
    return f"{base.rstrip('/')}/{relative}" if base.rstrip("/") else f"{base}{relative}"
