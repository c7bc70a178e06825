"""DNS down, a name that does not exist, a resolver that does not answer."""

from __future__ import annotations

import concurrent.futures
import os
import threading
import time
from pathlib import Path

import pytest

import fbstorage
from conftest import Lab
from transfers import MIB, chunk_offsets, download_ranges, random_file, range_starts, when_transferred

OUTAGE = 10.0


def test_a_storage_whose_first_lookup_failed_serves_20_uploads(network: Lab) -> None:
    """The reproduction of issue 37: a failed lookup once poisoned the pooled handle for good."""
    network.dns.stop()
    with network.storage(max_operation_retry_time=3, max_upload_retry_time=3) as storage:
        first = storage.reference("dns/first.bin").put_data(b"while DNS is down")
        with pytest.raises(fbstorage.StorageError) as failure:
            first.wait(30)
        assert failure.value.code == fbstorage.StorageErrorCode.RETRY_LIMIT_EXCEEDED, failure.value
        network.dns.start()
        for number in range(20):
            data = os.urandom(1000 + number)
            reference = storage.reference(f"dns/after-{number}.bin")
            reference.put_data(data).wait(30)
            assert reference.get_data() == data


def test_dns_down_10_s_during_upload_download_list(network: Lab, tmp_path: Path) -> None:
    """Started while DNS is down (a fresh storage has no cached answer), then DNS down with the
    connections reset mid-transfer: everything finishes once DNS is back, nothing restarts
    from byte 0, no error; then the same storage serves 100 more operations."""
    source, existing = tmp_path / "source.bin", tmp_path / "existing.bin"
    random_file(source, 24 * MIB)
    existing_data = os.urandom(24 * MIB)
    existing.write_bytes(existing_data)
    with network.storage() as seeding:
        seeding.reference("dns/existing.bin").put_data(existing_data).wait(60)
        seeding.reference("dns/listed/a").put_data(b"a").wait(30)
    network.emulator.control.clear_requests()

    network.dns.stop()
    started = time.monotonic()
    with network.relayed_storage() as storage, concurrent.futures.ThreadPoolExecutor(2) as pool:
        storage.upload_chunk_size = 8 * MIB
        upload = storage.reference("dns/uploaded.bin").put_file(source)
        download = storage.reference("dns/existing.bin").write_to_file(tmp_path / "downloaded.bin")
        listing = pool.submit(lambda: [item.name for item in storage.reference("dns/listed").list_all().items])
        time.sleep(OUTAGE)  # the outage itself
        assert not listing.done() and upload.snapshot.bytes_transferred == 0
        network.dns.start()
        assert listing.result(60) == ["a"]
        upload.wait(60)
        download.wait(60)
        first_round = time.monotonic() - started

        # Mid-transfer: DNS goes down and every connection is reset.
        network.emulator.control.clear_requests()
        network.topology.shape(100)
        upload = storage.reference("dns/uploaded-again.bin").put_file(source)
        download = storage.reference("dns/existing.bin").write_to_file(tmp_path / "downloaded-again.bin")
        for task in (upload, download):
            assert when_transferred(task, 4 * MIB).wait(60)
        network.dns.stop()
        network.relay.reset()
        restarted = threading.Timer(OUTAGE, network.dns.start)
        restarted.start()
        upload.wait(90)
        download.wait(90)
        restarted.join()
        network.topology.shape(None)
        offsets = chunk_offsets(network.emulator.control)
        starts = range_starts(download_ranges(network.emulator.control, "dns/existing.bin"))
        assert offsets.count(0) == 1, f"the upload restarted from byte 0: {offsets}"
        assert starts[0] == 0 and all(start > 0 for start in starts[1:]), f"the download restarted: {starts}"
        for name in ("downloaded.bin", "downloaded-again.bin"):
            assert (tmp_path / name).read_bytes() == existing_data
        for name in ("dns/uploaded.bin", "dns/uploaded-again.bin"):
            assert storage.reference(name).get_data() == source.read_bytes()

        operations = 0
        for number in range(25):
            reference = storage.reference(f"dns/more/{number}")
            reference.put_data(b"x" * number).wait(30)
            assert reference.get_data() == b"x" * number
            assert reference.get_metadata().size == number
            assert len(storage.reference("dns/more").list(max_results=1000).items) == number + 1
            operations += 4
    print(f"\nDNS down {OUTAGE:.0f} s before the first request: upload, download and list done "
          f"{first_round - OUTAGE:.1f} s after it came back; mid-transfer: chunk offsets "
          f"{[round(o / MIB, 1) for o in offsets]} MiB, range starts {[round(s / MIB, 1) for s in starts]} MiB; "
          f"then {operations} operations")
    # Backoff doubles from 0.5 s to 8 s by the outage's end: an attempt comes within one delay.
    assert first_round < OUTAGE + 20


def test_nxdomain_fails_fast_with_its_own_error(network: Lab) -> None:
    with network.storage("firebasestorag.test") as storage:  # misspelled: the name does not exist
        for attempt in (lambda: storage.reference("x").put_data(b"x").wait(30),
                        lambda: storage.reference("x").get_metadata(),
                        lambda: storage.reference("").list_all()):
            started = time.monotonic()
            with pytest.raises(fbstorage.StorageError) as failure:
                attempt()
            failed_after = time.monotonic() - started
            assert failure.value.code == fbstorage.StorageErrorCode.HOST_NOT_FOUND, failure.value
            assert "firebasestorag.test" in str(failure.value)
            assert failed_after < 5, f"NXDOMAIN took {failed_after:.1f} s to fail"
    print(f"\nNXDOMAIN: {failure.value} (after {failed_after:.2f} s)")


def test_a_slow_resolver_is_bounded_by_the_connect_timeout(network: Lab) -> None:
    """A resolver that would take 30 s to give up: each attempt ends at the 2 s connect timeout
    and the operation fails at its 6 s deadline, not after the resolver's 30 s (libcurl's lookup
    thread is left to finish on its own instead of being waited for by the transfer thread), and
    the storage closes at once."""
    network.dns.pause()
    network.topology.set_resolver_timeout(30)
    deadline = 6.0
    started = time.monotonic()
    with network.storage(connect_timeout=2, max_operation_retry_time=deadline) as storage:
        with pytest.raises(fbstorage.StorageError) as failure:
            storage.reference("x").get_metadata()
        failed_after = time.monotonic() - started
    closed_after = time.monotonic() - started
    print(f"\nresolver slow (30 s), connect timeout 2 s, deadline {deadline:.0f} s: failed after "
          f"{failed_after:.1f} s, closed after {closed_after:.1f} s: {failure.value}")
    assert failure.value.code == fbstorage.StorageErrorCode.RETRY_LIMIT_EXCEEDED, failure.value
    assert "resolving timed out" in str(failure.value).lower()
    assert deadline - 1 < failed_after < deadline + 4
    assert closed_after < failed_after + 2


def test_a_resolver_that_does_not_answer_fails_at_the_deadline(network: Lab) -> None:
    """dnsmasq stopped with SIGSTOP: every lookup goes unanswered (1 s each, the lab's
    resolv.conf); the operation fails at its deadline with the lookup's error, not later."""
    network.dns.pause()
    deadline = 6.0
    with network.storage(connect_timeout=2, max_operation_retry_time=deadline) as storage:
        started = time.monotonic()
        with pytest.raises(fbstorage.StorageError) as failure:
            storage.reference("x").get_metadata()
        failed_after = time.monotonic() - started
    print(f"\nresolver silent, deadline {deadline:.0f} s: failed after {failed_after:.1f} s: {failure.value}")
    assert failure.value.code == fbstorage.StorageErrorCode.RETRY_LIMIT_EXCEEDED, failure.value
    assert "resolv" in str(failure.value).lower()
    assert deadline - 1 < failed_after < deadline + 3
