"""The cost of storage.rules per request: for every shared test vector, its ruleset compiled once,
then the request's variables built and the rules evaluated, timed over many rounds.

  PYTHONPATH=bindings/python python benchmarks/rules_cost.py [VECTORS.json]

Prints JSON: median and 90th percentile µs per request over the vectors (each vector's figure is
the median of its rounds), and the number of vectors.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from fbstorage.emulator.rules import Ruleset, RulesSyntaxError
from fbstorage.emulator.rules.request_model import (auth_value, now, resource_from_json, rules_path,
                                                    variables)

VECTORS = Path(__file__).resolve().parent.parent / "bindings/python/tests/emulator/data/storage-rules-vectors.json"
ROUNDS, CALLS_PER_ROUND = 7, 200


def per_request_us(ruleset: Ruleset, request: dict) -> float:
    """Median over the rounds of the time to build the variables and decide one request."""
    auth = request["auth"]["token"] if request.get("auth") else None
    resource = resource_from_json(request.get("resource"))
    request_resource = resource_from_json(request.get("request_resource"))
    method, path = request["method"], rules_path(request["bucket"], request["path"])
    rounds = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for _ in range(CALLS_PER_ROUND):
            ruleset.allows(method, path, variables(path, now(), auth_value(auth), resource, request_resource))
        rounds.append((time.perf_counter() - started) / CALLS_PER_ROUND * 1e6)
    return statistics.median(rounds)


def measure(vectors_path: Path) -> dict:
    vectors = json.loads(vectors_path.read_text(encoding="utf-8"))["vectors"]
    compiled: dict[str, Ruleset] = {}
    figures = []
    for vector in vectors:
        if vector["rules"] not in compiled:
            try:
                compiled[vector["rules"]] = Ruleset(vector["rules"])
            except RulesSyntaxError:
                continue
        figures.append(per_request_us(compiled[vector["rules"]], vector["request"]))
    figures.sort()
    return {"median_us_per_request": round(statistics.median(figures), 2),
            "p90_us_per_request": round(figures[int(len(figures) * 0.9)], 2),
            "vectors": len(figures)}


if __name__ == "__main__":
    print(json.dumps(measure(Path(sys.argv[1]) if len(sys.argv) > 1 else VECTORS)))
