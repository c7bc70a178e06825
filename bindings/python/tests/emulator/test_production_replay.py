"""The production flavor answers as production does: recorded production exchanges replayed
(production_replay.py; recordings and their provenance in data/production-replay/).

Each recipe's plan rebuilds what the recipe sent beyond the recorded method, path and query
(fireemu's conformance/src/storage-object/corpus.mjs declares them): upload bytes, metadata
updates, Range headers. Rows not listed in a plan sent nothing more.
"""

from __future__ import annotations

import pytest

from conftest import Emulator
from production_replay import byte_range, json_update, replay, upload

BUCKET = "demo-project.appspot.com"
BYTES = bytes([0, 1, 127, 128, 255])

PLANS = {
    "firebase--simple-upload.json": {4: upload(BYTES)},
    "firebase--download.json": {
        4: upload(BYTES), 7: byte_range("bytes=0-2"), 8: byte_range("bytes=3-"), 9: byte_range("bytes=-2")},
    "gcs--download.json": {
        4: upload(BYTES), 7: byte_range("bytes=0-2"), 8: byte_range("bytes=3-"), 9: byte_range("bytes=-2"),
        18: byte_range("bytes=0-2")},
    "errors--missing.json": {
        6: json_update({"metadata": {"marker": "missing-observation"}}),
        16: json_update({"metadata": {"marker": "missing-observation"}})},
}

# Recipes of the recordings that are not replayed, with the reason (index.json lists them all).
NOT_REPLAYED = {
    "auth--firebase-id-token.json": "ID tokens minted by a real Identity Toolkit for the production project",
    "errors--authorization.json": "ID tokens minted by a real Identity Toolkit for the production project",
}

# Rows whose status, body and every header production sent match today, of the replayed ones.
# Raised as the production flavor comes closer; it fails when a matching row regresses.
FLOOR = {"rows": 81, "status": 80, "body": 62, "headers": 0}


@pytest.fixture(scope="module")
def production():
    emulator = Emulator(f"--bucket={BUCKET}", "--no-auth", flavor="production")
    yield emulator
    emulator.stop()


def test_production_answers_as_recorded(production):
    results = [result for recipe, plan in PLANS.items() for result in replay(production.base, recipe, plan, BUCKET)]
    counts = {"rows": len(results), "status": sum(r.status for r in results),
              "body": sum(r.status and r.body for r in results),
              "headers": sum(r.status and r.body and r.headers for r in results)}
    report = "\n".join(f"{r.recipe} #{r.n}:\n    " + "\n    ".join(r.differences) for r in results if r.differences)
    print(counts)
    print(report)
    assert all(counts[key] >= FLOOR[key] for key in FLOOR), f"{counts} below {FLOOR}\n{report}"
