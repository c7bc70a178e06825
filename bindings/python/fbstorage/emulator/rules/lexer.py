"""Tokens of the rules language, read on demand: the parser decides where a `/` starts a path."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .errors import RulesSyntaxError

_SPACE = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.S)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"\d+(\.\d+)?([eE][+-]?\d+)?")
_OPERATORS = ("==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "=", "+", "-", "*", "/", "%",
              "(", ")", "[", "]", "{", "}", ",", ";", ":", ".", "?", "$")
_SIMPLE_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "/": "/", "n": "\n", "t": "\t", "r": "\r", "a": "\a",
                   "b": "\b", "f": "\f", "v": "\v", "?": "?", "`": "`"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
# A literal path segment: the characters of object names that need no quoting (reference §3.1).
PATH_SEGMENT = re.compile(r"\([A-Za-z0-9_%\-~&'.:]*\)|[A-Za-z0-9_%\-~&'.:*+@]+")


@dataclass(frozen=True)
class Token:
    kind: str  # ident, int, float, string, bytes, op, eof
    value: Any
    start: int
    end: int


class Lexer:
    def __init__(self, source: str, file: str):
        self.source = source
        self.file = file

    def error(self, message: str, offset: int) -> RulesSyntaxError:
        return RulesSyntaxError(message, self.source, offset, self.file)

    def skip_space(self, offset: int) -> int:
        end = _SPACE.match(self.source, offset).end()
        if self.source.startswith("/*", end):
            raise self.error("unterminated /* comment", end)
        return end

    def token(self, offset: int) -> Token:
        """The token starting at the first non-space character at or after `offset`."""
        source = self.source
        start = self.skip_space(offset)
        if start >= len(source):
            return Token("eof", None, start, start)
        char = source[start]
        if char == "b" and source[start + 1:start + 2] in ("'", '"'):
            value, end = self._quoted(start + 1, as_bytes=True)
            return Token("bytes", value, start, end)
        if char in ("'", '"'):
            value, end = self._quoted(start, as_bytes=False)
            return Token("string", value, start, end)
        found = _IDENT.match(source, start)
        if found:
            return Token("ident", found.group(), start, found.end())
        found = _NUMBER.match(source, start)
        if found:
            return self._number(found, start)
        for operator in _OPERATORS:
            if source.startswith(operator, start):
                return Token("op", operator, start, start + len(operator))
        raise self.error(f"unexpected character {char!r}", start)

    def _number(self, found: re.Match, start: int) -> Token:
        end = found.end()
        if self.source[end:end + 1] == "." or _IDENT.match(self.source, end):
            raise self.error("a number must be followed by an operator, not "
                             f"{self.source[end:end + 1]!r}", end)
        if found.group(1) or found.group(2):
            return Token("float", float(found.group()), start, end)
        return Token("int", int(found.group()), start, end)

    def _quoted(self, start: int, *, as_bytes: bool) -> tuple[Any, int]:
        source, quote = self.source, self.source[start]
        pieces: list[bytes] = []
        position = start + 1
        while True:
            if position >= len(source) or source[position] == "\n":
                raise self.error("unterminated string", start)
            char = source[position]
            if char == quote:
                break
            if char != "\\":
                pieces.append(char.encode("utf-8", "surrogatepass"))
                position += 1
                continue
            code = source[position + 1:position + 2]
            if code in _SIMPLE_ESCAPES:
                pieces.append(_SIMPLE_ESCAPES[code].encode())
                position += 2
            elif code in _HEX_ESCAPES or code.isdigit():
                width = _HEX_ESCAPES.get(code, 3)
                digits = source[position + (1 if code.isdigit() else 2):][:width]
                base = 8 if code.isdigit() else 16
                try:
                    number = int(digits, base) if len(digits) == width and digits.isalnum() else -1
                except ValueError:
                    number = -1
                if number < 0 or number > 0x10FFFF or (as_bytes and number > 0xFF):
                    raise self.error(f"invalid escape \\{code}{digits}", position)
                if as_bytes:
                    pieces.append(bytes([number]))
                else:
                    pieces.append(chr(number).encode("utf-8", "surrogatepass"))
                position += (1 if code.isdigit() else 2) + width
            else:
                raise self.error(f"invalid escape sequence \\{code}", position)
        raw = b"".join(pieces)
        if as_bytes:
            return raw, position + 1
        try:
            return raw.decode("utf-8"), position + 1
        except UnicodeDecodeError:
            raise self.error("string is not valid UTF-8", start) from None
