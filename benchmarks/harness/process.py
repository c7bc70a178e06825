"""Runs one benchmark client as its own process and measures it from outside.

Each client prints one JSON object on its last stdout line (at least {"seconds": S}, the
client's own timing of the work, which leaves interpreter start-up out of rates). CPU
(user + sys) and peak RSS of the whole client process come from wait4() in the `measure`
launcher (clients/measure.c explains why not from here).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any


class ClientFailed(RuntimeError):
    pass


@dataclasses.dataclass(frozen=True)
class ClientRun:
    report: dict[str, Any]   # the client's JSON line
    cpu_seconds: float       # user + sys of the client process
    peak_rss_mib: float

    @property
    def seconds(self) -> float:
        return float(self.report["seconds"])


def run_client(measure: Path, argv: list[str], env: dict[str, str] | None = None) -> ClientRun:
    # stderr goes to a file, so a chatty client cannot fill a pipe nobody reads.
    with tempfile.TemporaryFile() as stderr:
        done = subprocess.run([str(measure), *argv], stdout=subprocess.PIPE, stderr=stderr, env=env)
        if done.returncode != 0:
            stderr.seek(0)
            detail = stderr.read().decode(errors="replace").strip()[-2000:]
            raise ClientFailed(f"{' '.join(argv)} exited {done.returncode}: {detail}")
    lines = done.stdout.decode().strip().splitlines()
    if len(lines) < 2:
        raise ClientFailed(f"{' '.join(argv)} printed no result")
    usage = json.loads(lines[-1])
    return ClientRun(report=json.loads(lines[-2]), cpu_seconds=usage["cpu_seconds"],
                     peak_rss_mib=usage["peak_rss_kib"] / 1024)
