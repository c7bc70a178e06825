"""Security rules: a small JSON rule file checked per operation (read, write, list, delete).

File format (see docs/emulator.md): a JSON list of rules, first match wins, no match is denied:

    [{"match": "users/{uid}/**", "read": "owner", "write": "owner", "list": "owner", "delete": "owner"},
     {"match": "public/**", "read": "public", "list": "public", "write": "signed_in"}]

Pattern segments: a literal, `*` (one segment; `*` inside a segment is a wildcard), `{var}` (one
segment, captured), `**` (zero or more segments). Levels: public, signed_in, owner (signed in
with uid equal to the `{uid}` segment) and denied (also the level of an operation left out).
"""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .auth import Principal
from .errors import ApiError

OPERATIONS = ("read", "write", "list", "delete")
LEVELS = ("public", "signed_in", "owner", "denied")
_VARIABLE = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)\}$")


@dataclass(frozen=True)
class Rule:
    pattern: str
    access: dict[str, str]  # operation -> level

    @classmethod
    def from_json(cls, entry: Any) -> "Rule":
        if not isinstance(entry, dict) or not isinstance(entry.get("match"), str):
            raise ValueError(f"each rule must be an object with a string 'match': {entry!r}")
        access = {op: entry.get(op, "denied") for op in OPERATIONS}
        unknown = set(entry) - {"match", *OPERATIONS}
        if unknown:
            raise ValueError(f"unknown keys {sorted(unknown)} in rule {entry['match']!r}")
        for op, level in access.items():
            if level not in LEVELS:
                raise ValueError(f"{op!r} of rule {entry['match']!r} must be one of {LEVELS}, not {level!r}")
        return cls(entry["match"].strip("/"), access)

    def captures(self, path: str) -> dict[str, str] | None:
        """The `{var}` values if `path` matches the pattern, else None."""
        return _match(self.pattern.split("/") if self.pattern else [], path.split("/") if path else [], {})


def _match(pattern: list[str], path: list[str], captured: dict[str, str]) -> dict[str, str] | None:
    if not pattern:
        return captured if not path else None
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        for skip in range(len(path) + 1):
            found = _match(rest, path[skip:], captured)
            if found is not None:
                return found
        return None
    if not path:
        return None
    variable = _VARIABLE.match(head)
    if variable:
        return _match(rest, path[1:], {**captured, variable.group(1): path[0]})
    if fnmatch.fnmatchcase(path[0], head):
        return _match(rest, path[1:], captured)
    return None


class RuleSet:
    def __init__(self, rules: list[Rule]):
        self.rules = rules

    @classmethod
    def from_json(cls, data: Any) -> "RuleSet":
        if not isinstance(data, list):
            raise ValueError("a rules file is a JSON list of rules")
        return cls([Rule.from_json(entry) for entry in data])

    @classmethod
    def load(cls, path: str | Path) -> "RuleSet":
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))

    def check(self, operation: str, path: str, principal: Principal) -> None:
        """Raise 401 or 403 unless `principal` may perform `operation` on `path`."""
        if principal.is_admin:
            return
        for rule in self.rules:
            captured = rule.captures(path)
            if captured is not None:
                return _enforce(rule.access[operation], captured, operation, principal)
        raise _denied(operation)


    @classmethod
    def allow_all(cls) -> "RuleSet":
        """What runs without --rules: everything is public."""
        return cls([Rule("**", {op: "public" for op in OPERATIONS})])


def _enforce(level: str, captured: dict[str, str], operation: str, principal: Principal) -> None:
    if level == "public":
        return
    if level == "denied":
        raise _denied(operation)
    if not principal.signed_in:
        reason = "could not be parsed" if principal.token_invalid else "is missing"
        raise ApiError(401, f"Unauthenticated: this operation requires a signed-in user and the ID token {reason}.")
    if level == "owner" and principal.uid != captured.get("uid"):
        raise _denied(operation)


def _denied(operation: str) -> ApiError:
    return ApiError(403, f"Permission denied. No {operation.upper()} permission.")
