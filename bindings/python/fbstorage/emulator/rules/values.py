"""Runtime values. Plain Python values stand for null, bool, int, float, string, bytes, list and
map; the classes here for the rest. Equality and type names follow the rules runtime, not Python
(`True != 1`, and inside containers `1 != 1.0`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable

from .errors import EvaluationError
from .limits import charge

INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1
NANOS_PER_SECOND = 1_000_000_000
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Path:
    segments: tuple[str, ...]

    def __str__(self) -> str:
        return "/" + "/".join(self.segments)


@dataclass(frozen=True, order=True)
class Duration:
    nanos: int


@dataclass(frozen=True, order=True)
class Timestamp:
    nanos: int  # since the Unix epoch, UTC

    @classmethod
    def parse(cls, text: str) -> "Timestamp":
        """An RFC 3339 time such as `2026-01-01T00:00:00.000Z`."""
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        delta = moment - _EPOCH
        return cls((delta.days * 86400 + delta.seconds) * NANOS_PER_SECOND + delta.microseconds * 1000)

    def datetime(self) -> datetime:
        return datetime.fromtimestamp(self.nanos // NANOS_PER_SECOND, tz=timezone.utc)


@dataclass(frozen=True)
class LatLng:
    latitude: float
    longitude: float


class RulesSet:
    """A set: its elements in first-seen order, without duplicates by rules equality."""

    __slots__ = ("items",)

    def __init__(self, items: Iterable[Any]):
        unique: list[Any] = []
        for item in items:
            if not contains(unique, item):
                unique.append(item)
        self.items = unique


@dataclass(frozen=True)
class MapDiff:
    left: dict
    right: dict


@dataclass(frozen=True)
class Namespace:
    """`math`, `duration`, `timestamp`, … : a name whose members are functions."""
    name: str


def type_name(value: Any) -> str:
    kind = type(value)
    if value is None:
        return "null"
    name = _TYPE_NAMES.get(kind)
    if name is None:
        raise EvaluationError(f"{kind.__name__} is not a rules value")
    return name


_TYPE_NAMES = {bool: "bool", int: "int", float: "float", str: "string", bytes: "bytes", list: "list",
               dict: "map", RulesSet: "set", Path: "path", Timestamp: "timestamp", Duration: "duration",
               LatLng: "latlng", MapDiff: "mapdiff", Namespace: "namespace"}


def is_type(value: Any, name: str) -> bool:
    actual = type_name(value)
    return actual == name or (name == "number" and actual in ("int", "float"))


def equal(left: Any, right: Any, nested: bool = False) -> bool:
    """`==`: numbers compare across int/float only at the top level; other types never equal."""
    left_type, right_type = type(left), type(right)
    if left_type is not right_type:
        numbers = (int, float)
        return (not nested and left_type in numbers and right_type in numbers) and left == right
    if left_type is list:
        return len(left) == len(right) and all(equal(a, b, True) for a, b in zip(left, right))
    if left_type is dict:
        return left.keys() == right.keys() and all(equal(left[key], right[key], True) for key in left)
    if left_type is RulesSet:
        return len(left.items) == len(right.items) and all(contains(right.items, item) for item in left.items)
    return left == right


def contains(items: list[Any], value: Any) -> bool:
    charge(len(items))
    return any(equal(item, value, True) for item in items)


def check_int(value: int) -> int:
    if not INT_MIN <= value <= INT_MAX:
        raise EvaluationError("integer overflow")
    return value


def from_json(value: Any) -> Any:
    """A JSON value as the emulator passes it: integral numbers become ints (reference §7.2)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [from_json(item) for item in value]
    if isinstance(value, dict):
        return {key: from_json(item) for key, item in value.items()}
    return value
