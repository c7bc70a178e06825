"""`python -m fbstorage.emulator exec [options] -- CMD…`: the command runs against a live emulator
with the SDK variables set, its exit status is the emulator's, signals reach it."""

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from conftest import PYTHON_ROOT

ENV = {**os.environ, "PYTHONPATH": str(PYTHON_ROOT)}


def run_exec(*arguments, timeout=60, **kwargs):
    return subprocess.run([sys.executable, "-m", "fbstorage.emulator", "exec", *arguments], env=ENV,
                          capture_output=True, text=True, timeout=timeout, **kwargs)


def python_command(source: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(source)]


def test_command_sees_a_live_emulator_and_its_variables(tmp_path):
    rules = tmp_path / "storage.rules"
    rules.write_text("rules_version = '2'; service firebase.storage { match /b/{b}/o { match /{name} { "
                     "allow write: if request.auth.uid != null; } } }")
    result = run_exec("--port", "0", "--project", "demo-test", "--rules", str(rules), "--", *python_command("""
        import json, os, urllib.request
        host, auth = os.environ["FIREBASE_STORAGE_EMULATOR_HOST"], os.environ["FIREBASE_AUTH_EMULATOR_HOST"]
        sign_up = urllib.request.Request(f"http://{auth}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                                         data=b"{}", headers={"Content-Type": "application/json"}, method="POST")
        token = json.load(urllib.request.urlopen(sign_up))["idToken"]
        request = urllib.request.Request(f"http://{host}/v0/b/b/o?name=x", data=b"hi", method="POST",
                                         headers={"Authorization": f"Firebase {token}"})
        uploaded = json.load(urllib.request.urlopen(request))
        print(json.dumps({"host": host, "auth": auth, "gcs": os.environ["STORAGE_EMULATOR_HOST"],
                          "project": os.environ["GCLOUD_PROJECT"], "size": uploaded["size"]}))
    """))
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["host"].startswith("127.0.0.1:") and not seen["host"].endswith(":0")
    assert seen["auth"].startswith("127.0.0.1:") and seen["auth"] != seen["host"]
    assert seen["gcs"] == f"http://{seen['host']}" and seen["project"] == "demo-test" and seen["size"] == "2"
    assert "READY" not in result.stdout  # stdout belongs to the command


@pytest.mark.parametrize("status", [0, 1, 3, 42])
def test_exit_status_is_the_commands(status):
    result = run_exec("--port", "0", "--", "sh", "-c", f"exit {status}")
    assert result.returncode == status, result.stderr


def test_missing_command_is_127_with_a_message():
    result = run_exec("--port", "0", "--", "/nonexistent/command")
    assert result.returncode == 127 and "/nonexistent/command" in result.stderr


def test_without_a_command_is_a_usage_error():
    result = run_exec("--port", "0", "--")
    assert result.returncode == 2 and "usage" in result.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signals_are_forwarded_and_the_emulator_exports_on_exit(tmp_path, sig):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent("""
        import os, signal, sys, urllib.request
        host = os.environ["FIREBASE_STORAGE_EMULATOR_HOST"]
        urllib.request.urlopen(urllib.request.Request(f"http://{host}/v0/b/b/o?name=kept", data=b"1", method="POST"))
        def stop(signum, frame):
            sys.exit(10 + signum)
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        print("child ready", flush=True)
        signal.pause()
    """))
    export = tmp_path / "export"
    process = subprocess.Popen(
        [sys.executable, "-m", "fbstorage.emulator", "exec", "--port", "0", "--export-on-exit", str(export), "--",
         sys.executable, str(script)], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline() == "child ready\n"
        process.send_signal(sig)
        assert process.wait(30) == 10 + sig
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()
    [metadata] = (export / "storage_export" / "metadata").iterdir()
    assert json.loads(metadata.read_text())["name"] == "kept"


def test_a_child_killed_by_a_signal_is_128_plus_the_signal():
    result = run_exec("--port", "0", "--", "sh", "-c", "kill -KILL $$")
    assert result.returncode == 128 + signal.SIGKILL

