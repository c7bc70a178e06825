"""One storage and one auth, in one process, through a scripted sequence of faults: mixed
work (upload, download, metadata, list, delete) never stops while the faults come and go.

The issue asks for 30 minutes of mixed work compressed into the test's budget with short
deadlines: here ~70 s, deadlines of 8 s (so that the longer outages make operations fail, as
they must: with the expected code), objects of up to 1 MiB. Every operation either succeeds or
fails with an expected code; every acknowledged upload is there at the end, byte for byte, unless
a delete that succeeded removed it; RSS and open descriptors end where they started. The server's restart is not in the sequence
(through the relay it meets a client defect: see test_server.py)."""

from __future__ import annotations

import hashlib
import os
import random
import threading
import time
from collections import Counter
from pathlib import Path

import fbstorage
from conftest import Lab
from netlab.dns import AUTH_HOST
from netlab.emulator import AUTH_PORT

DEADLINE = 8.0
EXPECTED_FAILURES = {fbstorage.StorageErrorCode.RETRY_LIMIT_EXCEEDED, fbstorage.StorageErrorCode.HOST_NOT_FOUND}
SEED = 3737
HANDSHAKE_DONE = 16 << 10  # bytes sent to the client: more than a TLS handshake's


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


class Work:
    """The mixed work, on a thread of its own, until stopped."""

    def __init__(self, storage: fbstorage.Storage) -> None:
        self.storage = storage
        self.random = random.Random(SEED)
        self.outcomes: Counter[tuple[str, str]] = Counter()
        self.unexpected: list[str] = []
        # name -> the sha256 of what the server last confirmed (None: a confirmed delete), and
        # what a failed upload or delete since may have left (None: absent).
        self.confirmed: dict[str, str | None] = {}
        self.possible: dict[str, set[str | None]] = {}
        #: The longest an operation took, in seconds.
        self.longest = 0.0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        number = 0
        while not self.stopping.is_set():
            name = f"soak/{number % 40}"
            number += 1
            data = os.urandom(self.random.choice((0, 1000, 64 << 10, 300 << 10, 1 << 20)))
            digest = hashlib.sha256(data).hexdigest()
            reference = self.storage.reference(name)
            if self.call("upload", lambda: reference.put_data(data).wait(60)):
                self.settle(name, digest)
                self.call("download", lambda: self.check(reference.get_data() == data, "download differs"))
                self.call("metadata", lambda: self.check(reference.get_metadata().size == len(data), "size differs"))
            else:
                self.possible.setdefault(name, set()).add(digest)
            self.call("list", lambda: reference.parent.list(max_results=100))
            if number % 7 == 0:
                if self.call("delete", reference.delete):
                    self.settle(name, None)
                else:
                    self.possible.setdefault(name, set()).add(None)

    def settle(self, name: str, digest: str | None) -> None:
        self.confirmed[name] = digest
        self.possible[name] = set()

    def allowed(self, name: str) -> set[str | None]:
        """What the object may hold at the end (None: absent)."""
        return {self.confirmed.get(name)} | self.possible.get(name, set())

    def call(self, operation: str, action) -> bool:
        started = time.monotonic()
        try:
            action()
        except fbstorage.StorageError as error:
            outcome = error.code.name
            if error.code not in EXPECTED_FAILURES:
                self.unexpected.append(f"{operation}: {error}")
            self.outcomes[(operation, outcome)] += 1
            return False
        finally:
            self.longest = max(self.longest, time.monotonic() - started)
        self.outcomes[(operation, "ok")] += 1
        return True

    @staticmethod
    def check(condition: bool, what: str) -> None:
        if not condition:
            raise AssertionError(what)


def test_soak_through_every_fault(network: Lab) -> None:
    lab, topology, relay, dns = network, network.topology, network.relay, network.dns
    # Each step: (what, start it, how long it lasts, end it).
    script = [
        ("DNS down 5 s", dns.stop, 5, dns.start),
        ("resolver silent 4 s", dns.pause, 4, dns.resume),
        ("NXDOMAIN 3 s", lambda: dns.start(names=False), 3, dns.start),
        ("link down 5 s", lambda: topology.set_link(False), 5, lambda: topology.set_link(True)),
        ("80 ms RTT, 20 Mbit/s", lambda: (relay.delay(40, 10), topology.shape(20)), 6,
         lambda: (relay.delay(0), topology.shape(None))),
        ("stall 3 s", lambda: relay.stall(3), 4, lambda: None),
        # Connections past their TLS handshake only: a reset during a handshake fails the request
        # with TLS, never retried (a client defect, reported; test_server.py has the details).
        ("reset", lambda: relay.reset(HANDSHAKE_DONE), 2, lambda: None),
        ("reset again", lambda: relay.reset(HANDSHAKE_DONE), 2, lambda: None),
        ("link down 12 s (beyond the deadline)", lambda: topology.set_link(False), 12,
         lambda: topology.set_link(True)),
        ("quiet", lambda: None, 4, lambda: None),
    ]
    with fbstorage.Auth("netlab-api-key", "demo-project") as auth:
        auth.use_emulator(AUTH_HOST, AUTH_PORT)
        auth.sign_in_anonymously()
        storage = lab.relayed_storage(max_operation_retry_time=DEADLINE, max_upload_retry_time=DEADLINE,
                                      max_download_retry_time=DEADLINE)
        storage.use_auth(auth)
        with storage:
            work = Work(storage)
            work.thread.start()
            time.sleep(3)  # warm up: pools, buffers and caches reach their working size
            rss_start, fds_start = rss_kib(), open_descriptors()
            for what, begin, seconds, end in script:
                begin()
                time.sleep(seconds)  # the fault's duration
                end()
            work.stopping.set()
            work.thread.join(90)
            assert not work.thread.is_alive(), "an operation did not end"
            rss_end, fds_end = rss_kib(), open_descriptors()

            # Nothing lost: each object holds what the server last confirmed, or what a failed
            # upload or delete since may have left.
            for name in sorted(set(work.confirmed) | set(work.possible)):
                try:
                    found: str | None = hashlib.sha256(storage.reference(name).get_data()).hexdigest()
                except fbstorage.StorageError as error:
                    assert error.code == fbstorage.StorageErrorCode.OBJECT_NOT_FOUND, error
                    found = None
                assert found in work.allowed(name), f"{name} holds {found}, not one of {work.allowed(name)}"
            checked = len(set(work.confirmed) | set(work.possible))

    counts = ", ".join(f"{operation} {outcome}: {count}" for (operation, outcome), count in sorted(work.outcomes.items()))
    print(f"\nsoak through {len(script)} faults: {sum(work.outcomes.values())} operations ({counts}); "
          f"{checked} objects checked; RSS {rss_start} -> {rss_end} KiB, descriptors {fds_start} -> {fds_end}")
    assert not work.unexpected, work.unexpected[:5]
    assert sum(count for (operation, outcome), count in work.outcomes.items() if outcome == "ok") > 100
    # The 12 s outage holds the operation in flight: it fails at its deadline, or waits for the
    # link (whether one fails is a matter of timing).
    assert any(outcome != "ok" for _, outcome in work.outcomes) or work.longest >= DEADLINE, \
        f"no fault made anything fail or wait (longest operation {work.longest:.1f} s): the script did nothing"
    assert fds_end <= fds_start + 4, f"descriptors grew {fds_start} -> {fds_end}"
    assert rss_end < rss_start + 40 * 1024, f"RSS grew {rss_start} -> {rss_end} KiB"
