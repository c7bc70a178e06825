"""Import and export in firebase-tools' on-disk format (`--import`, `--export-on-exit`, export routes).

Layout, as firebase-tools writes and reads it (firebase/firebase-tools, src/emulator/hubExport.ts,
src/emulator/storage/files.ts `export`/`import`, src/emulator/storage/metadata.ts
`StoredFileMetadata.toJSON`/`fromJSON`, read at commit a786bda73b48196fce1df22fe2b1cbc9e463b2d0):

    DIR/firebase-export-metadata.json   {"version": V, "storage": {"version": V, "path": "storage_export"}, …}
    DIR/storage_export/buckets.json     {"buckets": [{"id": BUCKET}, …]}
    DIR/storage_export/blobs/<KEY>      an object's bytes
    DIR/storage_export/metadata/<KEY>.json  its StoredFileMetadata: name, bucket, generation and
                                        metageneration (numbers), contentType, storageClass, the
                                        other writable fields, downloadTokens (a list), etag,
                                        customMetadata (a map), timeCreated and updated (ISO
                                        8601), size (a number), md5Hash (base64), crc32c (decimal)

KEY is a UUID in current firebase-tools and `bucket/object/path` in older ones: a metadata file's
path under metadata/, less `.json`, is its blob's path under blobs/. Other emulators' entries of an
existing export directory (firestore_export, auth_export, …) are kept when this one re-exports it.

An export replaces only a previous export (or an empty directory), in one step; an import reads
nothing outside its directory.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import signal
import tempfile
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable

from .buckets import bucket_name_characters_allowed
from .directory_swap import replace_directory
from .errors import ApiError
from .json_input import load_json_file
from .metadata import (DEFAULT_CONTENT_TYPE, TOKENS_KEY, WRITABLE_FIELDS, ObjectMetadata, check_bounds, now_us,
                       rfc3339)
from .names import production_name_refusal
from .store import ObjectStore

METADATA_FILE = "firebase-export-metadata.json"
STORAGE_FOLDER = "storage_export"
BUCKETS_FILE = "buckets.json"  # in the storage folder
STAGING_MARKER = ".fbstorage-emulator-export"  # in every directory an export of ours writes
KILL_AT_STEP_ENV = "FBSTORAGE_EMULATOR_TEST_KILL_EXPORT_AT"  # tests only: see _crash_point
EXPORT_VERSION = "fbstorage-emulator"  # firebase-tools writes its CLI version; nothing reads it
COPY_PIECE = 1 << 20
_OPTIONAL_FIELDS = {key: attribute for key, attribute in WRITABLE_FIELDS.items() if key != "contentType"}
log = logging.getLogger(__name__)


class MalformedImport(ValueError):
    """A malformed import directory; the message names the file."""


class ExportRefused(ValueError):
    """The export's target holds files that are not an export."""


# Export.

async def export_all(store: ObjectStore, directory: str | os.PathLike) -> None:
    """Write a whole firebase-tools export to `directory` (in place of a previous one, see
    `_replace_export`)."""
    target = Path(directory).resolve()

    async def write(staging: Path) -> None:
        metadata = _carry_over_other_emulators(target, staging)
        await _write_storage(store, staging / STORAGE_FOLDER)
        metadata["version"] = metadata.get("version", EXPORT_VERSION)
        metadata["storage"] = {"version": EXPORT_VERSION, "path": STORAGE_FOLDER}
        (staging / METADATA_FILE).write_text(json.dumps(metadata, indent=2), encoding="utf-8")
    await _replace_export(target, METADATA_FILE, write)


async def export_storage(store: ObjectStore, folder: str | os.PathLike) -> None:
    """The storage export folder alone (what firebase-tools' `POST /internal/export` writes), in
    place of a previous one as `export_all`."""
    await _replace_export(Path(folder).resolve(), BUCKETS_FILE, lambda staging: _write_storage(store, staging))


def refuse_unless_export_target(target: Path, marker: str = METADATA_FILE) -> None:
    """An export may create `target`, or replace an empty directory or a previous export (it holds
    `marker` or our STAGING_MARKER); anything else is someone's files, never overwritten
    (firebase-tools asks before overwriting; a server cannot ask)."""
    if not target.exists() and not target.is_symlink():
        return
    if not target.is_dir():
        raise ExportRefused(f"{target} is not a directory: not replacing it with an export")
    if (target / marker).exists() or (target / STAGING_MARKER).exists() or not any(target.iterdir()):
        return
    raise ExportRefused(f"{target} is not empty and holds no export (no {marker}): an export goes into a new or"
                        " empty directory or over a previous export, never over other files")


async def _replace_export(target: Path, marker: str, write: Callable[[Path], Awaitable[None]]) -> None:
    """Write an export with `write` into a new sibling directory of `target`, which then takes the
    place of the old one in one step (directory_swap.py): a failed or killed export leaves the
    previous one whole at `target`."""
    refuse_unless_export_target(target, marker)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=_staging_prefix(target), dir=target.parent))
    try:
        (staging / STAGING_MARKER).touch()
        _crash_point("staged")
        await write(staging)
        _crash_point("written")
        retired = await asyncio.get_running_loop().run_in_executor(
            None, replace_directory, staging, target, _crash_point)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _crash_point("replaced")
    await asyncio.get_running_loop().run_in_executor(None, _remove_old_exports, retired, target)


def _staging_prefix(target: Path) -> str:
    return f".{target.name}.export-"


def _remove_old_exports(retired: Path | None, target: Path) -> None:
    """The export `target` held before, and the directories killed exports left beside it: ours if
    they hold STAGING_MARKER (or nothing, killed before it was written)."""
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)
    for leftover in target.parent.iterdir():
        if not leftover.name.startswith(_staging_prefix(target)) or leftover.is_symlink() or not leftover.is_dir():
            continue
        if (leftover / STAGING_MARKER).is_file():
            shutil.rmtree(leftover, ignore_errors=True)
        elif not any(leftover.iterdir()):
            leftover.rmdir()


def _crash_point(step: str) -> None:
    """Tests only: with KILL_AT_STEP_ENV naming this step, the process dies here as by a crash."""
    if os.environ.get(KILL_AT_STEP_ENV) == step:
        os.kill(os.getpid(), signal.SIGKILL)


async def _write_storage(store: ObjectStore, folder: Path) -> None:
    async with store.writes_paused():  # no commit may replace a blob while it is copied
        objects = [(stored.metadata.to_record(), stored.blob) for stored in store.objects()]
        await asyncio.get_running_loop().run_in_executor(
            None, _write_storage_folder, folder, list(store.buckets), objects)


def _write_storage_folder(folder: Path, buckets: list[str], objects: list) -> None:
    (folder / "blobs").mkdir(parents=True, exist_ok=True)
    (folder / "metadata").mkdir(parents=True, exist_ok=True)
    (folder / BUCKETS_FILE).write_text(
        json.dumps({"buckets": [{"id": bucket} for bucket in buckets]}, indent=2), encoding="utf-8")
    for record, blob in objects:
        key = str(uuid.uuid4())
        with open(folder / "blobs" / key, "wb") as file:
            for piece in blob.pieces(0, blob.size):
                file.write(piece)
        (folder / "metadata" / f"{key}.json").write_text(
            json.dumps(_firebase_tools_metadata(ObjectMetadata.from_record(record)), indent=2), encoding="utf-8")


def _firebase_tools_metadata(metadata: ObjectMetadata) -> dict[str, Any]:
    document: dict[str, Any] = {
        "name": metadata.name,
        "bucket": metadata.bucket,
        "metageneration": metadata.metageneration,
        "generation": metadata.generation,
        "contentType": metadata.content_type,
        "storageClass": "STANDARD",
    }
    for key, attribute in _OPTIONAL_FIELDS.items():
        if getattr(metadata, attribute) is not None:
            document[key] = getattr(metadata, attribute)
    document["downloadTokens"] = list(metadata.download_tokens)
    document["etag"] = metadata.etag
    if metadata.custom:
        document["customMetadata"] = dict(metadata.custom)
    document.update({
        "timeCreated": rfc3339(metadata.time_created_us),
        "updated": rfc3339(metadata.updated_us),
        "size": metadata.size,
        "md5Hash": metadata.md5_hash,
        "crc32c": str(metadata.crc32c),
    })
    if document["contentType"] is None:
        del document["contentType"]
    return document


def _carry_over_other_emulators(target: Path, staging: Path) -> dict[str, Any]:
    """Copy the other emulators' folders of an existing export into `staging`; their metadata."""
    if not (target / METADATA_FILE).is_file():
        return {}
    metadata = read_export_metadata(target)
    for entry in target.iterdir():
        if entry.name in (METADATA_FILE, STORAGE_FOLDER, STAGING_MARKER):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, staging / entry.name, symlinks=True)
        else:
            shutil.copy2(entry, staging / entry.name, follow_symlinks=False)
    metadata.pop("storage", None)
    return metadata


# Import.

def read_export_metadata(directory: Path) -> dict[str, Any]:
    path = directory / METADATA_FILE
    try:
        metadata = load_json_file(path)
    except FileNotFoundError:
        raise MalformedImport(f"{path}: no such file (not a firebase-tools export directory)") from None
    except OSError as error:
        raise MalformedImport(f"{path}: {error}") from None
    except ValueError as error:  # names the file
        raise MalformedImport(str(error)) from None
    if not isinstance(metadata, dict):
        raise MalformedImport(f"{path}: expected a JSON object")
    return metadata


async def import_all(store: ObjectStore, directory: str | os.PathLike) -> int:
    """Load a firebase-tools export directory into `store`; the number of objects loaded.
    A directory whose metadata has no "storage" entry loads nothing. Nothing outside the
    directory is read: a path or symlink leading out of it is refused, named."""
    root = Path(directory)
    if not root.is_dir():
        raise MalformedImport(f"{root}: not a directory")
    root = root.resolve()
    metadata_path = _inside(root, root / METADATA_FILE)
    storage = read_export_metadata(root).get("storage")
    if storage is None:
        return 0
    if not isinstance(storage, dict) or not isinstance(storage.get("path"), str):
        raise MalformedImport(f'{metadata_path}: "storage" must be {{"version": …, "path": FOLDER}}')
    folder = Path(storage["path"])
    if folder.is_absolute() or ".." in folder.parts:
        raise MalformedImport(f'{metadata_path}: "storage.path" {storage["path"]!r} leads outside the import'
                              " directory (it must be a folder inside it)")
    return await _import_storage(store, root, _inside(root, root / folder))


async def _import_storage(store: ObjectStore, root: Path, folder: Path) -> int:
    buckets_path = _inside(root, folder / BUCKETS_FILE)
    buckets = _read_json_file(buckets_path)
    if not (isinstance(buckets, dict) and isinstance(buckets.get("buckets"), list)
            and all(isinstance(entry, dict) and isinstance(entry.get("id"), str)
                    and bucket_name_characters_allowed(entry["id"]) for entry in buckets["buckets"])):
        raise MalformedImport(f'{buckets_path}: expected {{"buckets": [{{"id": BUCKET}}, …]}}, valid bucket names')
    for entry in buckets["buckets"]:
        store.add_bucket(entry["id"])
    metadata_dir, blobs_dir = _inside(root, folder / "metadata"), _inside(root, folder / "blobs")
    if not metadata_dir.is_dir() or not blobs_dir.is_dir():
        log.warning("%s has no metadata/ or blobs/ folder: no objects imported", folder)
        return 0
    count = 0
    for metadata_path in sorted(metadata_dir.rglob("*")):
        if _inside(root, metadata_path).is_dir() or metadata_path.suffix != ".json":
            continue
        metadata = _object_metadata(metadata_path)
        blob_path = _inside(root, blobs_dir / metadata_path.relative_to(metadata_dir).with_suffix(""))
        await _import_object(store, metadata, blob_path)
        count += 1
    return count


def _inside(root: Path, path: Path) -> Path:
    """`path`, refused if it or a symlink on its way leads out of the import directory `root`."""
    resolved = path.resolve()
    if not resolved.is_relative_to(root):
        raise MalformedImport(f"{path}: leads outside the import directory {root} (to {resolved}); not read")
    return path


async def _import_object(store: ObjectStore, metadata: ObjectMetadata, blob_path: Path) -> None:
    writer = store.new_writer()
    try:
        with open(blob_path, "rb") as file:
            while piece := file.read(COPY_PIECE):
                await writer.write(piece)
    except OSError as error:
        await writer.discard()
        raise MalformedImport(f"{blob_path}: {error.strerror or error}") from None
    digest = await writer.finish()
    if (digest.size, digest.md5_base64) != (metadata.size, metadata.md5_hash):
        log.warning("%s: size or MD5 differ from its metadata; using the blob's", blob_path)
    metadata.size, metadata.md5_hash, metadata.crc32c = digest.size, digest.md5_base64, digest.crc32c
    await store.put(writer, metadata)


def _object_metadata(path: Path) -> ObjectMetadata:
    """A StoredFileMetadata JSON file, read with firebase-tools' defaults for missing fields."""
    document = _read_json_file(path)
    if not isinstance(document, dict):
        raise MalformedImport(f"{path}: expected a JSON object")
    try:
        for key in ("name", "bucket", "md5Hash"):
            if not isinstance(document.get(key), str):
                raise ValueError(f'"{key}" must be a string')
        if not bucket_name_characters_allowed(document["bucket"]) or production_name_refusal(document["name"]):
            raise ValueError(f"no object can be named {document['bucket']!r}, {document['name']!r}")
        created = _timestamp_us(document.get("timeCreated")) or now_us()
        custom = {key: value if isinstance(value, str) else json.dumps(value)
                  for key, value in (document.get("customMetadata") or {}).items() if value is not None}
        tokens = list(dict.fromkeys([*_string_list(document.get("downloadTokens")),
                                     *[t for t in custom.pop(TOKENS_KEY, "").split(",") if t]]))
        metadata = ObjectMetadata(
            bucket=document["bucket"], name=document["name"], size=int(document["size"]),
            md5_hash=document["md5Hash"], crc32c=int(document["crc32c"]),
            generation=int(document.get("generation") or now_us()),
            metageneration=int(document.get("metageneration") or 1),
            time_created_us=created, updated_us=_timestamp_us(document.get("updated")) or created,
            download_tokens=tokens, content_type=document.get("contentType") or DEFAULT_CONTENT_TYPE,
            content_disposition=None, custom=custom)
        for key, attribute in _OPTIONAL_FIELDS.items():
            value = document.get(key)
            if value is not None and not isinstance(value, str):
                raise ValueError(f'"{key}" must be a string')
            setattr(metadata, attribute, value)
        check_bounds(metadata)
    except ApiError as error:
        raise MalformedImport(f"{path}: {error.message}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise MalformedImport(f"{path}: {error}") from None
    return metadata


def _string_list(value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError('"downloadTokens" must be a list of strings')
    return value


def _timestamp_us(value: Any) -> int | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"timestamp {value!r} is not a string")
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp()) * 1_000_000 + moment.microsecond


def _read_json_file(path: Path) -> Any:
    try:
        return load_json_file(path)
    except FileNotFoundError:
        raise MalformedImport(f"{path}: no such file") from None
    except OSError as error:
        raise MalformedImport(f"{path}: {error}") from None
    except ValueError as error:  # names the file
        raise MalformedImport(str(error)) from None
