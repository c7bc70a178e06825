"""The pytest plugin fbstorage.testing: its fixtures, as a user's test suite sees them."""

from __future__ import annotations

import fbstorage
from fbstorage.testing import TEST_BUCKET, EmulatorServer


def test_emulator_fixture(fbstorage_emulator: EmulatorServer) -> None:
    assert fbstorage_emulator.host == "127.0.0.1"
    assert 0 < fbstorage_emulator.port < 65536
    assert fbstorage_emulator.url == f"http://127.0.0.1:{fbstorage_emulator.port}"
    assert fbstorage_emulator.flavor == "production"


def test_storage_fixture_is_ready(fbstorage_storage: fbstorage.Storage) -> None:
    assert fbstorage_storage.bucket == TEST_BUCKET
    ref = fbstorage_storage.reference("plugin/object")
    ref.put_data(b"from the plugin").wait()
    assert ref.get_data() == b"from the plugin"


def test_storage_fixture_starts_from_an_empty_bucket(fbstorage_storage: fbstorage.Storage) -> None:
    assert fbstorage_storage.reference().list_all().prefixes == []


def test_reset_forgets_objects_and_requests(fbstorage_emulator: EmulatorServer, fbstorage_storage: fbstorage.Storage) -> None:
    fbstorage_storage.reference("x").put_data(b"x").wait()
    assert fbstorage_emulator.requests()
    fbstorage_emulator.reset()
    assert fbstorage_emulator.requests() == []
    assert fbstorage_storage.reference().list_all().items == []
