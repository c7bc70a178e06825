"""A compiled ruleset and its decision for one request (reference §4): which `allow` statements
apply to the request path, and whether one of them grants the method."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from .compiler import Compiler, Evaluator, Scope
from .limits import RulesLimitExceeded, budget
from .parser import parse
from .syntax import Allow, Match, Segment
from .values import Path

STORAGE_SERVICE = "firebase.storage"
# What each method in an `allow` grants; the runtime is asked for get, list, create, update or delete.
GRANTS = {"read": ("get", "list"), "write": ("create", "update", "delete"), "get": ("get",), "list": ("list",),
          "create": ("create",), "update": ("update",), "delete": ("delete",)}
REQUEST_METHODS = ("get", "list", "create", "update", "delete")


@dataclass
class _Allow:
    methods: frozenset[str]
    condition: Evaluator | None
    statement: Allow  # the syntax and scope, for explanations (rules/explain.py)
    scope: Scope


@dataclass
class _Block:
    segments: list[Segment]
    allows: list[_Allow]
    children: list["_Block"]
    pattern: str  # the full match path, parents' segments included, as written


class Ruleset:
    """Parse and compile once (`Ruleset(source)` raises RulesSyntaxError), then `allows()` per request."""

    def __init__(self, source: str, file: str = "storage.rules"):
        tree = parse(source, file)
        self.version = int(tree.version)
        self.source, self.file = source, file
        compiler = Compiler(source, file)
        top = Scope(frozenset({"request", "resource"}), {})
        top = top.nested([], tree.functions)
        compiler.declare(top)
        self._blocks: list[_Block] = []
        for service in tree.services:
            if service.name != STORAGE_SERVICE:
                continue
            scope = top.nested([], service.functions)
            compiler.declare(scope)
            self._blocks += [self._block(match, scope, compiler) for match in service.matches]
        compiler.finish()
        self.warnings = compiler.warnings
        self.uses_firestore = compiler.uses_firestore

    def _block(self, match: Match, scope: Scope, compiler: Compiler, parent: str = "") -> _Block:
        pattern = parent + "".join("/" + _written(segment) for segment in match.segments)
        captured = [segment.text for segment in match.segments if segment.kind != "literal"]
        inner = scope.nested(captured, match.functions)
        compiler.declare(inner)
        allows = [_Allow(frozenset(method for name in allow.methods for method in GRANTS[name]),
                         None if allow.condition is None else compiler.expression(allow.condition, inner),
                         allow, inner)
                  for allow in match.allows]
        children = [self._block(child, inner, compiler, pattern) for child in match.matches]
        return _Block(match.segments, allows, children, pattern)

    def allows(self, method: str, path: tuple[str, ...], variables: dict[str, Any]) -> bool:
        """Whether some `allow` of a block matching all of `path` grants `method` with a true condition.
        `variables` holds `request` and `resource`; the captures are added per block. Raises
        RulesLimitExceeded (a denial) when the evaluation passes a bound of limits.py."""
        with budget():
            for block, captures in self._applicable(self._blocks, path, 0, variables):
                for allow in block.allows:
                    if method not in allow.methods:
                        continue
                    if allow.condition is None:
                        return True
                    try:
                        if allow.condition(captures) is True:
                            return True
                    except RulesLimitExceeded:
                        raise
                    except Exception:  # an error, like a non-bool, just doesn't grant
                        continue
        return False

    def statements(self, method: str, path: tuple[str, ...],
                   variables: dict[str, Any]) -> Iterator[tuple[_Allow, str, dict[str, Any]]]:
        """The `allow` statements that `allows()` tries, in its order: (statement, its block's match
        path, the activation with the captures)."""
        for block, captures in self._applicable(self._blocks, path, 0, variables):
            for allow in block.allows:
                if method in allow.methods:
                    yield allow, block.pattern, captures

    def _applicable(self, blocks: list[_Block], path: tuple[str, ...], start: int,
                    activation: dict[str, Any]) -> Iterator[tuple[_Block, dict[str, Any]]]:
        for block in blocks:
            for end, captures in self._prefixes(block.segments, 0, path, start, activation):
                if end == len(path):
                    yield block, captures
                yield from self._applicable(block.children, path, end, captures)

    def _prefixes(self, segments: list[Segment], index: int, path: tuple[str, ...], start: int,
                  captures: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
        """Every way `segments[index:]` matches `path[start:end]`, as (end, captures)."""
        if index == len(segments):
            yield start, captures
            return
        segment = segments[index]
        if segment.kind == "glob":
            least = 0 if self.version >= 2 else 1
            for end in range(start + least, len(path) + 1):
                bound = {**captures, segment.text: Path(path[start:end])}
                yield from self._prefixes(segments, index + 1, path, end, bound)
            return
        if start == len(path):
            return
        if segment.kind == "literal":
            if segment.text == path[start]:
                yield from self._prefixes(segments, index + 1, path, start + 1, captures)
        else:
            yield from self._prefixes(segments, index + 1, path, start + 1, {**captures, segment.text: path[start]})


def _written(segment: Segment) -> str:
    return {"literal": segment.text, "single": f"{{{segment.text}}}"}.get(segment.kind, f"{{{segment.text}=**}}")
