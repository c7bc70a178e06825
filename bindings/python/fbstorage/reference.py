"""StorageReference: a bucket and an object path, and every operation on that object."""

from __future__ import annotations

import ctypes
import io
import threading
from typing import TYPE_CHECKING, Any, Iterator

from ._conversion import (
    C_INT,
    LocalPath,
    byte_buffer,
    check_integer,
    decode,
    encode_local_path,
    encode_optional_text,
    encode_text,
)
from ._allocator import BytesAllocator
from ._handle import OwnedHandle
from ._native import (
    ListResultHandle,
    MetadataHandle,
    ReferenceHandle,
    TaskHandle,
    call_for_out,
    library,
    take_string,
)
from .errors import StorageError, StorageErrorCode
from .list_result import StorageListResult
from .metadata import StorageMetadata, native_metadata
from .streams import DEFAULT_READAHEAD, BufferedObjectWriter, ObjectReader, ObjectWriter, iter_bytes, range_arguments
from .task import DownloadTask, UploadTask

if TYPE_CHECKING:
    from .storage import Storage

#: int64 max: "no limit" for get_data().
_UNLIMITED_SIZE = 2**63 - 1

#: Serialises making the handles of listed references (reentrant: a listing's origin may be
#: a listed reference itself).
_making_handles = threading.RLock()


class StorageReference(OwnedHandle):
    """A reference to an object (or a folder, or the bucket's root) in a bucket.

    Obtain one from :meth:`Storage.reference`, :meth:`Storage.reference_for_url`, or from
    another reference (:meth:`child`, :attr:`parent`, :attr:`root`). ``str(ref)`` is
    ``"gs://bucket/path"``; references compare equal and hash by bucket and path.
    """

    #: The reference a listed reference was listed from, until its own handle is made.
    _listed_from: StorageReference | None = None

    def __init__(self, storage: Storage, handle: Any) -> None:
        """Wraps an owned ``fbs_reference`` handle (internal: use Storage.reference())."""
        super().__init__(handle, "fbs_reference_free")
        self._storage = storage
        lib = library()
        self._bucket = decode(lib.fbs_reference_bucket(handle)) or ""
        self._full_path = decode(lib.fbs_reference_full_path(handle)) or ""
        storage._adopt(self)

    @classmethod
    def _listed(cls, origin: StorageReference, path_lines: bytes | None) -> list[StorageReference]:
        """References to the paths of ``fbs_list_result_*_paths`` (each ended by a newline),
        listed from ``origin``.

        A listing may hold many thousands of references, most never used but for their path:
        each one makes its handle on first use (see :meth:`_make_handle`).
        """
        if path_lines is None:
            raise StorageError.from_last_error(library(), StorageErrorCode.UNKNOWN)
        if not path_lines:
            return []
        new = cls.__new__
        storage, bucket = origin._storage, origin._bucket
        references = []
        for path in path_lines.decode("utf-8")[:-1].split("\n"):
            reference = new(cls)
            reference._storage = storage
            reference._bucket = bucket
            reference._full_path = path
            reference._listed_from = origin
            references.append(reference)
        return references

    @property
    def _handle(self) -> Any:
        if self._listed_from is not None:
            self._make_handle()
        return self._native

    def _make_handle(self) -> None:
        """Makes a listed reference's handle: its path from the root of its origin's bucket.

        Raises StorageError (INVALID_ARGUMENT) once the storage is closed, as every reference
        obtained from it does.
        """
        with _making_handles:
            origin = self._listed_from
            if origin is None:  # made meanwhile by another thread
                return
            lib = library()
            root = call_for_out(lib.fbs_reference_root, origin._handle, out_type=ReferenceHandle)
            try:
                handle = call_for_out(
                    lib.fbs_reference_child,
                    root,
                    encode_text(self._full_path, "path"),
                    out_type=ReferenceHandle,
                )
            finally:
                lib.fbs_reference_free(root)
            self._own(handle, "fbs_reference_free")
            self._listed_from = None
            self._storage._adopt(self)

    def _derived(self, handle: Any) -> StorageReference:
        return StorageReference(self._storage, handle)

    # -- navigation --------------------------------------------------------------------------
    @property
    def storage(self) -> Storage:
        """The storage this reference belongs to."""
        return self._storage

    @property
    def bucket(self) -> str:
        """The bucket name, without "gs://"."""
        return self._bucket

    @property
    def full_path(self) -> str:
        """The normalised object path ("" at the root)."""
        return self._full_path

    @property
    def name(self) -> str:
        """The last component of the path ("" at the root)."""
        # The core's rule, read off the path: asking the library would make a listed
        # reference's handle just to name it.
        return self._full_path.rpartition("/")[2]

    def child(self, path: str) -> StorageReference:
        """The reference to ``path`` below this one ("a/b" goes two levels down)."""
        lib = library()
        return self._derived(
            call_for_out(
                lib.fbs_reference_child,
                self._handle,
                encode_text(path, "path"),
                out_type=ReferenceHandle,
            )
        )

    @property
    def parent(self) -> StorageReference | None:
        """The reference one level up, or None at the root."""
        handle = call_for_out(library().fbs_reference_parent, self._handle, out_type=ReferenceHandle)
        return self._derived(handle) if handle else None

    @property
    def root(self) -> StorageReference:
        """The root of this reference's bucket."""
        return self._derived(
            call_for_out(library().fbs_reference_root, self._handle, out_type=ReferenceHandle)
        )

    def __str__(self) -> str:
        return f"gs://{self._bucket}/{self._full_path}"

    def __repr__(self) -> str:
        return f"<StorageReference {self}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StorageReference):
            return NotImplemented
        return (self._bucket, self._full_path) == (other._bucket, other._full_path)

    def __hash__(self) -> int:
        return hash((self._bucket, self._full_path))

    # -- uploads and downloads as tasks ------------------------------------------------------
    def put_data(self, data: Any, metadata: StorageMetadata | None = None) -> UploadTask:
        """Uploads a copy of ``data`` (any bytes-like object) here; the task starts at once.

        Without a content type in ``metadata``, "application/octet-stream" is sent.
        """
        pointer, length = byte_buffer(data)
        with native_metadata(metadata) as native:
            handle = call_for_out(
                library().fbs_reference_put_data,
                self._handle,
                pointer,
                length,
                native,
                out_type=TaskHandle,
            )
        return UploadTask(handle, self)

    def put_file(self, path: LocalPath, metadata: StorageMetadata | None = None) -> UploadTask:
        """Uploads the regular file at ``path``, streamed from disk.

        The content type, unless ``metadata`` sets one, is inferred from the file's extension.
        """
        local_path = encode_local_path(path)
        with native_metadata(metadata) as native:
            handle = call_for_out(
                library().fbs_reference_put_file,
                self._handle,
                local_path,
                native,
                out_type=TaskHandle,
            )
        return UploadTask(handle, self)

    def put_file_resuming(
        self, path: LocalPath, session: str, metadata: StorageMetadata | None = None
    ) -> UploadTask:
        """Continues an upload of the file at ``path`` from its ``UploadTask.upload_session``.

        The upload goes on from the offset the server reports (possibly in another process).
        Before a byte is sent, the file is proved unchanged: its size and the CRC32C of the
        prefix the session vouches for; a changed file raises StorageError INVALID_ARGUMENT and
        the stored object is untouched. If the server no longer knows the session, or holds
        more than the session vouches for (persist the latest ``upload_session``), the upload
        starts over.
        """
        local_path = encode_local_path(path)
        encoded_session = encode_text(session, "session")
        with native_metadata(metadata) as native:
            handle = call_for_out(
                library().fbs_reference_put_file_resuming,
                self._handle,
                local_path,
                encoded_session,
                native,
                out_type=TaskHandle,
            )
        return UploadTask(handle, self)

    def write_to_file(self, path: LocalPath) -> DownloadTask:
        """Downloads the object to ``path`` as a task with the same events as uploads.

        ``path`` is replaced only when the download succeeds; on failure or cancel it is left
        untouched.
        """
        handle = call_for_out(
            library().fbs_reference_write_to_file,
            self._handle,
            encode_local_path(path),
            out_type=TaskHandle,
        )
        return DownloadTask(handle, self)

    # -- operations --------------------------------------------------------------------------
    def get_metadata(self) -> StorageMetadata:
        """The object's metadata."""
        lib = library()
        handle = call_for_out(lib.fbs_reference_get_metadata, self._handle, out_type=MetadataHandle)
        try:
            return StorageMetadata._from_native(handle)
        finally:
            lib.fbs_metadata_free(handle)

    def update_metadata(self, **fields: Any) -> StorageMetadata:
        """Changes the writable metadata fields given as keywords; returns the new metadata.

        Only the keywords given are sent: ``cache_control, content_disposition,
        content_encoding, content_language, content_type, custom_metadata``. None deletes a
        field. ``custom_metadata`` is merged key by key (a key set to None is deleted);
        ``custom_metadata=None`` deletes every custom key.
        """
        lib = library()
        with native_metadata(StorageMetadata.changes(**fields)) as changes:
            handle = call_for_out(
                lib.fbs_reference_update_metadata,
                self._handle,
                changes,
                out_type=MetadataHandle,
            )
        try:
            return StorageMetadata._from_native(handle)
        finally:
            lib.fbs_metadata_free(handle)

    # -- download tokens (admin access creates and revokes them) ----------------------------
    def download_tokens(self) -> list[str]:
        """The object's download tokens (a metadata read)."""
        lib = library()
        handle = call_for_out(lib.fbs_reference_get_metadata, self._handle, out_type=MetadataHandle)
        try:
            return download_tokens_of(handle)
        finally:
            lib.fbs_metadata_free(handle)

    def create_download_token(self) -> str:
        """Adds a download token and returns it (admin access)."""
        address = call_for_out(library().fbs_reference_create_download_token, self._handle, out_type=ctypes.c_void_p)
        return take_string(address.value) or ""

    def revoke_download_token(self, token: str) -> None:
        """Removes ``token``: its URLs stop working (admin access). The server replaces the last
        token with a new one."""
        library().fbs_reference_revoke_download_token(self._handle, encode_text(token, "token"), None)

    def download_url_for_token(self, token: str) -> str:
        """The download URL that ``token`` opens (no request)."""
        address = call_for_out(library().fbs_reference_download_url_for_token, self._handle,
                               encode_text(token, "token"), out_type=ctypes.c_void_p)
        return take_string(address.value) or ""

    def delete(self) -> None:
        """Deletes the object."""
        library().fbs_reference_delete(self._handle)

    def download_url(self) -> str:
        """A URL that downloads the object with its first download token."""
        lib = library()
        address = call_for_out(lib.fbs_reference_download_url, self._handle, out_type=ctypes.c_void_p)
        return take_string(address.value) or ""

    def get_data(self, max_size: int | None = None, *, start: int | None = None, end: int | None = None) -> bytes:
        """Downloads the object, or bytes ``start`` (inclusive) to ``end`` (exclusive) of it,
        into memory. A negative ``start`` without ``end`` reads that many bytes before the end.

        Raises StorageError DOWNLOAD_SIZE_EXCEEDED, before downloading, when the object (or the
        range) is larger than ``max_size`` bytes (None: no limit), and RANGE_NOT_SATISFIABLE when
        the range reaches past the end of the object (never fewer bytes).
        """
        limit = _UNLIMITED_SIZE if max_size is None else check_integer(max_size, "max_size")
        lib = library()
        address = ctypes.c_void_p()
        length = ctypes.c_size_t()
        if start is None and end is None:
            allocator = BytesAllocator()
            lib.fbs_reference_get_data_into(self._handle, limit, ctypes.byref(allocator.native),
                                            ctypes.byref(address), ctypes.byref(length))
            return allocator.take(address.value, length.value)
        offset, count = range_arguments(start, end)
        lib.fbs_reference_get_range(self._handle, offset, count, limit, ctypes.byref(address), ctypes.byref(length))
        try:
            return ctypes.string_at(address, length.value) if length.value else b""
        finally:
            lib.fbs_data_free(address)

    # -- streams -----------------------------------------------------------------------------
    def open(self, mode: str = "rb", *, metadata: StorageMetadata | None = None,
             buffer_size: int = DEFAULT_READAHEAD) -> io.BufferedReader | BufferedObjectWriter:
        """A binary file object over the object.

        ``"rb"``: seekable and buffered; reads are ranged GETs, fetching ahead while reading on
        (up to 16 MiB at once). The size is read when opening. ``"wb"``: what is written streams
        to the object in constant memory (``put_stream``); ``close()`` finishes the upload and
        raises its error; an exception leaving a ``with`` block aborts it, storing nothing.
        """
        if mode == "rb":
            return io.BufferedReader(ObjectReader(self, readahead=buffer_size), buffer_size=buffer_size)
        if mode == "wb":
            return BufferedObjectWriter(ObjectWriter(self, metadata), buffer_size=max(buffer_size, 256 * 1024))
        raise ValueError(f"mode must be 'rb' or 'wb', not {mode!r}")

    def iter_bytes(self, chunk_size: int = 1 << 20, *, start: int | None = None,
                   end: int | None = None) -> Iterator[bytes]:
        """The object's bytes (or ``start``..``end`` of them, as in :meth:`get_data`) in blocks of
        ``chunk_size`` (the last may be shorter), streamed: a dropped connection continues with
        Range, each byte once; a replaced object raises StorageError OBJECT_CHANGED. Stopping
        early cancels the download."""
        return iter_bytes(self, chunk_size, start, end)

    def put_fd(self, fd: int, metadata: StorageMetadata | None = None) -> UploadTask:
        """Uploads what the open file descriptor ``fd`` (a pipe, stdin, a socket) holds up to its
        end, in constant memory; ``fd`` stays open. Nothing is stored if reading fails."""
        with native_metadata(metadata) as native:
            handle = call_for_out(library().fbs_reference_put_fd, self._handle, check_integer(fd, "fd", C_INT),
                                  native, out_type=TaskHandle)
        return UploadTask(handle, self)

    def write_to_fd(self, fd: int) -> DownloadTask:
        """Downloads the object to the open file descriptor ``fd`` (a pipe, stdout, a socket), which
        stays open; on failure the bytes written so far stay written."""
        handle = call_for_out(library().fbs_reference_write_to_fd, self._handle, check_integer(fd, "fd", C_INT),
                              out_type=TaskHandle)
        return DownloadTask(handle, self)

    def list(self, max_results: int | None = None, page_token: str | None = None) -> StorageListResult:
        """One page of the objects and folders directly below this reference.

        ``max_results`` is 1..1000, or None to let the server choose; pass the previous
        page's ``page_token`` for the next page.
        """
        count = 0 if max_results is None else check_integer(max_results, "max_results")
        if max_results is not None and count == 0:
            # The C API takes 0 for "the server's default", which Python spells None.
            raise StorageError(StorageErrorCode.INVALID_ARGUMENT,
                               "max_results must be 1..1000, or None for the server's default; not 0")
        token = encode_optional_text(page_token, "page_token")
        lib = library()
        return self._list_result(
            call_for_out(lib.fbs_reference_list, self._handle, count, token, out_type=ListResultHandle)
        )

    def list_all(self) -> StorageListResult:
        """Every object and folder directly below this reference, all pages fetched."""
        return self._list_result(
            call_for_out(library().fbs_reference_list_all, self._handle, out_type=ListResultHandle)
        )

    def list_with_metadata(self, max_results: int | None = None, page_token: str | None = None) -> StorageListResult:
        """As :meth:`list`, through the GCS JSON API (admin access): ``item_metadata`` holds
        each item's metadata, one request per page."""
        count = 0 if max_results is None else check_integer(max_results, "max_results")
        handle = call_for_out(library().fbs_reference_list_with_metadata, self._handle, count,
                              encode_optional_text(page_token, "page_token"), out_type=ListResultHandle)
        return self._list_result(handle, with_metadata=True)

    def _list_result(self, handle: Any, with_metadata: bool = False) -> StorageListResult:
        """Copies an owned ``fbs_list_result`` into a StorageListResult and releases it."""
        lib = library()
        try:
            return listed_page(self, handle, with_metadata)
        finally:
            lib.fbs_list_result_free(handle)

    def copy_to(self, destination: StorageReference) -> StorageMetadata:
        """Copies the object to ``destination`` on the server (GCS rewrite, admin access): no
        object bytes pass through this process. Returns the new object's metadata."""
        lib = library()
        if not isinstance(destination, StorageReference):
            raise TypeError(f"destination must be a StorageReference, not {type(destination).__name__}")
        handle = call_for_out(lib.fbs_reference_copy_to, self._handle, destination._handle, out_type=MetadataHandle)
        try:
            return StorageMetadata._from_native(handle)
        finally:
            lib.fbs_metadata_free(handle)

    def move_to(self, destination: StorageReference) -> StorageMetadata:
        """:meth:`copy_to`, then deletes this object."""
        metadata = self.copy_to(destination)
        self.delete()
        return metadata


def listed_page(origin: StorageReference, handle: Any, with_metadata: bool) -> StorageListResult:
    """A borrowed ``fbs_list_result`` as a StorageListResult of references listed from ``origin``."""
    lib = library()
    items = StorageReference._listed(origin, lib.fbs_list_result_item_paths(handle))
    metadata = [StorageMetadata._from_native(lib.fbs_list_result_item_metadata(handle, index))
                for index in range(len(items))] if with_metadata else None
    return StorageListResult(items, StorageReference._listed(origin, lib.fbs_list_result_prefix_paths(handle)),
                             decode(lib.fbs_list_result_page_token(handle)), metadata)


def download_tokens_of(handle: Any) -> list[str]:
    """The download tokens of a borrowed ``fbs_metadata``."""
    lib = library()
    return [decode(lib.fbs_metadata_download_token_at(handle, index)) or ""
            for index in range(lib.fbs_metadata_download_token_count(handle))]
