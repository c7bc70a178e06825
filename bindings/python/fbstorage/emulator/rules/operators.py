"""Operators on rules values: arithmetic, ordering, `in`, indexing and slicing (reference §5)."""

from __future__ import annotations

import math
from typing import Any

from .errors import EvaluationError
from .values import Duration, Path, RulesSet, Timestamp, check_int, contains, equal, type_name

_NUMBERS = (int, float)


def _is_number(value: Any) -> bool:
    return type(value) in _NUMBERS


def _operand_error(operator: str, left: Any, right: Any) -> EvaluationError:
    return EvaluationError(f"no operator {type_name(left)} {operator} {type_name(right)}")


def add(left: Any, right: Any) -> Any:
    kinds = (type(left), type(right))
    if kinds == (int, int):
        return check_int(left + right)
    if _is_number(left) and _is_number(right):
        return float(left) + right
    if kinds in ((str, str), (list, list), (bytes, bytes)):
        return left + right
    if kinds == (Duration, Duration):
        return Duration(left.nanos + right.nanos)
    if kinds == (Timestamp, Duration):
        return Timestamp(left.nanos + right.nanos)
    if kinds == (Duration, Timestamp):
        return Timestamp(left.nanos + right.nanos)
    raise _operand_error("+", left, right)


def subtract(left: Any, right: Any) -> Any:
    kinds = (type(left), type(right))
    if kinds == (int, int):
        return check_int(left - right)
    if _is_number(left) and _is_number(right):
        return float(left) - right
    if kinds == (Timestamp, Timestamp):
        return Duration(left.nanos - right.nanos)
    if kinds == (Timestamp, Duration):
        return Timestamp(left.nanos - right.nanos)
    if kinds == (Duration, Duration):
        return Duration(left.nanos - right.nanos)
    raise _operand_error("-", left, right)


def multiply(left: Any, right: Any) -> Any:
    if type(left) is int and type(right) is int:
        return check_int(left * right)
    if _is_number(left) and _is_number(right):
        return float(left) * right
    raise _operand_error("*", left, right)


def divide(left: Any, right: Any) -> Any:
    if type(left) is int and type(right) is int:
        if right == 0:
            raise EvaluationError("division by zero")
        quotient = abs(left) // abs(right)  # truncated toward zero, as in Java
        return check_int(quotient if (left < 0) == (right < 0) else -quotient)
    if _is_number(left) and _is_number(right):
        if right == 0:
            return math.copysign(math.inf, left) * math.copysign(1, right) if left else math.nan
        return float(left) / right
    raise _operand_error("/", left, right)


def modulo(left: Any, right: Any) -> Any:
    if type(left) is int and type(right) is int:
        if right == 0:
            raise EvaluationError("modulo by zero")
        quotient = abs(left) // abs(right)  # the remainder takes the dividend's sign, as in Java
        return left - right * (quotient if (left < 0) == (right < 0) else -quotient)
    if _is_number(left) and _is_number(right):
        return math.fmod(left, right) if right else math.nan
    raise _operand_error("%", left, right)


def negate(value: Any) -> Any:
    if type(value) is int:
        return check_int(-value)
    if type(value) is float:
        return -value
    if type(value) is Duration:
        return Duration(-value.nanos)
    raise EvaluationError(f"no operator -{type_name(value)}")


def logical_not(value: Any) -> bool:
    if type(value) is not bool:
        raise EvaluationError(f"no operator !{type_name(value)}")
    return not value


_ORDERED = {str, bytes, Timestamp, Duration}


def compare(operator: str, left: Any, right: Any) -> bool:
    comparable = (_is_number(left) and _is_number(right)) or (type(left) is type(right) and type(left) in _ORDERED)
    if not comparable:
        raise _operand_error(operator, left, right)
    if type(left) is str:  # by code point, as Java compares strings of BMP characters
        left, right = left.encode("utf-16-be"), right.encode("utf-16-be")
    if operator == "<":
        return left < right
    if operator == "<=":
        return left <= right
    if operator == ">":
        return left > right
    return left >= right


def not_equal(left: Any, right: Any) -> bool:
    return not equal(left, right)


def member_of(value: Any, container: Any) -> bool:
    """`value in container`."""
    kind = type(container)
    if kind is list:
        return contains(container, value)
    if kind is dict:
        return type(value) is str and value in container
    if kind is RulesSet:
        return contains(container.items, value)
    raise EvaluationError(f"'in' is not defined for {type_name(container)}")


def _position(index: Any, size: int) -> int:
    if type(index) is not int:
        raise EvaluationError(f"an index must be an int, not {type_name(index)}")
    if not 0 <= index < size:
        raise EvaluationError(f"index {index} out of range")
    return index


def index(target: Any, key: Any) -> Any:
    kind = type(target)
    if kind is dict:
        if type(key) is not str:
            raise EvaluationError(f"a map key must be a string, not {type_name(key)}")
        try:
            return target[key]
        except KeyError:
            raise EvaluationError(f"Property {key} is undefined on object.") from None
    if kind is list:
        return target[_position(key, len(target))]
    if kind is str:
        return target[_position(key, len(target))]
    if kind is Path:
        return target.segments[_position(key, len(target.segments))]
    raise EvaluationError(f"{type_name(target)} cannot be indexed")


def slice_of(target: Any, start: Any, end: Any) -> Any:
    """`x[i:j]`, valid when 0 <= i < size, 0 < j <= size and i <= j (as recorded on the runtime)."""
    if type(target) not in (str, list):
        raise EvaluationError(f"{type_name(target)} cannot be sliced")
    if type(start) is not int or type(end) is not int:
        raise EvaluationError("slice bounds must be ints")
    size = len(target)
    if not (0 <= start < size and 0 < end <= size and start <= end):
        raise EvaluationError(f"slice [{start}:{end}] out of range")
    return target[start:end]


BINARY = {"+": add, "-": subtract, "*": multiply, "/": divide, "%": modulo, "==": equal, "!=": not_equal,
          "in": member_of}
