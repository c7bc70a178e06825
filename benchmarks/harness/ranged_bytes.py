"""What a client fetched of an object, from the emulator's request log: the bytes of each GET
of it (its Range, clamped to the object; the whole object without one)."""

from __future__ import annotations

import re
from urllib.parse import quote


def fetched_bytes(entries: list[dict], name: str, size: int) -> int:
    path = "/o/" + quote(name, safe="")
    total = 0
    for entry in entries:
        if entry["method"] != "GET" or not entry["path"].endswith(path) or "alt=media" not in entry["query"]:
            continue
        header = next((value for key, value in entry["headers"].items() if key.lower() == "range"), None)
        match = re.fullmatch(r"bytes=(\d*)-(\d*)", header or "")
        if match is None:
            total += size
        elif not match[1]:  # the last N bytes
            total += min(int(match[2]), size)
        else:
            end = min(int(match[2]) + 1 if match[2] else size, size)
            total += max(end - int(match[1]), 0)
    return total
