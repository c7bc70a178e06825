"""The two network namespaces, their veth pair, addresses, link state and tc shaping.

Names end in the creating process's pid (`fbsnet-c-<pid>`, `fbsnet-s-<pid>`), so runs never
collide and `remove_stale()` can tell a crashed run's leftovers (its pid is gone) from a live one.
Private addresses exist only inside these namespaces.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from .processes import wait_for

PREFIX = "fbsnet-"
NETNS_ETC = Path("/etc/netns")
CLIENT_V4, SERVER_V4 = "10.213.7.1", "10.213.7.2"
CLIENT_V6, SERVER_V6 = "fd00::2", "fd00::1"
# Lookups give up after 1 s (glibc's default is 5 s × 2 attempts): a resolver that is down
# costs an attempt one second, not ten.
RESOLV_OPTIONS = "options timeout:1 attempts:1"


def ip(*arguments: str, netns: str | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    command = ["ip", *(["-n", netns] if netns else []), *arguments]
    result = subprocess.run(command, capture_output=True, text=True, timeout=30)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {result.stderr.strip()}")
    return result


def tc(*arguments: str, netns: str) -> None:
    command = ["tc", "-n", netns, *arguments]
    result = subprocess.run(command, capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {result.stderr.strip()}")


@dataclass
class Topology:
    """Client and server namespaces; each end of the veth pair is called `veth0` inside its own."""

    client: str
    server: str
    client_v4: str = CLIENT_V4
    server_v4: str = SERVER_V4
    client_v6: str = CLIENT_V6
    server_v6: str = SERVER_V6
    device: str = "veth0"

    @classmethod
    def for_this_process(cls) -> Topology:
        pid = os.getpid()
        return cls(client=f"{PREFIX}c-{pid}", server=f"{PREFIX}s-{pid}")

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Topology:
        return cls(**json.loads(text))

    # -- building and removing --------------------------------------------------------------
    def create(self) -> None:
        """Both namespaces, the veth pair, addresses (IPv6 without duplicate detection, so they
        work at once), loopback up, and the client's resolv.conf pointing at the server's DNS."""
        for name in (self.client, self.server):
            ip("netns", "add", name)
            ip("link", "set", "lo", "up", netns=name)
        ip("link", "add", "fbsv-c", "netns", self.client, "type", "veth", "peer", "fbsv-s", "netns", self.server)
        for name, old, v4, v6 in ((self.client, "fbsv-c", self.client_v4, self.client_v6),
                                  (self.server, "fbsv-s", self.server_v4, self.server_v6)):
            ip("link", "set", old, "name", self.device, netns=name)
            # A link taken down keeps its IPv6 addresses (Linux drops them by default).
            subprocess.run(["ip", "netns", "exec", name, "sysctl", "-qw",
                            f"net.ipv6.conf.{self.device}.keep_addr_on_down=1"], check=True, timeout=30)
            ip("addr", "add", f"{v4}/24", "dev", self.device, netns=name)
            ip("-6", "addr", "add", f"{v6}/64", "dev", self.device, "nodad", netns=name)
            ip("link", "set", self.device, "up", netns=name)
        self.wait_for_carrier()
        (NETNS_ETC / self.client).mkdir(parents=True, exist_ok=True)
        self.set_resolver_timeout(None)

    def set_resolver_timeout(self, seconds: int | None) -> None:
        """How long the client's resolver waits for an answer (one attempt); None: the lab's 1 s.
        glibc rereads resolv.conf when it changes, so running processes follow."""
        options = RESOLV_OPTIONS if seconds is None else f"options timeout:{seconds} attempts:1"
        (NETNS_ETC / self.client / "resolv.conf").write_text(f"nameserver {self.server_v4}\n{options}\n")

    def destroy(self) -> None:
        """Removes both namespaces and the resolv.conf directory. Safe to call twice."""
        for name in (self.client, self.server):
            remove(name)

    # -- knobs ------------------------------------------------------------------------------
    def set_link(self, up: bool) -> None:
        """The veth pair down (every packet lost, both ways) or up again. Taking the client's
        end down takes the pair down; routes and addresses come back with it."""
        ip("link", "set", self.device, "up" if up else "down", netns=self.client)
        if up:
            ip("link", "set", self.device, "up", netns=self.server)
            self.wait_for_carrier()

    def wait_for_carrier(self) -> None:
        """Waits until both ends are up with carrier (a moment after `ip link set up`)."""
        def operational(name: str) -> bool:
            return ip("-br", "link", "show", self.device, netns=name).stdout.split()[1] == "UP"

        wait_for(lambda: operational(self.client) and operational(self.server), 10, "the veth pair did not come up")

    def drop_ipv6_route(self, dropped: bool) -> None:
        """Makes the server's IPv6 address unreachable from the client (an `unreachable` route:
        connecting fails at once, IPv4 is untouched), or reachable again."""
        route = ("-6", "route", "del" if not dropped else "add", "unreachable", f"{self.server_v6}/128")
        ip(*route, netns=self.client, check=dropped)

    def shape(self, rate_mbit: float | None) -> None:
        """Caps both directions at `rate_mbit` with tbf (netem is not in this kernel), or removes
        the cap (None)."""
        for name in (self.client, self.server):
            if rate_mbit is None:
                subprocess.run(["tc", "-n", name, "qdisc", "del", "dev", self.device, "root"],
                               capture_output=True, timeout=30)
            else:
                # burst: at least one timer tick's worth of bytes; latency bounds the queue.
                burst = max(int(rate_mbit * 1e6 / 8 / 250), 32 * 1024)
                tc("qdisc", "replace", "dev", self.device, "root", "tbf", "rate", f"{rate_mbit}mbit",
                   "burst", str(burst), "latency", "100ms", netns=name)


def remove(name: str) -> None:
    """Kills what still runs in the namespace (a process of this lab's that outlived its test),
    then deletes it: a namespace lives on while a process is in it."""
    for pid in ip("netns", "pids", name, check=False).stdout.split():
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)
    ip("netns", "del", name, check=False)
    shutil.rmtree(NETNS_ETC / name, ignore_errors=True)


def remove_stale() -> list[str]:
    """Removes the namespaces of earlier runs whose process is gone (a crashed run); their names."""
    removed = []
    listing = ip("netns", "list", check=False).stdout
    for name in re.findall(rf"^({re.escape(PREFIX)}[cs]-(\d+))", listing, re.MULTILINE):
        if not process_alive(int(name[1])):
            remove(name[0])
            removed.append(name[0])
    return removed


def process_alive(pid: int) -> bool:
    """False for a process that is gone or a zombie (killed, not yet reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def namespaces_permitted() -> str | None:
    """None when this process may create network namespaces, else why not."""
    if not shutil.which("ip"):
        return "the ip command (iproute2) is missing"
    probe = f"{PREFIX}probe-{os.getpid()}"
    result = ip("netns", "add", probe, check=False)
    if result.returncode != 0:
        return f"network namespaces are not permitted here (ip netns add: {result.stderr.strip()})"
    remove(probe)
    return None
