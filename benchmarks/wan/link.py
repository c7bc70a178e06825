"""The WAN-shaped link, built from the test network (Tests/netlab): client and server
namespaces, dnsmasq for the .test names, the emulator over https, Debian's nginx as an HTTP/2
front before it, and relays (Tests/support/fault_proxy.py) adding the one-way delay: one before
the front for Storage, one before the emulator's plain-http Auth port. tc tbf caps the veth pair.
Every tool measured goes the same way: DNS name -> tbf -> relay (delay) -> nginx -> emulator.

The link's figures are measured, not assumed: `rtt_ms` (a request nginx answers itself, on a
kept-alive connection) and `link_mibps` (one download of a file nginx serves).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
from pathlib import Path

from .namespace import namespaces
from netlab.dns import AUTH_HOST, STORAGE_HOST, Dnsmasq  # noqa: E402
from netlab.emulator import AUTH_PORT, NetworkEmulator  # noqa: E402
from netlab.http2_front import FRONT_PORT, Http2Front  # noqa: E402
from netlab.relay import RELAY_PORT, Relay  # noqa: E402

CLIENTS = Path(__file__).resolve().parents[1] / "clients"
AUTH_RELAY_PORT = 9100
#: The buckets the GCS API peers write to exist from the start (the production flavor answers
#: 404 for a bucket never made).
BUCKET = "wan-bench"


class WanLink:
    """Runs in the client namespace (`main.py` enters it): every client it starts is on the link."""

    def __init__(self, topology: namespaces.Topology, directory: Path, rate_mbit: float, one_way_delay_ms: float,
                 python: str) -> None:
        self.rate_mbit = rate_mbit
        self.delay_ms = one_way_delay_ms
        self.topology = topology
        self.dns = Dnsmasq(self.topology)
        self.emulator = NetworkEmulator(self.topology, directory, python, flags=("--bucket", BUCKET))
        self.front = Http2Front(self.topology, self.emulator, directory, public_port=RELAY_PORT)
        self.relay = Relay(self.topology, python, port=RELAY_PORT, upstream_port=FRONT_PORT)
        self.auth_relay = Relay(self.topology, python, port=AUTH_RELAY_PORT, upstream_port=AUTH_PORT)
        self.ca_file = str(self.emulator.ca_file)
        self.endpoint = f"https://{STORAGE_HOST}:{RELAY_PORT}"
        self.auth_address = (AUTH_HOST, AUTH_RELAY_PORT)

    def __enter__(self) -> WanLink:
        try:
            self.dns.start()
            self.emulator.start()
            self.front.start()
            for relay in (self.relay, self.auth_relay):
                relay.start()
                relay.delay(self.delay_ms)
            self.topology.shape(self.rate_mbit)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        for part in (self.auth_relay, self.relay, self.front, self.emulator, self.dns):
            part.stop()

    # -- running clients on the link ------------------------------------------------------------
    def server_argv(self, argv: list[object]) -> list[str]:
        """argv run in the server namespace: set-up traffic straight to the emulator, off the link."""
        return ["ip", "netns", "exec", self.topology.server, *map(str, argv)]

    def environment(self) -> dict[str, str]:
        """What every client gets: the link's CA trusted by OpenSSL (SSL_CERT_FILE: libcurl
        through fbstorage, Python's ssl, aiohttp, Go: rclone), requests (REQUESTS_CA_BUNDLE) and curl."""
        return dict(os.environ, SSL_CERT_FILE=self.ca_file, REQUESTS_CA_BUNDLE=self.ca_file,
                    CURL_CA_BUNDLE=self.ca_file)

    @property
    def direct_endpoint(self) -> str:
        """The emulator itself from the server namespace (loopback, no front, no delay)."""
        return self.emulator.url("127.0.0.1")

    def server_cpu_seconds(self) -> float:
        """CPU time used so far by the server side: the emulator, nginx (master and workers) and
        the Storage relay; over a run's wall time, how busy the far end was (these 2 cores are
        shared with the clients)."""
        parents = {part.process.pid for part in (self.emulator, self.front, self.relay) if part.process}
        ticks = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rpartition(")")[2].split()
            except OSError:  # a process that just ended
                continue
            if int(stat.parent.name) in parents or int(fields[1]) in parents:  # itself, or its child
                ticks += int(fields[11]) + int(fields[12])  # utime, stime
        return ticks / os.sysconf("SC_CLK_TCK")

    # -- the link's figures ----------------------------------------------------------------------
    def measure(self, python: str) -> dict:
        def probe(*arguments: object) -> dict:
            done = subprocess.run([python, str(CLIENTS / "link_probe.py"), *map(str, arguments)],
                                  capture_output=True, text=True, timeout=300, check=True)
            return json.loads(done.stdout)

        samples = probe("rtt", STORAGE_HOST, RELAY_PORT, self.ca_file, 20)["rtt_ms"]
        download = probe("download", STORAGE_HOST, RELAY_PORT, self.ca_file)
        return {"rtt_ms": round(statistics.median(samples), 2), "rtt_min_ms": round(min(samples), 2),
                "link_mibps": round(download["bytes"] / download["seconds"] / (1 << 20), 2),
                "link_nominal": f"{self.rate_mbit:g} Mbit/s tbf, {self.delay_ms:g} ms each way (relay)"}
