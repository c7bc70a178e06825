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


def vector(id_: str, rules_body: str, path: str, **request) -> dict:
    rules = ("rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n"
             f"{rules_body}\n  }}\n}}\n")
    return {"id": id_, "rules": rules,
            "request": {"method": "get", "path": path, "bucket": "b", "auth": None, "resource": None,
                        "request_resource": None, **request}}


def decide(tmp_path: Path, vectors: list[dict]) -> dict[str, str]:
    file = tmp_path / "vectors.json"
    file.write_text(json.dumps({"vectors": vectors}), encoding="utf-8")
    return {id_: verdict.strip() for id_, verdict in check(file).items()}


def test_firestore_documents_of_a_vector_are_what_firestore_get_reads(tmp_path):
    role = "match /{name} { allow get: if firestore.get(/databases/(default)/documents/users/$(name)).data.role == 'admin'; }"
    exists = "match /{name} { allow get: if firestore.exists(/databases/(default)/documents/users/$(name)); }"
    documents = {"users/ada": {"role": "admin"}, "users/bob": {"role": "viewer"},
                 "users/cy": {"fields": {"role": {"stringValue": "admin"}}}}  # the REST shape too
    verdicts = decide(tmp_path, [
        vector("admin", role, "ada", firestore_documents=documents),
        vector("viewer", role, "bob", firestore_documents=documents),
        vector("rest-shape", role, "cy", firestore_documents=documents),
        vector("missing-document", role, "dan", firestore_documents=documents),  # get() is null: .data errs
        vector("exists", exists, "bob", firestore_documents=documents),
        vector("does-not-exist", exists, "dan", firestore_documents=documents),
        vector("no-firestore", exists, "bob"),  # no documents given: no Firestore, the call is an error
        vector("admin-again", role, "ada", firestore_documents=documents)])  # read counts are per vector
    assert verdicts == {"admin": "allow", "viewer": "deny", "rest-shape": "allow", "missing-document": "deny",
                        "exists": "allow", "does-not-exist": "deny", "no-firestore": "deny", "admin-again": "allow"}


def test_bad_firestore_documents_are_a_clear_error(tmp_path):
    file = tmp_path / "vectors.json"
    exists = "match /{name} { allow get: if firestore.exists(/databases/(default)/documents/users/$(name)); }"
    file.write_text(json.dumps({"vectors": [vector("bad", exists, "a", firestore_documents=["users/a"])]}))
    result = subprocess.run([sys.executable, "-m", "fbstorage.emulator.rules", "check", str(file)],
                            capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(PYTHON_ROOT)})
    assert result.returncode == 2
    assert "bad: firestore_documents: expected an object of documents" in result.stderr


def test_single_segment_wildcard_may_be_written_name_equals_star(tmp_path):
    """The Apple SDK's integration tests give their bucket `match /{directChild=*}`: one segment, like {name}."""
    direct = "match /{directChild=*} { allow get: if directChild == 'top' || directChild == 'nested'; }"
    verdicts = decide(tmp_path, [
        vector("direct-child", direct, "top"),
        vector("other-direct-child", direct, "other"),
        vector("not-two-segments", direct, "nested/top"),
        vector("bad-wildcard", "match /{name=***} { allow get; }", "top")])
    assert verdicts == {"direct-child": "allow", "other-direct-child": "deny", "not-two-segments": "deny",
                        "bad-wildcard": "compile-error"}


def test_split_is_re2j_pattern_split(tmp_path):
    """'abc'.split('') is not ['a', 'b', 'c'] on the official runtime (recorded); RE2/J gives ['', 'a', 'b', 'c'],
    keeps a leading '' and drops trailing empty pieces."""
    claims = {
        "empty-pattern": "'abc'.split('') == ['', 'a', 'b', 'c']",
        "not-the-characters": "'abc'.split('') != ['a', 'b', 'c']",
        "plain": "'a/b/c'.split('/') == ['a', 'b', 'c']",
        "no-match": "'a'.split(',') == ['a']",
        "leading-empty-kept": "',a'.split(',') == ['', 'a']",
        "trailing-empties-dropped": "'a,b,,'.split(',') == ['a', 'b']",
        "only-separators": "','.split(',') == []",
        "empty-text": "''.split(',') == []",
        "empty-match-after-a-match": "'abc'.split('b*') == ['', 'a', '', 'c']",
    }
    verdicts = decide(tmp_path, [vector(id_, f"match /{{name}} {{ allow get: if {claim}; }}", "x")
                                 for id_, claim in claims.items()])
    assert verdicts == dict.fromkeys(claims, "allow")
