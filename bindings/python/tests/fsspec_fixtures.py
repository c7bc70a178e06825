"""Fixtures of the fsspec tests: a FirebaseStorageFileSystem on the bundled emulator.

Imported by the test modules (``from fsspec_fixtures import firebase_fs``), so that pytest
finds the fixtures there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

import fsspec
import pytest
from conftest import header

from fbstorage.fsspec import FirebaseStorageFileSystem

if TYPE_CHECKING:
    from fbstorage.testing import EmulatorServer

BUCKET = "test-bucket"

# Installed, the wheel registers the protocol through fsspec's entry point; from a source
# tree (PYTHONPATH), there is no installed entry point to read.
if "firebase" not in fsspec.available_protocols():
    fsspec.register_implementation("firebase", FirebaseStorageFileSystem)


def emulator_filesystem(emulator: EmulatorServer, **options: object) -> FirebaseStorageFileSystem:
    """A filesystem on ``emulator``, made through fsspec's registry (not cached)."""
    filesystem = fsspec.filesystem(
        "firebase", emulator_host=f"{emulator.host}:{emulator.port}", skip_instance_cache=True, **options
    )
    assert isinstance(filesystem, FirebaseStorageFileSystem)
    return filesystem


@pytest.fixture
def firebase_fs(emulator: EmulatorServer) -> Iterator[FirebaseStorageFileSystem]:
    """A filesystem on the emulator (both flavors), which is reset first, as are the cached
    filesystems (and their listings) fsspec made from URLs in earlier tests."""
    emulator.reset()
    FirebaseStorageFileSystem.clear_instance_cache()
    yield emulator_filesystem(emulator)


def served_bytes(emulator, size: int) -> int:
    """The object bytes the recorded downloads asked for (their Range, else the whole object)."""
    total = 0
    for entry in downloads(emulator):
        first, _, last = (header(entry, "Range") or "bytes=0-").removeprefix("bytes=").partition("-")
        if not first:
            total += min(int(last), size)
        else:
            total += min(int(last) + 1 if last else size, size) - int(first)
    return total


def downloads(emulator) -> list[dict[str, Any]]:
    """The recorded requests that downloaded an object's bytes."""
    return [entry for entry in emulator.requests()
            if entry["method"] == "GET" and "alt=media" in entry["query"]]
