"""Workload "download": one large object, fbstorage get_data and write_to_file (C and Python)
against `curl -o` from the same emulator URL.

The object is uploaded once; between runs only the downloaded file is removed. Peers:
fbstorage_c / fbstorage_py are write_to_file (a file, as curl -o writes), *_get_data the
download into memory. Keys (section "download"): fbstorage_c_mibps, curl_mibps,
fbstorage_c_cpu_s_per_gib, curl_cpu_s_per_gib, write_to_file_peak_rss_mib (C), and every
peer's medians.
"""

from __future__ import annotations

from harness.context import BUCKET, Context
from harness.process import ClientFailed, ClientRun
from harness.stats import alternate, medians, summarize

from .uploads import curl_upload, escaped, test_file, upload_metrics

OBJECT = "download/large"


def curl_download(ctx: Context, destination: str, name: str = OBJECT) -> ClientRun:
    """curl -o from the URL fbstorage's downloads use (`?alt=media`, no token: the bench
    emulator's rules allow every read); -w prints curl's own transfer time."""
    return ctx.run(["curl", "-sS", "--fail", "-o", destination, "-w", '{"seconds": %{time_total}}\\n',
                    f"{ctx.emulator.url}/v0/b/{BUCKET}/o/{escaped(name)}?alt=media"])


def run(ctx: Context) -> dict:
    size = ctx.mode.download_bytes
    ctx.emulator.reset()
    curl_upload(ctx, test_file(ctx.scratch / f"large-{size}.bin", size), OBJECT)
    destination = ctx.scratch / "download.out"

    def remove_destination() -> None:
        destination.unlink(missing_ok=True)

    def checked(start_client):
        """Fails the workload when a client got fewer bytes than the object has."""
        def start() -> ClientRun:
            run = start_client()
            if run.report.get("bytes", size) != size:
                raise ClientFailed(f"downloaded {run.report['bytes']} of {size} bytes")
            if "bytes" not in run.report and destination.stat().st_size != size:
                raise ClientFailed(f"curl wrote {destination.stat().st_size} of {size} bytes")
            return run
        return lambda: ctx.measure(start)

    peers = {
        "fbstorage_c": checked(lambda: ctx.c_client("download", OBJECT, "write-to-file", destination)),
        "fbstorage_c_get_data": checked(lambda: ctx.c_client("download", OBJECT, "get-data")),
        "fbstorage_py": checked(lambda: ctx.python_client(
            "fbstorage_client.py", "write-to-file", OBJECT, destination)),
        "fbstorage_py_get_data": checked(lambda: ctx.python_client(
            "fbstorage_client.py", "get-data", OBJECT)),
        "curl": checked(lambda: curl_download(ctx, str(destination))),
    }
    stats = summarize(alternate(peers, ctx.mode.large_repeats, remove_destination), upload_metrics(size))
    remove_destination()
    figures = medians(stats)
    return {**figures, "write_to_file_peak_rss_mib": figures["fbstorage_c_peak_rss_mib"],
            "bytes": size, "repeats": ctx.mode.large_repeats, "stats": stats}
