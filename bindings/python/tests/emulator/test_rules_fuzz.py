"""The rules parser on random and mutated input: it never crashes or hangs, every error names a
position, and input nested too deeply or too large is refused with a clear error."""

import json
import random
import time

import pytest

from fbstorage.emulator.rules import Ruleset, RulesSyntaxError
from fbstorage.emulator.rules.limits import MAX_EXPRESSIONS, RulesLimitExceeded
from fbstorage.emulator.rules.parser import MAX_DEPTH, MAX_SOURCE_BYTES
from fbstorage.emulator.rules.request_model import now, rules_path, variables

from test_rules import RULES
from test_rules_vectors import COPY

SECONDS = 2.0  # per test: a bounded share of the suite
SEED = 20261123  # fixed, so a failure reproduces
PIECES = ["match", "allow", "read", "write", "list", "if", "function", "return", "let", "service", "rules_version",
          "firebase.storage", "/b/{bucket}/o", "/{x=**}", "/{y}", "{", "}", "(", ")", "[", "]", ":", ";", ",", ".",
          "=", "==", "!=", "&&", "||", "!", "?", "+", "-", "*", "/", "%", "<", "<=", "in", "is", "int", "string",
          "'s'", '"\\x41"', "b'\\052'", "'\\q'", "1", "2.5", "9223372036854775808", "0.", "null", "true",
          "request.auth.uid", "resource.size", "$(", "/*", "*/", "//", "\n", " ", "'", "\\", "\u00e9", "\x00"]


def corpus() -> list[str]:
    vectors = json.loads(COPY.read_text(encoding="utf-8"))["vectors"]
    return sorted({vector["rules"] for vector in vectors} | {RULES})


def mutate(source: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 4)):
        start = rng.randrange(len(source) + 1)
        end = min(len(source), start + rng.randint(0, 20))
        choice = rng.random()
        if choice < 0.3:
            source = source[:start] + source[end:]
        elif choice < 0.6:
            source = source[:start] + rng.choice(PIECES) + source[start:]
        elif choice < 0.8:
            source = source[:start] + source[start:end] * rng.randint(2, 5) + source[end:]
        else:
            source = source[:start] + chr(rng.randint(0, 0x2FF)) + source[end:]
    return source


def random_source(rng: random.Random) -> str:
    return " ".join(rng.choice(PIECES) for _ in range(rng.randint(1, 60)))


def check_loads_or_fails_with_position(source: str) -> None:
    try:
        ruleset = Ruleset(source)
    except RulesSyntaxError as error:
        assert error.line >= 1 and error.column >= 1, source
        assert str(error).startswith(f"storage.rules:{error.line}:{error.column}: "), str(error)
        return
    path = rules_path("b", "users/alice/x.png")
    for method in ("get", "list", "create", "update", "delete"):
        assert ruleset.allows(method, path, variables(path, now(), None, None, None)) in (True, False)


@pytest.mark.timeout(60)
def test_mutated_rules():
    rng, sources, count = random.Random(SEED), corpus(), 0
    deadline = time.monotonic() + SECONDS
    while time.monotonic() < deadline:
        check_loads_or_fails_with_position(mutate(rng.choice(sources), rng))
        count += 1
    assert count >= 20  # the loop really ran


@pytest.mark.timeout(60)
def test_random_rules():
    rng, count = random.Random(SEED + 1), 0
    deadline = time.monotonic() + SECONDS
    while time.monotonic() < deadline:
        check_loads_or_fails_with_position(random_source(rng))
        count += 1
    assert count >= 20  # the loop really ran


def wrapped(condition: str) -> str:
    return ("rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o/{f} {\n"
            f"    allow read: if {condition};\n  }}\n}}\n")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("condition", [
    "(" * 5000 + "true" + ")" * 5000,
    "!" * 50000 + "true",
    "-" * 50000 + "1 == 1",
    "[" * 5000 + "]" * 5000 + " == []",
    "request" + ".a" * 50000 + " == 1",
    "1" + " + 1" * 50000 + " == 2",
    "true" + " && true" * 5000 + " ? true : " + "(false ? true : " * 2000 + "false" + ")" * 2000,
])
def test_deep_nesting_is_refused(condition):
    with pytest.raises(RulesSyntaxError, match=f"nesting deeper than {MAX_DEPTH} levels") as raised:
        Ruleset(wrapped(condition))
    assert raised.value.line == 4


def test_long_flat_conditions_still_load():
    ruleset = Ruleset(wrapped(" || ".join(f"request.path[3] == 'f{index}'" for index in range(3000))))
    path = rules_path("b", "f10")
    assert ruleset.allows("get", path, variables(path, now(), None, None, None))
    path = rules_path("b", "f2999")  # reached after ~15,000 expressions: over the language's limit
    with pytest.raises(RulesLimitExceeded, match=f"more than {MAX_EXPRESSIONS} expressions"):
        ruleset.allows("get", path, variables(path, now(), None, None, None))


@pytest.mark.timeout(60)
def test_deeply_nested_matches_are_refused():
    source = "service firebase.storage {\n" + "match /a {\n" * 500 + "}\n" * 501
    with pytest.raises(RulesSyntaxError, match="nesting deeper than"):
        Ruleset(source)


def test_huge_source_is_refused():
    source = wrapped("true") + "// padding\n" * (MAX_SOURCE_BYTES // 10)
    with pytest.raises(RulesSyntaxError, match=f"larger than the limit of {MAX_SOURCE_BYTES} bytes") as raised:
        Ruleset(source)
    assert (raised.value.line, raised.value.column) == (1, 1)
