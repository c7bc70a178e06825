"""How production words a multipart upload's JSON metadata part it cannot parse.

Production reads that part with a streaming JSON parser (protobuf's, keys unquoted allowed) that
gets the whole part as one chunk, then finishes: a token the chunk ends inside (a key, a string, a
number, or nothing at all where a token is due) is kept and parsed again when finishing, where the
end of the input is "Unexpected end of string". A refusal names what was expected, then the input
around the failure (up to 20 characters either side, of the text being parsed) and a caret under
the failure: `Parse Error: Expected : between key:value pair.\\ninvalid-json\\n            ^`.
"""

from __future__ import annotations

import re

from ..errors import json_for_html

CONTEXT = 20
_WHITESPACE = " \t\r\n"
_KEY_SEPARATORS = set(_WHITESPACE + "\"'{}[]:,")
_NUMBER = re.compile(r"[-+.eE0-9]*")
_STRING_END = re.compile(r"""\\.|["']""", re.DOTALL)


class _Incomplete(Exception):
    """The chunk ends inside the token being parsed: parse it again when finishing."""


class _Refused(Exception):
    pass


def _is_letter(char: str) -> bool:
    return char.isascii() and (char.isalpha() or char in "_$")


class _Parser:
    def __init__(self) -> None:
        self.stack = ["value"]

    def run(self, text: str, finishing: bool) -> str:
        """Parse `text` from the states left by the last run; what a non-final run leaves unparsed."""
        self.text, self.at, self.finishing = text, 0, finishing
        while self.stack:
            state = self.stack.pop()
            start = self.at
            try:
                getattr(self, "_" + state)(self._token())
            except _Incomplete:
                self.stack.append(state)
                self.at = start
                break
        self._skip_whitespace()
        if self.at < len(self.text) and not self.stack:
            self._fail("Parsing terminated before end of input.")
        return self.text[self.at:]

    # The parser's states: what comes next.
    def _value(self, token: str) -> None:
        if token == "{":
            self.at += 1
            self.stack.append("entry")
        elif token == "[":
            self.at += 1
            self.stack.append("array_value")
        elif token == "string":
            self._string()
        elif token == "number":
            self._number()
        elif token in ("true", "false", "null"):
            self.at += len(token)
        else:
            self._unexpected(token, "Expected a value.")

    def _entry(self, token: str) -> None:
        if token == "}":
            self.at += 1
            return
        if token == "string":
            self._string()
        elif token == "key":
            self._key()
        else:
            self._unexpected(token, "Expected an object key or }.")
        self.stack += ["object_mid", "entry_mid"]

    def _entry_mid(self, token: str) -> None:
        if token != ":":
            self._unexpected(token, "Expected : between key:value pair.")
        self.at += 1
        self.stack.append("value")

    def _object_mid(self, token: str) -> None:
        if token not in ("}", ","):
            self._unexpected(token, "Expected , or } after key:value pair.")
        self.at += 1
        if token == ",":
            self.stack.append("entry")

    def _array_value(self, token: str) -> None:
        if token == "]":
            self.at += 1
            return
        if token is None:
            self._unexpected(token, "Expected a value or ] within an array.")
        self._value(token)
        self.stack.append("array_mid")

    def _array_mid(self, token: str) -> None:
        if token not in ("]", ","):
            self._unexpected(token, "Expected , or ] after array value.")
        self.at += 1
        if token == ",":
            self.stack.append("array_value")

    # Tokens.
    def _skip_whitespace(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in _WHITESPACE:
            self.at += 1

    def _token(self) -> str | None:
        """The kind of token that starts here; None: none yet (the end, or an unknown character)."""
        self._skip_whitespace()
        rest = self.text[self.at:]
        if not rest:
            return None
        if rest[0] in "\"'":
            return "string"
        if rest[0] == "-" or rest[0].isdigit():
            return "number"
        for word in ("true", "false", "null"):
            if rest.startswith(word):
                return word
        if rest[0] in "{}[]:,":
            return rest[0]
        return "key" if _is_letter(rest[0]) else None

    def _string(self) -> None:
        quote, at = self.text[self.at], self.at + 1
        while (match := _STRING_END.search(self.text, at)) is not None and match.group() != quote:
            at = match.end()
        if match is None:
            self._unexpected(None, "Closing quote expected in string.")
        self.at = match.end()

    def _number(self) -> None:
        end = _NUMBER.match(self.text, self.at + 1).end()
        if end == len(self.text) and not self.finishing:
            raise _Incomplete
        try:
            float(self.text[self.at:end])
        except ValueError:
            self._fail("Unable to parse number.")
        self.at = end

    def _key(self) -> None:
        end = self.at + 1
        while end < len(self.text) and self.text[end] not in _KEY_SEPARATORS:
            end += 1
        if end == len(self.text) and not self.finishing:
            raise _Incomplete
        self.at = end

    # Refusals.
    def _unexpected(self, token: str | None, message: str) -> None:
        """No token where one is due: wait for more input, or refuse."""
        if token is None and not self.finishing:
            raise _Incomplete
        if self.at == len(self.text):
            message = "Unexpected end of string. " + message
        self._fail(message)

    def _fail(self, message: str) -> None:
        begin = max(self.at - CONTEXT, 0)
        segment = self.text[begin:self.at + CONTEXT]
        raise _Refused(f"{message}\n{segment}\n{' ' * (self.at - begin)}^")


def parse_error(text: str) -> str | None:
    """Production's message for the metadata part `text`, or None if its parser takes it."""
    parser = _Parser()
    try:
        leftover = parser.run(text, finishing=False)
        if parser.stack:
            parser.run(leftover, finishing=True)
    except _Refused as refusal:
        return f"Parse Error: {refusal}"
    return None


def error_page_text(message: str) -> str:
    """The body production sends with it (as text/html): its JSON error, in its own key order."""
    return json_for_html({"error": {"code": 400, "message": message,
                                    "errors": [{"message": message, "domain": "global", "reason": "invalid"}]}})
