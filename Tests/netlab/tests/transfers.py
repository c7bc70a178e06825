"""What the network tests check about transfers: the bytes, and the requests the emulator saw."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Any

import fbstorage
from fbstorage.testing import EmulatorServer

MIB = 1 << 20


def random_file(path: Path, size: int) -> str:
    """Writes `size` random bytes to `path`; their SHA-256."""
    digest = hashlib.sha256()
    with path.open("wb") as file:
        for offset in range(0, size, 8 * MIB):
            block = os.urandom(min(8 * MIB, size - offset))
            digest.update(block)
            file.write(block)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(8 * MIB):
            digest.update(block)
    return digest.hexdigest()


def header(entry: dict[str, Any], name: str) -> str | None:
    for key, value in entry["headers"].items():
        if key.lower() == name.lower():
            return str(value)
    return None


def chunk_offsets(emulator: EmulatorServer) -> list[int]:
    """The X-Goog-Upload-Offset of every resumable-upload request that carried bytes, in order."""
    return [int(header(entry, "X-Goog-Upload-Offset") or 0) for entry in emulator.requests()
            if "upload" in (header(entry, "X-Goog-Upload-Command") or "").split(", ")]


def download_ranges(emulator: EmulatorServer, name: str) -> list[str | None]:
    """The Range header of every media GET of object `name` (None: the whole object)."""
    return [header(entry, "Range") for entry in emulator.requests()
            if entry["method"] == "GET" and "alt=media" in entry["query"] and name.replace("/", "%2F") in entry["path"]]


def range_starts(ranges: list[str | None]) -> list[int]:
    return [0 if value is None else int(value.removeprefix("bytes=").split("-")[0]) for value in ranges]


def when_transferred(task: fbstorage.StorageTask, size: int) -> threading.Event:
    """An event set once the task has moved `size` bytes."""
    reached = threading.Event()

    def progress(snapshot: fbstorage.TaskSnapshot) -> None:
        if snapshot.bytes_transferred >= size:
            reached.set()

    task.observe(fbstorage.TaskStatus.PROGRESS, progress)
    return reached
