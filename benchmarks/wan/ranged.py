"""Ranged reads over the link: pyarrow reads one column of a Parquet object (uploaded
beforehand, off the link) through fbstorage.fsspec and through gcsfs. Round trips dominate here:
each range pyarrow needs is one request; the footer first, then the column's chunks."""

from __future__ import annotations

from .tools import ToolFailed, Tools

OBJECT = "ranged/table.parquet"


def run(tools: Tools) -> dict:
    seconds, failed, requested = {}, {}, {}
    for tool in ("fbstorage", "gcsfs"):
        try:
            run = tools.run(tools.python("ranged_read.py", tool, tools.link.endpoint, tools.bucket, OBJECT))
            seconds[tool] = round(run.seconds, 3)
            requested[tool] = run.report["pyarrow_bytes_requested"]
        except ToolFailed as error:
            failed[tool] = str(error)
    return {"ranged_read_s": seconds, "ranged_read_failed": failed, "ranged_read_pyarrow_bytes": requested}
