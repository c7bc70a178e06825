"""Resumable upload sessions kept between runs, so an interrupted cp continues where it stopped.

One JSON file per (local file, destination object) under ``$XDG_CACHE_HOME/fbstorage/uploads``
(default ``~/.cache``). The library checks, when it resumes, that the local file is still the
one whose prefix the server holds; a session the server no longer knows starts over.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from ..errors import StorageErrorCode
from .private_file import write_private_file

#: Failures after which the session is worth resuming; any other drops it.
RESUMABLE_FAILURES = (
    StorageErrorCode.CANCELLED,
    StorageErrorCode.RETRY_LIMIT_EXCEEDED,
    StorageErrorCode.UNKNOWN,
)


#: The records this process saved and has not forgotten: the uploads an interruption leaves
#: to resume.
_kept: set[Path] = set()


def kept_sessions() -> int:
    return len(_kept)


def cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fbstorage" / "uploads"


class SessionRecord:
    """The saved session of one upload of ``local_path`` to ``destination``."""

    def __init__(self, local_path: str, destination: str) -> None:
        self._content = {"local_path": os.path.abspath(local_path), "destination": destination}
        key = hashlib.sha256(json.dumps(self._content, sort_keys=True).encode()).hexdigest()
        self.path = cache_folder() / f"{key}.json"

    def load(self) -> str | None:
        """The saved session, or None."""
        try:
            saved = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return None
        session = saved.get("session") if isinstance(saved, dict) else None
        return session if isinstance(session, str) else None

    def save(self, session: str) -> None:
        """Writes the session (private: a session URL lets anyone holding it write the object)."""
        write_private_file(self.path, json.dumps({**self._content, "session": session}))
        _kept.add(self.path)

    def forget(self) -> None:
        _kept.discard(self.path)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
