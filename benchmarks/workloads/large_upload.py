"""Workload 1: one large file, fbstorage put_file (C and Python) against curl -T and pyrebase4."""

from __future__ import annotations

from harness.context import Context
from harness.stats import alternate, medians, summarize

from .uploads import curl_upload, test_file, upload_metrics


def run(ctx: Context) -> dict:
    size = ctx.mode.large_bytes
    path = test_file(ctx.scratch / f"large-{size}.bin", size)
    peers = {
        "fbstorage_c": lambda: ctx.measure(lambda: ctx.c_client("put_file", path, "large/c")),
        "fbstorage_py": lambda: ctx.measure(
            lambda: ctx.python_client("fbstorage_client.py", "put-file", path, "large/py")),
        "curl": lambda: ctx.measure(lambda: curl_upload(ctx, path, "large/curl")),
        "pyrebase4": lambda: ctx.measure(
            lambda: ctx.python_client("pyrebase_client.py", "put-file", path, "large/pyrebase4")),
    }
    stats = summarize(alternate(peers, ctx.mode.large_repeats, ctx.emulator.reset),
                      upload_metrics(size))
    return {**medians(stats), "bytes": size, "repeats": ctx.mode.large_repeats, "stats": stats}
