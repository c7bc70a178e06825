"""The two ways rules fail: a ruleset that does not compile, and an expression that errors."""

from __future__ import annotations


class RulesSyntaxError(ValueError):
    """A ruleset that does not load; the message names file:line:column and what was expected."""

    def __init__(self, message: str, source: str, offset: int, file: str = "storage.rules"):
        self.line = source.count("\n", 0, offset) + 1
        self.column = offset - (source.rfind("\n", 0, offset) + 1) + 1
        self.description = message
        self.source_line = (source.splitlines() or [""])[min(self.line, max(1, len(source.splitlines()))) - 1]
        self.file = file
        super().__init__(f"{file}:{self.line}:{self.column}: {message}")


class EvaluationError(Exception):
    """An expression that errors: it denies, unless `&&` / `||` absorb it (reference §5.1)."""
