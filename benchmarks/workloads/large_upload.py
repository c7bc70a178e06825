"""Workload 1: one large file, fbstorage put_file (C and Python) against curl -T and pyrebase4."""

from __future__ import annotations

from harness.context import BUCKET, Context
from harness.process import run_client
from harness.stats import alternate, medians, summarize

from .uploads import test_file, upload_metrics


def run(ctx: Context) -> dict:
    size = ctx.mode.large_bytes
    path = test_file(ctx.scratch / f"large-{size}.bin", size)
    # -w prints curl's own transfer time in the clients' result format.
    curl = ["curl", "-sS", "--fail", "-o", "/dev/null", "-w", '{"seconds": %{time_total}}\\n',
            "-T", str(path), f"{ctx.emulator.url}/v0/b/{BUCKET}/o/large%2Fcurl"]
    peers = {
        "fbstorage_c": lambda: ctx.measure(lambda: ctx.c_client("put_file", path, "large/c")),
        "fbstorage_py": lambda: ctx.measure(
            lambda: ctx.python_client("fbstorage_client.py", "put-file", path, "large/py")),
        "curl": lambda: ctx.measure(lambda: run_client(curl)),
        "pyrebase4": lambda: ctx.measure(
            lambda: ctx.python_client("pyrebase_client.py", "put-file", path, "large/pyrebase4")),
    }
    stats = summarize(alternate(peers, ctx.mode.large_repeats, ctx.emulator.reset),
                      upload_metrics(size))
    return {**medians(stats), "bytes": size, "repeats": ctx.mode.large_repeats, "stats": stats}
