"""Workload 3: list_all over many objects against a requests.Session loop over the raw pages."""

from __future__ import annotations

from harness.context import Context
from harness.stats import alternate, medians, summarize

PREFIX = "listing"


def run(ctx: Context) -> dict:
    count = ctx.mode.list_count
    ctx.emulator.reset()
    ctx.python_client("fbstorage_client.py", "put-many", PREFIX, count, 16, "--in-flight", 16)

    def client(script: str, command: str):
        def listing():
            measurement = ctx.measure(lambda: ctx.python_client(script, command, PREFIX))
            if measurement.client.report["items"] != count:
                raise RuntimeError(f"{script} {command} listed {measurement.client.report['items']}")
            return measurement
        return listing

    runs = alternate({"fbstorage": client("fbstorage_client.py", "list-all"),
                      "requests_session": client("requests_client.py", "list-pages")},
                     ctx.mode.list_repeats)
    stats = summarize(runs, {"s": lambda m: m.client.seconds,
                             "emulator_busy": lambda m: m.emulator_busy})
    return {**medians(stats), "objects": count, "stats": stats}
