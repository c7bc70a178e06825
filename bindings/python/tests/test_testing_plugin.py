"""The pytest plugin fbstorage.testing: its fixtures, as a user's test suite sees them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

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


def test_reset_keeps_the_rules_set_rules_installed(fbstorage_emulator: EmulatorServer,
                                                   fbstorage_storage: fbstorage.Storage) -> None:
    ref = fbstorage_storage.reference("guarded/object")
    fbstorage_emulator.set_rules(DENY_WRITES)
    try:
        fbstorage_emulator.reset()
        with pytest.raises(fbstorage.StorageError) as denied:
            ref.put_data(b"x").wait()
        assert denied.value.code == fbstorage.StorageErrorCode.UNAUTHORIZED
    finally:
        fbstorage_emulator.reset(keep_rules=False)   # the startup rules again: everything allowed
    fbstorage_emulator.reset()
    ref.put_data(b"x").wait()


DENY_WRITES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{all=**} { allow read; allow write: if false; }
  }
}
"""

# A user's test suite: what its emulator lets it write tells which options reached the emulator.
USER_TEST = """
import fbstorage, pytest

def test_what_the_emulator_allows(fbstorage_emulator, fbstorage_storage):
    print("FLAVOR", fbstorage_emulator.flavor)
    try:
        fbstorage_storage.reference("x").put_data(b"x").wait()
        print("WRITE allowed")
    except fbstorage.StorageError as error:
        print("WRITE", error.code.name)
"""


@pytest.mark.parametrize("options, flavor, write", [
    ([], "production", "allowed"),
    (["--fbstorage-emulator-rules=deny.rules", "--fbstorage-emulator-flavor=firebase-tools"], "firebase-tools",
     "UNAUTHORIZED"),
    (["--fbstorage-emulator-config=firebase.json"], "production", "UNAUTHORIZED"),
    (["--fbstorage-emulator-args=--rules deny.rules --project demo-other"], "production", "UNAUTHORIZED"),
])
def test_the_plugin_passes_the_emulator_options(tmp_path, options, flavor, write) -> None:
    (tmp_path / "test_user.py").write_text(USER_TEST)
    (tmp_path / "deny.rules").write_text(DENY_WRITES)
    (tmp_path / "firebase.json").write_text(json.dumps({"storage": {"rules": "deny.rules"}}))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "fbstorage.testing", *options],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"FLAVOR {flavor}" in run.stdout and f"WRITE {write}" in run.stdout, run.stdout


def test_a_bad_emulator_option_fails_the_session_clearly(tmp_path) -> None:
    (tmp_path / "test_user.py").write_text(USER_TEST)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "fbstorage.testing",
                          "--fbstorage-emulator-rules=missing.rules"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert run.returncode != 0 and "did not start" in run.stdout and "missing.rules" in run.stdout, run.stdout
