"""Running a command inside the test network's client namespace, the namespaces built before
and removed after whatever happens (as Tests/netlab/run.py does for pytest)."""

from __future__ import annotations

import os
import signal
import subprocess

from .link import namespaces


def run_in_client_namespace(argv: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    """argv in a fresh client namespace, with the topology in $FBSTORAGE_NETLAB; its stdout."""
    why_not = namespaces.namespaces_permitted()
    if why_not:
        raise RuntimeError(f"the WAN link needs network namespaces (root): {why_not}")
    namespaces.remove_stale()
    topology = namespaces.Topology.for_this_process()
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        topology.create()
        return subprocess.run(["ip", "netns", "exec", topology.client, *argv], stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ, FBSTORAGE_NETLAB=topology.to_json()), timeout=timeout,
                              check=True)
    finally:
        topology.destroy()
        signal.signal(signal.SIGTERM, previous)
