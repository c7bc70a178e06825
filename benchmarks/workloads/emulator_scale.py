"""Workload "emulator_scale": one list page's time against the bucket's size, and the emulator's
memory with many small objects.

An emulator of its own, with storage.rules on (clients/bench.rules: every request is decided by them),
holds a folder LISTED of 1000 objects plus N more under BULK, for N = 100, 10,000 and 100,000
(quick mode stops at 10,000). For each N, clients/list_latency.py takes ROUNDS pages of LISTED's
1000, each right after a write elsewhere in the bucket (the case of a test that uploads, then
lists), through the v0 API (the rules decide the list) and the GCS JSON API (admin: no rules).
The figure is the median page's latency, in ms (`min_*`: the fastest, the least disturbed by the
machine's other jobs). The emulator's RSS is read after the largest
bucket is filled.

Keys (section "emulator_scale"): list_page_ms_{N} (v0), gcs_list_page_ms_{N}, rss_mib,
idle_rss_mib, objects (the objects in the bucket then), object_bytes, metadata_bytes (one object's
v0 JSON resource: the target compares RSS growth with 2 × objects × (object + metadata bytes)).
"""

from __future__ import annotations

import statistics
import urllib.request

from harness.context import BINDING, CLIENTS, Context
from harness.emulator import Emulator

BUCKET = "bench.appspot.com"
LISTED, BULK = "listed", "bulk"
LISTED_COUNT, OBJECT_BYTES = 1000, 16
ROUNDS = 31


def metadata_bytes(emulator: Emulator) -> int:
    """The size of one object's metadata: its v0 JSON resource (what the emulator keeps of it)."""
    with urllib.request.urlopen(f"{emulator.url}/v0/b/{BUCKET}/o/{LISTED}%2F00000") as reply:
        return len(reply.read())


def run(ctx: Context) -> dict:
    sizes = (100, 10_000) if ctx.mode.name == "quick" else (100, 10_000, 100_000)
    scratch = ctx.scratch / "emulator-scale"
    scratch.mkdir(exist_ok=True)
    python = ctx.emulator.python
    figures: dict = {}
    with Emulator(python, str(BINDING), str(scratch), "--rules", str(CLIENTS / "bench.rules")) as emulator:
        figures["idle_rss_mib"] = round(emulator.rss_mib(), 1)

        def fill(prefix: str, count: int) -> None:
            ctx.run([python, CLIENTS / "http_load.py", "gcs-uploads", emulator.address, BUCKET, prefix,
                     count, OBJECT_BYTES], ctx.python_env())

        fill(LISTED, LISTED_COUNT)
        filled = 0
        for size in sizes:
            fill(f"{BULK}/{size}", size - filled)   # sizes ascend: each adds to the last
            filled = size
            for api, key in (("v0", f"list_page_ms_{size}"), ("gcs", f"gcs_list_page_ms_{size}")):
                report = ctx.run([python, CLIENTS / "list_latency.py", "pages", emulator.address, BUCKET, LISTED,
                                  ROUNDS, "--api", api], ctx.python_env()).report
                if report["items"] != LISTED_COUNT:
                    raise RuntimeError(f"{api} listed {report['items']} of {LISTED_COUNT}")
                figures[key] = statistics.median(report["page_ms"])
                figures[f"min_{key}"] = min(report["page_ms"])   # the least disturbed by other jobs
        figures["rss_mib"] = round(emulator.rss_mib(), 1)
        figures["metadata_bytes"] = metadata_bytes(emulator)
    largest = sizes[-1]
    figures["list_page_growth"] = max(figures[f"list_page_ms_{n}"] for n in sizes) / figures["list_page_ms_100"]
    figures["gcs_list_page_growth"] = (max(figures[f"gcs_list_page_ms_{n}"] for n in sizes)
                                       / figures["gcs_list_page_ms_100"])
    return {**figures, "objects": LISTED_COUNT + largest + 1, "object_bytes": OBJECT_BYTES,
            "sizes": list(sizes), "rounds": ROUNDS}
