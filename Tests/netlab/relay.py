"""The relay in the path: Tests/support/fault_proxy.py in the server namespace, listening on
the server's addresses at RELAY_PORT and passing TLS through to the emulator untouched. Its
knobs (delay and jitter, stalls, resets) are lines on its stdin, each acknowledged."""

from __future__ import annotations

import sys
from pathlib import Path

from .emulator import PORT as EMULATOR_PORT
from .namespaces import Topology
from .processes import NamespaceProcess

RELAY_PORT = 9444
FAULT_PROXY = Path(__file__).resolve().parents[1] / "support" / "fault_proxy.py"


class Relay:
    def __init__(self, topology: Topology, python: str = sys.executable, port: int = RELAY_PORT,
                 upstream_port: int = EMULATOR_PORT) -> None:
        """A relay on the server's IPv4 address at `port` to 127.0.0.1:`upstream_port` there
        (another relay: the WAN benchmark's, in front of an HTTP/2 front or the Auth port)."""
        self.topology = topology
        self._python = python
        self.port = port
        self.upstream_port = upstream_port
        self.process: NamespaceProcess | None = None

    def start(self) -> None:
        self.process = NamespaceProcess(self.topology.server, [
            self._python, str(FAULT_PROXY), "--host", self.topology.server_v4, "--port", str(self.port),
            "--upstream", f"127.0.0.1:{self.upstream_port}"], stdin=True, stdout=True)
        ready = self._line()
        if not ready.startswith("READY "):
            raise RuntimeError(f"the relay did not start ({ready!r}): {self.process.error_output()}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None

    def delay(self, milliseconds: float, jitter_milliseconds: float = 0) -> None:
        """One-way delay each direction (connections accepted afterwards)."""
        self._command(f"delay {milliseconds} {jitter_milliseconds}")

    def stall(self, seconds: float) -> None:
        self._command(f"stall {seconds}")

    def reset(self, min_bytes_down: int = 0) -> None:
        """Every open connection aborted with a TCP reset; with `min_bytes_down`, only those
        that have sent the client that much (past their TLS handshake)."""
        self._command(f"reset {min_bytes_down}")

    def _command(self, line: str) -> None:
        assert self.process is not None and self.process.process.stdin is not None
        self.process.process.stdin.write(line + "\n")
        self.process.process.stdin.flush()
        answer = self._line()
        if answer != "OK":
            raise RuntimeError(f"the relay refused {line!r}: {answer!r} {self.process.error_output()}")

    def _line(self) -> str:
        assert self.process is not None and self.process.process.stdout is not None
        return self.process.process.stdout.readline().strip()
