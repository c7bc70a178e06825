"""firestore.get() / firestore.exists() in storage rules: documents from a Firestore emulator
(FIRESTORE_EMULATOR_HOST; here a stand-in speaking the Firestore REST API's document shape,
https://firebase.google.com/docs/firestore/reference/rest/v1/projects.databases.documents) or from
a JSON fixture (--firestore-documents)."""

import asyncio
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from aiohttp import web

from conftest import ADMIN, Emulator, wait_until
from test_rules import as_user

DOCS = "/databases/(default)/documents"
RULES = f"""rules_version = '2';
service firebase.storage {{
  match /b/{{bucket}}/o {{
    function typed() {{
      let d = firestore.get({DOCS}/typed/doc).data;
      return d.count is int && d.count == 3 && d.ratio is float && d.ratio == 3.0
          && d.when is timestamp && d.when == timestamp.value(1700000000123) + duration.value(456789, 'ns')
          && d.ref is path && d.ref == {DOCS}/users/ada
          && d.tags == ['a', 'b'] && d.nested.deep == true && d.nothing == null
          && d.where is latlng && d.raw is bytes && d.raw == b'\\x01\\x02';
    }}
    match /profiles/{{uid}}/{{file}} {{
      allow read: if firestore.get({DOCS}/users/$(request.auth.uid)).data.role == 'admin';
      allow write: if firestore.exists({DOCS}/owners/$(uid))
                   && request.resource.size <= firestore.get({DOCS}/limits/$(uid)).data.maxBytes;
    }}
    match /typed/{{file}} {{
      allow read: if typed();
    }}
    match /missing/{{file}} {{
      allow read: if firestore.get({DOCS}/nope/x) == null && !firestore.exists({DOCS}/nope/x);
    }}
    match /two/{{file}} {{
      allow read: if firestore.exists({DOCS}/users/ada) && firestore.exists({DOCS}/users/bob)
                  && firestore.exists({DOCS}/users/ada);
    }}
    match /three/{{file}} {{
      allow read: if firestore.exists({DOCS}/users/ada) && firestore.exists({DOCS}/users/bob)
                  && firestore.exists({DOCS}/owners/ada);
    }}
    match /slow/{{file}} {{
      allow read: if firestore.exists({DOCS}/slow/doc);
    }}
    match /plain/{{file}} {{
      allow read: if request.auth != null;
    }}
    match /debugged/{{file}} {{
      allow read: if debug(firestore.exists({DOCS}/users/$(request.auth.uid)));
    }}
  }}
}}
"""
TYPED_FIELDS = {
    "count": {"integerValue": "3"}, "ratio": {"doubleValue": 3}, "when": {"timestampValue": "2023-11-14T22:13:20.123456789Z"},
    "ref": {"referenceValue": "projects/demo-x/databases/(default)/documents/users/ada"},
    "tags": {"arrayValue": {"values": [{"stringValue": "a"}, {"stringValue": "b"}]}},
    "nested": {"mapValue": {"fields": {"deep": {"booleanValue": True}}}}, "nothing": {"nullValue": None},
    "where": {"geoPointValue": {"latitude": 48.85, "longitude": 2.35}}, "raw": {"bytesValue": "AQI="},
}
DOCUMENTS = {
    "users/ada": {"role": {"stringValue": "admin"}}, "users/bob": {"role": {"stringValue": "viewer"}},
    "owners/ada": {}, "limits/ada": {"maxBytes": {"integerValue": "4"}}, "typed/doc": TYPED_FIELDS,
    "slow/doc": {},
}
SLOW_SECONDS = 0.5


class FirestoreStandIn:
    """GET /v1/projects/{project}/databases/(default)/documents/{path}: the REST document or a 404."""

    def __init__(self):
        self.requests: list[tuple[str, str | None]] = []
        self.loop = asyncio.new_event_loop()
        started = threading.Event()
        threading.Thread(target=self._run, args=(started,), daemon=True).start()
        started.wait(10)

    def _run(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        app = web.Application()
        app.router.add_get("/v1/projects/{project}/databases/(default)/documents/{path:.*}", self.document)
        self.runner = web.AppRunner(app)
        self.loop.run_until_complete(self.runner.setup())
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        self.host = "127.0.0.1:%d" % self.runner.addresses[0][1]
        started.set()
        self.loop.run_forever()

    async def document(self, request: web.Request) -> web.Response:
        path = request.match_info["path"]
        self.requests.append((request.path, request.headers.get("Authorization")))
        if path == "slow/doc":
            await asyncio.sleep(SLOW_SECONDS)
        fields = DOCUMENTS.get(path)
        if fields is None or request.match_info["project"] != "demo-x":
            return web.json_response({"error": {"code": 404, "message": f"no entity to get: {path}",
                                                "status": "NOT_FOUND"}}, status=404)
        name = f"projects/demo-x/databases/(default)/documents/{path}"
        return web.json_response({"name": name, "fields": fields, "createTime": "2023-11-14T22:13:20.000000Z",
                                  "updateTime": "2023-11-14T22:13:20.000000Z"})

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)


@pytest.fixture(scope="module")
def firestore_host():
    stand_in = FirestoreStandIn()
    yield stand_in
    stand_in.stop()


@pytest.fixture(params=["rest", "fixture"])
def emu(request, start_emulator, tmp_path, firestore_host):
    rules = tmp_path / "storage.rules"
    rules.write_text(RULES)
    if request.param == "rest":
        emulator = start_emulator("--rules", str(rules), "--project", "demo-x",
                                  env={"FIRESTORE_EMULATOR_HOST": firestore_host.host})
    else:
        fixture = tmp_path / "documents.json"
        fixture.write_text(json.dumps({**{path: {"fields": fields} for path, fields in DOCUMENTS.items()},
                                       "users/ada": {"role": "admin"}, "limits/ada": {"maxBytes": 4}}))
        emulator = start_emulator("--rules", str(rules), "--firestore-documents", str(fixture))
    for name in ("profiles/ada/pic", "typed/x", "missing/x", "two/x", "three/x", "slow/x", "plain/x"):
        emulator.upload_ok(name, b"1", headers=ADMIN)
    return emulator


def test_get_reads_the_callers_document(emu):
    assert emu.get_metadata("profiles/ada/pic", headers=as_user(emu, "ada")).status_code == 200
    assert emu.get_metadata("profiles/ada/pic", headers=as_user(emu, "bob")).status_code == 403
    assert emu.get_metadata("profiles/ada/pic", headers=as_user(emu, "carol")).status_code == 403  # no document


def test_upload_decided_with_exists_and_request_resource(emu):
    assert emu.upload("profiles/ada/small", b"1234", headers=as_user(emu, "ada")).status_code == 200
    assert emu.upload("profiles/ada/big", b"12345", headers=as_user(emu, "ada")).status_code == 403
    assert emu.upload("profiles/bob/x", b"1", headers=as_user(emu, "bob")).status_code == 403  # no owners/bob


def test_typed_values_become_rules_values(emu):
    assert emu.get_metadata("typed/x", headers=as_user(emu, "ada")).status_code == 200


def test_missing_document_is_null_for_get_and_false_for_exists(emu):
    assert emu.get_metadata("missing/x", headers=as_user(emu, "ada")).status_code == 200


def test_at_most_two_documents_per_evaluation(emu):
    assert emu.get_metadata("two/x", headers=as_user(emu, "ada")).status_code == 200  # the same one twice counts once
    assert emu.get_metadata("three/x", headers=as_user(emu, "ada")).status_code == 403


def start_on_stand_in(start_emulator, tmp_path, firestore_host):
    rules = tmp_path / "storage.rules"
    rules.write_text(RULES)
    return start_emulator("--rules", str(rules), "--project", "demo-x",
                          env={"FIRESTORE_EMULATOR_HOST": firestore_host.host})


def test_rest_requests_as_firebase_tools_sends_them(start_emulator, tmp_path, firestore_host):
    emu = start_on_stand_in(start_emulator, tmp_path, firestore_host)
    emu.upload_ok("profiles/ada/pic", b"1", headers=ADMIN)
    firestore_host.requests.clear()
    assert emu.get_metadata("profiles/ada/pic", headers=as_user(emu, "ada")).status_code == 200
    assert firestore_host.requests == [("/v1/projects/demo-x/databases/(default)/documents/users/ada", "Bearer owner")]


def test_a_slow_firestore_does_not_hold_up_other_requests(start_emulator, tmp_path, firestore_host):
    emu = start_on_stand_in(start_emulator, tmp_path, firestore_host)
    emu.upload_ok("slow/x", b"1", headers=ADMIN)
    emu.upload_ok("plain/x", b"1", headers=ADMIN)
    firestore_host.requests.clear()
    with ThreadPoolExecutor(1) as pool:
        slow = pool.submit(emu.get_metadata, "slow/x", headers=as_user(emu, "ada"))
        wait_until(lambda: firestore_host.requests)  # the slow document is being fetched
        started = time.monotonic()
        assert emu.get_metadata("plain/x", headers=as_user(emu, "ada")).status_code == 200
        assert time.monotonic() - started < SLOW_SECONDS / 2
        assert slow.result().status_code == 200


def test_the_prefetch_rehearsal_logs_nothing(start_emulator, tmp_path, firestore_host):
    rules = tmp_path / "storage.rules"
    rules.write_text(RULES)
    emu = start_emulator("--rules", str(rules), "--project", "demo-x", "--log-level", "info",
                         env={"FIRESTORE_EMULATOR_HOST": firestore_host.host})
    emu.upload_ok("debugged/x", b"1", headers=ADMIN)
    assert emu.get_metadata("debugged/x", headers=as_user(emu, "ada")).status_code == 200
    wait_until(lambda: "debug(): True" in emu.stderr())
    assert emu.stderr().count("debug():") == 1


def test_without_firestore_the_calls_are_errors(start_emulator, tmp_path):
    rules = tmp_path / "storage.rules"
    rules.write_text(RULES)
    emu = start_emulator("--rules", str(rules))
    emu.upload_ok("missing/x", b"1", headers=ADMIN)
    assert emu.get_metadata("missing/x", headers=as_user(emu, "ada")).status_code == 403
    assert "FIRESTORE_EMULATOR_HOST" in emu.stderr()


def test_malformed_fixture_is_a_startup_error(tmp_path):
    fixture = tmp_path / "documents.json"
    fixture.write_text('{"users/ada": [1]}')
    with pytest.raises(RuntimeError, match="documents.json: expected an object of documents"):
        Emulator("--firestore-documents", str(fixture))
