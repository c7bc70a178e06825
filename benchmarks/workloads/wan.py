"""Workload "wan": fbstorage and rclone, gsutil, gcsfs and google-cloud-storage over a
WAN-shaped link (100 Mbit/s tbf, 20 ms each way through a relay, TLS, an nginx HTTP/2 front):
benchmarks/wan/ builds it from the test network (Tests/netlab) and runs every tool.

Needs root (network namespaces), nginx, rclone, dnsmasq (mk/bench.mk installs them). Quick mode
shrinks the bulk object (32 MiB), the small objects (200) and the Parquet object (64 MiB); the
listing keeps 10,000 objects. The section says which sizes it ran with.
"""

from __future__ import annotations

import json
import sys

from harness.context import Context
from wan.namespace import run_in_client_namespace

QUICK = {"bulk_bytes": 32 << 20, "small_count": 200, "list_count": 10_000, "parquet_bytes": 64 << 20}
FULL = {"bulk_bytes": 256 << 20, "small_count": 1000, "list_count": 10_000, "parquet_bytes": 256 << 20}


def run(ctx: Context) -> dict:
    sizes = QUICK if ctx.mode.name == "quick" else FULL
    # The link's harness imports the test network and the emulator's TLS helpers: the emulator's venv.
    done = run_in_client_namespace(
        [ctx.emulator.python, "-m", "wan.main", "--sizes", json.dumps(sizes), "--build-dir", str(ctx.build_dir),
         "--bench-python", ctx.bench_python, "--library", str(ctx.library)], timeout=1800,
        env=ctx.python_env())
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "sizes": sizes}
