"""Workload 5: what a Python PROGRESS observer costs a large put_file."""

from __future__ import annotations

from harness.context import Context
from harness.stats import alternate, medians, summarize

from .uploads import test_file, upload_metrics


def run(ctx: Context) -> dict:
    size = ctx.mode.large_bytes
    path = test_file(ctx.scratch / f"large-{size}.bin", size)

    def upload(*flags: str):
        return lambda: ctx.measure(
            lambda: ctx.python_client("fbstorage_client.py", "put-file", path, "progress/py", *flags))

    runs = alternate({"without_observer": upload(), "with_observer": upload("--progress")},
                     ctx.mode.large_repeats, ctx.emulator.reset)
    stats = summarize(runs, upload_metrics(size))
    flat = medians(stats)
    events = [m.client.report["progress_events"] for m in runs["with_observer"]]
    return {"python_progress_overhead_pct":
            100 * (1 - flat["with_observer_mibps"] / flat["without_observer_mibps"]),
            **flat, "progress_events": events, "stats": stats}
