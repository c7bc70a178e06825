"""The bundled emulator, started once per benchmark run on a free port.

Memory-only (no --data-dir). Objects over 1 MiB live in its temp dir, which we put on tmpfs
when there is one, so that 1 GiB uploads measure the client and the server rather than disk
writeback. reset() deletes every object between runs.
"""

from __future__ import annotations

import json
import os
import urllib.request

from .server import ServerProcess

# The buckets the workloads use through the GCS API, which (production flavor) answers 404 for a
# bucket never made: the bench buckets exist from the start and after every reset.
BUCKETS = ("bench.appspot.com", "bench")


class Emulator(ServerProcess):
    def __init__(self, python: str, pythonpath: str, tmpdir: str, *flags: str) -> None:
        self.python = python  # the test venv: it also runs the clients that need google-cloud-storage
        super().__init__([python, "-m", "fbstorage.emulator", "--host", "127.0.0.1", "--port", "0",
                          "--stop-on-stdin-eof",
                          *(flag for bucket in BUCKETS for flag in ("--bucket", bucket)), *flags],
                         dict(os.environ, PYTHONPATH=pythonpath, TMPDIR=tmpdir))

    def reset(self) -> None:
        request = urllib.request.Request(f"{self.url}/_emulator/reset", method="POST")
        with urllib.request.urlopen(request) as reply:
            json.load(reply)
