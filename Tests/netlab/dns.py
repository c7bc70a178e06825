"""dnsmasq in the server namespace: the test names, and the DNS faults.

Run by hand, never as a service: `--no-resolv --no-hosts --conf-file=/dev/null`, no upstream, no
pid file, in the foreground. `.test` is local: a name not configured gets NXDOMAIN (the misspelled
host), not a forwarding failure.

Faults: `stop()` (DNS down: queries go unanswered; the client's resolv.conf gives up after 1 s),
`pause()` (SIGSTOP: a resolver that answers nothing, slowly), `resume()`, `start()`, and
`start(names=False)`: a resolver that answers NXDOMAIN for every test name.
"""

from __future__ import annotations

import signal
import socket
import struct

from .namespaces import Topology
from .processes import NamespaceProcess, wait_for

STORAGE_HOST = "firebasestorage.test"
AUTH_HOST = "identitytoolkit.test"
IPV6_ONLY_HOST = "v6.firebasestorage.test"
IPV4_ONLY_HOST = "v4.firebasestorage.test"


class Dnsmasq:
    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self.process: NamespaceProcess | None = None
        self.names = True

    def arguments(self, names: bool = True) -> list[str]:
        t = self.topology
        records = [
            f"--host-record={STORAGE_HOST},{t.server_v4},{t.server_v6}",
            f"--host-record={AUTH_HOST},{t.server_v4},{t.server_v6}",
            f"--host-record={IPV6_ONLY_HOST},{t.server_v6}",
            f"--host-record={IPV4_ONLY_HOST},{t.server_v4}",
        ]
        return [
            "dnsmasq", "--keep-in-foreground", "--no-resolv", "--no-hosts", "--conf-file=/dev/null",
            "--pid-file=", "--user=root", "--bind-interfaces", f"--listen-address={t.server_v4}",
            "--local=/test/", "--no-negcache", "--log-facility=-",
            *(records if names else []),
        ]

    def start(self, names: bool = True) -> None:
        """Starts dnsmasq (stopping a running one), answering the test names, or (names=False)
        NXDOMAIN for all of them."""
        self.stop()
        self.names = names
        self.process = NamespaceProcess(self.topology.server, self.arguments(names))
        wait_for(lambda: self.answers(names), 10, "dnsmasq did not answer")

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None

    def pause(self) -> None:
        assert self.process is not None
        self.process.signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.signal(signal.SIGCONT)

    def answers(self, with_address: bool = True) -> bool:
        """True when dnsmasq answers an A query for the storage host (asked over UDP directly),
        with an address (or, with_address=False, any answer)."""
        if self.process is not None and self.process.process.poll() is not None:
            raise RuntimeError(f"dnsmasq exited: {self.process.error_output()}")
        query = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0)
        query += b"".join(bytes([len(part)]) + part.encode() for part in STORAGE_HOST.split(".")) + b"\0"
        query += struct.pack(">HH", 1, 1)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            udp.settimeout(0.5)
            try:
                udp.sendto(query, (self.topology.server_v4, 53))
                answer = udp.recv(512)
            except OSError:
                return False
        return answer[:2] == b"\x12\x34" and (struct.unpack(">H", answer[6:8])[0] > 0 or not with_address)
