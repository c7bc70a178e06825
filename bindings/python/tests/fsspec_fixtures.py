"""Fixtures of the fsspec tests: a FirebaseStorageFileSystem on the bundled emulator.

Imported by the test modules (``from fsspec_fixtures import firebase_fs``), so that pytest
finds the fixtures there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

import fsspec
import pytest

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
