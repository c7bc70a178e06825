"""Workload 3: list_all over many objects against a requests.Session loop over the raw pages.

Every client reads every item's path, as the raw loop collects every name. fbstorage runs from
Python (the peer's language: the figure the target is judged on) and from C, reading each path
through the item's reference handle or all of them from fbs_list_result_item_paths."""

from __future__ import annotations

from harness.context import Context
from harness.stats import alternate, medians, summarize

PREFIX = "listing"


def run(ctx: Context) -> dict:
    count = ctx.mode.list_count
    ctx.emulator.reset()
    ctx.python_client("fbstorage_client.py", "put-many", PREFIX, count, 16, "--in-flight", 16)

    def checked(start_client):
        def listing():
            measurement = ctx.measure(start_client)
            if measurement.client.report["items"] != count:
                raise RuntimeError(f"listed {measurement.client.report['items']} of {count}")
            return measurement
        return listing

    runs = alternate({
        "fbstorage": checked(lambda: ctx.python_client("fbstorage_client.py", "list-all", PREFIX)),
        "fbstorage_c": checked(lambda: ctx.c_client("list_all", PREFIX)),
        "fbstorage_c_paths": checked(lambda: ctx.c_client("list_all", PREFIX, "--paths")),
        "requests_session": checked(
            lambda: ctx.python_client("requests_client.py", "list-pages", PREFIX)),
    }, ctx.mode.list_repeats)
    stats = summarize(runs, {"s": lambda m: m.client.seconds,
                             "emulator_busy": lambda m: m.emulator_busy})
    return {**medians(stats), "objects": count, "stats": stats}
