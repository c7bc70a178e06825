"""Workload: the Swift API's cost. 1000 small putData calls, one at a time, from Swift
(FirebaseStorage, completion handlers on the callback queue) against the same through the C API,
alternated in the same run."""

from __future__ import annotations

import subprocess
from pathlib import Path

from harness.context import BUCKET, CLIENTS, Context
from harness.stats import alternate, medians, summarize

PACKAGE = CLIENTS / "swift"


def build() -> Path:
    """Builds the Swift client in release mode, as the C API's library is built."""
    subprocess.run(["swift", "build", "-c", "release", "--package-path", str(PACKAGE)], check=True,
                   stdout=subprocess.DEVNULL)
    return PACKAGE / ".build" / "release" / "put_many_swift"


def run(ctx: Context) -> dict:
    shape = (ctx.mode.small_count, ctx.mode.small_size)
    swift_client = build()
    peers = {
        "c_seq": lambda: ctx.measure(lambda: ctx.c_client("put_many", "swift-api/c", *shape, 1)),
        "swift_seq": lambda: ctx.measure(lambda: ctx.run(
            [swift_client, ctx.emulator.address, BUCKET, "swift-api/swift", *shape])),
    }
    stats = summarize(alternate(peers, ctx.mode.small_repeats, ctx.emulator.reset), {
        "s": lambda m: m.client.seconds,
        "client_cpu_ms": lambda m: 1000 * m.client.cpu_seconds / ctx.mode.small_count,
    })
    return {**medians(stats), "objects": shape[0], "object_bytes": shape[1], "stats": stats}
