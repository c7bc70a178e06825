"""The bundled emulator, started once per benchmark run on a free port.

Memory-only (no --data-dir). Objects over 1 MiB live in its temp dir, which we put on tmpfs
when there is one, so that 1 GiB uploads measure the client and the server rather than disk
writeback. reset() deletes every object between runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import urllib.request

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class Emulator:
    def __init__(self, python: str, pythonpath: str, tmpdir: str) -> None:
        self.python = python  # the test venv: it also runs the clients that need google-cloud-storage
        env = dict(os.environ, PYTHONPATH=pythonpath, TMPDIR=tmpdir)
        # stdin stays open: the emulator stops when it closes, so it cannot outlive us.
        self._proc = subprocess.Popen(
            [python, "-m", "fbstorage.emulator", "--host", "127.0.0.1", "--port", "0",
             "--stop-on-stdin-eof"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
        line = self._proc.stdout.readline()
        if not line.startswith("READY http://"):
            self.stop()
            raise RuntimeError(f"the emulator did not start: {line!r}")
        self.address = line.split("http://", 1)[1].strip()   # host:port

    @property
    def url(self) -> str:
        return f"http://{self.address}"

    def reset(self) -> None:
        request = urllib.request.Request(f"{self.url}/_emulator/reset", method="POST")
        with urllib.request.urlopen(request) as reply:
            json.load(reply)

    def cpu_seconds(self) -> float:
        """User + sys time the emulator has used so far: shows when it is the bottleneck."""
        with open(f"/proc/{self._proc.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS

    def rss_mib(self) -> float:
        """The emulator's resident memory now."""
        with open(f"/proc/{self._proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS in /proc status")

    def stop(self) -> None:
        # Closing stdin is its clean stop (SIGTERM can race its stdin-watching thread at exit).
        self._proc.stdin.close()
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.terminate()
            self._proc.wait(timeout=30)

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
