"""Workload "streams": a large streaming download into a sink that counts the bytes
(fbs_reference_stream) against `curl -o`, and a streaming upload from a pipe
(fbs_reference_put_fd) against put_file of the same bytes.

Two workloads, stream_download and stream_upload. Keys: stream_download.{fbstorage,curl}_mibps and .peak_rss_mib (fbstorage's),
stream_upload.{pipe,put_file}_mibps and .peak_rss_mib (the pipe upload's), with every peer's
medians. (The issue's ranged_read keys, pyarrow over fbstorage.fsspec vs gcsfs, are not
measured here: bindings/python/tests/test_fsspec_dataframes.py asserts that a Parquet column
read fetches exactly the bytes pyarrow asks for.)
"""

from __future__ import annotations

from harness.context import Context
from harness.process import ClientFailed, ClientRun
from harness.stats import alternate, medians, summarize

from .downloads import curl_download
from .uploads import curl_upload, test_file, upload_metrics

OBJECT = "streams/large"


def _checked(ctx: Context, size: int, start_client):
    """Fails the workload when a client moved fewer bytes than the object has."""
    def start() -> ClientRun:
        run = start_client()
        if run.report.get("bytes", size) != size:
            raise ClientFailed(f"moved {run.report['bytes']} of {size} bytes")
        return run
    return lambda: ctx.measure(start)


def download(ctx: Context) -> dict:
    """Workload "stream_download": the sink against curl -o."""
    size = ctx.mode.download_bytes
    ctx.emulator.reset()
    curl_upload(ctx, test_file(ctx.scratch / f"large-{size}.bin", size), OBJECT)
    destination = ctx.scratch / "stream.out"
    stats = summarize(alternate({
        "fbstorage": _checked(ctx, size, lambda: ctx.c_client("stream", OBJECT, "sink")),
        "curl": _checked(ctx, size, lambda: curl_download(ctx, str(destination), OBJECT)),
    }, ctx.mode.large_repeats, lambda: destination.unlink(missing_ok=True)), upload_metrics(size))
    destination.unlink(missing_ok=True)
    figures = medians(stats)
    return {**figures, "peak_rss_mib": figures["fbstorage_peak_rss_mib"], "bytes": size,
            "repeats": ctx.mode.large_repeats, "stats": stats}


def upload(ctx: Context) -> dict:
    """Workload "stream_upload": a pipe against put_file of the same bytes."""
    size = ctx.mode.download_bytes
    ctx.emulator.reset()
    source = test_file(ctx.scratch / f"large-{size}.bin", size)
    stats = summarize(alternate({
        "pipe": _checked(ctx, size, lambda: ctx.c_client("stream", "streams/piped", "pipe-upload", source)),
        "put_file": _checked(ctx, size, lambda: ctx.c_client("put_file", source, "streams/file")),
    }, ctx.mode.large_repeats), upload_metrics(size))
    figures = medians(stats)
    return {**figures, "peak_rss_mib": figures["pipe_peak_rss_mib"], "bytes": size,
            "repeats": ctx.mode.large_repeats, "stats": stats}
