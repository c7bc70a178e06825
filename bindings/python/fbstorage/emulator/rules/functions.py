"""Built-in functions: the member functions of each type and the global functions and namespaces
(math, duration, timestamp, latlng, hashing, firestore), as the rules reference documents them
and the runtime behaves (reference §6)."""

from __future__ import annotations

import base64
import hashlib
import logging
import math
import re
import zlib
from datetime import datetime, timezone
from typing import Any, Callable

import google_crc32c
import re2

from . import firestore
from .errors import EvaluationError
from .limits import MATCH_STEPS, charge
from .values import (NANOS_PER_SECOND, Duration, LatLng, MapDiff, Namespace, Path, RulesSet, Timestamp,
                     check_int, contains, equal, type_name)

log = logging.getLogger("fbstorage.emulator.rules")
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False
_PATTERNS: dict[str, Any] = {}
_INT_TEXT = re.compile(r"-?\d+")
_FLOAT_TEXT = re.compile(r"-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_EARTH_RADIUS_METRES = 6371010.0
_DURATION_UNITS = {"w": 7 * 86400 * NANOS_PER_SECOND, "d": 86400 * NANOS_PER_SECOND, "h": 3600 * NANOS_PER_SECOND,
                   "m": 60 * NANOS_PER_SECOND, "s": NANOS_PER_SECOND, "ms": 1_000_000, "ns": 1}


REGEX_METHODS = ("matches", "replace", "split")  # string methods whose first argument is an RE2 pattern


def regex(pattern: Any) -> Any:
    """A compiled RE2 pattern (cached); an invalid one is an evaluation error."""
    compiled = _PATTERNS.get(pattern)
    if compiled is None:
        _expect(pattern, str, "a regular expression")
        try:
            compiled = re2.compile(pattern, _RE2_OPTIONS)
        except re2.error as error:
            message = error.args[0].decode() if error.args and isinstance(error.args[0], bytes) else str(error)
            raise EvaluationError(f"invalid regular expression {pattern!r}: {message}") from None
        if len(_PATTERNS) > 1000:
            _PATTERNS.clear()
        _PATTERNS[pattern] = compiled
    return compiled


def _expect(value: Any, kind: type | tuple, what: str) -> Any:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if type(value) not in kinds:
        raise EvaluationError(f"expected {what}, not {type_name(value)}")
    return value


def _number(value: Any) -> Any:
    return _expect(value, (int, float), "a number")


def _items(value: Any) -> list:
    """The elements of a list or set argument."""
    if type(value) is RulesSet:
        return value.items
    return _expect(value, list, "a list or set")


# string

def _replace(text: str, pattern: str, replacement: str) -> str:
    """All matches replaced; `$N` in the replacement is group N, `\\x` a literal x (Java's syntax)."""
    _expect(replacement, str, "a replacement string")
    pieces = re.split(r"(\$\d|\\.)", replacement)

    def substitute(found: Any) -> str:
        out = []
        for piece in pieces:
            if len(piece) == 2 and piece[0] == "$":
                out.append(found.group(int(piece[1])) or "")
            elif len(piece) == 2 and piece[0] == "\\":
                out.append(piece[1])
            else:
                out.append(piece)
        replaced = "".join(out)
        charge(MATCH_STEPS + len(replaced))  # as the result grows: `$0$0…` multiplies the text
        return replaced
    return regex(pattern).sub(substitute, text)


def _split(text: str, pattern: str) -> list[str]:
    """RE2/J's `Pattern.split(input)`, the Java RE2 whose syntax the runtime's patterns follow: the
    pieces around each match, where the search after an empty match resumes one character later, an
    empty match at the start leaves a leading '' and trailing empty pieces are dropped. So
    `'abc'.split('') == ['', 'a', 'b', 'c']`, which agrees with the runtime's recorded answer
    `'abc'.split('') == ['a', 'b', 'c']` → false (docs/reference/storage-rules.md §6.3)."""
    compiled = regex(pattern)
    pieces, piece_start, position = [], 0, 0
    search_steps = MATCH_STEPS + len(text) // 256  # each search hands the whole text to RE2 again
    while position <= len(text) and (found := compiled.search(text, position)) is not None:
        charge(search_steps)
        pieces.append(text[piece_start:found.start()])
        piece_start = found.end()
        position = found.end() + (found.start() == found.end())
    pieces.append(text[piece_start:])
    while pieces and not pieces[-1]:
        pieces.pop()
    return pieces


STRING_METHODS: dict[str, Callable[..., Any]] = {
    "size": len,
    "lower": str.lower,
    "upper": str.upper,
    "trim": lambda text: text.strip(" "),
    "matches": lambda text, pattern: regex(pattern).fullmatch(text) is not None,
    "replace": _replace,
    "split": _split,
    "toUtf8": lambda text: text.encode("utf-8"),
}

BYTES_METHODS: dict[str, Callable[..., Any]] = {
    "size": len,
    "toBase64": lambda data: base64.urlsafe_b64encode(data).decode("ascii"),
    "toHexString": lambda data: data.hex().upper(),
}


# list, set, map

def _join(items: list, separator: str) -> str:
    _expect(separator, str, "a separator string")
    charge(sum(len(item) if type(item) is str else 1 for item in items) + len(separator) * len(items))
    return separator.join(item if type(item) is str else to_string(item) for item in items)


def _to_set(items: Any) -> RulesSet:
    return RulesSet(_expect(items, list, "a list"))


LIST_METHODS: dict[str, Callable[..., Any]] = {
    "size": len,
    "concat": lambda items, other: items + _expect(other, list, "a list"),
    "hasAll": lambda items, other: all(contains(items, item) for item in _items(other)),
    "hasAny": lambda items, other: any(contains(items, item) for item in _items(other)),
    "hasOnly": lambda items, other: all(contains(_items(other), item) for item in items),
    "join": _join,
    "removeAll": lambda items, other: [item for item in items if not contains(_items(other), item)],
    "toSet": _to_set,
}


def _set_argument(value: Any) -> list:
    return _expect(value, RulesSet, "a set").items


SET_METHODS: dict[str, Callable[..., Any]] = {
    "size": lambda values: len(values.items),
    "hasAll": lambda values, other: all(contains(values.items, item) for item in _items(other)),
    "hasAny": lambda values, other: any(contains(values.items, item) for item in _items(other)),
    "hasOnly": lambda values, other: all(contains(_items(other), item) for item in values.items),
    "union": lambda values, other: RulesSet(values.items + _set_argument(other)),
    "intersection": lambda values, other: RulesSet(i for i in values.items if contains(_set_argument(other), i)),
    "difference": lambda values, other: RulesSet(i for i in values.items if not contains(_set_argument(other), i)),
}


def _map_get(mapping: dict, key: Any, default: Any) -> Any:
    """`get('k', d)`, or with a list of keys the value at that nested path."""
    keys = key if type(key) is list else [key]
    value: Any = mapping
    for part in keys:
        _expect(part, str, "a string key")
        if type(value) is not dict or part not in value:
            return default
        value = value[part]
    return value


MAP_METHODS: dict[str, Callable[..., Any]] = {
    "size": len,
    "keys": lambda mapping: sorted(mapping),
    "values": lambda mapping: [mapping[key] for key in sorted(mapping)],
    "get": _map_get,
    "diff": lambda mapping, other: MapDiff(mapping, _expect(other, dict, "a map")),
}


def _changed(diff: MapDiff) -> list[str]:
    return [key for key in diff.left if key in diff.right and not equal(diff.left[key], diff.right[key], True)]


MAPDIFF_METHODS: dict[str, Callable[..., Any]] = {
    "addedKeys": lambda diff: RulesSet(key for key in diff.left if key not in diff.right),
    "removedKeys": lambda diff: RulesSet(key for key in diff.right if key not in diff.left),
    "changedKeys": lambda diff: RulesSet(_changed(diff)),
    "unchangedKeys": lambda diff: RulesSet(key for key in diff.left if key in diff.right
                                           and equal(diff.left[key], diff.right[key], True)),
    "affectedKeys": lambda diff: RulesSet([*(key for key in diff.left if key not in diff.right),
                                           *(key for key in diff.right if key not in diff.left), *_changed(diff)]),
}


def _bind(path: Path, bindings: Any) -> Path:
    _expect(bindings, dict, "a map")
    segments = []
    for segment in path.segments:
        if segment.startswith("{") and segment.endswith("}"):
            name = segment[1:-1]
            if name not in bindings:
                raise EvaluationError(f"no binding for {{{name}}}")
            segments.append(to_string(bindings[name]))
        else:
            segments.append(segment)
    return Path(tuple(segments))


PATH_METHODS: dict[str, Callable[..., Any]] = {"bind": _bind}


# timestamp, duration, latlng

def _midnight(moment: Timestamp) -> int:
    return moment.nanos - moment.nanos % (86400 * NANOS_PER_SECOND)


TIMESTAMP_METHODS: dict[str, Callable[..., Any]] = {
    "year": lambda moment: moment.datetime().year,
    "month": lambda moment: moment.datetime().month,
    "day": lambda moment: moment.datetime().day,
    "hours": lambda moment: moment.datetime().hour,
    "minutes": lambda moment: moment.datetime().minute,
    "seconds": lambda moment: moment.datetime().second,
    "nanos": lambda moment: moment.nanos % NANOS_PER_SECOND,
    "dayOfWeek": lambda moment: moment.datetime().isoweekday(),
    "dayOfYear": lambda moment: moment.datetime().timetuple().tm_yday,
    "date": lambda moment: Timestamp(_midnight(moment)),
    "time": lambda moment: Duration(moment.nanos - _midnight(moment)),
    "toMillis": lambda moment: moment.nanos // 1_000_000,
}

DURATION_METHODS: dict[str, Callable[..., Any]] = {
    "seconds": lambda span: int(span.nanos / NANOS_PER_SECOND),
    "nanos": lambda span: span.nanos - int(span.nanos / NANOS_PER_SECOND) * NANOS_PER_SECOND,
}


def _distance(here: LatLng, there: Any) -> float:
    _expect(there, LatLng, "a latlng")
    lat1, lat2 = math.radians(here.latitude), math.radians(there.latitude)
    dlat, dlng = lat2 - lat1, math.radians(there.longitude - here.longitude)
    chord = math.sin(dlat / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin(dlng / 2) ** 2
    return 2 * _EARTH_RADIUS_METRES * math.asin(min(1.0, math.sqrt(chord)))


LATLNG_METHODS: dict[str, Callable[..., Any]] = {
    "latitude": lambda point: point.latitude,
    "longitude": lambda point: point.longitude,
    "distance": _distance,
}

METHODS: dict[str, dict[str, Callable[..., Any]]] = {
    "string": STRING_METHODS, "bytes": BYTES_METHODS, "list": LIST_METHODS, "set": SET_METHODS,
    "map": MAP_METHODS, "mapdiff": MAPDIFF_METHODS, "path": PATH_METHODS, "timestamp": TIMESTAMP_METHODS,
    "duration": DURATION_METHODS, "latlng": LATLNG_METHODS,
}


def call_method(target: Any, name: str, arguments: list) -> Any:
    kind = type_name(target)
    method = METHODS.get(kind, {}).get(name)
    if method is None:
        raise EvaluationError(f"Function not found error: Name: [{name}] on {kind}.")
    try:
        return method(target, *arguments)
    except TypeError:
        raise EvaluationError(f"wrong arguments for {kind}.{name}()") from None


# Globals.

def to_string(value: Any) -> str:
    kind = type(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind in (int, str):
        return str(value)
    if kind is float:
        return repr(value)
    if kind is Path:
        return str(value)
    raise EvaluationError(f"string() does not accept {type_name(value)}")


def to_int(value: Any) -> int:
    kind = type(value)
    if kind is int:
        return value
    if kind is float:
        if math.isnan(value) or math.isinf(value):
            raise EvaluationError(f"int() of {value}")
        return check_int(int(value))
    if kind is str and _INT_TEXT.fullmatch(value):
        return check_int(int(value))
    raise EvaluationError(f"int() does not accept {value!r}")


def to_float(value: Any) -> float:
    kind = type(value)
    if kind in (int, float):
        return float(value)
    if kind is str and _FLOAT_TEXT.fullmatch(value):
        return float(value)
    raise EvaluationError(f"float() does not accept {value!r}")


def to_path(value: Any) -> Path:
    return Path(tuple(segment for segment in _expect(value, str, "a string").split("/") if segment))


def _debug(value: Any) -> Any:
    log.info("debug(): %r", value)
    return value


def _unsupported(what: str) -> Callable[..., Any]:
    def fail(*arguments: Any) -> Any:
        raise EvaluationError(f"{what} is not supported by the rules runtime")
    return fail


GLOBAL_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "int": to_int, "float": to_float, "string": to_string, "path": to_path, "debug": _debug,
    "bool": _unsupported("bool()"),  # documented, but an error on the runtime (reference §6.3)
}


def _round(value: Any) -> int:
    _number(value)
    if type(value) is int:
        return value
    if math.isnan(value) or math.isinf(value):
        raise EvaluationError(f"math.round of {value}")
    return check_int(math.floor(value + 0.5))  # Java's Math.round: halves toward +infinity


def _abs(value: Any) -> Any:
    _number(value)
    return check_int(abs(value)) if type(value) is int else abs(value)


def _timestamp_date(year: Any, month: Any, day: Any) -> Timestamp:
    for part in (year, month, day):
        _expect(part, int, "an int")
    try:
        moment = datetime(year, month, day, tzinfo=timezone.utc)
    except (ValueError, OverflowError):
        raise EvaluationError(f"invalid date {year}-{month}-{day}") from None
    return Timestamp(int(moment.timestamp()) * NANOS_PER_SECOND)


def _duration_value(amount: Any, unit: Any) -> Duration:
    _expect(amount, int, "an int")
    if unit not in _DURATION_UNITS:
        raise EvaluationError(f"unknown duration unit {unit!r}")
    return Duration(check_int(amount * _DURATION_UNITS[unit]))


def _duration_time(hours: Any, minutes: Any, seconds: Any, nanos: Any) -> Duration:
    for part in (hours, minutes, seconds, nanos):
        _expect(part, int, "an int")
    return Duration(((hours * 60 + minutes) * 60 + seconds) * NANOS_PER_SECOND + nanos)


def _latlng(latitude: Any, longitude: Any) -> LatLng:
    latitude, longitude = float(_number(latitude)), float(_number(longitude))
    if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
        raise EvaluationError(f"invalid latlng ({latitude}, {longitude})")
    return LatLng(latitude, longitude)


def _hash_input(value: Any) -> bytes:
    if type(value) is str:
        return value.encode("utf-8")
    return _expect(value, bytes, "a string or bytes")


NAMESPACES: dict[str, dict[str, Callable[..., Any]]] = {
    "math": {
        "abs": _abs,
        "ceil": lambda value: float(math.ceil(_number(value))),
        "floor": lambda value: float(math.floor(_number(value))),
        "round": _round,
        "sqrt": lambda value: math.sqrt(_number(value)) if value >= 0 else math.nan,
        "pow": lambda base, exponent: float(_number(base)) ** _number(exponent),
        "isNaN": lambda value: type(_number(value)) is float and math.isnan(value),
        "isInfinite": _unsupported("math.isInfinite()"),  # recorded as an error for every input
    },
    "duration": {
        "value": _duration_value,
        "time": _duration_time,
        "abs": lambda span: Duration(abs(_expect(span, Duration, "a duration").nanos)),
    },
    "timestamp": {
        "date": _timestamp_date,
        "value": lambda millis: Timestamp(_expect(millis, int, "an int") * 1_000_000),
    },
    "latlng": {"value": _latlng},
    "hashing": {
        "crc32": lambda value: zlib.crc32(_hash_input(value)).to_bytes(4, "little"),
        "crc32c": lambda value: google_crc32c.value(_hash_input(value)).to_bytes(4, "little"),
        "md5": lambda value: hashlib.md5(_hash_input(value)).digest(),
        "sha256": lambda value: hashlib.sha256(_hash_input(value)).digest(),
    },
    "firestore": {"get": firestore.firestore_get, "exists": firestore.firestore_exists},
}

NAMESPACE_VALUES = {name: Namespace(name) for name in NAMESPACES}


def namespace_function(namespace: str, name: str) -> Callable[..., Any]:
    function = NAMESPACES[namespace].get(name)
    if function is None:
        return _unsupported(f"{namespace}.{name}()")
    return function
