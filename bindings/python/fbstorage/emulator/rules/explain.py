"""Why the rules granted or denied one request: the `allow` statement that granted it, or every
candidate statement with the sub-conditions that failed and the values they saw.

Only computed when asked (the web UI's request log and playground), from a `Decision` recorded
after the fact: `Ruleset.allows()`, the path every request takes, runs unchanged. The explanation
evaluates the same syntax in the same scopes with the same variables, so it reaches the same verdict.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any

from .compiler import Compiler, Scope, UserFunction, _Failed
from .limits import budget
from .ruleset import Ruleset
from .syntax import (Binary, Call, Conditional, Expression, Index, ListLiteral, Literal, Logical, MapLiteral,
                     Member, Name, PathLiteral, Slice, TypeCheck, Unary)
from .values import Duration, LatLng, Path, RulesSet, Timestamp

MAX_VALUE_CHARS = 160
MAX_STATEMENT_CHARS = 600
MAX_FUNCTION_DEPTH = 6  # user functions explained inside each other, at most
_rules_log = logging.getLogger("fbstorage.emulator.rules")


@dataclass
class Decision:
    """One judgement of the rules, kept to be explained later."""

    method: str  # get, list, create, update or delete
    path: tuple[str, ...]  # the rules path: b, bucket, o, segments…
    allowed: bool
    ruleset: Ruleset | None = None
    variables: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None  # a denial decided before any statement (no ruleset, list in v1)
    _explained: dict[str, Any] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.ruleset is not None and self.ruleset.uses_firestore:
            self.explain()  # now: the Firestore documents it reads are the request's, fetched for it

    def explain(self) -> dict[str, Any]:
        if self._explained is None:
            quiet = _rules_log.disabled
            _rules_log.disabled = True  # a replay: debug() and warnings were logged by the real evaluation
            try:
                self._explained = self._explanation()
            finally:
                _rules_log.disabled = quiet
        return self._explained

    def _explanation(self) -> dict[str, Any]:
        summary = {"method": self.method, "path": str(Path(self.path)),
                   "verdict": "allowed" if self.allowed else "denied"}
        if self.ruleset is None:
            return {**summary, "reason": self.reason, "statements": []}
        statements = []
        for allow, pattern, activation in self.ruleset.statements(self.method, self.path, self.variables):
            explained = _Explainer(self.ruleset, allow.scope).statement(allow.statement, activation)
            statements.append({"match": pattern, **explained})
            if explained["granted"]:
                break  # the first grant decides, as in Ruleset.allows
        reason = self.reason
        if not statements and reason is None:
            reason = f"no allow statement grants {self.method} on this path"
        return {**summary, "reason": reason, "statements": statements}


class _Explainer:
    def __init__(self, ruleset: Ruleset, scope: Scope):
        self.source = ruleset.source
        self.compiler = Compiler(ruleset.source, ruleset.file)  # its warnings were reported at load
        self.scope = scope

    def line(self, offset: int) -> int:
        return self.source.count("\n", 0, offset) + 1

    def statement(self, statement, activation: dict[str, Any]) -> dict[str, Any]:
        line = self.line(statement.offset)
        text = _statement_text(self.source, statement.offset)
        if statement.condition is None:
            return {"line": line, "text": text, "granted": True, "failures": []}
        node = self.node(statement.condition, self.scope, activation, 0)
        granted = node.get("value") == "true"
        return {"line": line, "text": text, "granted": granted,
                "failures": [] if granted else _leaves(node)}

    def node(self, expression: Expression, scope: Scope, activation: dict[str, Any], depth: int) -> dict[str, Any]:
        """The expression's text, line and value (or error), and for a failure the parts that failed."""
        result = {"expression": unparse(expression), "line": self.line(expression.offset),
                  **self.evaluate(expression, scope, activation)}
        if result.get("value") == "true":
            return result
        if isinstance(expression, Logical):
            parts = [self.node(operand, scope, activation, depth) for operand in expression.operands]
            result["causes"] = parts if expression.operator == "||" else \
                [part for part in parts if part.get("value") != "true"]
        elif isinstance(expression, Unary) and expression.operator == "!":
            result["operands"] = [self.operand(expression.operand, scope, activation)]
        elif isinstance(expression, Binary):
            result["operands"] = [self.operand(expression.left, scope, activation),
                                  self.operand(expression.right, scope, activation)]
        elif isinstance(expression, Call) and isinstance(expression.callee, Name) \
                and expression.callee.name in scope.functions and depth < MAX_FUNCTION_DEPTH:
            inside = self.function_body(scope.functions[expression.callee.name], expression, scope, activation,
                                        depth + 1)
            if inside is not None:
                result["causes"] = [inside]
        return result

    def operand(self, expression: Expression, scope: Scope, activation: dict[str, Any]) -> dict[str, Any]:
        return {"expression": unparse(expression), **self.evaluate(expression, scope, activation)}

    def function_body(self, function: UserFunction, call: Call, scope: Scope, activation: dict[str, Any],
                      depth: int) -> dict[str, Any] | None:
        declaration = function.declaration
        if len(call.arguments) != len(declaration.parameters):
            return None
        inner_activation = dict(activation)
        for name, argument in zip(declaration.parameters, call.arguments):
            inner_activation[name] = self.settle(argument, scope, activation)
        inner_scope = function.scope.nested(declaration.parameters, [])
        for name, value in declaration.lets:
            inner_activation[name] = self.settle(value, inner_scope, inner_activation)
            inner_scope = inner_scope.nested([name], [])
        return self.node(declaration.result, inner_scope, inner_activation, depth)

    def settle(self, expression: Expression, scope: Scope, activation: dict[str, Any]) -> Any:
        try:
            with budget():  # each part explained is bounded as a whole request is
                return self.compiler.expression(expression, scope)(activation)
        except Exception as error:  # read later, it raises: as the compiled call does
            return _Failed(error)

    def evaluate(self, expression: Expression, scope: Scope, activation: dict[str, Any]) -> dict[str, str]:
        try:
            with budget():
                return {"value": describe(self.compiler.expression(expression, scope)(activation))}
        except Exception as error:  # an error value of the rules language
            return {"error": str(error) or type(error).__name__}


def _statement_text(source: str, offset: int) -> str:
    """`allow …;` from the source, on one line (up to the line end when no `;` comes soon)."""
    end = source.find(";", offset, offset + MAX_STATEMENT_CHARS)
    if end < 0:
        end = source.find("\n", offset)
    return " ".join(source[offset:end + 1 if end >= 0 else None].split())


def _leaves(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The innermost failed conditions: what a reader needs to see to fix the request or the rules."""
    causes = node.get("causes")
    if not causes:
        return [{key: node[key] for key in ("expression", "line", "value", "error", "operands") if key in node}]
    return [leaf for cause in causes for leaf in _leaves(cause)]


def describe(value: Any) -> str:
    """A value as the rules language writes it, shortened."""
    text = _describe(value)
    return text if len(text) <= MAX_VALUE_CHARS else text[:MAX_VALUE_CHARS - 1] + "…"


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bytes):
        return f"b'{value.hex()}'"
    if isinstance(value, Path):
        return f"path({str(value)!r})"
    if isinstance(value, Timestamp):
        return f"timestamp({value.datetime().isoformat().replace('+00:00', 'Z')})"
    if isinstance(value, Duration):
        return f"duration({value.nanos / 1e9:g}s)"
    if isinstance(value, LatLng):
        return f"latlng({value.latitude}, {value.longitude})"
    if isinstance(value, RulesSet):
        return "set([" + ", ".join(_describe(item) for item in value.items) + "])"
    if isinstance(value, list):
        return "[" + ", ".join(_describe(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(key)}: {_describe(item)}" for key, item in value.items()) + "}"
    return type(value).__name__


_PRECEDENCE = {"||": 1, "&&": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "in": 4,
               "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}


def unparse(node: Expression, outer: int = 0) -> str:
    """The expression written back as source (normalized spacing and parentheses)."""
    text, precedence = _unparse(node)
    return f"({text})" if precedence < outer else text


def _unparse(node: Expression) -> tuple[str, int]:
    atom = 10
    if isinstance(node, Literal):
        return _describe(node.value), atom
    if isinstance(node, Name):
        return node.name, atom
    if isinstance(node, PathLiteral):
        return "/" + "/".join(part if isinstance(part, str) else f"$({unparse(part)})" for part in node.parts), atom
    if isinstance(node, ListLiteral):
        return "[" + ", ".join(unparse(item) for item in node.items) + "]", atom
    if isinstance(node, MapLiteral):
        return "{" + ", ".join(f"{unparse(key)}: {unparse(value)}" for key, value in node.entries) + "}", atom
    if isinstance(node, Unary):
        return node.operator + unparse(node.operand, 8), 8
    if isinstance(node, Binary):
        precedence = _PRECEDENCE.get(node.operator, 4)
        return f"{unparse(node.left, precedence)} {node.operator} {unparse(node.right, precedence + 1)}", precedence
    if isinstance(node, Logical):
        precedence = _PRECEDENCE[node.operator]
        return f" {node.operator} ".join(unparse(operand, precedence + 1) for operand in node.operands), precedence
    if isinstance(node, Conditional):
        return f"{unparse(node.condition, 1)} ? {unparse(node.then, 1)} : {unparse(node.otherwise, 1)}", 0
    if isinstance(node, TypeCheck):
        return f"{unparse(node.operand, 4)} is {node.type_name}", 4
    if isinstance(node, Member):
        return f"{unparse(node.target, atom)}.{node.name}", atom
    if isinstance(node, Index):
        return f"{unparse(node.target, atom)}[{unparse(node.index)}]", atom
    if isinstance(node, Slice):
        return f"{unparse(node.target, atom)}[{unparse(node.start)}:{unparse(node.end)}]", atom
    if isinstance(node, Call):
        return f"{unparse(node.callee, atom)}(" + ", ".join(unparse(argument) for argument in node.arguments) + ")", atom
    return type(node).__name__, atom
