"""Full mode: C put_file throughput and CPU per upload chunk size, to justify the default."""

from __future__ import annotations

from harness.context import Context
from harness.stats import alternate, medians, summarize

from .uploads import MIB, curl_upload, test_file, upload_metrics

SWEEP_REPEATS = 5


def run(ctx: Context) -> dict:
    size = ctx.mode.large_bytes
    path = test_file(ctx.scratch / f"large-{size}.bin", size)

    def upload(chunk_mib: int):
        return lambda: ctx.measure(
            lambda: ctx.c_client("put_file", path, "sweep/c", chunk_mib * MIB))

    peers = {f"chunk_{mib}mib": upload(mib) for mib in ctx.mode.chunk_sweep_mib}
    peers["curl"] = lambda: ctx.measure(lambda: curl_upload(ctx, path, "sweep/curl"))
    stats = summarize(alternate(peers, SWEEP_REPEATS, ctx.emulator.reset),
                      upload_metrics(size))
    return {**medians(stats), "stats": stats}
