"""Workload: 1 GiB through the emulator's GCS JSON API (google-cloud-storage, resumable) against
the same file through its v0 resumable protocol, with the emulator's memory sampled meanwhile.

Keys (section "gcs"): resumable_1gib_mibps, v0_1gib_mibps, emulator_peak_rss_mib (the highest
RSS seen during any upload) and emulator_idle_rss_mib (before the first).

Alone, without `make bench` (nothing written to results/):
  cd benchmarks && python -m workloads.gcs_upload --emulator-python ../.venv/bin/python \\
      --build-dir ../build/bench [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from harness.context import BINDING, CLIENTS, Context, Measurement, Mode
from harness.emulator import Emulator
from harness.stats import alternate, medians, summarize

from .uploads import test_file, upload_metrics

SAMPLE_SECONDS = 0.05


@contextmanager
def peak_rss(emulator: Emulator, peaks: list[float]) -> Iterator[None]:
    """Samples the emulator's RSS until the block ends; appends the highest value to `peaks`."""
    done = threading.Event()
    highest = [emulator.rss_mib()]

    def sample() -> None:
        while not done.wait(SAMPLE_SECONDS):
            highest[0] = max(highest[0], emulator.rss_mib())
    sampler = threading.Thread(target=sample, name="rss-sampler")
    sampler.start()
    try:
        yield
    finally:
        done.set()
        sampler.join()
        peaks.append(max(highest[0], emulator.rss_mib()))


def run(ctx: Context, repeats: int | None = None) -> dict:
    size = ctx.mode.large_bytes
    path = test_file(ctx.scratch / f"large-{size}.bin", size)
    idle = ctx.emulator.rss_mib()
    peaks: list[float] = []

    def upload(command: str, name: str) -> Measurement:
        argv = [ctx.emulator.python, CLIENTS / "gcs_client.py", command, ctx.emulator.address, "bench", path, name]
        with peak_rss(ctx.emulator, peaks):
            return ctx.measure(lambda: ctx.run(argv, ctx.python_env()))
    peers = {"resumable_1gib": lambda: upload("gcs-put", "gcs/large"),
             "v0_1gib": lambda: upload("v0-put", "v0/large")}
    count = repeats or ctx.mode.large_repeats
    stats = summarize(alternate(peers, count, ctx.emulator.reset), {"mibps": upload_metrics(size)["mibps"]})
    figures = medians(stats)
    return {**figures, "ratio": round(figures["resumable_1gib_mibps"] / figures["v0_1gib_mibps"], 3),
            "emulator_peak_rss_mib": round(max(peaks), 1), "emulator_idle_rss_mib": round(idle, 1),
            "bytes": size, "repeats": count, "stats": stats}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--emulator-python", required=True)
    parser.add_argument("--build-dir", required=True, type=Path, help="where the `measure` launcher is")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    scratch_root = "/dev/shm" if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(prefix="fbstorage-bench-", dir=scratch_root) as scratch, \
            Emulator(args.emulator_python, str(BINDING), scratch) as emulator:
        ctx = Context(Mode.quick(), emulator, sys.executable, args.build_dir.resolve(), Path(), Path(scratch))
        print(json.dumps({"gcs": run(ctx, args.repeats)}, indent=2))


if __name__ == "__main__":
    main()
