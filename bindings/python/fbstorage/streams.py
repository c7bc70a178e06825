"""Byte ranges and streams: ``ref.open("rb")``, ``ref.open("wb")``, ``ref.iter_bytes()``.

* :class:`ObjectReader` is a seekable raw reader: each read that misses its cache is one ranged
  GET (``fbs_reference_get_range``). Sequential reads fetch ahead, doubling up to
  ``max_readahead``; a seek starts over small. ``open("rb")`` wraps it in
  :class:`io.BufferedReader`.
* :class:`ObjectWriter` streams what is written through ``fbs_reference_put_stream``: the
  library's read callback takes the written blocks from a bounded queue, so memory stays flat
  whatever the size. Closing finishes the upload (and raises its error); leaving a ``with``
  block by an exception aborts it and stores nothing.
* :func:`iter_bytes` streams a download through ``fbs_reference_stream``: the sink callback
  hands blocks to a bounded queue that the iterator drains, so a slow consumer slows the
  download instead of filling memory.

The library calls the sink and the read callback on the storage's transfer thread, so they
never wait: an empty write queue answers FBS_SOURCE_NOT_READY (the writer resumes the upload
with its next block), and a full download queue pauses the download (the iterator resumes it
once drained; it continues with Range).
"""

from __future__ import annotations

import collections
import ctypes
import io
import os
import queue
import threading
from typing import TYPE_CHECKING, Any, Iterator

from ._native import SINK_CALLBACK, SOURCE_CALLBACK, TaskHandle, call_for_out, library
from .errors import StorageError, StorageErrorCode
from .metadata import StorageMetadata, native_metadata
from .task import DownloadTask, TaskStatus, UploadTask

if TYPE_CHECKING:
    from .reference import StorageReference

#: The first ranged GET after open or a seek; sequential reads double it.
DEFAULT_READAHEAD = 256 * 1024
#: The most a sequential read fetches at once.
DEFAULT_MAX_READAHEAD = 16 * 1024 * 1024
#: Blocks waiting between the library and Python, each way.
_QUEUE_BLOCKS = 4
_END = object()
#: ``FBS_SOURCE_NOT_READY`` (fbstorage/stream.h).
_SOURCE_NOT_READY = -1
_CANCELLED = int(StorageErrorCode.CANCELLED)


def range_arguments(start: int | None, end: int | None) -> tuple[int, int]:
    """``get_data(start=, end=)`` as the C API's (offset, length): ``start`` may be negative
    (that many bytes before the end, with ``end`` None); ``end`` is exclusive."""
    for name, value in (("start", start), ("end", end)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise TypeError(f"{name} must be an int or None, not {type(value).__name__}")
    start = 0 if start is None else start
    if end is None:
        return start, -1
    if start < 0 or end < start:
        raise StorageError(StorageErrorCode.INVALID_ARGUMENT,
                           f"A range needs 0 <= start <= end (start={start}, end={end}); a negative start "
                           "reads the last bytes, without end")
    return start, end - start


class ObjectReader(io.RawIOBase):
    """A seekable, readable raw file over one object; see the module docstring."""

    def __init__(self, reference: StorageReference, readahead: int = DEFAULT_READAHEAD,
                 max_readahead: int = DEFAULT_MAX_READAHEAD) -> None:
        super().__init__()
        self._reference = reference
        metadata = reference.get_metadata()
        #: The object's size when it was opened.
        self.size: int = metadata.size
        self.name = str(reference)
        self._position = 0
        self._first_readahead = max(1, readahead)
        self._max_readahead = max(self._first_readahead, max_readahead)
        self._readahead = self._first_readahead
        self._cache_offset = 0
        self._cache = b""
        #: Bytes this reader fetched from the server.
        self.bytes_fetched = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        self._checkClosed()
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        self._checkClosed()
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self.size}.get(whence)
        if base is None:
            raise ValueError(f"invalid whence ({whence})")
        if base + offset < 0:
            raise OSError(22, f"negative seek position {base + offset}")
        self._position = base + offset
        return self._position

    def readinto(self, buffer: Any) -> int:
        self._checkClosed()
        target = memoryview(buffer).cast("B")
        wanted = min(len(target), max(0, self.size - self._position))
        if wanted == 0:
            return 0
        cached = self._position - self._cache_offset
        if not 0 <= cached < len(self._cache):
            self._fetch(wanted)
            cached = 0
        count = min(wanted, len(self._cache) - cached)
        target[:count] = self._cache[cached:cached + count]
        self._position += count
        return count

    def _fetch(self, wanted: int) -> None:
        """One ranged GET at the position: at least ``wanted`` bytes, more when reading on."""
        sequential = self._position == self._cache_offset + len(self._cache) and self._cache
        self._readahead = min(self._readahead * 2, self._max_readahead) if sequential else self._first_readahead
        count = min(max(wanted, self._readahead), self.size - self._position)
        self._cache = self._reference.get_data(start=self._position, end=self._position + count)
        self._cache_offset = self._position
        self.bytes_fetched += len(self._cache)

    def close(self) -> None:
        self._cache = b""
        super().close()


class ObjectWriter(io.RawIOBase):
    """A writable raw file whose bytes stream to the object; see the module docstring."""

    def __init__(self, reference: StorageReference, metadata: StorageMetadata | None = None) -> None:
        super().__init__()
        self._reference = reference
        self.name = str(reference)
        self._blocks: queue.Queue[Any] = queue.Queue(_QUEUE_BLOCKS)
        self._pending = memoryview(b"")
        self._aborted = False
        self._pid = os.getpid()  # a forked child's copy never finishes (or waits for) the upload
        self._lock = threading.Lock()
        self._waiting = False  # the read callback answered NOT_READY and nothing resumed it
        self._source = SOURCE_CALLBACK(self._read)
        with native_metadata(metadata) as native:
            handle = call_for_out(library().fbs_reference_put_stream, reference._handle, self._source, None, native,
                                  out_type=TaskHandle)
        self.task = UploadTask(handle, reference)
        self.task._source = self._source  # kept alive with the task
        #: The stored object's metadata, once closed.
        self.metadata: StorageMetadata | None = None

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._checkClosed()
        block = bytes(data)
        if block:
            self._put(block)
        return len(block)

    def _put(self, item: Any) -> None:
        """Queues a block, unless the upload already ended (its error is raised at close), and
        wakes the upload if it waits for bytes."""
        while True:
            try:
                self._blocks.put(item, timeout=0.2)
                break
            except queue.Full:
                if self.task.snapshot.status in (TaskStatus.SUCCESS, TaskStatus.FAILURE):
                    return
        with self._lock:
            waiting, self._waiting = self._waiting, False
        if waiting:
            self.task.resume()

    def _read(self, buffer: int | None, capacity: int, _user_data: Any) -> int:
        """The library's read callback (transfer thread): the next written bytes, never waiting."""
        try:
            if not self._pending:
                with self._lock:
                    try:
                        item = self._blocks.get_nowait()
                    except queue.Empty:
                        self._waiting = True
                        return _SOURCE_NOT_READY
                if item is _END:
                    return _CANCELLED if self._aborted else 0
                self._pending = memoryview(item)
            count = min(capacity, len(self._pending))
            ctypes.memmove(buffer, bytes(self._pending[:count]), count)
            self._pending = self._pending[count:]
            return count
        except BaseException:
            return int(StorageErrorCode.UNKNOWN)

    def abort(self) -> None:
        """Ends the upload without storing anything."""
        if self.closed or os.getpid() != self._pid:
            super().close()
            return
        self._aborted = True
        self._put(_END)
        try:
            self.task.wait()
        except StorageError:
            pass
        super().close()

    def close(self) -> None:
        """Finishes the upload; raises StorageError if it failed."""
        if self.closed or os.getpid() != self._pid:
            super().close()
            return
        self._put(_END)
        try:
            self.metadata = self.task.wait()
        finally:
            super().close()

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> None:
        if kind is not None:
            self.abort()
        else:
            self.close()


class BufferedObjectWriter(io.BufferedWriter):
    """``open("wb")``: a buffered :class:`ObjectWriter`; leaving a ``with`` block by an
    exception aborts the upload (nothing is stored)."""

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> None:
        if kind is not None:
            raw: ObjectWriter = self.raw
            raw.abort()
        else:
            self.close()

    @property
    def metadata(self) -> StorageMetadata | None:
        """The stored object's metadata, once closed."""
        return self.raw.metadata


def iter_bytes(reference: StorageReference, chunk_size: int, start: int | None = None,
               end: int | None = None) -> Iterator[bytes]:
    """The object's bytes (or ``start``..``end`` of them) in blocks of ``chunk_size`` (the
    last may be shorter); raises the download's StorageError at its end."""
    if not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int, not {chunk_size!r}")
    offset, length = range_arguments(start, end)
    stream = _DownloadStream(chunk_size)
    callback = SINK_CALLBACK(stream.sink)
    handle = call_for_out(library().fbs_reference_stream, reference._handle, offset, length, callback, None,
                          out_type=TaskHandle)
    task = DownloadTask(handle, reference)
    task._sink = callback  # kept alive with the task
    stream.task = task
    task.observe(TaskStatus.SUCCESS, stream.end)
    task.observe(TaskStatus.FAILURE, stream.end)
    return stream.drain()


class _DownloadStream:
    """A download's blocks on their way from the sink (transfer thread) to the iterator. Nothing
    here ever waits but the iterator: the sink and the end observer only append and notify, so
    an iterator dropped without being closed (its generator finalized anywhere, even in a forked
    child) cannot hang a library thread, nor be hung by one."""

    def __init__(self, chunk_size: int) -> None:
        self.chunk_size = chunk_size
        self.task: DownloadTask | None = None
        self.changed = threading.Condition()
        # Under `changed`:
        self.chunks: collections.deque[bytes] = collections.deque()
        self.gathered = bytearray()  # bytes short of a whole chunk
        self.paused = False  # the sink paused the download: the consumer is behind
        self.ended = False
        self.stopping = False  # the consumer went away

    def sink(self, bytes_pointer: int | None, count: int, _user_data: Any) -> int:
        with self.changed:
            if self.stopping:
                return _CANCELLED
            self.gathered += ctypes.string_at(bytes_pointer, count)
            while len(self.gathered) >= self.chunk_size:
                self.chunks.append(bytes(self.gathered[:self.chunk_size]))
                del self.gathered[:self.chunk_size]
            if len(self.chunks) >= _QUEUE_BLOCKS and self.task is not None and not self.paused:
                self.paused = True
                self.task.pause()  # acts at once on this thread: no further byte arrives
            self.changed.notify_all()
        return 0

    def end(self, snapshot: Any) -> None:
        """SUCCESS or FAILURE observer (callback thread): the last bytes, then the end."""
        with self.changed:
            if snapshot.status == TaskStatus.SUCCESS and self.gathered:
                self.chunks.append(bytes(self.gathered))
                self.gathered = bytearray()
            self.ended = True
            self.changed.notify_all()

    def drain(self) -> Iterator[bytes]:
        assert self.task is not None
        finished = False
        try:
            while True:
                with self.changed:
                    self.changed.wait_for(lambda: self.chunks or self.ended)
                    block = self.chunks.popleft() if self.chunks else None
                    resume = self.paused and len(self.chunks) <= 1 and not self.ended
                    if resume:
                        self.paused = False
                if resume:
                    self.task.resume()  # continues with Range from the next byte
                if block is None:
                    finished = True
                    self.task.wait()  # raises the failure
                    return
                yield block
        finally:
            if not finished:  # the consumer stopped early: end the download, waiting for nothing
                with self.changed:
                    self.stopping = True
                self.task.cancel()
