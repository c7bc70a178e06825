"""Workload 2: many small objects, fbstorage (sequential, 16 in flight) against Python loops."""

from __future__ import annotations

from harness.context import Context
from harness.stats import alternate, medians, summarize

IN_FLIGHT = 16


def run(ctx: Context) -> dict:
    shape = (ctx.mode.small_count, ctx.mode.small_size)

    def client(script: str, prefix: str, *flags: object):
        return lambda: ctx.measure(
            lambda: ctx.python_client(script, "put-many", prefix, *shape, *flags))

    peers = {
        "fbstorage_seq": client("fbstorage_client.py", "small/seq"),
        "fbstorage_concurrent": client("fbstorage_client.py", "small/concurrent",
                                       "--in-flight", IN_FLIGHT),
        "pyrebase4": client("pyrebase_client.py", "small/pyrebase4"),
        "requests_session": client("requests_client.py", "small/requests"),
    }
    stats = summarize(alternate(peers, ctx.mode.small_repeats, ctx.emulator.reset), {
        "ops": lambda m: ctx.mode.small_count / m.client.seconds,
        "emulator_busy": lambda m: m.emulator_busy,
    })
    return {**medians(stats), "objects": shape[0], "object_bytes": shape[1],
            "in_flight": IN_FLIGHT, "stats": stats}
