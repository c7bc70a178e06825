"""The test files, metrics and curl peer shared by the large-transfer workloads."""

from __future__ import annotations

import os
from pathlib import Path

from harness.context import BUCKET, Context
from harness.process import ClientRun

MIB = 1 << 20
GIB = 1 << 30


def test_file(path: Path, size: int) -> Path:
    """Random bytes, so no compression anywhere can flatter a client; made once per size."""
    if not path.exists() or path.stat().st_size != size:
        with open(path, "wb") as out:
            for _ in range(size // MIB):
                out.write(os.urandom(MIB))
    return path


def upload_metrics(size: int) -> dict:
    """Per-run figures; CPU is the work's when the client reports it (a Python client's
    interpreter start is not the transfer's cost), else the whole process's."""
    return {
        "mibps": lambda m: size / MIB / m.client.seconds,
        "cpu_s_per_gib": lambda m: m.client.report.get("work_cpu_seconds", m.client.cpu_seconds) * GIB / size,
        "process_cpu_s_per_gib": lambda m: m.client.cpu_seconds * GIB / size,
        "peak_rss_mib": lambda m: m.client.peak_rss_mib,
        "emulator_busy": lambda m: m.emulator_busy,
    }


def sparse_file(path: Path, size: int) -> Path:
    """A file of `size` zero bytes that takes no space: the source of the biggest upload."""
    with open(path, "wb") as out:
        out.truncate(size)
    return path


def escaped(name: str) -> str:
    """An object name as one segment of a v0 URL."""
    return name.replace("/", "%2F")


def curl_upload(ctx: Context, path: Path, name: str) -> ClientRun:
    """curl -T: one PUT of the whole file, the practical limit of this box. -w prints curl's
    own transfer time in the clients' result format."""
    return ctx.run(["curl", "-sS", "--fail", "-o", "/dev/null", "-w", '{"seconds": %{time_total}}\\n',
                       "-T", path, f"{ctx.emulator.url}/v0/b/{BUCKET}/o/{escaped(name)}"])
