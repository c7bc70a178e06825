"""Compiles expressions into Python closures once, so a request only runs the closures.

A closure takes the activation (a dict of the visible variables) and returns a value or raises
EvaluationError; `&&`, `||` and the places where a condition is read turn errors into "no grant".
Every closure charges the request's budget (limits.py); RulesLimitExceeded is never absorbed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from . import functions, operators
from .errors import EvaluationError, RulesSyntaxError
from .limits import MAX_CALL_DEPTH, RulesLimitExceeded, charge_expression
from .syntax import (Binary, Call, Conditional, Expression, Function, Index, ListLiteral, Literal, Logical,
                     MapLiteral, Member, Name, PathLiteral, Slice, TypeCheck, Unary)
from .values import Path, RulesSet, is_type

Evaluator = Callable[[dict], Any]
_DEPTH = " depth"  # activation key that no identifier can spell


class _Failed:
    """A function argument or `let` value that errored: reading it raises, leaving it unused does not."""

    __slots__ = ("error",)

    def __init__(self, error: Exception):
        self.error = error


@dataclass
class UserFunction:
    declaration: Function
    scope: "Scope"
    lets: list[tuple[str, Evaluator]] = field(default_factory=list)
    result: Evaluator | None = None


@dataclass
class Scope:
    variables: frozenset[str]
    functions: dict[str, UserFunction]

    def nested(self, variables: list[str], declared: list[Function]) -> "Scope":
        """The scope inside a match or function: more variables, and functions declared there."""
        scope = Scope(self.variables | frozenset(variables), dict(self.functions))
        for declaration in declared:
            scope.functions[declaration.name] = UserFunction(declaration, scope)
        return scope


class Compiler:
    def __init__(self, source: str, file: str):
        self.source, self.file = source, file
        self.warnings: list[str] = []
        self.pending: list[UserFunction] = []
        self.uses_firestore = False  # whether requests must prefetch Firestore documents

    def error(self, message: str, offset: int) -> RulesSyntaxError:
        return RulesSyntaxError(message, self.source, offset, self.file)

    def warn(self, message: str, offset: int) -> None:
        self.warnings.append(str(self.error(message, offset)))

    def declare(self, scope: Scope) -> None:
        """Queue the bodies of the functions a scope declares (compiled by `finish`)."""
        for function in scope.functions.values():
            if function.scope is scope:
                self.pending.append(function)

    def finish(self) -> None:
        while self.pending:
            function = self.pending.pop()
            declaration = function.declaration
            inner = function.scope.nested(declaration.parameters, [])
            for name, value in declaration.lets:
                function.lets.append((name, self.expression(value, inner)))
                inner = inner.nested([name], [])
            function.result = self.expression(declaration.result, inner)

    # Expressions.

    def expression(self, node: Expression, scope: Scope) -> Evaluator:
        method = getattr(self, "_" + type(node).__name__.lower())
        evaluator = method(node, scope)
        kind = type(node)
        # A literal or a variable computes nothing: only the nodes that do are charged, and a
        # member or index read by its count alone (it copies nothing).
        return evaluator if kind in (Literal, Name) else _charged(evaluator, sized=kind not in (Member, Index))

    def _literal(self, node: Literal, scope: Scope) -> Evaluator:
        value = node.value
        return lambda activation: value

    def _name(self, node: Name, scope: Scope) -> Evaluator:
        name = node.name
        if name in scope.variables:
            def variable(activation: dict) -> Any:
                value = activation[name]
                if type(value) is _Failed:
                    raise value.error
                return value
            return variable
        if name in functions.NAMESPACE_VALUES:
            namespace = functions.NAMESPACE_VALUES[name]
            return lambda activation: namespace
        self.warn(f"unknown variable '{name}' (reading it is an error)", node.offset)
        return _raiser(f"Unknown variable '{name}'.")

    def _pathliteral(self, node: PathLiteral, scope: Scope) -> Evaluator:
        parts = [part if isinstance(part, str) else self.expression(part, scope) for part in node.parts]
        if all(isinstance(part, str) for part in parts):
            constant = Path(tuple(parts))
            return lambda activation: constant

        def build(activation: dict) -> Path:
            return Path(tuple(part if isinstance(part, str) else functions.to_string(part(activation))
                              for part in parts))
        return build

    def _listliteral(self, node: ListLiteral, scope: Scope) -> Evaluator:
        items = [self.expression(item, scope) for item in node.items]
        return lambda activation: [item(activation) for item in items]

    def _mapliteral(self, node: MapLiteral, scope: Scope) -> Evaluator:
        entries = [(self.expression(key, scope), self.expression(value, scope)) for key, value in node.entries]

        def build(activation: dict) -> dict:
            result = {}
            for key, value in entries:
                name = key(activation)
                if type(name) is not str:
                    raise EvaluationError("map keys must be strings")
                result[name] = value(activation)
            return result
        return build

    def _unary(self, node: Unary, scope: Scope) -> Evaluator:
        operand = self.expression(node.operand, scope)
        apply = operators.logical_not if node.operator == "!" else operators.negate
        return lambda activation: apply(operand(activation))

    def _binary(self, node: Binary, scope: Scope) -> Evaluator:
        left, right = self.expression(node.left, scope), self.expression(node.right, scope)
        operator = node.operator
        if operator in ("<", "<=", ">", ">="):
            return lambda activation: operators.compare(operator, left(activation), right(activation))
        apply = operators.BINARY[operator]
        return lambda activation: apply(left(activation), right(activation))

    def _logical(self, node: Logical, scope: Scope) -> Evaluator:
        """CEL's commutative `&&`/`||`: a decisive operand wins over errors on either side."""
        operands = [self.expression(operand, scope) for operand in node.operands]
        decisive = node.operator == "||"

        def evaluate(activation: dict) -> bool:
            failure: Exception | None = None
            for operand in operands:
                try:
                    value = operand(activation)
                except RulesLimitExceeded:
                    raise
                except Exception as error:  # any failure of an operand is an error value
                    failure = error
                    continue
                if value is decisive:
                    return decisive
                if type(value) is not bool:
                    failure = EvaluationError(f"'{node.operator}' needs bools, not {value!r}")
            if failure is not None:
                raise failure
            return not decisive
        return evaluate

    def _conditional(self, node: Conditional, scope: Scope) -> Evaluator:
        condition = self.expression(node.condition, scope)
        then, otherwise = self.expression(node.then, scope), self.expression(node.otherwise, scope)

        def choose(activation: dict) -> Any:
            value = condition(activation)
            if type(value) is not bool:
                raise EvaluationError("the condition of '?:' must be a bool")
            return then(activation) if value else otherwise(activation)
        return choose

    def _typecheck(self, node: TypeCheck, scope: Scope) -> Evaluator:
        operand, type_name = self.expression(node.operand, scope), node.type_name
        if type_name == "set":  # compiles, yet no value is a `set` to `is` (recorded on the runtime)
            def never(activation: dict) -> bool:
                operand(activation)
                return False
            return never
        return lambda activation: is_type(operand(activation), type_name)

    def _member(self, node: Member, scope: Scope) -> Evaluator:
        target, name = self.expression(node.target, scope), node.name

        def read(activation: dict) -> Any:
            value = target(activation)
            if type(value) is dict:
                try:
                    return value[name]
                except KeyError:
                    raise EvaluationError(f"Property {name} is undefined on object.") from None
            raise EvaluationError(f"no field '{name}' on {'null' if value is None else type(value).__name__}")
        return read

    def _index(self, node: Index, scope: Scope) -> Evaluator:
        target, key = self.expression(node.target, scope), self.expression(node.index, scope)
        return lambda activation: operators.index(target(activation), key(activation))

    def _slice(self, node: Slice, scope: Scope) -> Evaluator:
        target = self.expression(node.target, scope)
        start, end = self.expression(node.start, scope), self.expression(node.end, scope)
        return lambda activation: operators.slice_of(target(activation), start(activation), end(activation))

    def _call(self, node: Call, scope: Scope) -> Evaluator:
        arguments = [self.expression(argument, scope) for argument in node.arguments]
        callee = node.callee
        if isinstance(callee, Name):
            return self._function_call(node, callee.name, arguments, scope)
        if not isinstance(callee, Member):
            raise self.error("only functions and methods can be called", node.offset)
        target = callee.target
        if isinstance(target, Name) and target.name not in scope.variables \
                and target.name in functions.NAMESPACES:
            function = functions.namespace_function(target.name, callee.name)
            self.uses_firestore = self.uses_firestore or target.name == "firestore"
            return lambda activation: _call_builtin(function, [argument(activation) for argument in arguments])
        receiver, name = self.expression(target, scope), callee.name
        if name in functions.REGEX_METHODS and node.arguments:
            self._check_regex_literal(node.arguments[0])
        return lambda activation: functions.call_method(receiver(activation),
                                                        name, [argument(activation) for argument in arguments])

    def _check_regex_literal(self, pattern: Expression) -> None:
        """A literal pattern RE2 rejects (lookaround, backreferences) fails the load, as in the
        rules runtime; a computed one is an error when evaluated."""
        if isinstance(pattern, Literal) and isinstance(pattern.value, str):
            try:
                functions.regex(pattern.value)
            except EvaluationError as error:
                raise self.error(str(error), pattern.offset) from None

    def _function_call(self, node: Call, name: str, arguments: list[Evaluator], scope: Scope) -> Evaluator:
        function = scope.functions.get(name)
        if function is not None:
            declaration = function.declaration
            if len(arguments) != len(declaration.parameters):
                raise self.error(f"function {name}() takes {len(declaration.parameters)} arguments, "
                                 f"not {len(arguments)}", node.offset)
            return _user_call(function, arguments)
        builtin = functions.GLOBAL_FUNCTIONS.get(name)
        if builtin is not None:
            return lambda activation: _call_builtin(builtin, [argument(activation) for argument in arguments])
        self.warn(f"unknown function '{name}' (calling it is an error)", node.offset)
        return _raiser(f"Function not found error: Name: [{name}].")


def _call_builtin(function: Callable[..., Any], arguments: list) -> Any:
    try:
        return function(*arguments)
    except TypeError:
        raise EvaluationError(f"wrong arguments for {getattr(function, '__name__', 'function')}()") from None


def _user_call(function: UserFunction, arguments: list[Evaluator]) -> Evaluator:
    parameters = function.declaration.parameters

    def call(activation: dict) -> Any:
        depth = activation.get(_DEPTH, 0) + 1
        if depth > MAX_CALL_DEPTH:
            raise RulesLimitExceeded(f"function calls nested deeper than {MAX_CALL_DEPTH} (the rules language's limit)")
        inner = dict(activation)
        inner[_DEPTH] = depth
        for name, argument in zip(parameters, arguments):
            inner[name] = _settle(argument, activation)
        for name, value in function.lets:
            inner[name] = _settle(value, inner)
        return function.result(inner)
    return call


def _settle(evaluator: Evaluator, activation: dict) -> Any:
    try:
        return evaluator(activation)
    except RulesLimitExceeded:
        raise
    except Exception as error:
        return _Failed(error)


_SIZED = (str, bytes, list, dict)


def _charged(evaluator: Evaluator, *, sized: bool) -> Evaluator:
    """`evaluator`, charging one expression and (`sized`) the size of the value it produced."""
    def evaluate(activation: dict) -> Any:
        value = evaluator(activation)
        kind = type(value)
        charge_expression(len(value) if kind in _SIZED else len(value.items) if kind is RulesSet else 0)
        return value

    def read(activation: dict) -> Any:
        value = evaluator(activation)
        charge_expression(0)
        return value
    return evaluate if sized else read


def _raiser(message: str) -> Evaluator:
    def fail(activation: dict) -> Any:
        raise EvaluationError(message)
    return fail
