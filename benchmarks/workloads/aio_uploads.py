"""Workload "aio": 1000 small uploads started at once from one asyncio loop (fbstorage.aio),
against the sync API's concurrent forms: 16 threads each waiting on its upload, and one thread
keeping 16 uploads in flight."""

from __future__ import annotations

from harness.context import Context
from harness.stats import alternate, summarize

THREADS = 16


def run(ctx: Context) -> dict:
    shape = (ctx.mode.small_count, ctx.mode.small_size)

    def client(script: str, command: str, prefix: str, *flags: object):
        return lambda: ctx.measure(
            lambda: ctx.python_client(script, command, prefix, *shape, *flags))

    peers = {
        "aio": client("aio_client.py", "put-many", "aio/loop"),
        "sync_threads": client("aio_client.py", "put-many-threads", "aio/threads",
                               "--threads", THREADS),
        "sync_in_flight": client("fbstorage_client.py", "put-many", "aio/in-flight",
                                 "--in-flight", THREADS),
    }
    stats = summarize(alternate(peers, ctx.mode.small_repeats, ctx.emulator.reset), {
        "small_uploads_per_s": lambda m: ctx.mode.small_count / m.client.seconds,
        "client_cpu_ms": lambda m: 1000 * m.client.cpu_seconds / ctx.mode.small_count,
    })
    def rate(peer: str) -> float:
        return stats[peer]["small_uploads_per_s"]["median"]

    return {"small_uploads_per_s": rate("aio"),
            "sync_threads_small_uploads_per_s": rate("sync_threads"),
            "sync_in_flight_small_uploads_per_s": rate("sync_in_flight"),
            "objects": shape[0], "object_bytes": shape[1], "threads": THREADS,
            "stats": stats}
