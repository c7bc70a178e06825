"""Workload "peer_emulator": the emulator's GCS JSON API against fake-gcs-server (harness/fake_gcs.py),
both driven by google-cloud-storage (clients/gcs_peer_client.py) in the same run, alternating.

- small uploads: SMALL_COUNT × SMALL_BYTES `upload_from_string`, one at a time; the server's CPU
  (/proc, user + sys) over the run, per upload;
- one resumable upload of 1 GiB (quick: 256 MiB, once) in 16 MiB chunks, MiB/s;
- its download (`download_to_filename` to tmpfs), MiB/s;
- listing, last (fake-gcs-server's writes slow down as its bucket grows): a folder of 10,000
  objects (quick: 5,000; see `sizes`) walked in pages of 1000; each walk starts right after a
  write elsewhere in the bucket, so no server can answer from what it computed for the last
  walk. The figure is the mean time per page.

Keys (section "peer_emulator"): {ours,fake_gcs}_cpu_ms_per_small_upload, _resumable_mibps,
_download_mibps, _list_page_ms.
"""

from __future__ import annotations

import concurrent.futures
import contextlib

from harness.context import CLIENTS, Context
from harness.fake_gcs import FakeGcsServer
from harness.server import ServerProcess
from harness.stats import alternate, ratio, summary

from .uploads import MIB, test_file

BUCKET = "bench"
SMALL_COUNT, SMALL_BYTES = 400, 1024
WARM_UP_COUNT = 50
LISTED_BYTES = 16
LISTED, SMALL, TOUCHED = "listed", "small", "touched"


def sizes(ctx: Context) -> tuple[int, int, int]:
    """The resumable upload's bytes, its repeats and the listed folder's objects. fake-gcs-server's
    writes cost more the more objects its bucket holds (10 ms of CPU per upload at 10,000), so
    filling it grows with the square of the folder: 10,000 objects take it 20–60 s, 100,000 more
    than 10 minutes (its `-data` start-up loading is no faster). The emulator's own listing at
    100,000 is workload emulator_scale's. Quick mode uploads 256 MiB once (~8 s for fake-gcs-server;
    not less: its MiB/s falls as the upload grows, ~100 at 64 MiB, ~30 at 256 MiB) and lists 5,000
    objects: filling 10,000 took fake-gcs-server 60 s of CPU (5,000: 14 s), a third of quick mode's
    3 minutes. Its pages are faster in the smaller folder (~33 ms against ~46) and the emulator's
    are not, so the quick list ratio is the less favourable one."""
    return (256 * MIB, 1, 5_000) if ctx.mode.name == "quick" else (1 << 30, 3, 10_000)


def run(ctx: Context) -> dict:
    python = ctx.emulator.python   # the test venv: google-cloud-storage
    size, large_repeats, listed = sizes(ctx)
    large = test_file(ctx.scratch / f"large-{size}.bin", size)
    downloaded = ctx.scratch / "peer-download.bin"
    repeats = ctx.mode.small_repeats

    def client(server: ServerProcess, command: str, *args: object):
        return ctx.run([python, CLIENTS / "gcs_peer_client.py", command, server.address, BUCKET, *args],
                       ctx.python_env())

    def server_cpu_ms_per_upload(server: ServerProcess) -> float:
        before = server.cpu_seconds()
        client(server, "small-uploads", SMALL, SMALL_COUNT, SMALL_BYTES)
        return 1000 * (server.cpu_seconds() - before) / SMALL_COUNT

    def resumable_mibps(server: ServerProcess) -> float:
        return size / MIB / client(server, "resumable-put", large, "large").seconds

    def download_mibps(server: ServerProcess) -> float:
        run = client(server, "download", downloaded, "large")
        downloaded.unlink()
        if run.report["size"] != size:
            raise RuntimeError(f"downloaded {run.report['size']} of {size} bytes")
        return size / MIB / run.seconds

    def list_page_ms(server: ServerProcess) -> float:
        client(server, "small-uploads", TOUCHED, 1, LISTED_BYTES)   # a write: whatever was cached is stale
        report = client(server, "list-pages", LISTED).report
        if report["items"] != listed:
            raise RuntimeError(f"listed {report['items']} of {listed}")
        return 1000 * report["seconds"] / report["pages"]

    with contextlib.ExitStack() as running:
        ctx.emulator.reset()
        fake_gcs = running.enter_context(FakeGcsServer())
        fake_gcs.create_bucket(BUCKET)
        servers = {"ours": ctx.emulator, "fake_gcs": fake_gcs}

        def each(measure, count):
            return alternate({name: lambda s=server: measure(s) for name, server in servers.items()}, count)
        for server in servers.values():
            client(server, "small-uploads", SMALL, WARM_UP_COUNT, SMALL_BYTES)   # warm-up
        runs = {"cpu_ms_per_small_upload": each(server_cpu_ms_per_upload, repeats),
                "resumable_mibps": each(resumable_mibps, large_repeats),
                "download_mibps": each(download_mibps, large_repeats)}
        # Both fill at once (nothing is measured): the emulator's few seconds hide in fake-gcs-server's.
        with concurrent.futures.ThreadPoolExecutor(len(servers)) as fillers:
            list(fillers.map(lambda server: ctx.run([python, CLIENTS / "http_load.py", "gcs-uploads", server.address,
                                                     BUCKET, LISTED, listed, LISTED_BYTES], ctx.python_env()),
                             servers.values()))
        runs["list_page_ms"] = each(list_page_ms, repeats)
        ctx.emulator.reset()
    stats = {name: {metric: summary(by_server[name]) for metric, by_server in runs.items()} for name in servers}
    figures = {f"{name}_{metric}": stats[name][metric]["median"] for name in servers for metric in runs}
    return {**figures,
            "small_upload_cpu_vs_fake_gcs": ratio(figures["ours_cpu_ms_per_small_upload"],
                                                  figures["fake_gcs_cpu_ms_per_small_upload"]),
            "resumable_vs_fake_gcs": ratio(figures["ours_resumable_mibps"], figures["fake_gcs_resumable_mibps"]),
            "download_vs_fake_gcs": ratio(figures["ours_download_mibps"], figures["fake_gcs_download_mibps"]),
            "list_page_vs_fake_gcs": ratio(figures["ours_list_page_ms"], figures["fake_gcs_list_page_ms"]),
            "small_uploads": SMALL_COUNT, "small_bytes": SMALL_BYTES, "bytes": size, "chunk_bytes": 16 * MIB,
            "large_repeats": large_repeats, "repeats": repeats, "listed_objects": listed, "stats": stats}
