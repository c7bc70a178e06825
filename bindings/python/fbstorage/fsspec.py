"""An fsspec filesystem for Cloud Storage for Firebase: ``firebase://<bucket>/<path>``.

With it, pandas, pyarrow, Dask and every other fsspec user read and write Firebase Storage::

    import pandas as pd
    frame = pd.read_csv("firebase://my-app.appspot.com/tables/x.csv")

It is registered under the protocol ``firebase`` through fsspec's entry point (installed
with the wheel), and built on the library: every request is one of the library's operations
or tasks (uploads stream from disk through its resumable protocol and are verified with
CRC32C; downloads stream to disk). Storage options:

``emulator_host``
    ``"host:port"`` of an emulator; by default ``FIREBASE_STORAGE_EMULATOR_HOST`` when set.
``token``, ``token_provider``, ``app_check_token``
    A Firebase Auth ID token, or a provider ``fn(force_refresh) -> str | None``, and an App
    Check token (see :class:`fbstorage.Storage`).
``service_account``
    The path of a service-account JSON key: admin access (rules bypassed); ``ls``/``info``
    then read each listing page's metadata in one request, and ``copy``/``mv`` within a bucket
    copy on the server.
``ca_file``
    A PEM bundle of CA certificates instead of libcurl's default (see docs/python.md).
``max_concurrency``
    How many transfers, metadata requests or deletions run side by side (16).
``max_in_memory_download``
    Appending (``"ab"``) copies the existing object: up to this size (16 MiB) through memory,
    larger ones through a temporary file.

Reads fetch only the bytes asked for: ``cat_file(path, start, end)``, ``cat_ranges`` (the
ranges in parallel) and open files (fsspec's block cache over ranged reads) are byte-range
requests, so pandas, pyarrow and Dask read a Parquet footer or one column without downloading
the object.

Prefixes are directories: they exist while an object lies below them, so ``mkdir`` creates
nothing and empty directories do not exist.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import mimetypes
import os
import tempfile
import threading
import weakref
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, Iterator, TypeVar

from fsspec.callbacks import DEFAULT_CALLBACK, NoOpCallback
from fsspec.spec import AbstractBufferedFile, AbstractFileSystem
from fsspec.utils import isfilelike

from .admin import ServiceAccount
from .errors import StorageError, StorageErrorCode
from .metadata import WRITABLE_FIELDS, StorageMetadata
from .reference import StorageReference
from .storage import Storage
from .task import StorageTask, TaskStatus

__all__ = ["FirebaseStorageFile", "FirebaseStorageFileSystem"]

PROTOCOL = "firebase"
_DEFAULT_MAX_IN_MEMORY_DOWNLOAD = 16 * 1024 * 1024
_DEFAULT_MAX_CONCURRENCY = 16
_APPEND_COPY_PIECE = 8 * 1024 * 1024  # existing bytes copied into an append's upload at a time
_FIRST_READAHEAD = 256 * 1024  # an open file's second sequential read fetches this far ahead,
_MAX_READAHEAD = 16 * 1024 * 1024  # doubling with each further one up to this

_Item = TypeVar("_Item")
_Result = TypeVar("_Result")


@contextlib.contextmanager
def _as_os_errors(path: str) -> Iterator[None]:
    """Raises the OSError fsspec users expect for a missing object or a refused request."""
    try:
        yield
    except StorageError as error:
        if error.code == StorageErrorCode.OBJECT_NOT_FOUND:
            raise FileNotFoundError(errno.ENOENT, error.message, path) from error
        if error.code in (StorageErrorCode.UNAUTHENTICATED, StorageErrorCode.UNAUTHORIZED):
            raise PermissionError(errno.EACCES, error.message, path) from error
        raise


def _parse_emulator_host(value: str) -> tuple[str, int]:
    """``"host:port"`` or ``"[v6]:port"`` -> (host, port); ValueError when it is neither."""
    host, separator, port = value.rpartition(":")
    if not separator or not host or not port.isdigit():
        raise ValueError(f"emulator_host must be 'host:port', not {value!r}")
    return host.strip("[]"), int(port)


# -- one process's library objects ------------------------------------------------------------
class _ProcessObjects:
    """A filesystem's library storages (one per bucket) and worker threads, in one process."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.storages: dict[str, Storage] = {}
        self.pool: ThreadPoolExecutor | None = None

    def forget(self) -> None:
        """In a child process after fork(): starts afresh, keeping the parent's objects alive
        for good (freeing a storage waits for its threads, which exist only in the parent)."""
        _inherited_from_parent.append((self.storages, self.pool))
        self.__init__()  # type: ignore[misc]


_inherited_from_parent: list[Any] = []
_all_process_objects: weakref.WeakSet[_ProcessObjects] = weakref.WeakSet()

if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=lambda: [objects.forget() for objects in list(_all_process_objects)])


# -- parallel transfers ------------------------------------------------------------------------
class _TransferBatch:
    """Tasks that put()/get() start through put_file()/get_file(): they run side by side on
    the library's transfer thread, at most ``limit`` at once, and are waited for together."""

    def __init__(self, limit: int, finish: Callable[[StorageTask, str], None]) -> None:
        self._limit = limit
        self._finish = finish
        self._running: deque[tuple[StorageTask, str]] = deque()

    def add(self, task: StorageTask, path: str) -> None:
        self._running.append((task, path))
        if len(self._running) >= self._limit:
            self._finish(*self._running.popleft())

    def finish(self) -> None:
        """Waits for every task; on the first failure cancels the others, then raises it."""
        try:
            while self._running:
                self._finish(*self._running.popleft())
        except BaseException:
            self.cancel()
            raise

    def cancel(self) -> None:
        """Cancels the tasks still running and waits until they ended."""
        for task, _ in self._running:
            with contextlib.suppress(StorageError):  # it may have ended meanwhile
                task.cancel()
        for task, _ in self._running:
            with contextlib.suppress(StorageError):
                task.wait()
        self._running.clear()


class FirebaseStorageFileSystem(AbstractFileSystem):
    """Cloud Storage for Firebase as an fsspec filesystem: paths are ``<bucket>/<object path>``.

    See the module's documentation for the storage options.
    """

    protocol = PROTOCOL
    root_marker = ""

    def __init__(
        self,
        emulator_host: str | None = None,
        token: str | None = None,
        token_provider: Callable[[bool], str | None] | None = None,
        app_check_token: str | None = None,
        ca_file: str | None = None,
        service_account: str | None = None,
        max_concurrency: int = _DEFAULT_MAX_CONCURRENCY,
        max_in_memory_download: int = _DEFAULT_MAX_IN_MEMORY_DOWNLOAD,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int) or max_concurrency < 1:
            raise ValueError(f"max_concurrency must be a positive int, not {max_concurrency!r}")
        if isinstance(max_in_memory_download, bool) or not isinstance(max_in_memory_download, int) \
                or max_in_memory_download < 0:
            raise ValueError(
                f"max_in_memory_download must be a non-negative int, not {max_in_memory_download!r}"
            )
        self._emulator = None if emulator_host is None else _parse_emulator_host(emulator_host)
        self._token = token
        self._token_provider = token_provider
        self._app_check_token = app_check_token
        self._ca_file = ca_file
        # Admin access: listings carry metadata, copies within a bucket stay on the server.
        self._service_account = None if service_account is None else ServiceAccount(service_account)
        self.max_concurrency = max_concurrency
        self.max_in_memory_download = max_in_memory_download
        self._process_objects = _ProcessObjects()
        _all_process_objects.add(self._process_objects)
        self._batch = threading.local()

    # -- paths and library objects -------------------------------------------------------------
    def split_path(self, path: str) -> tuple[str, str]:
        """``"bucket/a/b"`` (or ``"firebase://bucket/a/b"``) -> ``("bucket", "a/b")``."""
        stripped = self._strip_protocol(path)
        bucket, _, key = stripped.partition("/")
        if not bucket:
            raise ValueError(f"a firebase path starts with a bucket name: {path!r}")
        return bucket, key

    def storage(self, bucket: str) -> Storage:
        """This process's :class:`fbstorage.Storage` for ``bucket``, configured from the
        filesystem's options (made on first use)."""
        objects = self._process_objects
        with objects.lock:
            storage = objects.storages.get(bucket)
            if storage is None:
                storage = Storage(bucket)
                if self._emulator is not None:
                    storage.use_emulator(*self._emulator)
                if self._service_account is not None:
                    storage.use_service_account(self._service_account)
                if self._token is not None:
                    storage.set_auth_token(self._token)
                if self._token_provider is not None:
                    storage.set_auth_token_provider(self._token_provider)
                if self._app_check_token is not None:
                    storage.set_app_check_token(self._app_check_token)
                if self._ca_file is not None:
                    storage.ca_file = self._ca_file
                objects.storages[bucket] = storage
            return storage

    def _reference(self, path: str) -> StorageReference:
        bucket, key = self.split_path(path)
        return self.storage(bucket).reference(key)

    def _parallel_map(self, function: Callable[[_Item], _Result], items: Iterable[_Item]) -> list[_Result]:
        """``[function(item) ...]``, up to max_concurrency at once (blocking library calls
        release the GIL, so threads overlap their requests)."""
        items = list(items)
        if len(items) <= 1:
            return [function(item) for item in items]
        objects = self._process_objects
        with objects.lock:
            if objects.pool is None:
                objects.pool = ThreadPoolExecutor(self.max_concurrency, thread_name_prefix="fbstorage-fsspec")
            pool = objects.pool
        return list(pool.map(function, items))

    # -- listings and information --------------------------------------------------------------
    @staticmethod
    def _file_entry(metadata: StorageMetadata) -> dict[str, Any]:
        return {
            "name": f"{metadata.bucket}/{metadata.full_path}",
            "type": "file",
            "size": metadata.size,
            "generation": metadata.generation,
            "metageneration": metadata.metageneration,
            "md5Hash": metadata.md5_hash,
            "contentType": metadata.content_type,
            "timeCreated": metadata.time_created,
            "updated": metadata.updated,
            "mtime": metadata.updated,  # what pyarrow reads
            "metadata": metadata.custom_metadata,
        }

    @staticmethod
    def _directory_entry(name: str) -> dict[str, Any]:
        return {"name": name, "type": "directory", "size": 0}

    def _object_entry(self, path: str) -> dict[str, Any]:
        with _as_os_errors(path):
            return self._file_entry(self._reference(path).get_metadata())

    def _list_directory(self, path: str) -> list[dict[str, Any]]:
        """The entries directly below ``path``: its objects (with their metadata, fetched in
        parallel) and its prefixes."""
        bucket, _ = self.split_path(path)
        if self._service_account is not None:
            return self._list_directory_with_metadata(path)
        with _as_os_errors(path):
            listing = self._reference(path).list_all()
        directories = [self._directory_entry(f"{bucket}/{prefix.full_path}") for prefix in listing.prefixes]

        def entry(item: StorageReference) -> dict[str, Any] | None:
            try:
                return self._file_entry(item.get_metadata())
            except StorageError as error:
                if error.code == StorageErrorCode.OBJECT_NOT_FOUND:  # deleted since listed
                    return None
                raise

        files = [found for found in self._parallel_map(entry, listing.items) if found is not None]
        return sorted(directories + files, key=lambda found: found["name"])

    def _list_directory_with_metadata(self, path: str) -> list[dict[str, Any]]:
        """As :meth:`_list_directory`, with admin access: one request per page, metadata included."""
        bucket, _ = self.split_path(path)
        reference = self._reference(path)
        directories: dict[str, dict[str, Any]] = {}
        files: list[dict[str, Any]] = []
        token = None
        with _as_os_errors(path):
            while True:
                page = reference.list_with_metadata(page_token=token)
                for prefix in page.prefixes:
                    directories.setdefault(prefix.full_path, self._directory_entry(f"{bucket}/{prefix.full_path}"))
                files += [self._file_entry(metadata) for metadata in page.item_metadata or []]
                token = page.page_token
                if token is None:
                    break
        return sorted([*directories.values(), *files], key=lambda found: found["name"])

    def ls(self, path: str, detail: bool = True, refresh: bool = False, **kwargs: Any) -> list[Any]:
        """The entries below a directory (or a file's own entry); cached until a write
        through this filesystem or :meth:`invalidate_cache`."""
        path = self._strip_protocol(path)
        entries = None if refresh else self._ls_from_cache(path)
        if entries and entries[0]["name"] == path and entries[0]["type"] == "directory":
            entries = None  # only the directory's own entry, from its parent's listing
        if entries is None:
            entries = self._list_directory(path)
            if entries or "/" not in path:  # a bucket may be empty
                self.dircache[path] = entries
            else:
                entries = [self._object_entry(path)]
        return entries if detail else [entry["name"] for entry in entries]

    def info(self, path: str, refresh: bool = False, **kwargs: Any) -> dict[str, Any]:
        path = self._strip_protocol(path)
        bucket, key = self.split_path(path)
        if not key:
            return self._directory_entry(bucket)
        if not refresh:
            if path in self.dircache:
                return self._directory_entry(path)
            cached = self._ls_from_cache(path)  # FileNotFoundError when the parent's listing lacks it
            if cached:
                return cached[0]
        try:
            return self._object_entry(path)
        except FileNotFoundError:
            with _as_os_errors(path):
                below = self._reference(path).list(max_results=1)
            if below.items or below.prefixes:
                return self._directory_entry(path)
            raise

    def invalidate_cache(self, path: str | None = None) -> None:
        """Forgets cached listings: of ``path`` and every directory above it, or all."""
        if path is None:
            self.dircache.clear()
            return
        path = self._strip_protocol(path)
        while path:
            self.dircache.pop(path, None)
            path = self._parent(path)

    def modified(self, path: str) -> Any:
        """When the object was last changed (a timezone-aware UTC datetime)."""
        return self._file_info(path)["updated"]

    def created(self, path: str) -> Any:
        """When the object was created (a timezone-aware UTC datetime)."""
        return self._file_info(path)["timeCreated"]

    def ukey(self, path: str) -> str:
        """Changes whenever the object's content does: its generation and MD5."""
        info = self._file_info(path)
        return f"{info['generation']}:{info['md5Hash']}"

    def checksum(self, path: str) -> int:
        """The object's MD5 as the server computed it, as an int (fsspec's default, a hash of
        the object's information, when the server sent none)."""
        md5_hash = self._file_info(path)["md5Hash"]
        if md5_hash is None:
            return super().checksum(path)
        return int.from_bytes(base64.b64decode(md5_hash), "big")

    def _file_info(self, path: str) -> dict[str, Any]:
        info = self.info(path)
        if info["type"] != "file":
            raise IsADirectoryError(errno.EISDIR, "a directory has no such property", path)
        return info

    # -- directories ---------------------------------------------------------------------------
    def mkdir(self, path: str, create_parents: bool = True, **kwargs: Any) -> None:
        """Checks the path: a prefix exists as soon as an object is written below it."""
        self.split_path(path)

    def makedirs(self, path: str, exist_ok: bool = False) -> None:
        if not exist_ok and self.exists(path):
            raise FileExistsError(errno.EEXIST, "already exists", path)
        self.mkdir(path)

    # -- reading -------------------------------------------------------------------------------
    def _download(self, path: str, size: int | None = None) -> _ObjectCopy:
        """The object's bytes: in memory up to max_in_memory_download, else in a temporary
        file the library streams them to. ``size``, when known, saves asking for a large
        object in memory first."""
        reference = self._reference(path)
        with _as_os_errors(path):
            if size is None or size <= self.max_in_memory_download:
                try:
                    return _ObjectCopy(data=reference.get_data(max_size=self.max_in_memory_download))
                except StorageError as error:
                    if error.code != StorageErrorCode.DOWNLOAD_SIZE_EXCEEDED:
                        raise
            descriptor, temporary = tempfile.mkstemp(prefix="fbstorage-download-")
            os.close(descriptor)
            try:
                reference.write_to_file(temporary).wait()
                return _ObjectCopy(file_path=temporary)
            except BaseException:
                os.unlink(temporary)
                raise

    def _cat_range(self, path: str, start: int | None, end: int | None, size: int | None = None) -> bytes:
        """``bytes[start:end]`` of the object with Python's slice rules, in one ranged read. The
        size is asked for only when the slice needs it (a negative end, a range past the end)."""
        reference = self._reference(path)
        with _as_os_errors(path):
            if start is None and end is None:
                return reference.get_data()
            if size is None and (end is None or (end >= 0 and (start is None or start >= 0))):
                try:
                    if end is None:
                        return reference.get_data(start=start)
                    return reference.get_data(start=start, end=max(end, start or 0))
                except StorageError as error:
                    if error.code != StorageErrorCode.RANGE_NOT_SATISFIABLE:
                        raise
            if size is None:
                size = self.info(path)["size"]
            first, stop, _ = slice(start, end).indices(size)
            return reference.get_data(start=first, end=max(first, stop))

    def cat_file(self, path: str, start: int | None = None, end: int | None = None, **kwargs: Any) -> bytes:
        """The object's bytes, or ``[start:end]`` of them (negative values count from the end),
        fetching only those."""
        return self._cat_range(self._strip_protocol(path), start, end)

    def cat_ranges(
        self,
        paths: list[str],
        starts: Any,
        ends: Any,
        max_gap: Any = None,
        on_error: str = "return",
        **kwargs: Any,
    ) -> list[Any]:
        """Byte ranges of objects, each one ranged read, up to ``max_concurrency`` at once."""
        count = len(paths)
        starts = starts if isinstance(starts, list) else [starts] * count
        ends = ends if isinstance(ends, list) else [ends] * count
        if not len(starts) == len(ends) == count:
            raise ValueError("paths, starts and ends must have the same length")

        def read(index: int) -> Any:
            try:
                return self._cat_range(self._strip_protocol(paths[index]), starts[index], ends[index])
            except Exception as error:
                if on_error != "return":
                    raise
                return error

        return self._parallel_map(read, range(count))

    def get_file(
        self, rpath: str, lpath: Any, callback: Any = DEFAULT_CALLBACK, outfile: Any = None, **kwargs: Any
    ) -> None:
        """Downloads one object to ``lpath`` with the library (streamed to disk; ``lpath`` is
        replaced only once the download succeeded)."""
        if outfile is not None or isfilelike(lpath):
            return super().get_file(rpath, lpath, callback=callback, outfile=outfile, **kwargs)
        if self.isdir(rpath):
            os.makedirs(lpath, exist_ok=True)
            return None
        os.makedirs(os.path.dirname(os.path.abspath(lpath)), exist_ok=True)
        with _as_os_errors(rpath):
            task = self._reference(rpath).write_to_file(lpath)
        self._run(task, rpath, callback)
        return None

    def get(self, rpath: Any, lpath: Any, recursive: bool = False, callback: Any = DEFAULT_CALLBACK,
            maxdepth: int | None = None, **kwargs: Any) -> None:
        """Downloads files or trees; the downloads run in parallel (max_concurrency)."""
        with self._parallel_transfers():
            super().get(rpath, lpath, recursive=recursive, callback=callback, maxdepth=maxdepth, **kwargs)

    # -- writing -------------------------------------------------------------------------------
    @staticmethod
    def _upload_metadata(path: str, options: dict[str, Any]) -> StorageMetadata:
        """Metadata for an upload: ``content_type`` (else guessed from the name), custom
        ``metadata``, and any writable StorageMetadata field given by name."""
        fields = {name: options[name] for name in WRITABLE_FIELDS if name in options}
        if "metadata" in options:
            fields["custom_metadata"] = options["metadata"]
        if "content_type" not in fields:
            guessed, _ = mimetypes.guess_type(path)
            if guessed is not None:
                fields["content_type"] = guessed
        return StorageMetadata(**fields)

    def _check_create(self, path: str, mode: str) -> None:
        """``mode="create"`` writes only a new object (checked before writing: the protocol has
        no precondition, so two writers racing may both pass)."""
        if mode not in ("overwrite", "create"):
            raise ValueError(f"mode must be 'overwrite' or 'create', not {mode!r}")
        if mode == "create" and self.exists(path):
            raise FileExistsError(errno.EEXIST, "already exists", path)

    def pipe_file(self, path: str, value: Any, mode: str = "overwrite", **kwargs: Any) -> None:
        """Uploads ``value`` (bytes-like) as the object at ``path``."""
        path = self._strip_protocol(path)
        self._check_create(path, mode)
        with _as_os_errors(path):
            self._reference(path).put_data(value, self._upload_metadata(path, kwargs)).wait()
        self.invalidate_cache(path)

    def put_file(self, lpath: Any, rpath: str, callback: Any = DEFAULT_CALLBACK, mode: str = "overwrite",
                 **kwargs: Any) -> None:
        """Uploads the local file ``lpath``, streamed from disk through a resumable upload."""
        rpath = self._strip_protocol(rpath)
        if os.path.isdir(lpath):
            return
        self._check_create(rpath, mode)
        with _as_os_errors(rpath):
            task = self._reference(rpath).put_file(lpath, self._upload_metadata(rpath, kwargs))
        self._run(task, rpath, callback)

    def put(self, lpath: Any, rpath: Any, recursive: bool = False, callback: Any = DEFAULT_CALLBACK,
            maxdepth: int | None = None, **kwargs: Any) -> None:
        """Uploads files or trees; the uploads run in parallel (max_concurrency)."""
        with self._parallel_transfers():
            super().put(lpath, rpath, recursive=recursive, callback=callback, maxdepth=maxdepth, **kwargs)

    def cp_file(self, path1: str, path2: str, **kwargs: Any) -> None:
        """Copies an object with its writable metadata: on the server within a bucket with a
        service account (GCS rewrite); otherwise downloaded, then uploaded (the Firebase API has
        no server-side copy)."""
        path2 = self._strip_protocol(path2)
        if self._service_account is not None and self.split_path(path1)[0] == self.split_path(path2)[0]:
            with _as_os_errors(path1):
                self._reference(path1).copy_to(self._reference(path2))
            self.invalidate_cache(path2)
            return
        with _as_os_errors(path1):
            source = self._reference(path1).get_metadata()
        target = self._reference(path2)
        with self._download(path1) as copy, _as_os_errors(path2):
            copy.upload(target, source).wait()  # the server's metadata: its writable fields are sent
        self.invalidate_cache(path2)

    def sign(self, path: str, expiration: int = 100, **kwargs: Any) -> str:
        """A V4 signed URL of ``path`` valid ``expiration`` seconds (``method=`` GET by
        default), signed with the ``service_account`` key; for the emulator in use when there is one. Raises
        StorageError INVALID_ARGUMENT at once for a filesystem without that key."""
        if self._service_account is None:
            raise StorageError(StorageErrorCode.INVALID_ARGUMENT,
                               "Signing a URL needs the service_account storage option (a service account key)")
        bucket, key = self.split_path(path)
        variable = os.environ.get("FIREBASE_STORAGE_EMULATOR_HOST")
        address = self._emulator or (_parse_emulator_host(variable) if variable else None)
        endpoint = None if address is None else f"http://{address[0]}:{address[1]}"
        return self._service_account.signed_url(bucket, key, expiration=expiration, api_access_endpoint=endpoint,
                                                **kwargs)

    # -- deleting ------------------------------------------------------------------------------
    def rm_file(self, path: str) -> None:
        path = self._strip_protocol(path)
        with _as_os_errors(path):
            self._reference(path).delete()
        self.invalidate_cache(path)

    def rm(self, path: Any, recursive: bool = False, maxdepth: int | None = None) -> None:
        """Deletes objects (and with ``recursive``, everything below directories), in
        parallel. Directories vanish with their last object."""
        paths = self.expand_path(path, recursive=recursive, maxdepth=maxdepth)
        directories = {self._parent(found) for found in paths}

        def delete(found: str) -> None:
            try:
                self.rm_file(found)
            except FileNotFoundError:
                if found not in directories:  # a directory listed with its content: nothing to delete
                    raise

        self._parallel_map(delete, [found for found in paths if "/" in found])  # not bucket roots

    # -- files ---------------------------------------------------------------------------------
    def _open(self, path: str, mode: str = "rb", block_size: Any = None, autocommit: bool = True,
              cache_options: Any = None, **kwargs: Any) -> FirebaseStorageFile:
        if mode == "xb":
            self._check_create(path, "create")
        return FirebaseStorageFile(self, path, mode, block_size, autocommit,
                                   cache_options=cache_options, **kwargs)

    # -- tasks ---------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _parallel_transfers(self) -> Iterator[None]:
        """Within it, put_file() and get_file() start their task and return at once; the
        tasks are waited for when it ends."""
        if getattr(self._batch, "current", None) is not None:  # nested: the outer one waits
            yield
            return
        batch = self._batch.current = _TransferBatch(self.max_concurrency, self._finish)
        try:
            yield
        except BaseException:
            batch.cancel()
            raise
        else:
            batch.finish()
        finally:
            self._batch.current = None

    def _run(self, task: StorageTask, path: str, callback: Any) -> None:
        """Waits for ``task`` (or hands it to the running put()/get()), reporting its progress
        to an fsspec ``callback``; :meth:`_finish` forgets the listings it changed."""
        if not isinstance(callback, NoOpCallback):
            def progress(snapshot: Any) -> None:
                if snapshot.total_bytes is not None:
                    callback.set_size(snapshot.total_bytes)
                callback.absolute_update(snapshot.bytes_transferred)

            task.observe(TaskStatus.PROGRESS, progress)

        batch = getattr(self._batch, "current", None)
        if batch is None:
            self._finish(task, path)
        else:
            batch.add(task, path)

    def _finish(self, task: StorageTask, path: str) -> None:
        with _as_os_errors(path):
            task.wait()
        self.invalidate_cache(path)


class _ObjectCopy:
    """A downloaded object's bytes, in memory or in a temporary file (removed on close)."""

    def __init__(self, data: bytes | None = None, file_path: str | None = None) -> None:
        self._data = data
        self._file_path = file_path
        self._file = None if file_path is None else open(file_path, "rb")
        self.size = len(data) if data is not None else os.path.getsize(file_path or "")

    def read(self, start: int | None, end: int | None) -> bytes:
        """``bytes[start:end]`` with Python's slice rules."""
        first, stop, _ = slice(start, end).indices(self.size)
        if self._data is not None:
            return self._data[first:stop]
        assert self._file is not None
        self._file.seek(first)
        return self._file.read(max(0, stop - first))

    def upload(self, reference: StorageReference, metadata: StorageMetadata) -> StorageTask:
        if self._data is not None:
            return reference.put_data(self._data, metadata)
        assert self._file_path is not None
        return reference.put_file(self._file_path, metadata)

    def close(self) -> None:
        self._data = None
        if self._file is not None:
            self._file.close()
            self._file = None
            os.unlink(self._file_path or "")

    def __enter__(self) -> _ObjectCopy:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class FirebaseStorageFile(AbstractBufferedFile):
    """A file of :class:`FirebaseStorageFileSystem`.

    Reading: fsspec's block cache (``cache_type``, ``block_size``) over ranged reads of the
    blocks asked for. Writing: blocks go to a
    temporary file, uploaded at ``close()`` through the library's resumable upload (or in one
    request when everything fit in one block); ``metadata``, ``content_type`` and any
    writable StorageMetadata field may be given to ``open()``. Appending (``"ab"``): an object
    cannot grow in place, so the existing bytes are downloaded into that temporary file first
    and the whole object is uploaded again at ``close()``, keeping its metadata unless
    ``open()`` was given some.
    """

    fs: FirebaseStorageFileSystem

    def __init__(self, *arguments: Any, **kwargs: Any) -> None:
        self._spool: Any = None
        self._appended_to: StorageMetadata | None = None  # the existing object's, when appending
        # Without a cache type of the caller's, reads are exact ranges and only sequential
        # reads fetch ahead (_fetch_range): a Parquet reader's jumps fetch what it asks for.
        kwargs.setdefault("cache_type", "none")
        self._ahead_start, self._ahead, self._last_end, self._readahead = 0, b"", -1, 0
        super().__init__(*arguments, **kwargs)
        if self.mode == "ab":
            self._start_from_the_existing_object()

    def _start_from_the_existing_object(self) -> None:
        try:
            with _as_os_errors(self.path):
                self._appended_to = self.fs._reference(self.path).get_metadata()
        except FileNotFoundError:
            return  # appending to nothing creates the object
        self._spool = tempfile.NamedTemporaryFile(prefix="fbstorage-upload-", delete=False)
        with self.fs._download(self.path, self._appended_to.size) as existing:
            for start in range(0, existing.size, _APPEND_COPY_PIECE):
                self._spool.write(existing.read(start, start + _APPEND_COPY_PIECE))
            self.loc = existing.size

    def _fetch_range(self, start: int, end: int) -> bytes:
        """Bytes [start, end): from what was fetched ahead, the rest in one ranged read, which
        fetches ahead (doubling) while the reads go on sequentially."""
        end = min(end, self.size)
        ahead_end = self._ahead_start + len(self._ahead)
        cached = b""
        fetch_from = start
        if self._ahead_start <= start < ahead_end:
            cached = self._ahead[start - self._ahead_start:end - self._ahead_start]
            fetch_from = ahead_end
        if fetch_from < end:
            sequential = start == self._last_end
            self._readahead = min(max(self._readahead * 2, _FIRST_READAHEAD), _MAX_READAHEAD) if sequential else 0
            stop = max(end, min(fetch_from + self._readahead, self.size))
            self._ahead_start, self._ahead = fetch_from, self.fs._cat_range(self.path, fetch_from, stop, self.size)
            cached += self._ahead[:end - fetch_from]
        self._last_end = end
        return cached

    def _upload_chunk(self, final: bool = False) -> bool:
        if final and self._spool is None and self.autocommit:  # all in one block: from memory
            self._upload(lambda reference, metadata: reference.put_data(self.buffer.getvalue(), metadata))
            return True
        if self._spool is None:
            self._spool = tempfile.NamedTemporaryFile(prefix="fbstorage-upload-", delete=False)
        self._spool.write(self.buffer.getbuffer())
        if final:
            self._spool.close()
            if self.autocommit:
                self.commit()
        return True

    def _upload(self, start: Callable[[StorageReference, StorageMetadata], StorageTask]) -> None:
        given = any(name in self.kwargs for name in (*WRITABLE_FIELDS, "metadata"))
        metadata = self._appended_to if self._appended_to is not None and not given \
            else self.fs._upload_metadata(self.path, self.kwargs)
        with _as_os_errors(self.path):
            start(self.fs._reference(self.path), metadata).wait()
        self.fs.invalidate_cache(self.path)

    def commit(self) -> None:
        """Uploads what was written (called by close(), or at the end of a transaction)."""
        if self._spool is None:
            return
        try:
            self._upload(lambda reference, metadata: reference.put_file(self._spool.name, metadata))
        finally:
            self.discard()

    def discard(self) -> None:
        """Drops what was written without uploading it."""
        if self._spool is not None:
            self._spool.close()
            os.unlink(self._spool.name)
            self._spool = None

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self.autocommit:
                self.discard()

