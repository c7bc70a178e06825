"""Workload "emulator_scale": one list page's time against the bucket's size, and the emulator's
memory with many small objects.

One emulator per size, each with storage.rules on (clients/bench.rules: every request is decided
by them), holds a folder LISTED of 1000 objects plus N more under BULK, for N = 100, 10,000 and
100,000 (quick mode stops at 10,000). clients/list_latency.py takes pages of LISTED's 1000 from
each, each page right after a write elsewhere in the bucket (the case of a test that uploads,
then lists), through the v0 API (the rules decide the list) and the GCS JSON API (admin: no
rules), in batches of ROUNDS that alternate between the emulators, so the machine's other jobs
weigh on every size alike, after one batch per emulator that is not counted: the first pages after
a burst of 10,000 uploads are slower for a while (in a probe, a median of 5.7 ms over the first 31,
then 1.2 ms, also with the garbage collector off), which is the fill's aftermath, not the size's
cost. The figure is the median page's latency over the batches, in ms
(`min_*`: the fastest, the least disturbed). The largest emulator's RSS is read once it is full.

Keys (section "emulator_scale"): list_page_ms_{N} (v0), gcs_list_page_ms_{N}, rss_mib,
idle_rss_mib, objects (the objects in the largest bucket), object_bytes, metadata_bytes (one
object's v0 JSON resource: the target compares RSS growth with 2 × objects × (object + metadata
bytes)).
"""

from __future__ import annotations

import contextlib
import statistics
import urllib.request

from harness.context import BINDING, CLIENTS, Context
from harness.emulator import Emulator
from harness.stats import alternate

BUCKET = "bench.appspot.com"
LISTED, BULK = "listed", "bulk"
LISTED_COUNT, OBJECT_BYTES = 1000, 16
ROUNDS, BATCHES = 11, 3


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
    with contextlib.ExitStack() as running:
        emulators = {size: running.enter_context(Emulator(python, str(BINDING), str(scratch), "--rules",
                                                          str(CLIENTS / "bench.rules"))) for size in sizes}
        largest = emulators[sizes[-1]]
        figures["idle_rss_mib"] = round(largest.rss_mib(), 1)
        for size, emulator in emulators.items():
            for prefix, count in ((LISTED, LISTED_COUNT), (BULK, size)):
                ctx.run([python, CLIENTS / "http_load.py", "gcs-uploads", emulator.address, BUCKET, prefix,
                         count, OBJECT_BYTES], ctx.python_env())
        figures["rss_mib"] = round(largest.rss_mib(), 1)
        figures["metadata_bytes"] = metadata_bytes(largest)

        def pages(emulator: Emulator, api: str) -> list[float]:
            report = ctx.run([python, CLIENTS / "list_latency.py", "pages", emulator.address, BUCKET, LISTED,
                              ROUNDS, "--api", api], ctx.python_env()).report
            if report["items"] != LISTED_COUNT:
                raise RuntimeError(f"{api} listed {report['items']} of {LISTED_COUNT}")
            return report["page_ms"]

        for emulator in emulators.values():   # discarded: see the docstring
            pages(emulator, "v0")
        for api, prefix in (("v0", ""), ("gcs", "gcs_")):
            batches = alternate({size: lambda e=emulator: pages(e, api) for size, emulator in emulators.items()},
                                BATCHES)
            for size, runs in batches.items():
                page_ms = [ms for batch in runs for ms in batch]
                figures[f"{prefix}list_page_ms_{size}"] = statistics.median(page_ms)
                figures[f"min_{prefix}list_page_ms_{size}"] = min(page_ms)
            figures[f"{prefix}list_page_growth"] = (max(figures[f"{prefix}list_page_ms_{n}"] for n in sizes)
                                                    / figures[f"{prefix}list_page_ms_{sizes[0]}"])
    return {**figures, "objects": LISTED_COUNT + sizes[-1], "object_bytes": OBJECT_BYTES,
            "sizes": list(sizes), "rounds": ROUNDS * BATCHES}
