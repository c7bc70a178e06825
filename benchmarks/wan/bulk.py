"""Bulk transfers over the link: one large object up and down, fbstorage's C client (put_file,
write_to_file) and curl (one POST of the file to the v0 API, one GET), against the link's own
rate (`link_mibps`)."""

from __future__ import annotations

import os

from .tools import Tools

MIB = 1 << 20


def run(tools: Tools, size: int) -> dict:
    source = tools.scratch / "bulk.bin"
    with open(source, "wb") as file:
        for _ in range(size // MIB):
            file.write(os.urandom(MIB))
    target = tools.scratch / "bulk-down.bin"
    endpoint, bucket = tools.link.endpoint, tools.bucket
    curl = ["curl", "-sSf", "-o", "/dev/null", "-w", "%{time_total}"]
    figures = {}
    runs = {
        "fbstorage_upload": tools.c("put_file", source, "bulk/fbstorage"),
        "fbstorage_download": tools.c("download", "bulk/fbstorage", "write-to-file", target),
        "curl_upload": [*curl, "-H", "Content-Type: application/octet-stream", "-T", source, "-X", "POST",
                        f"{endpoint}/v0/b/{bucket}/o?name=bulk%2Fcurl"],
        "curl_download": [*curl, f"{endpoint}/v0/b/{bucket}/o/bulk%2Fcurl?alt=media"],
    }
    protocols = {}
    for name, argv in runs.items():
        run = tools.run(argv)
        figures[f"{name}_mibps"] = round(size / MIB / run.seconds, 2)
        protocols[name] = run.protocols
    source.unlink()
    target.unlink(missing_ok=True)
    return {**figures, "bulk_bytes": size, "bulk_protocols": protocols}
