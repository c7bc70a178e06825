"""Object storage: an in-memory index over blob files, optionally persisted in a data directory.

Layout of the root directory (a private temp dir unless --data-dir is given):

    tmp/                 uploads being received (cleared at start)
    blobs/<uuid>         object bytes; a new blob per write, never modified in place
    objects/<sha256>.json  {"metadata": …, "blob": <uuid>} keyed by a hash of bucket and name,
                         so no object name can reach outside the directory

A write is durable and atomic in a data directory: the blob is fsynced and renamed into
blobs/, then the record is written to tmp/, fsynced and renamed over the old one; the old blob
is deleted last. A crash leaves either the old or the new object, plus at worst an unreferenced
blob that the next start deletes. Without a data directory nothing is fsynced and objects up to
SMALL_OBJECT_BYTES are kept in memory.
"""

from __future__ import annotations

import asyncio
import bisect
import hashlib
import json
import logging
import os
import shutil
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from .blobs import Blob, BlobWriter, FileBlob, MemoryBlob
from .metadata import ObjectMetadata

SMALL_OBJECT_BYTES = 1 << 20
# Called with the object about to be replaced (None if there is none) before a commit changes
# anything; it raises to refuse the commit (GCS preconditions).
Precondition = Callable[["StoredObject | None"], None]
# Told of each committed change: ("finalized" | "deleted" | "metadataUpdated", the object).
ChangeObserver = Callable[[str, "StoredObject"], None]
log = logging.getLogger(__name__)


@dataclass(slots=True)
class StoredObject:
    metadata: ObjectMetadata
    blob: Blob
    blob_id: str | None  # file name under blobs/, None for an in-memory blob


def utf8_order(name: str) -> bytes:
    """Sort key: object names are ordered by their UTF-8 bytes, as in GCS."""
    return name.encode("utf-8")


class ObjectStore:
    def __init__(self, data_dir: str | None = None):
        self.persistent = data_dir is not None
        self.root = Path(data_dir) if data_dir else Path(tempfile.mkdtemp(prefix="fbstorage-emulator-"))
        self._tmp, self._blobs, self._records = self.root / "tmp", self.root / "blobs", self.root / "objects"
        self._tmp_dir = str(self._tmp)
        for directory in (self._tmp, self._blobs, self._records):
            directory.mkdir(parents=True, exist_ok=True)
        self._buckets: dict[str, dict[str, StoredObject]] = {}
        self._sorted: dict[str, list[str]] = {}   # per bucket, its names in UTF-8 byte order
        self._memos: dict[str, dict[Any, Any]] = {}  # per bucket, dropped when the bucket changes
        self._commit_lock = asyncio.Lock()  # disk steps of commits run one at a time, in order
        self.observers: list[ChangeObserver] = []  # storage triggers
        if self.persistent:
            self._load()

    # Reading.

    def get(self, bucket: str, name: str) -> StoredObject | None:
        return self._buckets.get(bucket, {}).get(name)

    def memo(self, bucket: str) -> dict[Any, Any]:
        """Values computed from the bucket's names (the sorted names, listings), kept until the
        bucket next changes: a listing of many pages sorts and filters its names once."""
        return self._memos.setdefault(bucket, {})

    def sorted_names(self, bucket: str) -> list[str]:
        """The bucket's names in UTF-8 byte order, kept in order as objects come and go (a write
        moves references, it does not sort): callers must not change the list."""
        return self._sorted.get(bucket, [])

    def buckets(self) -> list[str]:
        return list(self._buckets)

    def objects(self) -> Iterator[StoredObject]:
        for index in self._buckets.values():
            yield from index.values()

    def writes_paused(self) -> asyncio.Lock:
        """Held, no commit happens: a consistent view for an export."""
        return self._commit_lock

    # Writing.

    def add_bucket(self, bucket: str) -> None:
        self._index(bucket)

    def new_writer(self, one_shot: bool = False) -> BlobWriter:
        """A writer for incoming bytes, staged in tmp/ until `put` commits them. A one-shot
        upload's small object is staged in memory when the store is."""
        keep = SMALL_OBJECT_BYTES if one_shot and not self.persistent else 0
        return BlobWriter(self._tmp_dir, durable=self.persistent, keep_in_memory=keep)

    async def put(self, writer: BlobWriter, metadata: ObjectMetadata,
                  precondition: Precondition | None = None) -> StoredObject:
        """Commit a finished writer's bytes as the object named by `metadata`, replacing any old one.
        `precondition` sees the old object under the commit lock, so no other commit comes between."""
        staged_path = writer.path
        async with self._commit_lock:
            if precondition is not None:
                precondition(self.get(metadata.bucket, metadata.name))
            if writer.data is not None:
                stored = StoredObject(metadata, MemoryBlob(bytes(writer.data)), None)
            elif not self.persistent and metadata.size <= SMALL_OBJECT_BYTES:
                stored = StoredObject(metadata, MemoryBlob(Path(staged_path).read_bytes()), None)
                os.unlink(staged_path)
            else:
                blob_id = uuid.uuid4().hex
                blob_path = self._blobs / blob_id
                await self._in_thread(self._commit_blob, staged_path, blob_path, metadata, blob_id)
                stored = StoredObject(metadata, FileBlob(str(blob_path), metadata.size), blob_id)
            old = self._index(metadata.bucket).get(metadata.name)
            self._index(metadata.bucket)[metadata.name] = stored
            if old is None:
                self._add_name(metadata.bucket, metadata.name)
            self._memos.pop(metadata.bucket, None)
            if old is not None:
                await self._drop_blob(old)
        self._notify("finalized", stored)
        return stored

    async def save_metadata(self, stored: StoredObject) -> None:
        """Persist a metadata change made in place."""
        if self.persistent:
            async with self._commit_lock:
                await self._in_thread(self._write_record, stored.metadata, stored.blob_id)
        self._notify("metadataUpdated", stored)

    async def delete(self, bucket: str, name: str, precondition: Precondition | None = None) -> bool:
        async with self._commit_lock:
            if precondition is not None:
                precondition(self.get(bucket, name))
            stored = self._index(bucket).pop(name, None)
            if stored is None:
                return False
            names = self._sorted[bucket]
            del names[bisect.bisect_left(names, utf8_order(name), key=utf8_order)]
            self._memos.pop(bucket, None)
            if self.persistent:
                await self._in_thread(self._remove_record, bucket, name)
            await self._drop_blob(stored)
        self._notify("deleted", stored)
        return True

    async def reset(self) -> None:
        """Delete every object of every bucket."""
        async with self._commit_lock:
            self._buckets.clear()
            self._sorted.clear()
            self._memos.clear()
            for directory in (self._blobs, self._records):
                shutil.rmtree(directory, ignore_errors=True)
                directory.mkdir()

    def close(self) -> None:
        if not self.persistent:
            shutil.rmtree(self.root, ignore_errors=True)

    # Internals.

    def _notify(self, change: str, stored: StoredObject) -> None:
        for observer in self.observers:
            observer(change, stored)

    def _index(self, bucket: str) -> dict[str, StoredObject]:
        return self._buckets.setdefault(bucket, {})

    def _add_name(self, bucket: str, name: str) -> None:
        bisect.insort(self._sorted.setdefault(bucket, []), name, key=utf8_order)

    def _record_path(self, bucket: str, name: str) -> Path:
        key = hashlib.sha256(f"{bucket}\0{name}".encode("utf-8")).hexdigest()
        return self._records / f"{key}.json"

    def _commit_blob(self, staged_path: str, blob_path: Path, metadata: ObjectMetadata, blob_id: str) -> None:
        os.rename(staged_path, blob_path)
        if self.persistent:
            _fsync_directory(self._blobs)
            self._write_record(metadata, blob_id)

    def _write_record(self, metadata: ObjectMetadata, blob_id: str | None) -> None:
        record = json.dumps({"metadata": metadata.to_record(), "blob": blob_id}).encode("utf-8")
        temp = self._tmp / f"record-{uuid.uuid4().hex}"
        with open(temp, "wb") as file:
            file.write(record)
            file.flush()
            os.fsync(file.fileno())
        os.rename(temp, self._record_path(metadata.bucket, metadata.name))
        _fsync_directory(self._records)

    def _remove_record(self, bucket: str, name: str) -> None:
        self._record_path(bucket, name).unlink(missing_ok=True)
        _fsync_directory(self._records)

    async def _drop_blob(self, stored: StoredObject) -> None:
        # Readers that already opened the file keep streaming it after the unlink, which can take
        # a while for a large file, hence the thread.
        if stored.blob_id is not None:
            await self._in_thread((self._blobs / stored.blob_id).unlink, True)

    async def _in_thread(self, function, *args) -> None:
        await asyncio.get_running_loop().run_in_executor(None, function, *args)

    def _load(self) -> None:
        referenced = set()
        for record_path in self._records.glob("*.json"):
            try:
                record = json.loads(record_path.read_text(encoding="utf-8"))
                metadata = ObjectMetadata.from_record(record["metadata"])
                blob_path = self._blobs / record["blob"]
                if blob_path.stat().st_size != metadata.size:
                    raise ValueError(f"blob is {blob_path.stat().st_size} bytes, metadata says {metadata.size}")
            except (OSError, ValueError, KeyError, TypeError) as error:
                log.warning("skipping unreadable object record %s: %s", record_path.name, error)
                continue
            referenced.add(record["blob"])
            self._index(metadata.bucket)[metadata.name] = StoredObject(
                metadata, FileBlob(str(blob_path), metadata.size), record["blob"])
        self._sorted = {bucket: sorted(index, key=utf8_order) for bucket, index in self._buckets.items()}
        for blob_path in self._blobs.iterdir():
            if blob_path.name not in referenced:
                blob_path.unlink()
        for leftover in self._tmp.iterdir():
            leftover.unlink()


def _fsync_directory(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
