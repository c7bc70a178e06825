"""Fixtures of the binding's tests: the bundled emulator in both flavors, storages on it."""

from __future__ import annotations

import os
import time
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterator

import pytest

import fbstorage

if TYPE_CHECKING:
    from fbstorage.testing import EmulatorServer

# Imported by pytest itself (not above) so that its asserts are rewritten.
pytest_plugins = ["fbstorage.testing"]

FLAVORS = ("production", "firebase-tools")
#: The smallest chunk size the library accepts; uploads above it are resumable.
SMALL_CHUNK = 256 * 1024


@pytest.fixture(scope="session", params=FLAVORS)
def emulator(request: pytest.FixtureRequest) -> Iterator[EmulatorServer]:
    """The bundled emulator, once per flavor: every test using it runs against both."""
    from fbstorage.testing import run_emulator

    with run_emulator(request.param) as server:
        yield server


@pytest.fixture(autouse=True)
def rules_of_one_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """Rules a test sets with emulator.set_rules() are its own: the startup rules come back after it."""
    emulator = request.getfixturevalue("emulator") if "emulator" in request.fixturenames else None
    yield
    from fbstorage.testing import EmulatorServer

    if isinstance(emulator, EmulatorServer):  # the UI tests' emulator fixture is another kind
        emulator.reset(keep_rules=False)


@pytest.fixture
def storage(emulator: EmulatorServer) -> Iterator[fbstorage.Storage]:
    """A Storage for "test-bucket" on the emulator, reset first; closed after the test."""
    emulator.reset()
    with emulator.storage() as opened:
        yield opened


@pytest.fixture
def offline_storage() -> Iterator[fbstorage.Storage]:
    """A Storage that sends nothing (for paths, references and argument checks)."""
    with fbstorage.Storage("test-bucket") as opened:
        yield opened


def payload(size: int) -> bytes:
    """``size`` random bytes."""
    return os.urandom(size)


def header(entry: dict[str, Any], name: str) -> str | None:
    """A header of a request recorded by the emulator, by case-insensitive name."""
    for key, value in entry["headers"].items():
        if key.lower() == name.lower():
            return str(value)
    return None


def upload_chunk_requests(emulator: EmulatorServer) -> list[dict[str, Any]]:
    """The recorded resumable-upload requests that carried bytes (command upload)."""
    return [
        entry
        for entry in emulator.requests()
        if "upload" in (header(entry, "X-Goog-Upload-Command") or "").split(", ")
    ]


class EventRecorder:
    """An observer that records snapshots and lets a test wait for a status."""

    def __init__(self) -> None:
        self.snapshots: list[fbstorage.TaskSnapshot] = []
        self._condition = threading.Condition()

    def __call__(self, snapshot: fbstorage.TaskSnapshot) -> None:
        with self._condition:
            self.snapshots.append(snapshot)
            self._condition.notify_all()

    @property
    def statuses(self) -> list[fbstorage.TaskStatus]:
        return [snapshot.status for snapshot in self.snapshots]

    def wait_for(self, status: fbstorage.TaskStatus, timeout: float = 30) -> fbstorage.TaskSnapshot:
        with self._condition:
            found = self._condition.wait_for(
                lambda: any(s.status == status for s in self.snapshots), timeout
            )
        assert found, f"no {status.name} event within {timeout} s; saw {self.statuses}"
        return next(s for s in self.snapshots if s.status == status)

    def observe_all(self, task: fbstorage.StorageTask) -> None:
        for status in list(fbstorage.TaskStatus)[1:]:
            task.observe(status, self)


def slow_chunks(emulator: EmulatorServer, delay_ms: int = 150, times: int = 100) -> None:
    """Delays every resumable chunk request, so a test can act while an upload runs."""
    emulator.add_fault(
        {"match": {"header": {"X-Goog-Upload-Command": "upload"}}, "times": times,
         "action": {"delay_ms": delay_ms}}
    )


def eventually(condition: Callable[[], bool], timeout: float = 10) -> bool:
    """Polls ``condition`` until it is true or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()
