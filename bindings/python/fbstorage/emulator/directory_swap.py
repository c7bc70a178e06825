"""Putting a new directory in the place of an old one so that the path always holds one of them.

Linux's renameat2(RENAME_EXCHANGE) swaps two paths in one step (glibc 2.28 and later, on ext4,
xfs, btrfs, tmpfs and most local filesystems): a crash at any instant leaves either the old or the
new directory at the target. Where the filesystem cannot exchange (EINVAL: NFS, some FUSE
filesystems), the old directory is first renamed aside and the new one into place, with a
warning: a crash between the two renames leaves the target missing and the old directory beside
it, under the name logged.
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
from pathlib import Path
from typing import Callable

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_libc = ctypes.CDLL(None, use_errno=True)
log = logging.getLogger(__name__)


def replace_directory(new: Path, target: Path, crash_point: Callable[[str], None]) -> Path | None:
    """Put `new` at `target`; the path of the old directory, now at `new`'s former path (None if
    there was none), for the caller to remove. `crash_point` is called between the steps."""
    sync_filesystem(new)  # the new directory's files are on disk before any name points at them
    crash_point("synced")
    if not target.exists():
        os.rename(new, target)  # also replaces an empty directory created meanwhile
        fsync_directory(target.parent)
        return None
    if _exchange(new, target):
        fsync_directory(target.parent)
        return new
    aside = new.with_name(new.name + ".old")
    log.warning("%s cannot swap directories in one step; the previous %s is at %s until the new one"
                " is in place", target.parent, target, aside)
    os.rename(target, aside)
    crash_point("moved-aside")
    try:
        os.rename(new, target)
    except OSError:
        os.rename(aside, target)
        raise
    fsync_directory(target.parent)
    return aside


def sync_filesystem(path: Path) -> None:
    """Write out every file of the filesystem holding `path` (one syncfs call, not one fsync per
    file of an export)."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        if _libc.syncfs(fd) != 0:
            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error), str(path))
    finally:
        os.close(fd)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths atomically; False if the filesystem cannot."""
    renameat2 = getattr(_libc, "renameat2", None)
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    error = ctypes.get_errno()
    if error in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(error, os.strerror(error), str(second))


def fsync_directory(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
