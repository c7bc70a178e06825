"""The Auth emulator as a process: its port and project from flags and firebase.json, accounts
(with their linked identities, pending email codes and sign-in settings) kept in --data-dir across
restarts and crashes, and reset with the storage data."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys

from auth_helpers import AuthClient, assert_auth_error, claims_of
from conftest import PYTHON_ROOT


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_accounts_persist_across_restarts(start_emulator, tmp_path):
    data = str(tmp_path / "data")
    first = start_emulator("--data-dir", data)
    auth = AuthClient(first.auth_base)
    session = auth.sign_up("ada@example.com", "secret-1")
    response = auth.admin("demo-project", "update", {"localId": session["localId"], "customAttributes": '{"admin":1}'})
    assert response.status_code == 200, response.text
    assert first.stop() == 0
    stored = (tmp_path / "data" / "auth" / "accounts.json").read_text()
    assert "secret-1" not in stored and session["refreshToken"] not in stored  # hashes only

    second = start_emulator("--data-dir", data)
    auth = AuthClient(second.auth_base)
    assert auth.sign_in("ada@example.com", "secret-1").json()["localId"] == session["localId"]
    refreshed = auth.refresh(session["refreshToken"])
    assert refreshed.status_code == 200, refreshed.text
    assert claims_of(refreshed.json()["id_token"])["admin"] == 1
    # The storage data reset forgets the accounts, on disk too.
    second.reset()
    assert_auth_error(auth.refresh(session["refreshToken"]), "INVALID_REFRESH_TOKEN")
    assert second.stop() == 0
    third = start_emulator("--data-dir", data)
    assert_auth_error(AuthClient(third.auth_base).sign_in("ada@example.com", "secret-1"), "EMAIL_NOT_FOUND")


def test_port_and_project_from_firebase_json(start_emulator, tmp_path):
    port = free_port()
    (tmp_path / "storage.rules").write_text("rules_version = '2';\nservice firebase.storage {\n"
                                            "  match /b/{bucket}/o { match /{all=**} { allow read, write; } }\n}\n")
    (tmp_path / "firebase.json").write_text(json.dumps({"storage": {"rules": "storage.rules"},
                                                        "emulators": {"auth": {"host": "127.0.0.1", "port": port}}}))
    (tmp_path / ".firebaserc").write_text(json.dumps({"projects": {"default": "rc-project"}}))
    emu = start_emulator("--config", str(tmp_path / "firebase.json"))
    assert emu.auth_base == f"http://127.0.0.1:{port}"
    token = AuthClient(emu.auth_base).anonymous()["idToken"]
    assert claims_of(token)["aud"] == "rc-project"
    # --project wins over .firebaserc.
    other = start_emulator("--config", str(tmp_path / "firebase.json"), "--project", "flag-project",
                           "--auth-port", "0")
    assert claims_of(AuthClient(other.auth_base).anonymous()["idToken"])["aud"] == "flag-project"


def test_no_auth_port(start_emulator):
    emu = start_emulator("--no-auth")
    assert emu.auth_base is None
    assert AuthClient(emu.base).anonymous()["localId"]  # the storage port still serves Auth


def run_to_exit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fbstorage.emulator", "--host", "127.0.0.1", "--port", "0", *args],
                          env={"PYTHONPATH": str(PYTHON_ROOT)}, capture_output=True, text=True, timeout=30)


def test_a_busy_auth_port_stops_the_start(start_emulator):
    busy = start_emulator()
    port = busy.auth_base.rsplit(":", 1)[1]
    result = run_to_exit("--auth-port", port)
    assert result.returncode == 1 and "address already in use" in result.stderr.lower(), result.stderr
    assert "Traceback" not in result.stderr


def test_an_unreadable_accounts_file_stops_the_start(tmp_path):
    (tmp_path / "auth").mkdir()
    (tmp_path / "auth" / "accounts.json").write_text("{broken")
    result = run_to_exit("--data-dir", str(tmp_path))
    assert result.returncode == 1 and "unreadable accounts file" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr



def test_pending_codes_linked_identities_and_settings_survive_a_crash(start_emulator, tmp_path):
    data = str(tmp_path / "data")
    first = start_emulator("--data-dir", data)
    auth = AuthClient(first.auth_base)
    user = auth.sign_up("ada@example.com", "secret-1")
    google = json.dumps({"sub": "g-ada", "email": "ada@example.com", "email_verified": True})
    auth.ok("signInWithIdp", {"requestUri": f"http://localhost?providerId=google.com&id_token={google}",
                              "idToken": user["idToken"]})
    auth.ok("sendOobCode", {"requestType": "PASSWORD_RESET", "email": "ada@example.com"})
    config = "/emulator/v1/projects/demo-project/config"
    assert auth.http.patch(first.auth_base + config,
                           json={"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}).status_code == 200
    codes = auth.http.get(first.auth_base + "/emulator/v1/projects/demo-project/oobCodes").json()["oobCodes"]
    first.stop(signal.SIGKILL)  # every answered change is already on disk

    second = start_emulator("--data-dir", data)
    auth = AuthClient(second.auth_base)
    assert auth.http.get(second.auth_base + config).json()["emailPrivacyConfig"] == {"enableImprovedEmailPrivacy": True}
    assert [code["oobCode"] for code in auth.http.get(
        second.auth_base + "/emulator/v1/projects/demo-project/oobCodes").json()["oobCodes"]] == \
        [codes[0]["oobCode"]]
    looked_up = auth.admin("demo-project", "lookup", {"localId": [user["localId"]]}).json()["users"][0]
    assert [provider["providerId"] for provider in looked_up["providerUserInfo"]] == ["password", "google.com"]
    auth.ok("resetPassword", {"oobCode": codes[0]["oobCode"], "newPassword": "secret-2"})
    assert auth.sign_in("ada@example.com", "secret-2").json()["localId"] == user["localId"]
