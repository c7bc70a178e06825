"""`ifGenerationMatch` and friends (and their `ifSource…` forms): 412 when one does not hold.

`generation=` names the live generation or, in a versioned bucket, a noncurrent one; any other
(or an object that does not exist) is a 404, as GCS answers for a deleted generation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..metadata import ObjectMetadata
from ..store import ObjectStore, StoredObject
from .errors import InvalidLong, PreconditionFailed, no_such_object

CONDITIONS = ("GenerationMatch", "GenerationNotMatch", "MetagenerationMatch", "MetagenerationNotMatch")
_INTEGER = re.compile(r"^-?[0-9]+$")


def int_parameter(query: dict[str, str], key: str) -> int | None:
    raw = query.get(key)
    if raw is None:
        return None
    if not _INTEGER.match(raw):
        raise InvalidLong(key, raw)
    return int(raw)


@dataclass(frozen=True)
class Preconditions:
    """The conditions a request puts on one object (the target, or with `source=True` the source)."""

    values: tuple[tuple[str, str, int], ...]  # (parameter, condition, value), e.g. ("ifGenerationMatch", "GenerationMatch", 7)

    @classmethod
    def from_query(cls, query: dict[str, str], *, source: bool = False) -> "Preconditions":
        prefix = "ifSource" if source else "if"
        values = []
        for condition in CONDITIONS:
            value = int_parameter(query, prefix + condition)
            if value is not None:
                values.append((prefix + condition, condition, value))
        return cls(tuple(values))

    def check(self, stored: StoredObject | None, new: ObjectMetadata | None = None) -> None:
        """Raise a 412 unless every condition holds for `stored` (None: no live object). `new`,
        the object an upload is about to commit, plays no part: this is also a CommitCheck."""
        generation = stored.metadata.generation if stored else None
        metageneration = stored.metadata.metageneration if stored else None
        for parameter, condition, value in self.values:
            if condition == "GenerationMatch":
                holds = (stored is None) if value == 0 else generation == value
            elif condition == "GenerationNotMatch":
                holds = (stored is not None) if value == 0 else generation != value
            elif condition == "MetagenerationMatch":
                holds = metageneration == value
            else:
                holds = metageneration != value
            if not holds:
                raise PreconditionFailed(f"{parameter}={value}",
                                         not_modified=condition.endswith("NotMatch") and stored is not None)


def requested_object(store: ObjectStore, bucket: str, name: str, generation: int | None) -> StoredObject:
    """The object a request names (the live one unless `generation` is given), or a 404."""
    stored = store.get(bucket, name, generation)
    if stored is None:
        raise no_such_object(bucket, name)
    return stored
