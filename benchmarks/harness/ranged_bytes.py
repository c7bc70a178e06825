"""What a client fetched of an object, from the emulator's request log: the bytes of each GET
of it (its Range, clamped to the object; the whole object without one)."""

from __future__ import annotations

import re
from urllib.parse import quote


def _media_gets(entries: list[dict], name: str) -> list[dict]:
    path = "/o/" + quote(name, safe="")
    return [entry for entry in entries
            if entry["method"] == "GET" and entry["path"].endswith(path) and "alt=media" in entry["query"]]


def media_gets(entries: list[dict], name: str) -> int:
    """How many GETs of the object's bytes."""
    return len(_media_gets(entries, name))


def fetched_bytes(entries: list[dict], name: str, size: int) -> int:
    total = 0
    for entry in _media_gets(entries, name):
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
