"""Runs one benchmark client as its own process and measures it from outside.

Each client prints one JSON object on its last stdout line (at least {"seconds": S}, the
client's own timing of the work, which leaves interpreter start-up out of rates). CPU
(user + sys) and peak RSS come from wait4(), so they cover the whole client process.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import tempfile
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


def run_client(argv: list[str], env: dict[str, str] | None = None) -> ClientRun:
    # stderr goes to a file: with two pipes, a chatty client could block us before wait4().
    with tempfile.TemporaryFile() as stderr:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=stderr, env=env)
        out = proc.stdout.read()
        proc.stdout.close()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)   # already reaped: keep Popen quiet
        if proc.returncode != 0:
            stderr.seek(0)
            detail = stderr.read().decode(errors="replace").strip()[-2000:]
            raise ClientFailed(f"{' '.join(argv)} exited {proc.returncode}: {detail}")
    lines = out.decode().strip().splitlines()
    if not lines:
        raise ClientFailed(f"{' '.join(argv)} printed no result")
    return ClientRun(report=json.loads(lines[-1]), cpu_seconds=usage.ru_utime + usage.ru_stime,
                     peak_rss_mib=usage.ru_maxrss / 1024)
