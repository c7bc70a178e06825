"""Object bytes: streaming them to disk while hashing, and reading them back.

Large pieces are hashed on one worker thread and written on another (hashlib, google-crc32c and
os.write release the GIL), up to PIPELINE_DEPTH pieces behind the event loop. Receiving, MD5 (the
slowest step, ~650 MiB/s) and the disk write thus overlap, and the MD5 thread never waits for
the disk. Each is a single thread, so the pieces of one blob are processed in order.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import hashlib
import os
import uuid
from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Iterator

import google_crc32c

from .metadata import Digest

OFFLOAD_BYTES = 256 * 1024  # smaller writes are cheaper inline than on a worker thread
PIPELINE_DEPTH = 2  # pieces hashed or written while the next one is received
READ_PIECE = 1 << 20
_HASHER = ThreadPoolExecutor(1, thread_name_prefix="fbstorage-hash")
_DISK_WRITER = ThreadPoolExecutor(1, thread_name_prefix="fbstorage-write")


@dataclass
class _Checkpoint:
    size: int
    md5: "hashlib._Hash"
    crc32c: int


class BlobWriter:
    """Appends bytes to a new file, computing size, MD5 and CRC32C as they pass.

    With `keep_in_memory`, up to that many bytes stay in `data` and the file is created only
    when they are exceeded: a small one-shot upload then never touches the disk (creating,
    writing, reading back and deleting a temp file was about a third of its cost), nor is its
    file named. Such a writer is for one-shot uploads only: `mark` and `truncate` need the file.

    `park` closes the file between requests (a resumable session waiting for its next chunk
    holds no descriptor); the next operation that needs it reopens it.
    """

    def __init__(self, directory: str, *, durable: bool, keep_in_memory: int = 0, existing_file: str | None = None):
        self._directory = directory
        self.path: str | None = existing_file  # the file in `directory`, once created
        self.durable = durable
        self.size = 0
        self.data: bytearray | None = bytearray() if keep_in_memory else None
        self._memory_limit = keep_in_memory
        if existing_file is not None:
            self._fd = os.open(existing_file, os.O_RDWR | os.O_CLOEXEC)
        else:
            self._fd = -1 if keep_in_memory else self._create()
        self._parked = False
        self._md5 = hashlib.md5()
        self._crc32c = 0
        self._in_flight: collections.deque[asyncio.Future] = collections.deque()
        self._checkpoint = _Checkpoint(0, self._md5.copy(), 0)

    async def write(self, data: bytes) -> None:
        if self.data is not None:
            if self.size + len(data) <= self._memory_limit:
                self.size += len(data)
                self._hash(data)
                self.data += data
                return
            self._spill()
        self._unpark()
        self.size += len(data)
        if len(data) < OFFLOAD_BYTES and not self._in_flight:
            self._hash(data)
            self._write(data)
            return
        loop = asyncio.get_running_loop()
        self._in_flight.append(asyncio.gather(loop.run_in_executor(_HASHER, self._hash, data),
                                              loop.run_in_executor(_DISK_WRITER, self._write, data)))
        while len(self._in_flight) > PIPELINE_DEPTH:
            await self._in_flight.popleft()

    async def flush(self) -> None:
        """Wait until every accepted byte is hashed and written."""
        while self._in_flight:
            await self._in_flight.popleft()

    async def digests(self) -> tuple[bytes, int]:
        """The MD5 and CRC32C of the bytes accepted so far."""
        await self.flush()
        return self._md5.digest(), self._crc32c

    async def mark(self) -> None:
        """Remember the current size and hashes as the point `truncate` may return to."""
        await self.flush()
        self._checkpoint = _Checkpoint(self.size, self._md5.copy(), self._crc32c)

    async def truncate(self, size: int) -> None:
        """Cut the file back to `size` (not before the last mark) and fix the hashes to match."""
        await self.flush()
        mark = self._checkpoint
        if not mark.size <= size <= self.size:
            raise ValueError(f"cannot truncate to {size}: mark {mark.size}, size {self.size}")
        self._unpark()
        os.ftruncate(self._fd, size)
        os.lseek(self._fd, size, os.SEEK_SET)
        self._md5, self._crc32c, self.size = mark.md5.copy(), mark.crc32c, size
        await asyncio.get_running_loop().run_in_executor(None, self._rehash, mark.size, size)
        await self.mark()

    async def finish(self) -> Digest:
        """Close the file (synced to disk when durable) and return what was hashed."""
        await self.flush()
        self._unpark()
        if self.durable:
            await asyncio.get_running_loop().run_in_executor(None, os.fsync, self._fd)
        self._close()
        return Digest(self.size, base64.b64encode(self._md5.digest()).decode("ascii"), self._crc32c)

    async def park(self, sync: bool = False) -> None:
        """Close the file until an operation needs it again (after the bytes in flight are
        written; with `sync`, synced to disk first)."""
        await self.flush()
        if sync and self._fd >= 0:
            await asyncio.get_running_loop().run_in_executor(None, os.fsync, self._fd)
        self.park_now()

    def move(self, path: str) -> None:
        """Rename the file (a parked writer's) to `path`, in the same file system."""
        assert self._parked and self.path is not None
        os.rename(self.path, path)
        self.path = path

    @classmethod
    def reopen(cls, path: str) -> "BlobWriter":
        """A durable, parked writer that goes on appending to the existing file `path`, its
        hashes recomputed from the bytes there."""
        writer = cls(os.path.dirname(path), durable=True, existing_file=path)
        writer.size = os.fstat(writer._fd).st_size
        writer._rehash(0, writer.size)
        writer._checkpoint = _Checkpoint(writer.size, writer._md5.copy(), writer._crc32c)
        writer.park_now()
        return writer

    def park_now(self) -> None:
        """`park` for a writer with nothing in flight (one just created)."""
        if self._fd >= 0 and self.path is not None:
            self._close()
            self._parked = True

    def _unpark(self) -> None:
        if self._parked:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CLOEXEC)
            os.lseek(self._fd, self.size, os.SEEK_SET)
            self._parked = False

    async def discard(self) -> None:
        try:
            await self.flush()
        except OSError:
            pass
        self._close()
        self._parked = False
        if self.path is None:
            return
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    def _hash(self, data: bytes) -> None:
        self._md5.update(data)
        self._crc32c = google_crc32c.extend(self._crc32c, data)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]

    def _rehash(self, start: int, end: int) -> None:
        for offset in range(start, end, READ_PIECE):
            self._hash(os.pread(self._fd, min(READ_PIECE, end - offset), offset))

    def _create(self) -> int:
        self.path = os.path.join(self._directory, uuid.uuid4().hex)
        return os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)

    def _spill(self) -> None:
        """Move the bytes kept in memory to the file, which takes every later byte."""
        self._fd = self._create()
        self._write(self.data)
        self.data = None

    def _close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class Blob(ABC):
    """Stored bytes of an object, readable by ranges."""

    __slots__ = ()  # a MemoryBlob has no __dict__ (there is one per small object)
    size: int

    @abstractmethod
    def pieces(self, start: int, end: int) -> Iterator[bytes]:
        """Yield the bytes [start, end) in pieces of at most READ_PIECE."""


class MemoryBlob(Blob):
    __slots__ = ("data", "size")

    def __init__(self, data: bytes):
        self.data = data
        self.size = len(data)

    def pieces(self, start: int, end: int) -> Iterator[bytes]:
        view = memoryview(self.data)
        for offset in range(start, end, READ_PIECE):
            yield view[offset:min(offset + READ_PIECE, end)]


class FileBlob(Blob):
    def __init__(self, path: str, size: int):
        self.path = path
        self.size = size

    def pieces(self, start: int, end: int) -> Iterator[bytes]:
        # Opened now, before the caller awaits anything: a concurrent overwrite or delete unlinks
        # the path, but an open file keeps streaming the old bytes.
        return self._read(open(self.path, "rb", buffering=0), start, end)

    @staticmethod
    def _read(file, start: int, end: int) -> Iterator[bytes]:
        with file:
            for offset in range(start, end, READ_PIECE):
                yield os.pread(file.fileno(), min(READ_PIECE, end - offset), offset)
