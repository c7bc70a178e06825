"""The web UI's HTTP side (emulator/ui): ports and READY lines, the CSRF token and Host checks,
its JSON endpoints (bad input: a 4xx JSON error), the request log's rules explanations and the
playground's verdicts against real requests. The page itself is tested in a browser (tests/ui)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
import requests

from conftest import ADMIN, FLAVORS, Emulator, assert_json_error, wait_until
from fbstorage.testing import mint_id_token
from ui_support import LIMIT, RULES, fill



class UI:
    """The UI of one emulator: its own port's base URL and this run's token (read from the page)."""

    def __init__(self, emulator):
        line = emulator.process.stdout.readline()
        assert line.startswith("READY-UI http://127.0.0.1:"), line
        self.base = line.split()[1] + "/ui/"
        self.http = requests.Session()
        page = self.http.get(self.base)
        assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
        self.token = re.search(r'name="ui-token" content="([^"]+)"', page.text).group(1)

    def get(self, path: str, **kwargs) -> requests.Response:
        return self.http.get(self.base + path, **kwargs)

    def post(self, path: str, body, token: str | None = "yes") -> requests.Response:
        headers = {"X-UI-Token": self.token if token == "yes" else token} if token else {}
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
        return self.http.post(self.base + path, data=data, headers=headers)


@pytest.fixture(scope="module", params=FLAVORS)
def ruled_emulator(request, tmp_path_factory):
    rules = tmp_path_factory.mktemp("rules") / "storage.rules"
    rules.write_text(RULES)
    emulator = Emulator("--rules", str(rules), flavor=request.param)
    emulator.rules_file = rules
    yield emulator, UI(emulator)
    assert emulator.stop() == 0
    assert "Traceback" not in emulator.stderr()


@pytest.fixture(scope="module")
def plain():
    """An emulator without rules, and its UI."""
    emulator = Emulator()
    yield emulator, UI(emulator)
    assert emulator.stop() == 0
    assert "Traceback" not in emulator.stderr()


@pytest.fixture
def ruled(ruled_emulator):
    """The flavor's emulator with RULES, reset, and its UI with an empty request log."""
    emulator, ui = ruled_emulator
    emulator.reset()
    assert ui.http.delete(ui.base + "api/requests", headers={"X-UI-Token": ui.token}).status_code == 204
    return emulator, ui


def test_ready_lines_ports_and_no_ui(start_emulator):
    emulator = start_emulator()
    ui = UI(emulator)
    assert ui.base != emulator.base + "/ui/"  # its own port (free, as --port is 0)
    same_port = requests.get(emulator.url("/ui/"))
    assert same_port.status_code == 200 and "ui-token" in same_port.text
    assert requests.get(emulator.url("/ui"), allow_redirects=False).headers["Location"] == "/ui/"
    assert requests.get(ui.base.removesuffix("ui/"), allow_redirects=False).headers["Location"] == "/ui/"
    assert requests.get(ui.base.removesuffix("/ui/")).url == ui.base  # the READY-UI address leads to the UI
    bare = start_emulator("--no-ui")
    assert_json_error(requests.get(bare.url("/ui/")), 404)
    bare.process.terminate()
    assert bare.process.wait(10) == 0
    assert bare.process.stdout.read() == ""  # no READY-UI line


def test_mutations_need_the_runs_token_and_pages_a_local_host(plain):
    _, ui = plain
    body = {"bucket": "b", "prefix": "x/"}
    assert_json_error(ui.post("api/delete-folder", body, token=None), 403)
    assert_json_error(ui.post("api/delete-folder", body, token="guessed"), 403)
    assert ui.post("api/delete-folder", body).json() == {"deleted": 0}
    assert_json_error(requests.delete(ui.base + "api/requests"), 403)
    # DNS rebinding: another name pointed at 127.0.0.1 reads nothing, not even the page.
    assert_json_error(requests.get(ui.base, headers={"Host": "attacker.example"}), 403)
    assert requests.get(ui.base, headers={"Host": "localhost"}).status_code == 200


def test_no_cross_origin_access_to_the_ui_but_downloads_have_cors(start_emulator):
    emulator = start_emulator()
    UI(emulator)
    page = requests.get(emulator.url("/ui/"), headers={"Origin": "http://evil.example"})
    assert "Access-Control-Allow-Origin" not in page.headers
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    emulator.upload_ok("f.txt", b"hello")
    download = emulator.download("f.txt", headers={"Origin": "http://app.test"})  # a user, not the owner
    assert download.content == b"hello"
    assert download.headers["Access-Control-Allow-Origin"] == "http://app.test"  # a streamed response too


@pytest.mark.parametrize("path, kwargs, status", [
    ("api/list", {}, 400), ("api/list", {"params": {"bucket": "b", "start": "-1"}}, 400),
    ("api/list", {"params": {"bucket": "b", "limit": "0"}}, 400),
    ("api/requests", {"params": {"after": "x"}}, 400), ("api/requests", {"params": {"verdict": "maybe"}}, 400),
    ("static/..%2F__init__.py", {}, 404), ("static/index.html", {}, 404), ("api/nothing", {}, 404)])
def test_bad_reads_answer_4xx_json(plain, path, kwargs, status):
    _, ui = plain
    assert_json_error(ui.get(path, **kwargs), status)


@pytest.mark.parametrize("path, body", [
    ("api/delete-folder", b"{not json"), ("api/delete-folder", {"bucket": "b", "prefix": "no-slash"}),
    ("api/delete-folder", []), ("api/playground", b"\xff"), ("api/playground", []),
    ("api/playground", {"bucket": "b", "method": "read", "path": "x"}),
    ("api/playground", {"bucket": "", "method": "get", "path": "x"}),
    ("api/playground", {"bucket": "b", "method": "create", "path": "x", "resource": {"size": -1}}),
    ("api/playground", {"bucket": "b", "method": "create", "path": "x", "resource": {"metadata": {"k": 1}}}),
    ("api/playground", {"bucket": "b", "method": "get", "path": "x", "auth": {"uid": 5}}),
    ("api/playground", {"bucket": "b", "method": "get", "path": "x", "auth": {"uid": "u", "claims": []}})])
def test_bad_bodies_answer_400_json(plain, path, body):
    _, ui = plain
    assert_json_error(ui.post(path, body), 400)


def test_folder_listing_pages_ten_thousand_objects_quickly(emu_with_ui):
    emulator, ui = emu_with_ui
    fill(emulator.bucket_url(), [f"big/{index:05d}.txt" for index in range(10_000)])
    emulator.upload_ok("big/sub/deeper.txt", b"abc")
    emulator.upload_ok("other.txt", b"abc")
    seen, start, slowest = [], 0, 0.0
    while start is not None:
        began = time.perf_counter()
        page = ui.get("api/list", params={"bucket": "b", "prefix": "big/", "start": start, "limit": 1000}).json()
        slowest = max(slowest, time.perf_counter() - began)
        seen += page["entries"]
        start = page["next"]
    assert page["total"] == 10_001 and len(seen) == 10_001
    assert seen[0] == {"name": "big/sub/", "folder": True}  # folders first
    assert [entry["name"] for entry in seen[1:]] == [f"big/{index:05d}.txt" for index in range(10_000)]
    assert all(entry["size"] == 1 for entry in seen[1:])
    assert slowest < 0.5, slowest
    log = ui.get("api/requests").json()  # bounded: the newest 2,000 of the 10,002 uploads
    assert (log["kept"], log["limit"], len(log["requests"])) == (2000, 2000, 500)
    assert log["requests"][-1]["path"] == "/v0/b/b/o?name=other.txt"
    assert ui.post("api/delete-folder", {"bucket": "b", "prefix": "big/"}).json() == {"deleted": 10_001}
    assert ui.get("api/list", params={"bucket": "b"}).json()["entries"][0]["name"] == "other.txt"
    # Every bucket the emulator knows: this one, and the project's default bucket (empty).
    assert ui.get("api/buckets").json() == {"buckets": [{"name": "b", "objects": 1},
                                                        {"name": "demo-project.appspot.com", "objects": 0}]}


@pytest.fixture
def emu_with_ui(start_emulator):
    emulator = start_emulator()
    return emulator, UI(emulator)


def _logged(ui: UI, **filters) -> list[dict]:
    return ui.get("api/requests", params=filters).json()["requests"]


def test_a_denied_upload_is_logged_with_the_failing_condition_and_its_values(ruled):
    emulator, ui = ruled
    too_big = b"x" * (6 * 1024 * 1024)
    denied = emulator.upload("uploads/alice/big.bin", too_big, headers={"Authorization": f"Bearer {mint_id_token(emulator.base, 'alice')}"})
    assert denied.status_code == 403
    allowed = emulator.upload("uploads/alice/small.bin", b"x", headers={"Authorization": f"Bearer {mint_id_token(emulator.base, 'alice')}"})
    assert allowed.status_code == 200
    assert emulator.list().status_code == 403  # anonymous list: no statement grants it
    assert requests.get(emulator.url("/storage/v1/b/b/o/uploads%2Falice%2Fsmall.bin")).status_code == 200  # GCS
    entries = _logged(ui)
    assert [(entry["user"], entry["status"], entry["verdict"]) for entry in entries] == [
        ("alice", 403, "denied"), ("alice", 200, "allowed"), ("anonymous", 403, "denied"), ("admin", 200, None)]
    assert entries[3]["path"] == "/storage/v1/b/b/o/uploads/alice/small.bin" and entries[3]["decisions"] == []
    assert entries[0]["path"] == "/v0/b/b/o?name=uploads/alice/big.bin" and entries[0]["duration_ms"] > 0
    (decision,) = entries[0]["decisions"]
    (statement,) = decision["statements"]
    assert statement["line"] == 6 and statement["text"].startswith("allow write: if request.auth != null")
    assert statement["match"] == "/b/{bucket}/o/uploads/{uid}/{file}" and not statement["granted"]
    (failure,) = statement["failures"]
    assert failure == {"expression": "request.resource.size < 5 * 1024 * 1024", "line": 7, "value": "false",
                       "operands": [{"expression": "request.resource.size", "value": str(len(too_big))},
                                    {"expression": "5 * 1024 * 1024", "value": str(LIMIT)}]}
    granted = entries[1]["decisions"][0]["statements"]
    assert [(item["line"], item["granted"]) for item in granted] == [(6, True)]
    assert entries[2]["decisions"][0]["reason"] == "no allow statement grants list on this path"
    # Filters, and `after` for the live view.
    assert [entry["status"] for entry in _logged(ui, verdict="denied")] == [403, 403]
    assert [entry["method"] for entry in _logged(ui, verdict="none")] == ["GET"]
    assert [entry["user"] for entry in _logged(ui, user="anon")] == ["anonymous"]
    assert [entry["path"] for entry in _logged(ui, path="small")] == [
        "/v0/b/b/o?name=uploads/alice/small.bin", "/storage/v1/b/b/o/uploads/alice/small.bin"]
    assert [entry["id"] for entry in _logged(ui, after=entries[1]["id"])] == [entries[2]["id"], entries[3]["id"]]
    assert ui.http.delete(ui.base + "api/requests", headers={"X-UI-Token": ui.token}).status_code == 204
    assert _logged(ui) == []


@pytest.mark.parametrize("uid, path, size", [
    ("alice", "uploads/alice/a.bin", 10), ("alice", "uploads/alice/a.bin", LIMIT), ("alice", "uploads/bob/a.bin", 10),
    (None, "uploads/alice/a.bin", 10), ("alice", "elsewhere/a.bin", 10)])
def test_playground_verdicts_match_real_requests(ruled, uid, path, size):
    emulator, ui = ruled
    auth = {"Authorization": f"Bearer {mint_id_token(emulator.base, uid)}"} if uid else {}
    real = emulator.upload(path, b"x" * size, headers=auth)
    played = ui.post("api/playground", {"bucket": "b", "method": "create", "path": path,
                                        "auth": {"uid": uid} if uid else None, "resource": {"size": size}})
    assert played.status_code == 200, played.text
    verdict = played.json()
    assert verdict["status"] == real.status_code
    assert verdict["verdict"] == ("allowed" if real.status_code == 200 else "denied")
    logged = _logged(ui)[-1]["decisions"][0]
    assert [statement["failures"] for statement in verdict["statements"]] == \
        [statement["failures"] for statement in logged["statements"]]  # the same explanation as the log


def test_rules_endpoint_shows_the_source_and_a_failed_reload(ruled):
    emulator, ui = ruled
    shown = ui.get("api/rules").json()
    assert shown["configured"] and shown["reloadError"] is None
    assert shown["rulesets"] == [{"buckets": None, "file": str(emulator.rules_file), "source": RULES, "warnings": []}]
    emulator.rules_file.write_text(RULES.replace("allow read:", "allow read:: if"))
    wait_until(lambda: ui.get("api/rules").json()["reloadError"] is not None)  # the watcher polls the file
    error = ui.get("api/rules").json()["reloadError"]
    assert error["line"] == 5 and error["column"] == 18 and error["file"] == str(emulator.rules_file)
    assert error["text"] == "      allow read:: if if request.auth != null;"
    assert ui.get("api/rules").json()["rulesets"][0]["source"] == RULES  # the previous rules stay
    emulator.rules_file.write_text(RULES + "\n")
    wait_until(lambda: ui.get("api/rules").json()["reloadError"] is None)


FUNCTION_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    function isOwner(uid) { return request.auth.uid == uid; }
    function small() { let limit = 1024; return request.resource.size < limit; }
    match /users/{uid}/{file} {
      allow create: if isOwner(uid) && (small() || request.resource.contentType.matches('image/.*'));
      allow get: if request.auth.token.admin == true;
    }
  }
}
"""


def test_explanations_look_inside_functions_and_report_errors(start_emulator, tmp_path: Path):
    rules = tmp_path / "storage.rules"
    rules.write_text(FUNCTION_RULES)
    ui = UI(start_emulator("--rules", str(rules)))

    def play(**request) -> dict:
        response = ui.post("api/playground", {"bucket": "b", "path": "users/alice/x", "auth": {"uid": "alice"}, **request})
        assert response.status_code == 200, response.text
        return response.json()

    denied = play(method="create", resource={"size": 4096, "contentType": "text/plain"})
    assert (denied["status"], denied["verdict"]) == (403, "denied")
    (statement,) = denied["statements"]
    assert statement["line"] == 7 and statement["match"] == "/b/{bucket}/o/users/{uid}/{file}"
    assert statement["failures"] == [  # isOwner(uid) held; both sides of || failed, one inside small()
        {"expression": "request.resource.size < limit", "line": 5, "value": "false",
         "operands": [{"expression": "request.resource.size", "value": "4096"}, {"expression": "limit", "value": "1024"}]},
        {"expression": 'request.resource.contentType.matches("image/.*")', "line": 7, "value": "false"}]
    assert play(method="create", resource={"size": 10})["verdict"] == "allowed"
    not_admin = play(method="get")["statements"][0]["failures"][0]
    assert not_admin["expression"] == "request.auth.token.admin == true" and "admin" in not_admin["error"]
    admin = play(method="get", auth={"uid": "alice", "claims": {"admin": True}})
    assert admin["verdict"] == "allowed" and admin["statements"] == [
        {"match": "/b/{bucket}/o/users/{uid}/{file}", "line": 8, "granted": True, "failures": [],
         "text": "allow get: if request.auth.token.admin == true;"}]
    nobody = play(method="delete")
    assert nobody["statements"] == [] and nobody["reason"] == "no allow statement grants delete on this path"


def test_a_decision_reading_firestore_is_explained_with_the_documents_it_read(start_emulator, tmp_path: Path):
    documents = "/databases/(default)/documents"
    rules = tmp_path / "storage.rules"
    rules.write_text(f"""rules_version = '2';
service firebase.storage {{
  match /b/{{bucket}}/o {{
    match /profiles/{{uid}}/{{file}} {{
      allow read: if firestore.get({documents}/users/$(request.auth.uid)).data.role == 'admin';
    }}
  }}
}}
""")
    fixture = tmp_path / "documents.json"
    fixture.write_text(json.dumps({"users/ada": {"role": "admin"}, "users/bob": {"role": "viewer"}}))
    emulator = start_emulator("--rules", str(rules), "--firestore-documents", str(fixture))
    ui = UI(emulator)
    emulator.upload_ok("profiles/ada/pic", b"1", headers=ADMIN)
    for uid, status in (("ada", 200), ("bob", 403)):
        assert emulator.get_metadata("profiles/ada/pic", headers={"Authorization": f"Bearer {mint_id_token(emulator.base, uid)}"}).status_code == status
    allowed, denied = _logged(ui)[1:]
    assert [decision["verdict"] for decision in allowed["decisions"] + denied["decisions"]] == ["allowed", "denied"]
    (failure,) = denied["decisions"][0]["statements"][0]["failures"]  # one decision: prefetch runs are not logged
    assert failure["operands"][0] == {
        "expression": f"firestore.get({documents}/users/$(request.auth.uid)).data.role", "value": '"viewer"'}


def test_the_ui_log_shows_credentials_as_fingerprints(start_emulator):
    """A download token, a resumable upload's id and a signature in a query: fingerprinted (the
    same one each time), never shown, in the UI's log and its API."""
    emulator = start_emulator()
    ui = UI(emulator)
    token = emulator.upload_ok("f.txt", b"x")["downloadTokens"]
    assert emulator.download("f.txt", params={"token": token}).content == b"x"
    assert emulator.download("f.txt", params={"token": token}).content == b"x"
    session = emulator.session_url("big.bin")
    assert emulator.chunk(session, "upload, finalize", b"x", offset=0).status_code == 200
    emulator.http.get(emulator.url("/b/f.txt"), params={"X-Goog-Signature": "sig-secret", "X-Goog-Algorithm": "x"})
    text = ui.get("api/requests").text
    assert token not in text and session.rsplit("upload_id=", 1)[1] not in text and "sig-secret" not in text
    paths = [entry["path"] for entry in ui.get("api/requests").json()["requests"]]
    downloads = [path for path in paths if "alt=media" in path]
    assert len(downloads) == 2 and downloads[0] == downloads[1] and re.search(r"token=#[0-9a-f]{8}", downloads[0])
    assert any(re.search(r"upload_id=#[0-9a-f]{8}", path) for path in paths), paths
