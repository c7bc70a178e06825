"""fsspec's own test suite for filesystems (fsspec.tests.abstract) on the emulator."""

from __future__ import annotations

import posixpath
from typing import Callable

import fsspec.tests.abstract as abstract
import pytest
from fsspec_fixtures import BUCKET, firebase_fs  # noqa: F401 (firebase_fs is a fixture)

from fbstorage.fsspec import FirebaseStorageFileSystem


class FirebaseFixtures(abstract.AbstractFixtures):
    @pytest.fixture
    def fs(self, firebase_fs: FirebaseStorageFileSystem) -> FirebaseStorageFileSystem:
        return firebase_fs

    @pytest.fixture
    def fs_path(self) -> str:
        return f"{BUCKET}/abstract"

    @pytest.fixture
    def fs_join(self) -> Callable[..., str]:
        return posixpath.join

    @pytest.fixture
    def supports_empty_directories(self) -> bool:
        return False  # prefixes exist while an object lies below them


class TestFirebaseCopy(abstract.AbstractCopyTests, FirebaseFixtures):
    pass


class TestFirebaseGet(abstract.AbstractGetTests, FirebaseFixtures):
    pass


class TestFirebasePut(abstract.AbstractPutTests, FirebaseFixtures):
    pass


class TestFirebaseOpen(abstract.AbstractOpenTests, FirebaseFixtures):
    pass


class TestFirebasePipe(abstract.AbstractPipeTests, FirebaseFixtures):
    pass
