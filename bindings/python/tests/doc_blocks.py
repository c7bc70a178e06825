"""The fenced code blocks of the documentation, grouped into the examples test_docs.py checks.

Every block of README.md, docs/*.md and bindings/*/README.md is either an example (a language
test_docs.py knows how to check), part of one (``continue``), or skipped with a reason. A block
that is none of these is listed in ``UNCHECKED``, which test_docs.py requires to be empty, so new
docs cannot slip through unchecked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[3]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted(REPO.glob("bindings/*/README.md"))]
#: A fence's language and the checker of test_docs.py that takes it.
CHECKERS = {"python": "python", "c": "c", "cpp": "cpp", "go": "go", "rust": "rust", "swift": "swift",
            "sh": "sh", "bash": "sh", "console": "sh", "json": "json", "rules": "rules"}
_BLOCK = re.compile(r"((?:^<!-- doc-test: .*? -->\n)*)^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_DIRECTIVE = re.compile(r"<!-- doc-test: (\w+) ?(.*?) -->")


@dataclass
class Example:
    """One checked unit: a block with its setup, and the blocks that continue it."""
    file: Path
    line: int
    checker: str
    setup: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)
    build: list[str] = field(default_factory=list)  # shell commands that build a C example

    @property
    def id(self) -> str:
        return f"{self.file.relative_to(REPO)}:{self.line}"


@dataclass
class Skipped:
    id: str
    reason: str


def _examples() -> Iterator[Example | Skipped | str]:
    """Each example, each skipped block, and the id of each block nothing checks."""
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        previous: Example | None = None
        for match in _BLOCK.finditer(text):
            found = _DIRECTIVE.findall(match.group(1))
            directives = dict(found)
            setup = [argument for name, argument in found if name == "setup"]
            language, code = match.group(2), match.group(3)
            line = text.count("\n", 0, match.start(2)) + 1
            block_id = f"{doc.relative_to(REPO)}:{line}"
            checker = CHECKERS.get(language)
            if "skip" in directives:
                yield Skipped(block_id, directives["skip"])
                continue
            if checker is None:
                yield block_id
                continue
            if checker == "sh" and "serves" in directives:
                yield Example(doc, line, "serves", code=[code])
                continue
            if checker == "sh" and "continue" in directives:
                assert previous is not None and previous.checker == "c", f"{block_id}: no C block to build"
                previous.build.append(code)
                continue
            if "continue" in directives:
                assert previous is not None and previous.checker == checker, f"{block_id}: nothing to continue"
                previous.setup += setup
                previous.code.append(code)
                continue
            example = Example(doc, line, checker, setup, [code])
            if checker not in ("python", "c"):  # only Python and C blocks are continued
                yield example
                continue
            if previous is not None:
                yield previous
            previous = example
        if previous is not None:
            yield previous


_ALL = list(_examples())
EXAMPLES = [e for e in _ALL if isinstance(e, Example)]
SKIPPED = [e for e in _ALL if isinstance(e, Skipped)]
UNCHECKED = [e for e in _ALL if isinstance(e, str)]
