#!/usr/bin/env python3
"""Runs pytest inside the test network's client namespace: `run.py [pytest arguments]`
(every test of Tests/netlab/tests unless they name test files).

Builds the two namespaces (after removing a crashed run's), runs
`ip netns exec CLIENT python -m pytest ...` with the topology in $FBSTORAGE_NETLAB, and removes
the namespaces whatever happens (an exception, SIGTERM from `timeout`, Ctrl-C). Where network
namespaces are not permitted it says so and exits 0 without running the tests.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from netlab import namespaces  # noqa: E402

TESTS = Path(__file__).resolve().parent / "tests"


def main(arguments: list[str]) -> int:
    why_not = namespaces.namespaces_permitted()
    if why_not:
        print(f"test-netlab SKIPPED: {why_not}; the test network needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN)")
        return 0
    for stale in namespaces.remove_stale():
        print(f"test-netlab: removed namespace {stale} left by a crashed run")
    topology = namespaces.Topology.for_this_process()
    # SIGTERM (timeout, CI) unwinds through the finally below like Ctrl-C.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    pytest = None
    try:
        topology.create()
        environment = dict(os.environ, FBSTORAGE_NETLAB=topology.to_json())
        pytest = subprocess.Popen(["ip", "netns", "exec", topology.client, sys.executable, "-m", "pytest",
                                   "-c", str(TESTS.parent / "pytest.ini"), "-p", "no:cacheprovider", *arguments,
                                   *([] if any(Path(argument.split("::")[0]).exists() for argument in arguments)
                                     else [str(TESTS)])], env=environment)
        return pytest.wait()
    except KeyboardInterrupt:
        return 130
    finally:
        if pytest is not None and pytest.poll() is None:
            pytest.terminate()  # pytest's fixtures stop what they started
            try:
                pytest.wait(30)
            except subprocess.TimeoutExpired:
                pytest.kill()
                pytest.wait()
        topology.destroy()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
