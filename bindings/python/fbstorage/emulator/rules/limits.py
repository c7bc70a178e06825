"""Bounds on evaluating the rules for one request, so that no request takes seconds or hundreds
of MiB, whatever the ruleset and the request hold.

The rules language documents 1,000 expressions evaluated per request and a call depth of 20
(storage-rules.md §4.3); the emulator counts every evaluated node that computes (an operator, a
call, a member or index read, a list or map built; not a literal or a variable). It adds a bound
of its own on the work values cost, as production publishes none: every character, byte or
element of a value an expression produces and every element compared while searching a list or
set is a step; a regular expression match found by split() or replace() is MATCH_STEPS (and
split() one more per 256 characters of its text, which every search reads). Passing
a bound denies the whole request (no `||` absorbs it) and the decision names the bound (the web
UI's explanation).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

MAX_EXPRESSIONS = 1_000
MAX_CALL_DEPTH = 20
#: About a tenth of a second of the slowest steps, and a few MiB of values.
MAX_STEPS = 250_000
#: A regular expression match found by split() or replace() costs as much as this many steps.
MATCH_STEPS = 25


class RulesLimitExceeded(Exception):
    """One request's evaluation passed a bound: the request is denied."""


class Budget:
    __slots__ = ("expressions", "steps")

    def __init__(self) -> None:
        self.expressions = MAX_EXPRESSIONS
        self.steps = MAX_STEPS


_BUDGET: ContextVar[Budget | None] = ContextVar("rules_budget", default=None)


@contextmanager
def budget() -> Iterator[None]:
    """Evaluations inside share one fresh budget."""
    token = _BUDGET.set(Budget())
    try:
        yield
    finally:
        _BUDGET.reset(token)


def charge_expression(size: int) -> None:
    """One expression evaluated, whose value has `size` characters, bytes or elements."""
    current = _BUDGET.get()
    if current is None:
        return
    current.expressions -= 1
    if current.expressions < 0:
        raise RulesLimitExceeded(f"more than {MAX_EXPRESSIONS} expressions evaluated for one request "
                                 "(the rules language's limit)")
    _spend(current, size)


def charge(steps: int) -> None:
    """Work about to be done (or just done) by a function: `steps` characters or comparisons."""
    current = _BUDGET.get()
    if current is not None:
        _spend(current, steps)


def _spend(current: Budget, steps: int) -> None:
    current.steps -= steps
    if current.steps < 0:
        raise RulesLimitExceeded(f"evaluating the rules for one request took more than {MAX_STEPS} steps "
                                 "(characters and elements of values, comparisons, matches): the emulator's limit")
