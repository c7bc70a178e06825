"""Everything a workload needs: the emulator, how to start each client, the mode's sizes."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Callable

from .emulator import Emulator
from .process import ClientRun, run_client

CLIENTS = Path(__file__).resolve().parent.parent / "clients"
BINDING = CLIENTS.parent.parent / "bindings" / "python"
BUCKET = "bench.appspot.com"


@dataclasses.dataclass(frozen=True)
class Measurement:
    client: ClientRun
    emulator_cpu_seconds: float

    @property
    def emulator_busy(self) -> float:
        return self.emulator_cpu_seconds / self.client.seconds


@dataclasses.dataclass(frozen=True)
class Mode:
    """Repeats and sizes. Quick repeats less and shrinks the large uploads and downloads
    (256 MiB), the big put_file (1 GiB) and the parallel uploads (8 × 64 MiB)."""
    name: str
    large_bytes: int
    large_repeats: int
    small_count: int
    small_size: int
    small_repeats: int
    list_count: int
    list_repeats: int
    call_iterations: int          # native timing loop
    callgrind_iterations: int
    chunk_sweep_mib: tuple[int, ...]   # empty: no sweep
    download_bytes: int
    big_put_bytes: int            # one put_file from a sparse file
    parallel_bytes: int           # each of the parallel uploads
    parallel_repeats: int
    parquet_bytes: int = 256 << 20    # the ranged_read workload's Parquet object, in both modes

    @classmethod
    def quick(cls) -> Mode:
        return cls("quick", large_bytes=256 << 20, large_repeats=3, small_count=1000, small_size=4096,
                   small_repeats=3, list_count=10_000, list_repeats=7, call_iterations=200_000,
                   callgrind_iterations=2_000, chunk_sweep_mib=(),
                   download_bytes=256 << 20, big_put_bytes=1 << 30, parallel_bytes=64 << 20,
                   parallel_repeats=2)

    @classmethod
    def full(cls) -> Mode:
        return cls("full", large_bytes=1 << 30, large_repeats=7, small_count=1000, small_size=4096,
                   small_repeats=7, list_count=10_000, list_repeats=15, call_iterations=1_000_000,
                   callgrind_iterations=10_000, chunk_sweep_mib=(1, 2, 8, 32, 128),
                   download_bytes=1 << 30, big_put_bytes=10 << 30, parallel_bytes=1 << 30,
                   parallel_repeats=3)


@dataclasses.dataclass(frozen=True)
class Context:
    mode: Mode
    emulator: Emulator
    bench_python: str     # the venv with the peers (pyrebase4, requests)
    build_dir: Path       # the C clients
    library: Path         # libfbstorage.so
    scratch: Path         # large files; tmpfs when available

    def python_env(self) -> dict[str, str]:
        return dict(os.environ, PYTHONPATH=os.pathsep.join([str(CLIENTS), str(BINDING)]),
                    FBSTORAGE_LIBRARY=str(self.library))

    def run(self, argv: list[object], env: dict[str, str] | None = None) -> ClientRun:
        return run_client(self.build_dir / "measure", [str(a) for a in argv], env)

    def python_client(self, script: str, command: str, *args: object) -> ClientRun:
        argv = [self.bench_python, CLIENTS / script, command, self.emulator.address, BUCKET]
        return self.run(argv + list(args), self.python_env())

    def measure(self, start_client: Callable[[], ClientRun]) -> Measurement:
        """Runs one client and notes how busy the emulator was meanwhile (1.0 = a full core:
        the single-threaded emulator is then the bottleneck, not the client)."""
        emulator_before = self.emulator.cpu_seconds()
        run = start_client()
        return Measurement(run, self.emulator.cpu_seconds() - emulator_before)

    def c_client(self, program: str, *args: object) -> ClientRun:
        return self.run([self.build_dir / program, self.emulator.address, BUCKET, *args])
