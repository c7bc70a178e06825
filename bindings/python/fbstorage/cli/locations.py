"""Where a command-line argument points: an object path in a bucket, or a local path."""

from __future__ import annotations

import dataclasses

SCHEME = "gs://"


class UsageError(Exception):
    """A command line that cannot be carried out as written (exit status 2)."""


@dataclasses.dataclass(frozen=True)
class RemotePath:
    """``gs://bucket/path``; ``path`` is "" for the bucket's root."""

    bucket: str
    path: str

    @classmethod
    def parse(cls, text: str) -> RemotePath:
        if not is_remote(text):
            raise UsageError(f"{text!r} is not a gs://bucket/path")
        bucket, _, path = text[len(SCHEME):].partition("/")
        if not bucket:
            raise UsageError(f"{text!r} names no bucket")
        return cls(bucket, path.strip("/"))

    @property
    def name(self) -> str:
        return self.path.rpartition("/")[2]

    def child(self, relative: str) -> RemotePath:
        return RemotePath(self.bucket, f"{self.path}/{relative}".strip("/"))

    def __str__(self) -> str:
        return f"{SCHEME}{self.bucket}/{self.path}"


def is_remote(text: str) -> bool:
    return text.startswith(SCHEME)


def names_folder(text: str) -> bool:
    """True when a destination is written as a folder: a trailing "/" or a bucket's root."""
    return text.endswith("/") or (is_remote(text) and not RemotePath.parse(text).path)
