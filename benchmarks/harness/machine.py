"""What the numbers were measured on."""

from __future__ import annotations

import datetime
import os
import platform


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def describe() -> dict[str, object]:
    return {
        "cores": os.cpu_count(),
        "cpu": _cpu_model(),
        "kernel": platform.release(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "load_average_at_start": os.getloadavg(),
    }
