"""Fixtures: the emulator as a subprocess (port 0, READY line), once per flavor, reset per test."""

from __future__ import annotations

import base64
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote as url_quote

import google_crc32c
import pytest
import requests

from fbstorage.testing import mint_id_token

PYTHON_ROOT = Path(__file__).resolve().parents[2]  # bindings/python
FLAVORS = ("production", "firebase-tools")
# The shared emulators' configured buckets ("b": the v0 tests' bucket, which the GCS tests share).
GCS_BUCKETS = ("b", "demo-project.appspot.com", "other-bucket")
ADMIN = {"Authorization": "Bearer owner"}


class Emulator:
    """A running emulator process and helpers to talk to it."""

    def __init__(self, *args: str, flavor: str = "production", env: dict | None = None, preexec_fn=None):
        self.flavor = flavor
        self.production = flavor == "production"
        self._stderr = tempfile.TemporaryFile()
        env = {**os.environ, "PYTHONPATH": str(PYTHON_ROOT), **(env or {})}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "fbstorage.emulator", "--host", "127.0.0.1", "--port", "0", "--flavor", flavor,
             *args], stdout=subprocess.PIPE, stderr=self._stderr, env=env, text=True, preexec_fn=preexec_fn)
        line = self.process.stdout.readline()
        if not line.startswith("READY "):
            self.process.kill()
            raise RuntimeError(f"emulator did not start: {line!r} {self.stderr()}")
        self.base = line.split()[1]
        self.port = int(self.base.rsplit(":", 1)[1])
        self.auth_base = None  # the Auth emulator's own port
        if "--no-auth" not in args:
            line = self.process.stdout.readline()
            if not line.startswith("READY-AUTH "):
                self.process.kill()
                raise RuntimeError(f"no Auth port: {line!r} {self.stderr()}")
            self.auth_base = line.split()[1]
        self.http = requests.Session()

    # URLs and requests.

    def url(self, path: str) -> str:
        return self.base + path

    def object_url(self, name: str, bucket: str = "b") -> str:
        # Dots escaped too: HTTP clients (requests, curl) would remove a `..` path segment.
        return self.url(f"/v0/b/{bucket}/o/{url_quote(name, safe='').replace('.', '%2E')}")

    def bucket_url(self, bucket: str = "b") -> str:
        return self.url(f"/v0/b/{bucket}/o")

    def upload(self, name: str, data: bytes, content_type: str | None = None, bucket: str = "b",
               headers: dict | None = None) -> requests.Response:
        """A media upload."""
        all_headers = {"Content-Type": content_type} if content_type else {}
        all_headers.update(headers or {})
        return self.http.post(self.bucket_url(bucket), params={"name": name}, data=data, headers=all_headers)

    def upload_ok(self, name: str, data: bytes = b"data", **kwargs) -> dict:
        response = self.upload(name, data, **kwargs)
        assert response.status_code == 200, response.text
        return response.json()

    def start_resumable(self, name: str, metadata: dict | None = None, size: int | None = None,
                        headers: dict | None = None) -> requests.Response:
        all_headers = {"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
                       "Content-Type": "application/json; charset=utf-8"}
        if size is not None:
            all_headers["X-Goog-Upload-Header-Content-Length"] = str(size)
        all_headers.update(headers or {})
        return self.http.post(self.bucket_url(), params={"name": name}, json=metadata or {"name": name},
                              headers=all_headers)

    def session_url(self, name: str, metadata: dict | None = None, size: int | None = None) -> str:
        response = self.start_resumable(name, metadata, size)
        assert response.status_code == 200, response.text
        return response.headers["X-Goog-Upload-URL"]

    def chunk(self, upload_url: str, command: str, data: bytes = b"", offset: int | None = None,
              method: str = "POST") -> requests.Response:
        headers = {"X-Goog-Upload-Command": command}
        if offset is not None:
            headers["X-Goog-Upload-Offset"] = str(offset)
        return self.http.request(method, upload_url, data=data, headers=headers)

    def get_metadata(self, name: str, **kwargs) -> requests.Response:
        return self.http.get(self.object_url(name), **kwargs)

    def download(self, name: str, **kwargs) -> requests.Response:
        params = {"alt": "media", **kwargs.pop("params", {})}
        return self.http.get(self.object_url(name), params=params, **kwargs)

    def list(self, **params) -> requests.Response:
        return self.http.get(self.bucket_url(), params=params)

    # Control API.

    def id_token(self, uid: str, **claims) -> str:
        """An ID token the emulator mints (signed in the production flavor); None drops a claim."""
        return mint_id_token(self.base, uid, **claims)

    def reset(self) -> None:
        assert self.http.post(self.url("/_emulator/reset")).status_code == 200

    def add_fault(self, spec: dict) -> None:
        response = self.http.post(self.url("/_emulator/faults"), json=spec)
        assert response.status_code == 201, response.text

    def recorded(self) -> list[dict]:
        return self.http.get(self.url("/_emulator/requests")).json()["requests"]

    # Process.

    def stderr(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")

    def rss_bytes(self, field: str = "VmRSS") -> int:
        """Resident memory now, or with field="VmHWM" its peak so far."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
        raise RuntimeError(f"no {field}")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> int:
        self.http.close()
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()
        return self.process.returncode


def md5_b64(data: bytes) -> str:
    return base64.b64encode(hashlib.md5(data).digest()).decode()


def crc32c_value(data: bytes) -> int:
    return google_crc32c.value(data)


def crc32c_field(data: bytes, production: bool) -> str:
    value = crc32c_value(data)
    return base64.b64encode(value.to_bytes(4, "big")).decode() if production else str(value)


def assert_json_error(response: requests.Response, status: int) -> dict:
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["Content-Type"].startswith("application/json"), response.headers
    error = response.json()["error"]
    assert error["code"] == status and isinstance(error["message"], str) and error["message"]
    return error


def assert_error(emu: Emulator, response: requests.Response, status: int, quirk_text: str | None) -> None:
    """JSON in production; the official emulator's plain text where it sends text."""
    if emu.production or quirk_text is None:
        assert_json_error(response, status)
    else:
        assert response.status_code == status, (response.status_code, response.text)
        assert response.text == quirk_text


@pytest.fixture(scope="session", params=FLAVORS)
def shared_emulator(request):
    emulator = Emulator(*(f"--bucket={bucket}" for bucket in GCS_BUCKETS), flavor=request.param)
    yield emulator
    assert emulator.stop() == 0
    assert "Traceback" not in emulator.stderr(), emulator.stderr()


@pytest.fixture
def emu(shared_emulator) -> Emulator:
    """The flavor's emulator, freshly reset."""
    shared_emulator.reset()
    return shared_emulator


@pytest.fixture
def start_emulator():
    """Start dedicated emulators (with their own flags); all are stopped after the test."""
    started: list[Emulator] = []

    def start(*args: str, flavor: str = "production", env: dict | None = None, preexec_fn=None) -> Emulator:
        emulator = Emulator(*args, flavor=flavor, env=env, preexec_fn=preexec_fn)
        started.append(emulator)
        return emulator

    yield start
    for emulator in started:
        emulator.stop()
        assert "Traceback" not in emulator.stderr(), emulator.stderr()


def wait_until(predicate, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)


# The GCS JSON API (test_gcs_*.py): google-cloud-storage and firebase-admin pointed at the emulator.

@pytest.fixture
def gcs(emu, monkeypatch):
    """A google-cloud-storage Client for the flavor's emulator, through STORAGE_EMULATOR_HOST."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    monkeypatch.setenv("STORAGE_EMULATOR_HOST", emu.base)
    return storage.Client(project="demo-project", credentials=AnonymousCredentials())
