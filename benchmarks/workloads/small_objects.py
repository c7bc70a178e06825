"""Workload 2: many small objects, fbstorage (sequential, 16 in flight) against Python loops."""

from __future__ import annotations

from harness.context import Context
from harness.stats import alternate, medians, summarize

IN_FLIGHT = 16


def run(ctx: Context) -> dict:
    shape = (ctx.mode.small_count, ctx.mode.small_size)

    def python_client(script: str, prefix: str, *flags: object):
        return lambda: ctx.measure(
            lambda: ctx.python_client(script, "put-many", prefix, *shape, *flags))

    def c_client(prefix: str, in_flight: int):
        return lambda: ctx.measure(lambda: ctx.c_client("put_many", prefix, *shape, in_flight))

    # fbstorage from Python (the peers' language) and from C (the library without the binding).
    peers = {
        "fbstorage_seq": python_client("fbstorage_client.py", "small/seq"),
        "fbstorage_concurrent": python_client("fbstorage_client.py", "small/concurrent",
                                              "--in-flight", IN_FLIGHT),
        "fbstorage_c_seq": c_client("small/c-seq", 1),
        "fbstorage_c_concurrent": c_client("small/c-concurrent", IN_FLIGHT),
        "pyrebase4": python_client("pyrebase_client.py", "small/pyrebase4"),
        "requests_session": python_client("requests_client.py", "small/requests"),
    }
    stats = summarize(alternate(peers, ctx.mode.small_repeats, ctx.emulator.reset), {
        "ops": lambda m: ctx.mode.small_count / m.client.seconds,
        # Per object, the client's and the emulator's CPU: on 2 shared cores their sum bounds the rate.
        "client_cpu_ms": lambda m: 1000 * m.client.cpu_seconds / ctx.mode.small_count,
        "emulator_cpu_ms": lambda m: 1000 * m.emulator_cpu_seconds / ctx.mode.small_count,
        "emulator_busy": lambda m: m.emulator_busy,
    })
    return {**medians(stats), "objects": shape[0], "object_bytes": shape[1],
            "in_flight": IN_FLIGHT, "stats": stats}
