"""firebase.json as firebase-tools reads it (emulators.storage host and port, storage targets per
--project, demo-* projects) and RE2 fidelity: patterns RE2 rejects fail the ruleset's load."""

import json
import os
import subprocess
import sys

import pytest

from conftest import PYTHON_ROOT, Emulator

LOOKAHEAD = ("rules_version = '2';\nservice firebase.storage {\n  match /b/{b}/o {\n    match /{name} {\n"
             "      allow read, write: if name.matches('a(?=b)');\n    }\n  }\n}\n")
OPEN = "rules_version = '2'; service firebase.storage { match /b/{b}/o { match /{p=**} { allow read, write; } } }"
CLOSED = "rules_version = '2'; service firebase.storage { match /b/{b}/o { match /{p=**} { allow read, write: if false; } } }"


@pytest.mark.parametrize("pattern, complaint", [
    ("a(?=b)", "invalid perl operator: (?="),
    ("a(?!b)", "invalid perl operator: (?!"),
    ("(?<=a)b", "invalid perl operator: (?<"),
    ("(a)\\\\1", "invalid escape sequence: \\1"),
])
def test_patterns_re2_rejects_fail_the_load(tmp_path, pattern, complaint):
    rules = tmp_path / "storage.rules"
    rules.write_text(LOOKAHEAD.replace("a(?=b)", pattern))
    with pytest.raises(RuntimeError) as failure:
        Emulator("--rules", str(rules))
    assert f"{rules}:5:" in str(failure.value) and complaint in str(failure.value)


def test_set_rules_with_a_lookahead_keeps_the_old_rules(start_emulator):
    emu = start_emulator()
    assert emu.http.put(emu.url("/internal/setRules"),
                        json={"rules": {"files": [{"name": "c.rules", "content": CLOSED}]}}).status_code == 200
    response = emu.http.put(emu.url("/internal/setRules"),
                            json={"rules": {"files": [{"name": "la.rules", "content": LOOKAHEAD}]}})
    assert response.status_code == 400
    assert emu.upload("ab", b"1").status_code == 403  # the closed rules still apply
    assert "la.rules:5:" in emu.stderr() and "invalid perl operator" in emu.stderr()


def test_a_computed_pattern_still_evaluates(start_emulator, tmp_path):
    rules = tmp_path / "storage.rules"
    rules.write_text(LOOKAHEAD.replace("'a(?=b)'", "name + '(?='"))
    emu = start_emulator("--rules", str(rules))
    assert emu.upload("x", b"1").status_code == 403  # an invalid pattern at evaluation: an error, denied


def start_without_address(*arguments: str, cwd=None) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, "-m", "fbstorage.emulator", *arguments],
                               env={**os.environ, "PYTHONPATH": str(PYTHON_ROOT)}, cwd=cwd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return process, process.stdout.readline()


def test_emulators_storage_host_and_port_from_firebase_json(tmp_path):
    (tmp_path / "storage.rules").write_text(OPEN)
    config = tmp_path / "firebase.json"
    config.write_text(json.dumps({"storage": {"rules": "storage.rules"},
                                  "emulators": {"storage": {"host": "127.0.0.1", "port": 0}}}))
    process, line = start_without_address("--config", str(config))
    try:
        assert line.startswith("READY http://127.0.0.1:") and not line.strip().endswith(":9199"), line
    finally:
        process.terminate()
        assert process.wait(10) == 0
        process.communicate()


def test_bad_emulators_section_is_a_clear_error(tmp_path):
    config = tmp_path / "firebase.json"
    config.write_text(json.dumps({"emulators": {"storage": {"port": "9199"}}}))
    process, line = start_without_address("--config", str(config))
    _, error = process.communicate(timeout=10)
    assert process.returncode == 1 and line == "" and "emulators.storage" in error and "Traceback" not in error


def write_targets(tmp_path):
    (tmp_path / "a.rules").write_text(OPEN)
    (tmp_path / "b.rules").write_text(CLOSED)
    (tmp_path / "firebase.json").write_text(json.dumps({"storage": [{"target": "main", "rules": "a.rules"},
                                                                    {"target": "locked", "rules": "b.rules"}]}))
    (tmp_path / ".firebaserc").write_text(json.dumps({
        "projects": {"default": "prod-project", "staging": "staging-project"},
        "targets": {"prod-project": {"storage": {"main": ["prod-main"], "locked": ["prod-locked"]}},
                    "staging-project": {"storage": {"main": ["staging-main"], "locked": ["staging-locked"]}}}}))
    return tmp_path / "firebase.json"


@pytest.mark.parametrize("project, prefix", [(None, "prod"), ("staging", "staging"), ("staging-project", "staging")])
def test_project_chooses_the_storage_targets(start_emulator, tmp_path, project, prefix):
    config = write_targets(tmp_path)
    emu = start_emulator("--config", str(config), *(["--project", project] if project else []))
    emu.upload_ok("x", bucket=f"{prefix}-main")
    assert emu.upload("x", b"1", bucket=f"{prefix}-locked").status_code == 403
    other = "staging" if prefix == "prod" else "prod"
    assert emu.upload("x", b"1", bucket=f"{other}-main").status_code == 403  # no ruleset for it


def test_demo_project_without_rules_allows_everything(start_emulator, tmp_path):
    (tmp_path / "firebase.json").write_text(json.dumps({"emulators": {"storage": {"port": 9199}}}))
    emu = start_emulator("--config", str(tmp_path / "firebase.json"), "--project", "demo-app")
    emu.upload_ok("anything")
    with pytest.raises(RuntimeError, match='expected "storage"'):
        Emulator("--config", str(tmp_path / "firebase.json"), "--project", "real-app")


def test_demo_project_with_unknown_targets_allows_everything(start_emulator, tmp_path):
    config = write_targets(tmp_path)
    emu = start_emulator("--config", str(config), "--project", "demo-other")
    emu.upload_ok("x", bucket="any-bucket")
