"""Files only their owner may read (they hold upload session URLs or sign-in details)."""

from __future__ import annotations

import os
from pathlib import Path


def write_private_file(path: Path, text: str) -> None:
    """Writes ``text`` to ``path`` with mode 0600, atomically: a crash leaves the old file or
    the new one. The folder is created with mode 0700 if missing."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(text)
    temporary.replace(path)
