"""make bench: start the bundled emulator, run every workload, write results/latest.*.

  run.py [--quick] [--only WORKLOAD ...] --emulator-python PY --build-dir DIR --library SO
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from harness import charts, machine, report, targets
from harness.context import BINDING, Context, Mode
from harness.emulator import Emulator
from workloads import (aio_uploads, call_overhead, chunk_sweep, gcs_upload, large_upload, list_all,
                       progress_overhead, rules, small_objects)
from workloads import swift_api
from workloads import downloads, emulator_cost, scale, signin, streams
from workloads import emulator_scale, peer_emulator
from workloads import ranged_read, wan

WORKLOADS = {
    "large_upload": large_upload.run,
    "small_objects": small_objects.run,
    "swift_api": swift_api.run,
    "list_all": list_all.run,
    "call_overhead": call_overhead.run,
    "progress_overhead": progress_overhead.run,
    "chunk_sweep": chunk_sweep.run,
    "rules": rules.run,
    "gcs": gcs_upload.run,
    "aio": aio_uploads.run,
    "download": downloads.run,
    "scale": scale.run,
    "emulator": emulator_cost.run,
    "signin": signin.run,
    "stream_download": streams.download,
    "stream_upload": streams.upload,
    "peer_emulator": peer_emulator.run,
    "emulator_scale": emulator_scale.run,
    "ranged_read": ranged_read.run,
    "wan": wan.run,
}
RESULTS = Path(__file__).resolve().parent / "results"


def scratch_root() -> str:
    """tmpfs when there is one: the 1 GiB file and the emulator's objects stay off the disk."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() else tempfile.gettempdir()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", nargs="+", choices=sorted(WORKLOADS))
    parser.add_argument("--emulator-python", required=True)
    parser.add_argument("--build-dir", required=True, type=Path)
    parser.add_argument("--library", required=True, type=Path)
    args = parser.parse_args()
    mode = Mode.quick() if args.quick else Mode.full()
    chosen = [w for w in (args.only or WORKLOADS) if w != "chunk_sweep" or mode.chunk_sweep_mib]

    results: dict = {"mode": mode.name, "machine": machine.describe()}
    if args.only and (RESULTS / "latest.json").exists():
        # A subset updates its sections of the last full results; the rest stay as they were.
        results = {**json.loads((RESULTS / "latest.json").read_text()), **results}
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fbstorage-bench-", dir=scratch_root()) as scratch, \
            Emulator(args.emulator_python, str(BINDING), scratch) as emulator:
        ctx = Context(mode, emulator, sys.executable, args.build_dir.resolve(),
                      args.library.resolve(), Path(scratch))
        for name in chosen:
            print(f"bench: {name} ...", flush=True)
            workload_started = time.monotonic()
            section = WORKLOADS[name](ctx)
            results.setdefault("workload_seconds", {})[name] = round(time.monotonic() - workload_started, 1)
            # The progress figure lives at the top level, as the key list has it.
            if "python_progress_overhead_pct" in section:
                results["python_progress_overhead_pct"] = section.pop("python_progress_overhead_pct")
            results[name] = section
    seconds = round(time.monotonic() - started, 1)
    results["seconds" if not args.only else "subset_seconds"] = seconds
    results["targets"] = targets.check(results)

    RESULTS.mkdir(exist_ok=True)
    report.write_json(results, RESULTS / "latest.json")
    markdown = report.markdown(results)
    (RESULTS / "latest.md").write_text(markdown)
    report.update_readme(RESULTS.parent / "README.md", markdown)
    pngs = charts.write(results, RESULTS)
    print((RESULTS / "latest.md").read_text())
    print(f"bench: {seconds} s; wrote {RESULTS}/latest.json, latest.md"
          + (f" and {len(pngs)} charts" if pngs else " (no matplotlib: no charts)"))


if __name__ == "__main__":
    main()
