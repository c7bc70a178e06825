"""Per-upload accounting from the library's debug log (fbstorage.set_log_handler).

The soak names every object ``soak/NNNNNN.bin``; attempt lines carry it in their URL
(``name=soak%2FNNNNNN.bin``), retry lines in their ``gs://`` prefix.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

# "PUT http://…?name=soak%2F000012.bin&upload_id=REDACTED [upload at 262144] -> HTTP 200, server has 524288, sent 262144 of 262144 body bytes"
_ATTEMPT = re.compile(
    r"^(?P<method>[A-Z]+) (?P<url>\S+)(?: \[(?P<command>[a-z, ]+?)(?: at \d+)?\])? -> "
    r"(?P<outcome>.*?)(?:, sent (?P<sent>\d+) of (?P<length>\d+) body bytes)?$"
)
_UPLOAD_ID = re.compile(r"soak(?:%2F|/)(\d+)\.bin")


@dataclass
class UploadLog:
    """What the log says about one upload."""

    lines: list[str] = field(default_factory=list)  # timestamped; printed when the upload goes wrong
    attempts: int = 0
    failed_attempts: Counter[str] = field(default_factory=Counter)  # by kind: cut, 503, 429, …
    wasted_by_kind: Counter[str] = field(default_factory=Counter)  # data bytes in failed attempts
    data_bytes_sent: int = 0
    multipart_body: int | None = None  # length of the last multipart attempt's body
    retries: int = 0
    restarts: int = 0
    queries: int = 0


class AttemptLog:
    """A log handler that files every line under its upload; thread-safe."""

    def __init__(self) -> None:
        self.uploads: dict[int, UploadLog] = {}
        self.unattributed: list[str] = []
        self._lock = threading.Lock()
        self._started = time.monotonic()

    def __call__(self, level: int, line: str) -> None:
        found = _UPLOAD_ID.search(line)
        with self._lock:
            if not found:
                self.unattributed.append(line)
                return
            upload = self.uploads.setdefault(int(found.group(1)), UploadLog())
            upload.lines.append(f"{time.monotonic() - self._started:7.2f} {line}")
            self._file(upload, line)

    def _file(self, upload: UploadLog, line: str) -> None:
        if ": retrying in " in line:
            upload.retries += 1
            return
        if "lost the upload session; starting over" in line:
            upload.restarts += 1
            return
        attempt = _ATTEMPT.match(line)
        if not attempt:
            return
        upload.attempts += 1
        command = attempt["command"]
        upload.queries += command == "query"
        carries_data = command in ("upload", "upload, finalize") or (
            command is None and attempt["method"] == "POST" and "upload_id" not in attempt["url"]
        )
        sent = int(attempt["sent"] or 0)
        if carries_data:
            upload.data_bytes_sent += sent
            if command is None:
                upload.multipart_body = int(attempt["length"] or 0)
        kind = _failure_kind(attempt["outcome"])
        if kind:
            upload.failed_attempts[kind] += 1
            if carries_data:
                upload.wasted_by_kind[kind] += sent


def _failure_kind(outcome: str) -> str | None:
    """"cut" for transport errors, "HTTP n" for an error status, None for success."""
    if outcome.startswith("HTTP "):
        status = int(outcome[5:8])
        return None if 200 <= status < 300 else f"HTTP {status}"
    return "cut"


def bytes_resent(upload: UploadLog, size: int, multipart_threshold: int) -> int:
    """Data bytes sent beyond one copy of the payload (multipart: of one request body)."""
    payload = (upload.multipart_body or 0) if size <= multipart_threshold else size
    return max(upload.data_bytes_sent - payload, 0)
