"""Workload: pyarrow reads one column of a Parquet object on the loopback emulator (plain http)
through fbstorage.fsspec and through gcsfs (section "ranged_read").

Keys: fbstorage_s, gcsfs_s (the read), fbstorage_bytes_fetched (what the emulator sent for
fbstorage's GETs, from its request log), pyarrow_bytes_requested (what pyarrow read from the
file object), fetched_ratio (the two: fsspec's block cache reads ahead), object_bytes.
The same read over the WAN link is in the "wan" section (wan.ranged_read_s.<tool>).
"""

from __future__ import annotations

import json
import statistics
import urllib.request

from harness.context import BUCKET, CLIENTS, Context
from harness.ranged_bytes import fetched_bytes

OBJECT = "ranged/table.parquet"
REPEATS = 5  # a read takes ~0.15 s here: the median of 5 against the machine's noise


def run(ctx: Context) -> dict:
    path = ctx.scratch / "table.parquet"
    ctx.run([ctx.bench_python, CLIENTS / "ranged_read.py", "make", path, ctx.mode.parquet_bytes], ctx.python_env())
    size = path.stat().st_size
    ctx.c_client("put_file", path, OBJECT)
    endpoint = f"http://{ctx.emulator.address}"
    env = dict(ctx.python_env(), GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT="false")  # see wan/tools.py
    seconds: dict[str, list[float]] = {"fbstorage": [], "gcsfs": []}
    fetched, requested = [], []
    for _ in range(REPEATS):
        for tool in seconds:
            clear_requests(ctx)
            run = ctx.run([ctx.bench_python, CLIENTS / "ranged_read.py", tool, endpoint, BUCKET, OBJECT], env)
            seconds[tool].append(run.seconds)
            if tool == "fbstorage":
                fetched.append(fetched_bytes(requests(ctx), OBJECT, size))
                requested.append(run.report["pyarrow_bytes_requested"])
    figures = {f"{tool}_s": round(statistics.median(values), 3) for tool, values in seconds.items()}
    return {**figures, "fbstorage_bytes_fetched": max(fetched), "pyarrow_bytes_requested": max(requested),
            "fetched_ratio": round(max(fetched) / max(requested), 3),
            "time_ratio": round(figures["fbstorage_s"] / figures["gcsfs_s"], 3), "object_bytes": size}


def requests(ctx: Context) -> list[dict]:
    with urllib.request.urlopen(f"{ctx.emulator.url}/_emulator/requests") as reply:
        return json.load(reply)["requests"]


def clear_requests(ctx: Context) -> None:
    request = urllib.request.Request(f"{ctx.emulator.url}/_emulator/requests", method="DELETE")
    urllib.request.urlopen(request).close()
