"""The bundled emulator serving https in the server namespace, on every address of it.

Its certificate (made once per run, `fbstorage.emulator.tls.write_self_signed`) names the test
hosts and the server's addresses and is its own CA: the client trusts it with `ca_file`. Objects
live in a data directory, so that a server killed and started again still has every
acknowledged write.
"""

from __future__ import annotations

import ssl
import sys
from pathlib import Path

from fbstorage.emulator.tls import write_self_signed
from fbstorage.testing import EmulatorServer

from .dns import AUTH_HOST, IPV4_ONLY_HOST, IPV6_ONLY_HOST, STORAGE_HOST
from .namespaces import Topology
from .processes import NamespaceProcess, wait_for

PORT = 9443
#: Auth on its own port, plain http: the binding's Auth reaches an emulator over http only.
AUTH_PORT = 9099
#: Short-lived ID tokens, so that tests see them refreshed (the client refreshes a twelfth of
#: the lifetime before expiry).
TOKEN_LIFETIME = 12


class NetworkEmulator:
    def __init__(self, topology: Topology, directory: Path, python: str = sys.executable,
                 flags: tuple[str, ...] = ()) -> None:
        """`flags`: more of the emulator's options (the WAN benchmark's `--bucket`s)."""
        self.topology = topology
        self._flags = flags
        self.data_dir = directory / "emulator-data"
        self.ca_file = directory / "emulator-cert.pem"
        self.key_file = directory / "emulator-key.pem"
        self._python = python
        self.process: NamespaceProcess | None = None
        write_self_signed(self.ca_file, self.key_file, hosts=[
            STORAGE_HOST, AUTH_HOST, IPV6_ONLY_HOST, IPV4_ONLY_HOST, topology.server_v4, topology.server_v6])
        # Test control goes to the server's IPv4 address, straight (never through the relay).
        self.control = EmulatorServer(None, f"https://{topology.server_v4}:{PORT}", "production",  # type: ignore[arg-type]
                                      ssl_context=ssl.create_default_context(cafile=str(self.ca_file)))

    def start(self) -> None:
        """Starts it and waits until it answers (test control) from the client namespace."""
        self.process = NamespaceProcess(self.topology.server, [
            self._python, "-m", "fbstorage.emulator", "--host", "", "--port", str(PORT),
            "--tls-cert", str(self.ca_file), "--tls-key", str(self.key_file), "--data-dir", str(self.data_dir),
            "--no-ui", "--auth-port", str(AUTH_PORT), "--auth-token-lifetime", str(TOKEN_LIFETIME),
            "--stop-on-stdin-eof", *self._flags], stdin=True)
        wait_for(self._answers, 30, "the emulator did not answer")

    def _answers(self) -> bool:
        assert self.process is not None
        if self.process.process.poll() is not None:
            raise RuntimeError(f"the emulator exited: {self.process.error_output()}")
        try:
            self.control.requests()
        except OSError:
            return False
        return True

    def kill(self) -> None:
        """SIGKILL: no goodbye to any connection."""
        assert self.process is not None
        self.process.kill()
        self.process.stop()
        self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None

    def url(self, host: str) -> str:
        return f"https://[{host}]:{PORT}" if ":" in host else f"https://{host}:{PORT}"
