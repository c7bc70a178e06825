"""The WAN workload inside the client namespace: builds the link, measures it, seeds the objects
the downloads, listings and ranged reads need (off the link: straight to the emulator, the cap
lifted meanwhile), runs every tool and prints the "wan" section as one JSON line.

  python -m wan.main --sizes JSON --build-dir DIR --bench-python PY --library SO
(started by workloads/wan.py through wan.namespace; its stderr tells progress)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import bulk, cold_start, listing, ranged, small
from .link import BUCKET, CLIENTS, WanLink, namespaces
from .tools import IN_FLIGHT, Tools

RATE_MBIT = 100
ONE_WAY_DELAY_MS = 20


def seed(tools: Tools, argv: list[object]) -> None:
    """A set-up step straight to the emulator (no relay, no front), the link's cap lifted."""
    link = tools.link
    link.topology.shape(None)
    try:
        subprocess.run([str(a) for a in argv], check=True, capture_output=True, timeout=600,
                       env=dict(tools.environment(), SSL_CERT_FILE=link.ca_file))
    finally:
        link.topology.shape(link.rate_mbit)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", required=True, type=json.loads)
    parser.add_argument("--build-dir", required=True, type=Path)
    parser.add_argument("--bench-python", required=True)
    parser.add_argument("--library", required=True, type=Path)
    args = parser.parse_args()
    sizes = args.sizes
    topology = namespaces.Topology.from_json(os.environ["FBSTORAGE_NETLAB"])
    scratch_root = "/dev/shm" if Path("/dev/shm").is_dir() else None
    results: dict = {}

    def step(name: str, function, *arguments) -> None:
        started = time.monotonic()
        print(f"wan: {name} ...", file=sys.stderr, flush=True)
        results.update(function(*arguments))
        results.setdefault("step_seconds", {})[name] = round(time.monotonic() - started, 1)

    with tempfile.TemporaryDirectory(prefix="fbstorage-wan-", dir=scratch_root) as scratch, \
            WanLink(topology, Path(scratch), RATE_MBIT, ONE_WAY_DELAY_MS, sys.executable) as link:
        tools = Tools(link, args.build_dir, args.bench_python, args.library, Path(scratch), sizes["small_count"])
        step("link", link.measure, sys.executable)
        direct = link.emulator.url(topology.server_v4)
        seed(tools, [args.build_dir / "put_many", direct, BUCKET, "seed/small", sizes["small_count"], 4096,
                     IN_FLIGHT])
        seed(tools, [args.build_dir / "put_many", direct, BUCKET, "seed/list", sizes["list_count"], 16, IN_FLIGHT])
        parquet = Path(scratch) / "table.parquet"
        seed(tools, [args.bench_python, CLIENTS / "ranged_read.py", "make", parquet, sizes["parquet_bytes"]])
        seed(tools, [args.build_dir / "put_file", direct, BUCKET, parquet, ranged.OBJECT])
        parquet_bytes = parquet.stat().st_size
        parquet.unlink()
        step("bulk", bulk.run, tools, sizes["bulk_bytes"])
        step("small", small.run, tools, "seed/small", results["rtt_ms"], results["link_mibps"])
        step("cold_start", cold_start.run, tools, results["rtt_ms"])
        step("list", listing.run, tools, "seed/list", sizes["list_count"])
        step("ranged_read", ranged.run, tools, parquet_bytes, results["rtt_ms"], results["link_mibps"])
    print(json.dumps(results), flush=True)


if __name__ == "__main__":
    main()
