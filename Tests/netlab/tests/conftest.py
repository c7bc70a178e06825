"""The test network's fixtures: one lab per session (dnsmasq, the emulator over https, the
relay), put back in order after every test (link up, no cap, DNS answering, emulator up)."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import fbstorage  # noqa: E402
from netlab.dns import STORAGE_HOST, Dnsmasq  # noqa: E402
from netlab.emulator import PORT, NetworkEmulator  # noqa: E402
from netlab.namespaces import Topology  # noqa: E402
from netlab.relay import RELAY_PORT, Relay  # noqa: E402

BUCKET = "netlab-bucket"
MIB = 1 << 20


def pytest_configure(config: pytest.Config) -> None:
    # `timeout` and CI stop with SIGTERM: unwind like Ctrl-C so that fixtures stop what they started.
    signal.signal(signal.SIGTERM, signal.default_int_handler)


@dataclass
class Lab:
    topology: Topology
    dns: Dnsmasq
    emulator: NetworkEmulator
    relay: Relay

    def storage(self, host: str = STORAGE_HOST, port: int = PORT, **settings: float) -> fbstorage.Storage:
        """A Storage on the emulator at `host` (a name or an address) over https; `settings`
        sets attributes (max_operation_retry_time=..., connect_timeout=...)."""
        storage = fbstorage.Storage(BUCKET)
        host_part = f"[{host}]" if ":" in host else host
        storage.use_endpoint(f"https://{host_part}:{port}")
        storage.ca_file = str(self.emulator.ca_file)
        for name, value in settings.items():
            setattr(storage, name, value)
        return storage

    def relayed_storage(self, **settings: float) -> fbstorage.Storage:
        return self.storage(STORAGE_HOST, RELAY_PORT, **settings)

    def server_peers(self, port: int = PORT) -> set[str]:
        """The client addresses of the connections established to `port` in the server namespace."""
        return {line.split()[-1].rpartition(":")[0].strip("[]") for line in self._ss("-Htn", port).splitlines()}

    def server_connections(self, port: int = PORT) -> int:
        """How many connections to `port` are established in the server namespace."""
        return len(self._ss("-Htn", port).splitlines())

    def close_connections(self, port: int = PORT) -> None:
        """Closes (ss -K) the server's end of every connection to `port`: the client's pool starts afresh."""
        self._ss("-HtnK", port)

    def _ss(self, options: str, port: int) -> str:
        return subprocess.run(["ip", "netns", "exec", self.topology.server, "ss", options, "state", "established",
                               f"( sport = :{port} )"], capture_output=True, text=True, check=True, timeout=30).stdout

    def restore(self) -> None:
        """Every knob back to normal, whatever a test left turned."""
        self.topology.set_link(True)
        self.topology.drop_ipv6_route(False)
        self.topology.shape(None)
        self.topology.set_resolver_timeout(None)
        if self.dns.process is None or not self.dns.names:
            self.dns.start()
        else:
            self.dns.resume()
        if self.emulator.process is None:
            self.emulator.start()
        self.relay.delay(0)


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    description = os.environ.get("FBSTORAGE_NETLAB")
    if not description:
        pytest.fail("the test network's tests run inside it: python Tests/netlab/run.py (make test-netlab)")
    topology = Topology.from_json(description)
    lab = Lab(topology, Dnsmasq(topology), NetworkEmulator(topology, tmp_path_factory.mktemp("netlab")),
              Relay(topology))
    try:
        lab.dns.start()
        lab.emulator.start()
        lab.relay.start()
        yield lab
    finally:
        lab.relay.stop()
        lab.emulator.stop()
        lab.dns.stop()


@pytest.fixture
def network(lab: Lab) -> Iterator[Lab]:
    """The lab, in order, its emulator emptied; put back in order afterwards. The connections
    close before the reset: a request of an earlier test whose client vanished while the link
    was down waits for bytes that never come, and would land in this test's log when killed."""
    lab.restore()
    lab.close_connections()
    lab.emulator.control.reset()
    yield lab
    lab.restore()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
