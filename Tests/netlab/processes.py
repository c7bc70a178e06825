"""Processes started inside a namespace, always stopped (even when a test fails)."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from typing import IO


class NamespaceProcess:
    """`ip netns exec NETNS command...`, its stderr kept in a temporary file for failure messages."""

    def __init__(self, netns: str, command: list[str], *, stdin: bool = False, stdout: bool = False,
                 env: dict[str, str] | None = None) -> None:
        self._log: IO[str] = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", netns, *command],
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE if stdout else subprocess.DEVNULL,
            stderr=self._log, text=True, env=env,
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def error_output(self) -> str:
        self._log.seek(0)
        return self._log.read()

    def signal(self, number: int) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, number)

    def stop(self, timeout: float = 10) -> None:
        """SIGCONT (a paused process cannot die of SIGTERM before it runs), SIGTERM, then SIGKILL."""
        if self.process.poll() is None:
            self.signal(signal.SIGCONT)
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self._log.close()

    def kill(self) -> None:
        """SIGKILL: the server dies without closing anything."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def wait_for(condition, timeout: float, what: str, interval: float = 0.05) -> None:
    """Polls `condition` until it is true; TimeoutError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} after {timeout} s")
        time.sleep(interval)
