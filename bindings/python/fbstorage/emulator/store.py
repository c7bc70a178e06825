"""Object storage: an in-memory index over blob files, optionally persisted in a data directory.

Layout of the root directory (a private temp dir unless --data-dir is given):

    tmp/                 uploads being received (cleared at start)
    blobs/<uuid>         object bytes; a new blob per write, never modified in place
    objects/<sha256>.json  {"metadata": …, "blob": <uuid>} keyed by a hash of bucket and name,
                         so no object name can reach outside the directory (a noncurrent
                         generation: of bucket, name and generation)
    buckets.json         the buckets and their settings (buckets.py)
    sessions/            resumable upload sessions in progress (session_journal.py)

A write is durable and atomic in a data directory: the blob is fsynced and renamed into
blobs/, then the record is written to tmp/, fsynced and renamed over the old one; the old blob
is deleted last. A crash leaves either the old or the new object, plus at worst an unreferenced
blob that the next start deletes. In a versioned bucket the replaced or deleted object's
noncurrent record is written before its live record goes (a crash between leaves both: the next
start keeps the live one). The in-memory index changes after the disk. A metadata change made in
place is written only while its object is still the store's, so it never brings back a replaced
or deleted one. Without a data directory nothing is fsynced and objects up to SMALL_OBJECT_BYTES
are kept in memory.

In a bucket with versioning enabled, a replaced or deleted object stays as a noncurrent
generation (its metadata has `time_deleted_us`), readable by generation until deleted by it.
"""

from __future__ import annotations

import asyncio
import bisect
import hashlib
import json
import logging
import os
import shutil
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from .blobs import Blob, BlobWriter, FileBlob, MemoryBlob
from .buckets import Bucket, bucket_name_characters_allowed
from .directory_swap import fsync_directory
from .json_input import load_json
from .metadata import ObjectMetadata, now_us

SMALL_OBJECT_BYTES = 1 << 20
# Called with the object about to be replaced (None if there is none) before a commit changes
# anything; it raises to refuse the commit (GCS preconditions).
Precondition = Callable[["StoredObject | None"], None]
# Told of each committed change: ("finalized" | "deleted" | "metadataUpdated", the object).
ChangeObserver = Callable[[str, "StoredObject"], None]
log = logging.getLogger(__name__)


@dataclass(slots=True)  # no __dict__: ~100 B less per stored object
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
        self._buckets: dict[str, dict[str, StoredObject]] = {}  # the live objects
        # Each bucket's live names in order, kept as names come and go (a listing after a write
        # then costs its own names, not a sort of the bucket). Python orders str by code point,
        # which is the UTF-8 byte order.
        self._live_names: dict[str, list[str]] = {}
        self._noncurrent: dict[str, dict[str, list[StoredObject]]] = {}  # older generations, oldest first
        self.buckets: dict[str, Bucket] = {}
        self._configured_buckets: set[str] = set()  # kept by a reset
        self._memos: dict[str, dict[Any, Any]] = {}  # per bucket, dropped when the bucket changes
        self._commit_lock = asyncio.Lock()  # disk steps of commits run one at a time, in order
        self.observers: list[ChangeObserver] = []  # storage triggers
        if self.persistent:
            self._load()

    # Reading.

    def get(self, bucket: str, name: str, generation: int | None = None) -> StoredObject | None:
        """The live object, or with `generation` the object of that generation, live or noncurrent."""
        live = self._buckets.get(bucket, {}).get(name)
        if generation is None or (live is not None and live.metadata.generation == generation):
            return live
        for stored in self._noncurrent.get(bucket, {}).get(name, ()):
            if stored.metadata.generation == generation:
                return stored
        return None

    def generations(self, bucket: str, name: str) -> list[StoredObject]:
        """Every generation of `name`, oldest first (the live one last)."""
        live = self._buckets.get(bucket, {}).get(name)
        return [*self._noncurrent.get(bucket, {}).get(name, ()), *([live] if live else [])]

    def is_empty(self, bucket: str) -> bool:
        return not self._buckets.get(bucket) and not self._noncurrent.get(bucket)

    def memo(self, bucket: str) -> dict[Any, Any]:
        """Values computed from the bucket's names (the sorted names, listings), kept until the
        bucket next changes: a listing of many pages sorts and filters its names once."""
        return self._memos.setdefault(bucket, {})

    def sorted_names(self, bucket: str, *, noncurrent: bool = False) -> list[str]:
        """The live objects' names in order; with `noncurrent`, also those of noncurrent generations
        (sorted once per bucket state: listing versions is rare)."""
        live = self._live_names.get(bucket, [])
        if not noncurrent or not self._noncurrent.get(bucket):
            return live
        memo = self.memo(bucket)
        names = memo.get("all_names")
        if names is None:
            names = memo["all_names"] = sorted({*live, *self._noncurrent[bucket]})
        return names

    # Buckets.

    def configure_buckets(self, names: list[str]) -> None:
        """Buckets that exist from the start and after every reset (requests refuse other names)."""
        for name in names:
            if not bucket_name_characters_allowed(name):
                raise ValueError(f"bucket {name!r}: GCS allows only a-z, 0-9, '.', '-' and '_' in bucket names")
        self._configured_buckets.update(names)
        for name in names:
            self.add_bucket(name)

    def add_bucket(self, name: str, versioning: bool = False) -> Bucket:
        """The bucket `name`, created (with `versioning`) if it does not exist yet."""
        bucket = self.buckets.get(name)
        if bucket is None:
            bucket = self.buckets[name] = Bucket.new(name, versioning)
            self.save_buckets()
        return bucket

    def delete_bucket(self, name: str) -> None:
        del self.buckets[name]
        self.save_buckets()

    def save_buckets(self) -> None:
        """Persist the buckets (a small file, rewritten whole when a bucket changes)."""
        if self.persistent:
            records = [bucket.to_record() for bucket in self.buckets.values()]
            _write_atomically(self._tmp, self.root / "buckets.json", json.dumps(records).encode("utf-8"))

    def objects(self) -> Iterator[StoredObject]:
        """The live objects of every bucket."""
        for index in self._buckets.values():
            yield from index.values()

    def writes_paused(self) -> asyncio.Lock:
        """Held, no commit happens: a consistent view for an export."""
        return self._commit_lock

    # Writing.

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
                await self._in_thread(self._commit_blob, staged_path, blob_path)
                stored = StoredObject(metadata, FileBlob(str(blob_path), metadata.size), blob_id)
            old = self._index(metadata.bucket).get(metadata.name)
            kept = old is not None and self.buckets[metadata.bucket].versioning
            if kept:
                await self._save_noncurrent(old)
            if self.persistent:  # the old record is replaced last: a crash before leaves the old object
                await self._in_thread(self._write_record, self._record(stored))
            self._index(metadata.bucket)[metadata.name] = stored
            # Strings many objects share are held once (a small object's metadata is most of its memory).
            metadata.bucket = self.buckets[metadata.bucket].name
            if metadata.content_type is not None:
                metadata.content_type = sys.intern(metadata.content_type)
            if old is None:
                bisect.insort(self._live_names[metadata.bucket], metadata.name)
            self._memos.pop(metadata.bucket, None)
            if kept:
                self._add_noncurrent(old)
            elif old is not None:
                await self._drop_blob(old)
        self._notify("finalized", stored)
        return stored

    async def save_metadata(self, stored: StoredObject) -> None:
        """Persist a metadata change made in place, unless `stored` was replaced or deleted
        meanwhile: the change then came before that, and is not written over what replaced it."""
        if self.persistent:
            async with self._commit_lock:
                if not self._holds(stored):
                    return
                await self._in_thread(self._write_record, self._record(stored))
        elif not self._holds(stored):
            return
        self._notify("metadataUpdated", stored)

    async def delete(self, bucket: str, name: str, precondition: Precondition | None = None,
                     generation: int | None = None) -> bool:
        """Delete the live object (kept as noncurrent if the bucket is versioned), or with
        `generation` that generation for good. `precondition` sees the object named."""
        async with self._commit_lock:
            stored = self.get(bucket, name, generation)
            if precondition is not None:
                precondition(stored)
            if stored is None:
                return False
            live = stored is self._index(bucket).get(name)
            kept = live and generation is None and self.buckets[bucket].versioning
            if kept:  # the noncurrent record first: a crash before the live one goes leaves the object
                await self._save_noncurrent(stored)
            if self.persistent:
                await self._in_thread(self._remove_record, bucket, name,
                                      None if live else stored.metadata.generation)
            self._memos.pop(bucket, None)
            if live:
                del self._index(bucket)[name]
                names = self._live_names[bucket]
                del names[bisect.bisect_left(names, name)]
            else:
                versions = self._noncurrent[bucket][name]
                versions.remove(stored)
                if not versions:
                    del self._noncurrent[bucket][name]
            if kept:
                self._add_noncurrent(stored)
            else:
                await self._drop_blob(stored)
        self._notify("deleted", stored)
        return True

    async def reset(self) -> None:
        """Delete every object of every bucket, and every bucket not configured."""
        async with self._commit_lock:
            self._buckets.clear()
            self._live_names.clear()
            self._noncurrent.clear()
            self._memos.clear()
            self.buckets = {name: Bucket.new(name) for name in self._configured_buckets}
            self.save_buckets()
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
        if bucket not in self.buckets:
            self.add_bucket(bucket)  # an object's bucket exists
        index = self._buckets.get(bucket)
        if index is None:
            index = self._buckets[bucket] = {}
            self._live_names[bucket] = []
        return index

    def _holds(self, stored: StoredObject) -> bool:
        """Whether `stored` is still one of the store's objects, live or noncurrent."""
        metadata = stored.metadata
        return (self._buckets.get(metadata.bucket, {}).get(metadata.name) is stored
                or any(version is stored for version in self._noncurrent.get(metadata.bucket, {}).get(metadata.name, ())))

    async def _save_noncurrent(self, stored: StoredObject) -> None:
        """Mark `stored`, about to stop being live in a versioned bucket, as a noncurrent
        generation, and persist it as one (under the commit lock, before its live record goes)."""
        stored.metadata.time_deleted_us = now_us()
        if self.persistent:
            await self._in_thread(self._write_record, self._record(stored))

    def _add_noncurrent(self, stored: StoredObject) -> None:
        metadata = stored.metadata
        self._noncurrent.setdefault(metadata.bucket, {}).setdefault(metadata.name, []).append(stored)

    def _record_path(self, bucket: str, name: str, noncurrent_generation: int | None) -> Path:
        key = f"{bucket}\0{name}" + ("" if noncurrent_generation is None else f"\0{noncurrent_generation}")
        return self._records / f"{hashlib.sha256(key.encode('utf-8')).hexdigest()}.json"

    def _commit_blob(self, staged_path: str, blob_path: Path) -> None:
        os.rename(staged_path, blob_path)
        if self.persistent:
            fsync_directory(self._blobs)

    def _record(self, stored: StoredObject) -> tuple[Path, bytes]:
        """Where and what `stored`'s record is, encoded on the event loop: a request may change the
        metadata in place while a worker thread writes the file."""
        metadata = stored.metadata
        noncurrent_generation = None if metadata.time_deleted_us is None else metadata.generation
        record = json.dumps({"metadata": metadata.to_record(), "blob": stored.blob_id}).encode("utf-8")
        return self._record_path(metadata.bucket, metadata.name, noncurrent_generation), record

    def _write_record(self, record: tuple[Path, bytes]) -> None:
        _write_atomically(self._tmp, *record)

    def _remove_record(self, bucket: str, name: str, noncurrent_generation: int | None) -> None:
        self._record_path(bucket, name, noncurrent_generation).unlink(missing_ok=True)
        fsync_directory(self._records)

    async def _drop_blob(self, stored: StoredObject) -> None:
        # Readers that already opened the file keep streaming it after the unlink, which can take
        # a while for a large file, hence the thread.
        if stored.blob_id is not None:
            await self._in_thread((self._blobs / stored.blob_id).unlink, True)

    async def _in_thread(self, function, *args) -> None:
        await asyncio.get_running_loop().run_in_executor(None, function, *args)

    def _load(self) -> None:
        try:
            for record in load_json((self.root / "buckets.json").read_bytes()):
                bucket = Bucket.from_record(record)
                self.buckets[bucket.name] = bucket
        except FileNotFoundError:
            pass
        except (OSError, ValueError, TypeError) as error:
            log.warning("skipping unreadable buckets.json: %s", error)
        referenced = set()
        for record_path in self._records.glob("*.json"):
            try:
                record = load_json(record_path.read_bytes())
                metadata = ObjectMetadata.from_record(record["metadata"])
                blob_path = self._blobs / record["blob"]
                if blob_path.stat().st_size != metadata.size:
                    raise ValueError(f"blob is {blob_path.stat().st_size} bytes, metadata says {metadata.size}")
            except (OSError, ValueError, KeyError, TypeError) as error:
                log.warning("skipping unreadable object record %s: %s", record_path.name, error)
                continue
            referenced.add(record["blob"])
            stored = StoredObject(metadata, FileBlob(str(blob_path), metadata.size), record["blob"])
            if metadata.time_deleted_us is None:
                self._index(metadata.bucket)[metadata.name] = stored
            else:
                self._add_noncurrent(stored)
        for bucket, index in self._buckets.items():
            self._live_names[bucket] = sorted(index)
        for bucket, versions in self._noncurrent.items():
            for name, generations in versions.items():
                generations.sort(key=lambda stored: stored.metadata.generation)
                live = self._buckets.get(bucket, {}).get(name)
                if live is not None and generations[-1].metadata.generation == live.metadata.generation:
                    # A crash between an overwrite's or delete's two records: it did not happen.
                    generations.pop()
                    self._record_path(bucket, name, live.metadata.generation).unlink()
            versions_left = {name: generations for name, generations in versions.items() if generations}
            versions.clear()
            versions.update(versions_left)
        for blob_path in self._blobs.iterdir():
            if blob_path.name not in referenced:
                blob_path.unlink()
        for leftover in self._tmp.iterdir():
            leftover.unlink()


def _write_atomically(tmp: Path, path: Path, data: bytes) -> None:
    """Write `data` to a temp file in `tmp`, fsync it and rename it over `path`."""
    temp = tmp / f"record-{uuid.uuid4().hex}"
    with open(temp, "wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    os.rename(temp, path)
    fsync_directory(path.parent)

