"""Workload: storage.rules evaluation cost per request (benchmarks/rules_cost.py), run with the
emulator's Python, which has the rules engine's dependencies."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from harness.context import BINDING, Context

SCRIPT = Path(__file__).resolve().parent.parent / "rules_cost.py"


def run(ctx: Context) -> dict:
    output = subprocess.run([ctx.emulator.python, str(SCRIPT)], check=True, capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=str(BINDING))).stdout
    return json.loads(output)
