"""A long, narrow, unreliable path: 80 ms round trip with jitter, a capped link, stalls of
several seconds and resets at random points, for a 256 MiB upload and download."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Callable

import fbstorage
from conftest import Lab
from transfers import (MIB, chunk_offsets, download_ranges, file_sha256, random_file, range_starts,
                       when_transferred)

SIZE = 256 * MIB
RATE_MBIT = 200           # the link: 256 MiB take 10.7 s each way
ONE_WAY_MS, JITTER_MS = 40, 10   # 80 ms round trip, ±20 ms
STALL_SECONDS = 3.0
SEED = 37


def run_with_faults(task: fbstorage.StorageTask, faults: list[tuple[float, Callable[[], None]]]) -> threading.Thread:
    """Fires each fault once the task has moved that share of SIZE (in order)."""
    def script() -> None:
        for share, fault in sorted(faults, key=lambda item: item[0]):
            if not when_transferred(task, int(share * SIZE)).wait(120):
                return
            fault()

    thread = threading.Thread(target=script, daemon=True)
    thread.start()
    return thread


def test_256_mib_up_and_down_over_a_long_lossy_path(network: Lab, tmp_path: Path) -> None:
    chooser = random.Random(SEED)
    source, target = tmp_path / "source.bin", tmp_path / "target.bin"
    digest = random_file(source, SIZE)
    network.topology.shape(RATE_MBIT)
    network.relay.delay(ONE_WAY_MS, JITTER_MS)
    link_seconds = SIZE * 8 / (RATE_MBIT * 1e6)
    timings = {}
    with network.relayed_storage() as storage:
        storage.upload_chunk_size = 32 * MIB
        reference = storage.reference("path/big.bin")
        for direction, start in (("upload", lambda: reference.put_file(source)),
                                 ("download", lambda: reference.write_to_file(target))):
            faults = [(chooser.uniform(0.1, 0.4), lambda: network.relay.stall(STALL_SECONDS)),
                      (chooser.uniform(0.2, 0.5), network.relay.reset),
                      (chooser.uniform(0.5, 0.8), lambda: network.relay.stall(STALL_SECONDS)),
                      (chooser.uniform(0.6, 0.9), network.relay.reset)]
            started = time.monotonic()
            task = start()
            script = run_with_faults(task, faults)
            task.wait(180)
            timings[direction] = time.monotonic() - started
            script.join(10)
            assert not script.is_alive(), "a fault was never fired: the transfer did not pass its point"
        offsets = chunk_offsets(network.emulator.control)
        starts = range_starts(download_ranges(network.emulator.control, "path/big.bin"))
    budget = 1.5 * link_seconds + 2 * STALL_SECONDS
    print(f"\n256 MiB over {RATE_MBIT} Mbit/s (link time {link_seconds:.1f} s), {2 * ONE_WAY_MS} ms RTT "
          f"±{2 * JITTER_MS} ms, 2 stalls of {STALL_SECONDS:.0f} s and 2 resets each way: upload "
          f"{timings['upload']:.1f} s, download {timings['download']:.1f} s (budget {budget:.1f} s)")
    assert file_sha256(target) == digest
    assert offsets.count(0) == 1, f"the upload restarted from byte 0: {offsets}"
    assert len(starts) >= 3 and starts[0] == 0 and all(start > 0 for start in starts[1:]), \
        f"each reset should be followed by a Range request from where the download was: {starts}"
    assert timings["upload"] < budget and timings["download"] < budget


def test_the_retry_deadline_counts_from_the_last_progress(network: Lab, tmp_path: Path) -> None:
    """A transfer that runs longer than its retry time still resumes after a reset: the retry
    time is a time without progress, not since the transfer started. 64 MiB on a 40 Mbit/s link
    take ~13 s each way; with 8 s retry times, a reset at 48 MiB (~10 s in) is ridden out."""
    size = 64 * MIB
    source, target = tmp_path / "source.bin", tmp_path / "target.bin"
    digest = random_file(source, size)
    network.topology.shape(40)
    with network.relayed_storage(max_upload_retry_time=8, max_download_retry_time=8) as storage:
        storage.upload_chunk_size = 64 * MIB   # one chunk: no server confirmation before the reset
        reference = storage.reference("path/deadline.bin")
        for start in (lambda: reference.put_file(source), lambda: reference.write_to_file(target)):
            started = time.monotonic()
            task = start()
            reached = when_transferred(task, 48 * MIB)
            assert reached.wait(60), "the transfer never reached 48 MiB"
            network.relay.reset()
            task.wait(120)
            print(f"\n64 MiB with a reset at 48 MiB, 8 s retry time: {time.monotonic() - started:.1f} s")
    assert file_sha256(target) == digest
