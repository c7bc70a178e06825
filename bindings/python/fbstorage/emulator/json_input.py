"""The one way the emulator parses JSON it did not write itself: request bodies, tokens, rules
payloads, import files. Nesting is bounded before parsing, so a hostile document is a ValueError
(a 400 for the caller) instead of a RecursionError deep inside the parser."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

#: Deeper than any API document; far below the interpreter's recursion limit (json, and every
#: recursive walk of a parsed value, fail at ~1,000).
MAX_JSON_DEPTH = 100
# A string token (skipped whole: brackets inside it do not nest) or a bracket.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
_OPENING = frozenset("[{")


class JsonTooDeep(ValueError):
    """A document nested deeper than MAX_JSON_DEPTH."""

    def __init__(self) -> None:
        super().__init__(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")


def load_json(document: str | bytes | bytearray) -> Any:
    """json.loads, refusing documents nested deeper than MAX_JSON_DEPTH (JsonTooDeep). Every
    failure is a ValueError (UnicodeDecodeError included)."""
    text = document if isinstance(document, str) else bytes(document).decode("utf-8")
    depth = 0
    for token in _STRING_OR_BRACKET.finditer(text):
        mark = token.group()
        if mark in _OPENING:
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise JsonTooDeep()
        elif mark in ("]", "}"):
            depth -= 1
    return json.loads(text)


def load_json_file(path: str | os.PathLike) -> Any:
    """A JSON file's value. A bad file is a ValueError naming it (and the line and column of a
    syntax error); OSError (FileNotFoundError…) passes through."""
    try:
        return load_json(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}:{error.lineno}:{error.colno}: {error.msg}") from None
    except ValueError as error:  # nested too deep, or not UTF-8
        raise ValueError(f"{path}: {error}") from None
