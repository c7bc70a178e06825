"""Recursive-descent parser for `storage.rules` (grammar: shared reference storage-rules.md §3)."""

from __future__ import annotations

from .errors import RulesSyntaxError
from .lexer import PATH_SEGMENT, Lexer, Token
from .syntax import (Allow, Binary, Call, Conditional, Expression, Function, Index, ListLiteral, Literal,
                     Logical, MapLiteral, Match, Member, Name, PathLiteral, RulesFile, Segment, Service, Slice,
                     TypeCheck, Unary)

MAX_SOURCE_BYTES = 256 * 1024  # production's limit on a rules source
MAX_DEPTH = 100  # nesting of blocks and expressions; deeper input is refused, never a RecursionError
METHODS = ("read", "write", "get", "list", "create", "update", "delete")
TYPE_NAMES = ("bool", "bytes", "duration", "float", "int", "latlng", "list", "map", "number", "path", "set",
              "string", "timestamp")
_KEYWORDS = {"true": True, "false": False, "null": None}
_PRECEDENCE = {"||": 1, "&&": 2, "==": 3, "!=": 3, "is": 4, "in": 5, "<": 6, "<=": 6, ">": 6, ">=": 6,
               "+": 7, "-": 7, "*": 8, "/": 8, "%": 8}
_MAX_INT = (1 << 63) - 1


def parse(source: str, file: str = "storage.rules") -> RulesFile:
    """The syntax tree of a rules source, or RulesSyntaxError naming file:line:column."""
    if len(source.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES:
        raise RulesSyntaxError(f"the rules source is larger than the limit of {MAX_SOURCE_BYTES} bytes",
                               source, 0, file)
    return _Parser(source, file).rules_file()


class _Parser:
    def __init__(self, source: str, file: str):
        self.source = source
        self.lexer = Lexer(source, file)
        self.current = self.lexer.token(0)
        self.depth = 0
        self.version = "1"

    # Tokens.

    def advance(self) -> Token:
        token = self.current
        self.current = self.lexer.token(token.end)
        return token

    def at(self, value: str, kind: str = "op") -> bool:
        return self.current.kind == kind and self.current.value == value

    def accept(self, value: str, kind: str = "op") -> bool:
        if self.at(value, kind):
            self.advance()
            return True
        return False

    def expect(self, value: str, kind: str = "op") -> Token:
        if not self.at(value, kind):
            raise self.expected(repr(value))
        return self.advance()

    def identifier(self, what: str = "a name") -> Token:
        if self.current.kind != "ident" or self.current.value in _KEYWORDS:
            raise self.expected(what)
        return self.advance()

    def expected(self, what: str) -> RulesSyntaxError:
        token = self.current
        found = {"eof": "the end of the file", "string": "a string", "bytes": "a bytes literal",
                 "int": "a number", "float": "a number"}.get(token.kind, repr(token.value))
        return self.lexer.error(f"expected {what}, found {found}", token.start)

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.lexer.error(f"nesting deeper than {MAX_DEPTH} levels", self.current.start)

    # Declarations.

    def rules_file(self) -> RulesFile:
        if self.accept("rules_version", "ident"):
            self.expect("=")
            token = self.current
            if token.kind != "string" or token.value not in ("1", "2"):
                raise self.expected("'1' or '2'")
            self.version = self.advance().value
            self.accept(";")
        functions, services = [], []
        while self.current.kind != "eof":
            if self.at("function", "ident"):
                functions.append(self.function())
            elif self.at("service", "ident"):
                services.append(self.service())
            else:
                raise self.expected("'function' or 'service'")
        return RulesFile(self.version, functions, services)

    def service(self) -> Service:
        start = self.advance().start
        name = self.identifier("a service name").value
        while self.accept("."):
            name += "." + self.identifier("a service name").value
        self.expect("{")
        functions, matches = [], []
        while not self.accept("}"):
            if self.at("function", "ident"):
                functions.append(self.function())
            elif self.at("match", "ident"):
                matches.append(self.match())
            else:
                raise self.expected("'match', 'function' or '}'")
        return Service(start, name, functions, matches)

    def match(self) -> Match:
        self.enter()
        start = self.advance().start
        node = Match(start, self.match_path())
        self.expect("{")
        while not self.accept("}"):
            if self.at("match", "ident"):
                node.matches.append(self.match())
            elif self.at("function", "ident"):
                node.functions.append(self.function())
            elif self.at("allow", "ident"):
                node.allows.append(self.allow())
            else:
                raise self.expected("'match', 'allow', 'function' or '}'")
        self.depth -= 1
        return node

    def match_path(self) -> list[Segment]:
        """`/literal`, `/{name}` (also written `/{name=*}`) and `/{name=**}` segments, with no space
        inside the path. `{name=*}` is one segment, as the Apple SDK's integration-test rules use it
        against production (`match /{directChild=*}`)."""
        source, position = self.source, self.current.start
        segments = []
        while True:
            if source[position:position + 1] != "/":
                self.current = self.lexer.token(position)
                raise self.expected("a path starting with '/'" if not segments else "'/'")
            position += 1
            if source[position:position + 1] == "{":
                close = source.find("}", position)
                inside = source[position + 1:close] if close > 0 else ""
                name, glob, rest = inside.partition("=")
                if close < 0 or not name.isidentifier() or (glob and rest not in ("*", "**")):
                    raise self.lexer.error("expected '{name}', '{name=*}' or '{name=**}' in the match path",
                                           position)
                segments.append(Segment("glob" if rest == "**" else "single", name))
                position = close + 1
            else:
                found = PATH_SEGMENT.match(source, position)
                if not found:
                    raise self.lexer.error("expected a path segment", position)
                segments.append(Segment("literal", found.group()))
                position = found.end()
            if source[position:position + 1] != "/":
                break
        self.check_globs(segments)
        self.current = self.lexer.token(position)
        return segments

    def check_globs(self, segments: list[Segment]) -> None:
        globs = [index for index, segment in enumerate(segments) if segment.kind == "glob"]
        if self.version == "1" and globs and globs[0] != len(segments) - 1:
            raise self.lexer.error("Invalid glob match expression. Glob matches are permitted as the last "
                                   "segment in a match declaration path.", self.current.start)
        if len(globs) > 1:
            raise self.lexer.error("a match path may contain only one {name=**} segment", self.current.start)

    def allow(self) -> Allow:
        start = self.advance().start
        methods = []
        while True:
            token = self.current
            if token.kind != "ident" or token.value not in METHODS:
                raise self.expected("a method (" + ", ".join(METHODS) + ")")
            methods.append(self.advance().value)
            if not self.accept(","):
                break
        condition = None
        if self.accept(":"):
            self.expect("if", "ident")
            condition = self.expression()
        self.accept(";")
        return Allow(start, methods, condition)

    def function(self) -> Function:
        start = self.advance().start
        name = self.identifier("a function name").value
        self.expect("(")
        parameters = []
        if not self.accept(")"):
            while True:
                parameters.append(self.identifier("a parameter name").value)
                if self.accept(")"):
                    break
                self.expect(",")
        self.expect("{")
        lets = []
        while self.at("let", "ident"):
            if self.version != "2":
                raise self.lexer.error("'let' requires rules_version = '2'", self.current.start)
            self.advance()
            variable = self.identifier("a variable name").value
            self.expect("=")
            lets.append((variable, self.expression()))
            self.expect(";")
        self.expect("return", "ident")
        result = self.expression()
        self.accept(";")
        self.expect("}")
        return Function(start, name, parameters, lets, result)

    # Expressions.

    def expression(self) -> Expression:
        self.enter()
        condition = self.binary(1)
        if self.at("?"):
            start = self.advance().start
            then = self.expression()
            self.expect(":")
            condition = Conditional(start, condition, then, self.expression())
        self.depth -= 1
        return condition

    def binary_operator(self) -> str | None:
        token = self.current
        if token.kind == "op" or (token.kind == "ident" and token.value in ("in", "is")):
            return token.value if token.value in _PRECEDENCE else None
        return None

    def binary(self, level: int) -> Expression:
        """Precedence climbing; left-associative. Each fold counts as a level of nesting."""
        left = self.unary()
        entered = self.depth
        while True:
            operator = self.binary_operator()
            if operator is None or _PRECEDENCE[operator] < level:
                break
            if not (isinstance(left, Logical) and left.operator == operator):  # flattened: no deeper
                self.enter()
            start = self.advance().start
            if operator == "is":
                token = self.current
                if token.kind != "ident" or token.value not in TYPE_NAMES:
                    raise self.expected("a type name (" + ", ".join(TYPE_NAMES) + ")")
                left = TypeCheck(start, left, self.advance().value)
                continue
            right = self.binary(_PRECEDENCE[operator] + 1)
            if operator in ("&&", "||"):
                operands = left.operands if isinstance(left, Logical) and left.operator == operator else [left]
                left = Logical(start, operator, [*operands, right])
            else:
                left = Binary(start, operator, left, right)
        self.depth = entered
        return left

    def unary(self) -> Expression:
        if self.at("!") or self.at("-"):
            self.enter()
            token = self.advance()
            if token.value == "-" and self.current.kind in ("int", "float"):
                number = self.advance()
                if number.value > _MAX_INT + 1:
                    raise self.lexer.error("integer literal out of range", number.start)
                node: Expression = self.postfix(Literal(token.start, -number.value))
            else:
                node = Unary(token.start, token.value, self.unary())
            self.depth -= 1
            return node
        return self.postfix(self.primary())

    def postfix(self, node: Expression) -> Expression:
        entered = self.depth
        while True:
            if self.at("."):
                self.enter()
                start = self.advance().start
                node = Member(start, node, self.identifier("a field or function name").value)
            elif self.at("["):
                self.enter()
                start = self.advance().start
                index = self.expression()
                if self.accept(":"):
                    node = Slice(start, node, index, self.expression())
                else:
                    node = Index(start, node, index)
                self.expect("]")
            elif self.at("("):
                self.enter()
                start = self.advance().start
                node = Call(start, node, self.sequence(")"))
            else:
                break
        self.depth = entered
        return node

    def sequence(self, close: str) -> list[Expression]:
        """Comma-separated expressions up to `close` (a trailing comma is allowed)."""
        items: list[Expression] = []
        while not self.accept(close):
            items.append(self.expression())
            if not self.accept(","):
                self.expect(close)
                break
        return items

    def primary(self) -> Expression:
        token = self.current
        if token.kind in ("int", "float", "string", "bytes"):
            if token.kind == "int" and token.value > _MAX_INT:
                raise self.lexer.error("integer literal out of range", token.start)
            self.advance()
            return Literal(token.start, token.value)
        if token.kind == "ident" and token.value not in ("in", "is"):
            self.advance()
            if token.value in _KEYWORDS:
                return Literal(token.start, _KEYWORDS[token.value])
            return Name(token.start, token.value)
        if self.accept("("):
            inner = self.expression()
            self.expect(")")
            return inner
        if self.accept("["):
            return ListLiteral(token.start, self.sequence("]"))
        if self.accept("{"):
            return self.map_literal(token.start)
        if self.at("/"):
            return self.path_literal()
        raise self.expected("an expression")

    def map_literal(self, start: int) -> MapLiteral:
        entries = []
        while not self.accept("}"):
            key = self.expression()
            self.expect(":")
            entries.append((key, self.expression()))
            if not self.accept(","):
                self.expect("}")
                break
        return MapLiteral(start, entries)

    def path_literal(self) -> PathLiteral:
        """`/a/(default)/$(expr)/{name}`: read from the source, since `/` is also division."""
        source, start = self.source, self.current.start
        position, parts = start, []
        while source[position:position + 1] == "/":
            position += 1
            if source.startswith("$(", position):
                self.current = self.lexer.token(position + 2)
                parts.append(self.expression())
                if not self.at(")"):
                    raise self.expected("')'")
                position = self.current.end
            elif source[position:position + 1] == "{":
                close = source.find("}", position)
                if close < 0 or not source[position + 1:close].isidentifier():
                    raise self.lexer.error("expected '{name}' in the path", position)
                parts.append(source[position:close + 1])
                position = close + 1
            else:
                found = PATH_SEGMENT.match(source, position)
                if not found:
                    raise self.lexer.error("expected a path segment", position)
                parts.append(found.group())
                position = found.end()
        self.current = self.lexer.token(position)
        return PathLiteral(start, parts)
