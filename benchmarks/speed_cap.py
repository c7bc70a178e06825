"""The speed cap held over time: an upload and a download of 20 MiB each, capped at 1 MiB/s
(`max_upload_speed`, `max_download_speed`), against the bundled emulator on loopback (which
would otherwise move them in well under a second). Passes when each average over its ~20 s is
within 5% of the cap; also reports the rate of every whole second of the transfer (from
PROGRESS events), and writes results/speed_cap.json. Run by `make bench`."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import fbstorage
from fbstorage.testing import run_emulator

MIB = 1 << 20


def measure(storage: fbstorage.Storage, direction: str, size: int, local: Path) -> dict[str, object]:
    samples: list[tuple[float, int]] = []
    lock = threading.Lock()

    def progress(snapshot: fbstorage.TaskSnapshot) -> None:
        with lock:
            samples.append((time.monotonic(), snapshot.bytes_transferred))

    reference = storage.reference("speed-cap/object.bin")  # uploaded, then downloaded
    started = time.monotonic()
    task = reference.put_file(local) if direction == "upload" else reference.write_to_file(local)
    task.observe(fbstorage.TaskStatus.PROGRESS, progress)
    task.wait(120)
    seconds = time.monotonic() - started
    with lock:
        # Whole seconds: thin the samples to one per second before taking differences.
        thinned: list[tuple[float, int]] = []
        for sample in samples:
            if not thinned or sample[0] - thinned[-1][0] >= 1.0:
                thinned.append(sample)
        per_second = [(b[1] - a[1]) / (b[0] - a[0]) / MIB for a, b in zip(thinned, thinned[1:])]
    return {"direction": direction, "bytes": size, "seconds": round(seconds, 3),
            "average_mib_per_s": round(size / seconds / MIB, 4),
            "per_second_mib_per_s": [round(rate, 3) for rate in per_second]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mib", type=int, default=20)
    parser.add_argument("--cap-mib", type=float, default=1.0)
    parser.add_argument("--output", type=Path, default=Path(__file__).parent / "results" / "speed_cap.json")
    args = parser.parse_args()
    cap, size = int(args.cap_mib * MIB), args.size_mib * MIB
    results = []
    with run_emulator("production") as emulator, tempfile.TemporaryDirectory() as directory:
        source, target = Path(directory) / "source.bin", Path(directory) / "target.bin"
        source.write_bytes(os.urandom(size))
        with emulator.storage() as storage:
            storage.max_upload_speed = storage.max_download_speed = cap
            results.append(measure(storage, "upload", size, source))
            results.append(measure(storage, "download", size, target))
        assert target.read_bytes() == source.read_bytes()
    failed = False
    for result in results:
        error = abs(float(result["average_mib_per_s"]) * MIB - cap) / cap  # type: ignore[arg-type]
        verdict = "ok" if error <= 0.05 else "FAILED"
        failed |= error > 0.05
        result["error_fraction"] = round(error, 4)
        print(f"speed cap {args.cap_mib} MiB/s, {result['direction']} of {args.size_mib} MiB: "
              f"{result['seconds']} s, {result['average_mib_per_s']} MiB/s on average "
              f"({error:.1%} off, {verdict}); per second: {result['per_second_mib_per_s']}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({"cap_bytes_per_s": cap, "results": results}, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
