"""StorageReference for asyncio: the sync reference's navigation, its operations as coroutines."""

from __future__ import annotations

import asyncio
import ctypes
import dataclasses

from typing import TYPE_CHECKING, Any, AsyncIterator

from .. import reference as sync_reference
from .._allocator import BytesAllocator
from .._conversion import (
    C_INT,
    LocalPath,
    check_integer,
    decode,
    encode_local_path,
    encode_optional_text,
    encode_text,
)
from ..list_result import StorageListResult
from ..metadata import StorageMetadata, native_metadata
from ..streams import range_arguments
from . import _completion
from .task import DownloadTask, UploadTask

if TYPE_CHECKING:
    from .storage import Storage

#: int64 max: "no limit" for get_data().
_UNLIMITED_SIZE = 2**63 - 1


def _frozen(data: Any) -> bytes:
    """``data`` as bytes: an upload may start after the caller changed a mutable buffer."""
    if isinstance(data, bytes):
        return data
    try:
        return memoryview(data).tobytes()
    except TypeError:
        raise TypeError(f"data must be a bytes-like object, not {type(data).__name__}") from None


class StorageReference:
    """A reference to an object (or a folder, or the bucket's root), for asyncio code.

    Navigation and plain values are those of :class:`fbstorage.StorageReference` (``child``,
    ``parent``, ``root``, ``name``, ``full_path``, ``bucket``, ``str(ref)``, equality).
    Uploads and downloads return tasks at once (``await`` them for the metadata); every other
    operation is a coroutine. Cancelling a coroutine stops waiting for its operation, which
    runs to its end in the library (it cannot be interrupted).
    """

    def __init__(self, storage: Storage, reference: sync_reference.StorageReference) -> None:
        """Wraps a sync reference (internal: use Storage.reference())."""
        self._storage = storage
        self._reference = reference

    @property
    def sync(self) -> sync_reference.StorageReference:
        """The underlying :class:`fbstorage.StorageReference`."""
        return self._reference

    # -- navigation --------------------------------------------------------------------------
    @property
    def storage(self) -> Storage:
        """The storage this reference belongs to."""
        return self._storage

    @property
    def bucket(self) -> str:
        """The bucket name, without "gs://"."""
        return self._reference.bucket

    @property
    def full_path(self) -> str:
        """The normalised object path ("" at the root)."""
        return self._reference.full_path

    @property
    def name(self) -> str:
        """The last component of the path ("" at the root)."""
        return self._reference.name

    def child(self, path: str) -> StorageReference:
        """The reference to ``path`` below this one."""
        return StorageReference(self._storage, self._reference.child(path))

    @property
    def parent(self) -> StorageReference | None:
        """The reference one level up, or None at the root."""
        parent = self._reference.parent
        return None if parent is None else StorageReference(self._storage, parent)

    @property
    def root(self) -> StorageReference:
        """The root of this reference's bucket."""
        return StorageReference(self._storage, self._reference.root)

    def __str__(self) -> str:
        return str(self._reference)

    def __repr__(self) -> str:
        return f"<fbstorage.aio.StorageReference {self}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StorageReference):
            return NotImplemented
        return self._reference == other._reference

    def __hash__(self) -> int:
        return hash(self._reference)

    # -- uploads and downloads as tasks ------------------------------------------------------
    def put_data(self, data: Any, metadata: StorageMetadata | None = None) -> UploadTask:
        """Uploads a copy of ``data`` (any bytes-like object, copied at the call) here."""
        frozen = _frozen(data)
        return UploadTask(lambda: self._reference.put_data(frozen, metadata), self)

    def put_file(self, path: LocalPath, metadata: StorageMetadata | None = None) -> UploadTask:
        """Uploads the regular file at ``path``, streamed from disk."""
        encode_local_path(path)  # a wrong type fails now, not at the start
        return UploadTask(lambda: self._reference.put_file(path, metadata), self)

    def put_file_resuming(
        self, path: LocalPath, session: str, metadata: StorageMetadata | None = None
    ) -> UploadTask:
        """Continues an upload of the file at ``path`` from its ``UploadTask.upload_session``."""
        encode_local_path(path)
        encode_text(session, "session")
        return UploadTask(
            lambda: self._reference.put_file_resuming(path, session, metadata), self
        )

    def write_to_file(self, path: LocalPath) -> DownloadTask:
        """Downloads the object to ``path`` (replaced only on success)."""
        encode_local_path(path)
        return DownloadTask(lambda: self._reference.write_to_file(path), self)

    def put_fd(self, fd: int, metadata: StorageMetadata | None = None) -> UploadTask:
        """Uploads what the open file descriptor ``fd`` holds up to its end (see the sync form)."""
        check_integer(fd, "fd", C_INT)
        return UploadTask(lambda: self._reference.put_fd(fd, metadata), self)

    def write_to_fd(self, fd: int) -> DownloadTask:
        """Downloads the object to the open file descriptor ``fd`` (see the sync form)."""
        check_integer(fd, "fd", C_INT)
        return DownloadTask(lambda: self._reference.write_to_fd(fd), self)

    async def iter_bytes(self, chunk_size: int = 1 << 20, *, start: int | None = None,
                         end: int | None = None) -> AsyncIterator[bytes]:
        """``async for block in ref.iter_bytes(...)``: the sync form's blocks, each awaited on a
        worker thread, so the event loop never waits for the network."""
        blocks = self._reference.iter_bytes(chunk_size, start=start, end=end)
        loop = asyncio.get_running_loop()
        try:
            while True:
                block = await loop.run_in_executor(None, next, blocks, None)
                if block is None:
                    return
                yield block
        finally:
            await loop.run_in_executor(None, blocks.close)

    # -- operations --------------------------------------------------------------------------
    async def get_metadata(self) -> StorageMetadata:
        """The object's metadata."""
        return await _completion.start(
            "fbs_reference_get_metadata_async",
            self._reference._handle,
            convert=StorageMetadata._from_native,
        )

    async def update_metadata(self, **fields: Any) -> StorageMetadata:
        """Changes the writable metadata fields given as keywords; returns the new metadata
        (see :meth:`fbstorage.StorageReference.update_metadata`)."""
        with native_metadata(StorageMetadata.changes(**fields)) as changes:
            updated = _completion.start(
                "fbs_reference_update_metadata_async",
                self._reference._handle,
                changes,
                convert=StorageMetadata._from_native,
            )
        return await updated

    async def delete(self) -> None:
        """Deletes the object."""
        await _completion.start("fbs_reference_delete_async", self._reference._handle)

    async def download_url(self) -> str:
        """A URL that downloads the object with its first download token."""
        url: str = await _completion.start(
            "fbs_reference_download_url_async",
            self._reference._handle,
            convert=lambda value: decode(value) or "",
        )
        return url

    async def get_data(self, max_size: int | None = None, *, start: int | None = None,
                       end: int | None = None) -> bytes:
        """Downloads the object, or bytes ``start``..``end`` of it (as the sync form), into
        memory; StorageError DOWNLOAD_SIZE_EXCEEDED, before downloading, when it is larger than
        ``max_size`` bytes (None: no limit), RANGE_NOT_SATISFIABLE past the end."""
        limit = _UNLIMITED_SIZE if max_size is None else check_integer(max_size, "max_size")
        if start is None and end is None:
            allocator = BytesAllocator()   # alive until the completion: `convert` holds it
            data: bytes = await _completion.start(
                "fbs_reference_get_data_into_async", self._reference._handle, limit, ctypes.byref(allocator.native),
                convert=allocator.take)
            return data
        return await _completion.start(
            "fbs_reference_get_range_async",
            self._reference._handle,
            *range_arguments(start, end),
            limit,
            convert=_completion.copy_bytes,
        )

    async def list(
        self, max_results: int | None = None, page_token: str | None = None
    ) -> StorageListResult:
        """One page of the objects and folders directly below this reference (max_results
        1..1000, or None to let the server choose)."""
        count = 0 if max_results is None else check_integer(max_results, "max_results")
        return await _completion.start(
            "fbs_reference_list_async",
            self._reference._handle,
            count,
            encode_optional_text(page_token, "page_token"),
            convert=self._list_result,
        )

    async def list_all(self) -> StorageListResult:
        """Every object and folder directly below this reference, all pages fetched."""
        return await _completion.start(
            "fbs_reference_list_all_async", self._reference._handle, convert=self._list_result
        )

    async def list_with_metadata(
        self, max_results: int | None = None, page_token: str | None = None
    ) -> StorageListResult:
        """As :meth:`list`, with each item's metadata (the GCS JSON API; admin access)."""
        count = 0 if max_results is None else check_integer(max_results, "max_results")
        return await _completion.start(
            "fbs_reference_list_with_metadata_async",
            self._reference._handle,
            count,
            encode_optional_text(page_token, "page_token"),
            convert=lambda handle: self._list_result(handle, with_metadata=True),
        )

    async def copy_to(self, destination: StorageReference) -> StorageMetadata:
        """Copies the object to ``destination`` on the server (admin access); its metadata."""
        return await _completion.start(
            "fbs_reference_copy_to_async",
            self._reference._handle,
            destination.sync._handle,
            convert=StorageMetadata._from_native,
        )

    async def move_to(self, destination: StorageReference) -> StorageMetadata:
        """:meth:`copy_to`, then deletes this object."""
        metadata = await self.copy_to(destination)
        await self.delete()
        return metadata

    async def download_tokens(self) -> list[str]:
        """The object's download tokens (a metadata read)."""
        return await _completion.start(
            "fbs_reference_get_metadata_async", self._reference._handle, convert=sync_reference.download_tokens_of
        )

    async def create_download_token(self) -> str:
        """Adds a download token and returns it (admin access)."""
        token: str = await _completion.start(
            "fbs_reference_create_download_token_async",
            self._reference._handle,
            convert=lambda value: decode(value) or "",
        )
        return token

    async def revoke_download_token(self, token: str) -> None:
        """Removes ``token``: its URLs stop working (admin access)."""
        await _completion.start(
            "fbs_reference_revoke_download_token_async",
            self._reference._handle,
            encode_text(token, "token"),
            convert=lambda handle: None,
        )

    def download_url_for_token(self, token: str) -> str:
        """The download URL that ``token`` opens (no request)."""
        return self._reference.download_url_for_token(token)

    def _list_result(self, handle: Any, with_metadata: bool = False) -> StorageListResult:
        """A borrowed ``fbs_list_result`` as a StorageListResult of references like this one."""
        page = sync_reference.listed_page(self._reference, handle, with_metadata)

        def wrapped(references: list[sync_reference.StorageReference]) -> list[StorageReference]:
            return [StorageReference(self._storage, reference) for reference in references]

        return dataclasses.replace(page, items=wrapped(page.items), prefixes=wrapped(page.prefixes))
