"""The link goes down mid-transfer (not loopback: no 2 s grace applies)."""

from __future__ import annotations

import time

import pytest

import fbstorage
from conftest import Lab
from transfers import (MIB, chunk_offsets, download_ranges, file_sha256, random_file, range_starts,
                       when_transferred)

SIZE = 64 * MIB
CHUNK = 8 * MIB
RATE_MBIT = 80  # 64 MiB take ~7 s: the outage lands mid-transfer
OUTAGE = 15.0
STALL_TIMEOUT = 60  # the default (docs/field.md)


def test_upload_and_download_continue_after_15_s_link_down(network: Lab, tmp_path) -> None:
    """Through the relay, which loses its connections while the link is down (as a NAT or a
    load balancer would): when the link returns the client's old connections are reset, and it
    must go on from what the server has, not from byte 0."""
    source, target, existing = tmp_path / "source.bin", tmp_path / "target.bin", tmp_path / "existing.bin"
    digest = random_file(source, SIZE)
    existing_digest = random_file(existing, SIZE)
    with network.relayed_storage() as storage:
        storage.upload_chunk_size = CHUNK
        storage.reference("link/existing.bin").put_file(existing).wait(60)
        network.emulator.control.clear_requests()
        network.topology.shape(RATE_MBIT)
        upload = storage.reference("link/object.bin").put_file(source)
        download = storage.reference("link/existing.bin").write_to_file(target)
        for task in (upload, download):
            assert when_transferred(task, CHUNK).wait(60)
        started = time.monotonic()
        network.topology.set_link(False)
        network.relay.reset()
        time.sleep(OUTAGE)  # the outage itself: nothing to wait for
        network.topology.set_link(True)
        upload.wait(120)
        download.wait(120)
        recovered = time.monotonic() - started - OUTAGE
        control = network.emulator.control
        offsets = chunk_offsets(control)
        starts = range_starts(download_ranges(control, "link/existing.bin"))
        network.topology.shape(None)
        uploaded = tmp_path / "uploaded.bin"
        storage.reference("link/object.bin").write_to_file(uploaded).wait(60)
    print(f"\nlink down {OUTAGE:.0f} s: both finished {recovered:.1f} s after it came back; upload chunk offsets "
          f"{[round(o / MIB, 1) for o in offsets]} MiB, download range starts {[round(s / MIB, 1) for s in starts]} MiB")
    assert offsets.count(0) == 1, f"the upload restarted from byte 0: chunk offsets {offsets}"
    assert any(offset % CHUNK for offset in offsets) or len(offsets) > SIZE // CHUNK, \
        f"no chunk was sent again from the server's offset: {offsets}"
    assert len(starts) >= 2 and starts[0] == 0 and all(start > 0 for start in starts[1:]), \
        f"the download did not continue with Range: {starts}"
    assert file_sha256(uploaded) == digest and file_sha256(target) == existing_digest
    # The upload's connection is sending: its next retransmission after the link's return (TCP
    # backs off to ~10 s by then) meets the reset. The download's only receives, so nothing tells
    # it that its connection is gone: the stall timeout (60 s by default) does.
    assert recovered < STALL_TIMEOUT + 25


def test_link_down_beyond_the_deadline_fails_with_the_deadline_error(network: Lab, tmp_path) -> None:
    source = tmp_path / "source.bin"
    random_file(source, SIZE)
    network.topology.shape(RATE_MBIT)
    deadline = 6.0
    with network.storage(max_upload_retry_time=deadline, max_download_retry_time=deadline) as storage:
        storage.upload_chunk_size = CHUNK
        task = storage.reference("link/doomed.bin").put_file(source)
        when_transferred(task, CHUNK).wait(60)
        started = time.monotonic()
        network.topology.set_link(False)  # the fixture brings it back
        with pytest.raises(fbstorage.StorageError) as failure:
            task.wait(60)
        failed_after = time.monotonic() - started
    print(f"\nlink down for good, deadline {deadline:.0f} s: failed after {failed_after:.1f} s: {failure.value}")
    assert failure.value.code == fbstorage.StorageErrorCode.RETRY_LIMIT_EXCEEDED
    # The stall timeout (the deadline, for a stream) notices, then retries until the deadline.
    assert failed_after < 2 * deadline + 10
