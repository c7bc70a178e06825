"""Workload "scale": one very large put_file (10 GiB; 1 GiB in quick mode) from a sparse file,
with the client's peak RSS and the emulator's RSS over the upload; and 8 parallel uploads on
one storage (1 GiB each; 64 MiB in quick mode) against 8 parallel `curl -T` processes.

Keys (section "scale"): put_10gib_peak_rss_mib (the client's, whatever quick mode's size:
put_bytes says which), put_10gib_mibps, emulator_idle_rss_mib and emulator_peak_rss_mib
(before and during that upload), parallel8_mibps and curl_parallel8_mibps (aggregate).
"""

from __future__ import annotations

import shutil

from harness.context import BUCKET, CLIENTS, Context, Measurement
from harness.stats import alternate, medians, summarize

from .gcs_upload import peak_rss
from .uploads import MIB, escaped, sparse_file, test_file, upload_metrics

PARALLEL = 8


def big_put(ctx: Context) -> dict:
    size = ctx.mode.big_put_bytes
    # The emulator stores the object beside the scratch files (tmpfs, so memory): say so at once
    # rather than fail with ENOSPC minutes into the upload.
    free = shutil.disk_usage(ctx.scratch).free
    if free < size + (1 << 30):
        raise RuntimeError(f"scale: {size >> 20} MiB upload needs that much free space in {ctx.scratch} "
                           f"(plus 1 GiB), which has {free >> 20} MiB")
    path = sparse_file(ctx.scratch / f"sparse-{size}.bin", size)
    ctx.emulator.reset()
    idle = ctx.emulator.rss_mib()
    peaks: list[float] = []
    with peak_rss(ctx.emulator, peaks):
        run = ctx.measure(lambda: ctx.c_client("put_file", path, "scale/big"))
    ctx.emulator.reset()
    path.unlink()
    return {"put_bytes": size, "put_10gib_peak_rss_mib": round(run.client.peak_rss_mib, 1),
            "put_10gib_mibps": round(size / MIB / run.client.seconds, 1),
            "put_10gib_cpu_s_per_gib": round(upload_metrics(size)["cpu_s_per_gib"](run), 3),
            "emulator_idle_rss_mib": round(idle, 1), "emulator_peak_rss_mib": round(peaks[0], 1)}


def parallel(ctx: Context) -> dict:
    size = ctx.mode.parallel_bytes
    path = test_file(ctx.scratch / f"large-{size}.bin", size)
    url_prefix = f"{ctx.emulator.url}/v0/b/{BUCKET}/o/{escaped('parallel/curl/')}"

    def curl() -> Measurement:
        return ctx.measure(lambda: ctx.run([ctx.bench_python, CLIENTS / "parallel_curl.py",
                                            url_prefix, path, PARALLEL], ctx.python_env()))
    peers = {"fbstorage_c": lambda: ctx.measure(
                 lambda: ctx.c_client("put_parallel", path, "parallel/c", PARALLEL)),
             "curl": curl}
    stats = summarize(alternate(peers, ctx.mode.parallel_repeats, ctx.emulator.reset),
                      upload_metrics(PARALLEL * size))
    figures = medians(stats)
    return {"parallel8_mibps": figures["fbstorage_c_mibps"], "curl_parallel8_mibps": figures["curl_mibps"],
            "parallel_bytes_each": size, "parallel_repeats": ctx.mode.parallel_repeats,
            "parallel_stats": stats}


def run(ctx: Context) -> dict:
    return {**big_put(ctx), **parallel(ctx)}
