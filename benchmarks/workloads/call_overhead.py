"""Workload 4: C call overhead, in ns per call (noisy) and instructions per call (callgrind)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from harness.context import BUCKET, Context
from harness.stats import summary

REPEATS = 5


def run(ctx: Context) -> dict:
    timings = [ctx.c_client("call_overhead", ctx.mode.call_iterations).report["ns_per_call"]
               for _ in range(REPEATS)]
    section = {"ns_per_call": {op: summary([t[op] for t in timings]) for op in timings[0]},
               "iterations": ctx.mode.call_iterations}
    if shutil.which("valgrind"):
        section["instructions_per_call"] = instructions_per_call(ctx)
    else:
        section["instructions_per_call"] = "valgrind not installed"
    return section


def instructions_per_call(ctx: Context) -> dict[str, float]:
    """The client dumps one callgrind part per operation (see call_overhead.c)."""
    iterations = ctx.mode.callgrind_iterations
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                        f"--callgrind-out-file={out}/callgrind.out",
                        str(ctx.build_dir / "call_overhead"), ctx.emulator.address, BUCKET,
                        str(iterations)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return {operation: instructions / iterations
                for operation, instructions in parts(Path(out)).items()}


def parts(out: Path) -> dict[str, int]:
    """{operation: Ir} from the dumps callgrind.out.N, whose trigger names the operation."""
    found = {}
    for dump in out.glob("callgrind.out.*"):
        trigger = total = None
        for line in dump.read_text().splitlines():
            if line.startswith("desc: Trigger: Client Request: "):
                trigger = line.split(": ", 3)[3]
            elif line.startswith("totals: "):
                total = int(line.split()[1])
        if trigger and total is not None:
            found[trigger] = total
    return found
