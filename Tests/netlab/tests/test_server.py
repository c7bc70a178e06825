"""The server killed (SIGKILL) mid-upload and started again, on the direct path: connections
are refused meanwhile (not loopback: retried until the deadline, no 2 s grace), and the upload
goes on in its session, which the emulator keeps in its data directory."""

from __future__ import annotations

import time
from pathlib import Path

from conftest import Lab
from transfers import MIB, chunk_offsets, file_sha256, random_file, when_transferred

SIZE = 48 * MIB


def test_upload_and_list_go_on_after_a_server_restart(network: Lab, tmp_path: Path) -> None:
    source, copy = tmp_path / "source.bin", tmp_path / "copy.bin"
    digest = random_file(source, SIZE)
    network.topology.shape(100)
    with network.storage() as storage:
        storage.upload_chunk_size = 8 * MIB
        storage.reference("server/before.bin").put_data(b"acknowledged before the crash").wait(30)
        task = storage.reference("server/object.bin").put_file(source)
        assert when_transferred(task, 20 * MIB).wait(60)
        started = time.monotonic()
        network.emulator.kill()
        network.emulator.start()
        restarted_after = time.monotonic() - started
        task.wait(120)
        finished_after = time.monotonic() - started
        network.topology.shape(None)
        storage.reference("server/object.bin").write_to_file(copy).wait(60)
        names = [item.name for item in storage.reference("server").list_all().items]
        assert storage.reference("server/before.bin").get_data() == b"acknowledged before the crash"
    offsets = chunk_offsets(network.emulator.control)
    print(f"\nserver killed at 20 MiB of {SIZE // MIB} MiB, back after {restarted_after:.1f} s; the upload finished "
          f"{finished_after:.1f} s after the kill; chunk offsets since the restart {[o // MIB for o in offsets]} MiB")
    assert file_sha256(copy) == digest
    # 20 MiB sent in 8 MiB chunks: the first two were acknowledged, and are not sent again.
    assert offsets and offsets[0] >= 16 * MIB, f"the upload started over: {offsets}"
    assert names == ["before.bin", "object.bin"]
