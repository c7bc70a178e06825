"""Through an HTTP/2 front (nginx, as Google's front ends): the storage speaks HTTP/2 there,
multiplexes its concurrent transfers on one connection, and every pooled handle keeps working
after serving HTTP/2 (libcurl 7.88 keeps a receive buffer past curl_easy_reset)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

import pytest

from conftest import Lab
from netlab.http2_front import FRONT_PORT, Http2Front
from netlab.relay import Relay
from transfers import MIB, file_sha256, random_file

PUBLIC_PORT = 9446
BURST = 40  # above the storage's pool of 16 easy handles: every pooled handle is drawn


@pytest.fixture(scope="module")
def front(lab: Lab, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Http2Front]:
    front = Http2Front(lab.topology, lab.emulator, tmp_path_factory.mktemp("front"), PUBLIC_PORT, blob_bytes=MIB)
    relay = Relay(lab.topology, port=PUBLIC_PORT, upstream_port=FRONT_PORT)
    try:
        front.start()
        relay.start()
        yield front
    finally:
        relay.stop()
        front.stop()


def test_concurrent_transfers_share_one_http2_connection(network: Lab, front: Http2Front, tmp_path: Path) -> None:
    payloads = {f"h2/{n:03d}": os.urandom(4096 + n) for n in range(BURST)}
    source, target = tmp_path / "big.bin", tmp_path / "big-down.bin"
    digest = random_file(source, 8 * MIB)
    front.protocols()
    with network.storage(port=PUBLIC_PORT) as storage, ThreadPoolExecutor(BURST) as threads:
        for _ in range(2):  # the second burst draws the handles the first one returned
            for task in [storage.reference(name).put_data(data) for name, data in payloads.items()]:
                task.wait(60)
            fetched = dict(zip(payloads, threads.map(lambda name: storage.reference(name).get_data(), payloads)))
            assert fetched == payloads
        storage.upload_chunk_size = 2 * MIB
        storage.reference("h2/big.bin").put_file(source).wait(120)
        storage.reference("h2/big.bin").write_to_file(target).wait(120)
        connections = network.server_connections(PUBLIC_PORT)
    protocols = front.protocols()
    print(f"\nrequests by protocol through the front: {dict(protocols)}; {connections} connection(s)")
    assert file_sha256(target) == digest
    assert set(protocols) == {"HTTP/2.0"}
    assert protocols["HTTP/2.0"] >= 4 * BURST + 2
    assert connections == 1
