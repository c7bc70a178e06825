"""Buckets: which ones exist and their settings, kept by the ObjectStore beside the objects.

A bucket exists once created through the GCS API, named on the command line or in firebase.json,
used through the v0 API (as in a Firebase project, where the app's bucket exists), or holding an
object. An emulator reset forgets all but the configured ones.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from .metadata import now_us

# GCS naming: 3-63 characters (up to 222 with dots, 63 between them) of a-z, 0-9, `-`, `_` and
# `.`, starting and ending with a letter or digit.
_BUCKET_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9._-]{1,220})[a-z0-9]$")


_BUCKET_NAME_CHARACTERS = re.compile(r"[a-z0-9._-]+")


def bucket_name_characters_allowed(name: str) -> bool:
    """Whether GCS allows every character of `name` in a bucket name. The emulator accepts any
    name made of them (short ones such as "b" too), never one it could not store safely (a NUL)."""
    return bool(_BUCKET_NAME_CHARACTERS.fullmatch(name))


def valid_bucket_name(name: str) -> bool:
    return bool(_BUCKET_NAME.match(name)) and all(len(part) <= 63 for part in name.split("."))


@dataclass
class Bucket:
    name: str
    time_created_us: int
    updated_us: int
    metageneration: int = 1
    versioning: bool = False  # noncurrent generations are kept when objects are replaced or deleted

    @classmethod
    def new(cls, name: str, versioning: bool = False) -> "Bucket":
        created = now_us()
        return cls(name=name, time_created_us=created, updated_us=created, versioning=versioning)

    def touch(self) -> None:
        self.metageneration += 1
        self.updated_us = now_us()

    def to_record(self) -> dict:
        return asdict(self)

    @classmethod
    def from_record(cls, record: dict) -> "Bucket":
        return cls(**record)
