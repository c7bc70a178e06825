"""IPv6-only and dual-stack names, and an IPv6 literal endpoint."""

from __future__ import annotations

import os

import pytest

from conftest import Lab
from netlab.dns import IPV4_ONLY_HOST, IPV6_ONLY_HOST, STORAGE_HOST
from netlab.namespaces import CLIENT_V4, CLIENT_V6, SERVER_V6
from transfers import MIB

CASES = {
    "ipv6-only name": (IPV6_ONLY_HOST, CLIENT_V6),
    "ipv4-only name": (IPV4_ONLY_HOST, CLIENT_V4),
    # Both families answer: libcurl's happy eyeballs tries IPv6 first (RFC 8305), IPv4 200 ms later.
    "dual-stack name": (STORAGE_HOST, CLIENT_V6),
    "ipv6 literal": (SERVER_V6, CLIENT_V6),
}


@pytest.mark.parametrize("host, client_address", CASES.values(), ids=CASES.keys())
def test_upload_download_list(network: Lab, host: str, client_address: str) -> None:
    data = os.urandom(3 * MIB)
    with network.storage(host) as storage:
        storage.upload_chunk_size = MIB
        reference = storage.reference(f"ipv6/{host}.bin")
        reference.put_data(data).wait(60)
        assert reference.get_data() == data
        assert [item.name for item in storage.reference("ipv6").list_all().items] == [f"{host}.bin"]
        # The storage's kept-alive connection, seen from the server: which family it used.
        assert network.server_peers() == {client_address}


def test_dual_stack_falls_back_to_ipv4_when_ipv6_is_unreachable(network: Lab) -> None:
    """The IPv6 route gone: the dual-stack name still works, over IPv4 (happy eyeballs)."""
    network.topology.drop_ipv6_route(True)
    try:
        with network.storage(STORAGE_HOST, connect_timeout=10) as storage:
            reference = storage.reference("ipv6/fallback.bin")
            reference.put_data(b"over IPv4").wait(30)
            assert reference.get_data() == b"over IPv4"
            assert network.server_peers() == {network.topology.client_v4}
    finally:
        network.topology.drop_ipv6_route(False)
