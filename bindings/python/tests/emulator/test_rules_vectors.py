"""The shared conformance vectors through `python -m fbstorage.emulator.rules check`: every one
must give its expected verdict. A copy is committed; the shared file is checked too when present."""

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import PYTHON_ROOT

COPY = Path(__file__).parent / "data" / "storage-rules-vectors.json"
SHARED = PYTHON_ROOT.parents[2] / "shared" / "conformance" / "storage-rules-vectors.json"  # beside the repo


def check(path: Path) -> dict[str, str]:
    result = subprocess.run([sys.executable, "-m", "fbstorage.emulator.rules", "check", str(path)],
                            capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(PYTHON_ROOT)})
    assert result.returncode == 0, result.stderr
    return dict(line.split(" ", 1) for line in result.stdout.splitlines())


def expected(path: Path) -> dict[str, str]:
    vectors = json.loads(path.read_text(encoding="utf-8"))["vectors"]
    return {vector["id"]: "compile-error" if vector.get("expect_compile_error") else vector["expect"]
            for vector in vectors}


def test_every_vector_gives_its_verdict():
    paths = [COPY] + ([SHARED] if SHARED.exists() else [])
    for path in paths:
        wanted, got = expected(path), check(path)
        wrong = {id_: (verdict, got.get(id_)) for id_, verdict in wanted.items() if got.get(id_) != verdict}
        assert not wrong, f"{path}: {len(wanted) - len(wrong)}/{len(wanted)} pass; wrong: {wrong}"
        assert len(got) == len(wanted)
    assert len(expected(COPY)) == 106


def test_lint_prints_the_position_of_an_error(tmp_path):
    rules = tmp_path / "storage.rules"
    rules.write_text("rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n"
                     "    allow read: if request.auth.uid == ;\n  }\n}\n")
    command = [sys.executable, "-m", "fbstorage.emulator.rules", "lint", str(rules)]
    env = {**os.environ, "PYTHONPATH": str(PYTHON_ROOT)}
    failed = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    assert failed.returncode == 1
    assert failed.stdout.strip() == f"{rules}:4:40: expected an expression, found ';'"
    rules.write_text(rules.read_text().replace("== ;", "== uid;"))
    passed = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    assert passed.returncode == 0
    assert passed.stdout.splitlines() == [
        f"warning: {rules}:4:40: unknown variable 'uid' (reading it is an error)",
        f"{rules}: OK (rules_version 2)"]
