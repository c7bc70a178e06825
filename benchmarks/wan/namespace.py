"""Running a command inside the test network's client namespace, the namespaces built before
and removed after whatever happens (as Tests/netlab/run.py does for pytest)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

# netlab.namespaces needs the standard library alone: the benchmark's venv imports it.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests"))

from netlab import namespaces  # noqa: E402


def run_in_client_namespace(argv: list[str], timeout: float, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
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
                              env=dict(env, FBSTORAGE_NETLAB=topology.to_json()), timeout=timeout,
                              check=True)
    finally:
        topology.destroy()
        signal.signal(signal.SIGTERM, previous)
