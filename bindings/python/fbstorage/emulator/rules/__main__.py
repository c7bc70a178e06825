"""`python -m fbstorage.emulator.rules check VECTORS.json` prints `<id> allow|deny|compile-error` per
vector; `python -m fbstorage.emulator.rules lint storage.rules` prints load errors and warnings."""

from __future__ import annotations

import argparse
import sys

from ..json_input import load_json
from .errors import RulesSyntaxError
from .ruleset import Ruleset
from .vectors import decide


def check(path: str) -> int:
    with open(path, encoding="utf-8") as file:
        document = load_json(file.read())
    vectors = document["vectors"] if isinstance(document, dict) else document
    compiled: dict = {}
    for vector in vectors:
        print(vector["id"], decide(vector, compiled))
    return 0


def lint(path: str) -> int:
    with open(path, encoding="utf-8") as file:
        source = file.read()
    try:
        ruleset = Ruleset(source, path)
    except RulesSyntaxError as error:
        print(error)
        return 1
    for warning in ruleset.warnings:
        print("warning:", warning)
    print(f"{path}: OK (rules_version {ruleset.version})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fbstorage.emulator.rules",
                                     description="Firebase Security Rules for Cloud Storage, without a server.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="decide each test vector of a JSON file").add_argument("vectors")
    commands.add_parser("lint", help="load a storage.rules file and print its errors").add_argument("rules")
    args = parser.parse_args(argv)
    try:
        return check(args.vectors) if args.command == "check" else lint(args.rules)
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"fbstorage.emulator.rules: {error!r}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
