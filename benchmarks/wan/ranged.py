"""Ranged reads over the link: pyarrow reads one column of a Parquet object (uploaded
beforehand, off the link) through fbstorage.fsspec and through gcsfs. Round trips dominate here:
each range pyarrow needs is one request; the footer first, then the column's chunks, one after
another. fbstorage's requests are in the emulator's log (v0), so its bound is stated: its GETs
one after another, each a round trip plus its bytes at the link's rate."""

from __future__ import annotations

import sys
from pathlib import Path

from .tools import ToolFailed, Tools

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.ranged_bytes import fetched_bytes, media_gets  # noqa: E402

OBJECT = "ranged/table.parquet"


def run(tools: Tools, object_bytes: int, rtt_ms: float, link_mibps: float) -> dict:
    seconds, failed, requested, bound = {}, {}, {}, {}
    control = tools.link.emulator.control
    for tool in ("fbstorage", "gcsfs"):
        control.clear_requests()
        try:
            run = tools.run(tools.python("ranged_read.py", tool, tools.link.endpoint, tools.bucket, OBJECT))
            seconds[tool] = round(run.seconds, 3)
            requested[tool] = run.report["pyarrow_bytes_requested"]
        except ToolFailed as error:
            failed[tool] = str(error)
            continue
        if tool == "fbstorage":
            entries = control.requests()
            gets, fetched = media_gets(entries, OBJECT), fetched_bytes(entries, OBJECT, object_bytes)
            bound = {"ranged_read_fbstorage_gets": gets, "ranged_read_fbstorage_bytes_fetched": fetched,
                     "ranged_read_fbstorage_bound_s": round(gets * rtt_ms / 1000 + fetched / (link_mibps * (1 << 20)), 3)}
    return {"ranged_read_s": seconds, "ranged_read_failed": failed, "ranged_read_pyarrow_bytes": requested, **bound}
