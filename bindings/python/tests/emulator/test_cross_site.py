"""The cross-site policy (docs/security.md, "Cross-site requests"), over real HTTP in both flavors:
a page of another origin (another port of localhost, another site, a rebound name, a sandboxed
frame) can neither act on nor read the emulator beyond what a Firebase user under the rules can;
tools that send no Origin, and the emulator's own pages, keep every route."""

from __future__ import annotations

import json

import pytest
import requests

from auth_helpers import IDENTITY, KEY, AuthClient
from conftest import ADMIN, GCS_BUCKETS

RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{file=**} { allow read, write: if request.auth.uid == uid; }
  }
}
"""
OTHER_PORT = "http://localhost:8000"  # a page served by another program of this machine
FOREIGN_ORIGINS = [OTHER_PORT, "http://127.0.0.1:8000", "https://evil.example", "null"]
# Every route class that changes or reveals emulator state beyond production, with a body that
# would act (simple requests: text/plain, as a page can send them without a preflight).
CONTROL_CALLS = [
    ("POST", "/internal/export", '{"path": "EXPORT_DIR"}'),
    ("POST", "/_admin/export", '{"path": "EXPORT_DIR"}'),
    ("POST", "/internal/reset", ""),
    ("PUT", "/internal/setRules", json.dumps({"rules": {"files": [{"name": "r", "content": "x"}]}})),
    ("POST", "/_emulator/reset", ""),
    ("PUT", "/_emulator/rules", ""),
    ("GET", "/_emulator/requests", None),
    ("DELETE", "/_emulator/requests", None),
    ("POST", "/_emulator/faults", '{"match": {}, "action": {"status": 503}}'),
    ("GET", "/_emulator/faults", None),
    ("GET", "/_emulator/objects/b/users%2Fada%2Fsecret", None),
    ("POST", "/_emulator/tokens", '{"user_id": "ada"}'),
    ("POST", "/_emulator/app-check/tokens", '{"appId": "1:12345:web:a"}'),
    ("DELETE", "/emulator/v1/projects/demo-project/accounts", None),
    ("GET", "/emulator/v1/projects/demo-project/oobCodes", None),
    ("GET", "/emulator/v1/projects/demo-project/config", None),
    ("PATCH", "/emulator/v1/projects/demo-project/config", '{"signIn": {"allowDuplicateEmails": true}}'),
    ("GET", "/ui/api/requests", None),
    ("POST", "/ui/api/delete-folder", '{"bucket": "b", "prefix": "users/"}'),
    ("GET", "/ui/api/../../_emulator/requests", None),
    ("GET", "/%5Femulator/requests", None),
]
NO_CORS = ("Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
           "Access-Control-Expose-Headers")


def assert_refused(response: requests.Response) -> None:
    assert response.status_code == 403, (response.status_code, response.text)
    assert response.headers["Content-Type"].startswith("application/json")
    assert not [name for name in NO_CORS if name in response.headers], response.headers


@pytest.fixture
def seeded(emu, tmp_path):
    """Rules that confine each user to users/{uid}/; ada's file; a signed-in Auth user."""
    assert emu.http.put(emu.url("/_emulator/rules"), data=RULES).status_code == 204
    emu.upload_ok("users/ada/secret", b"ada's", headers=ADMIN)
    emu.export_dir = tmp_path / "exported"
    return emu


def call(emu, method: str, path: str, body: str | None, headers: dict) -> requests.Response:
    data = None if body is None else body.replace("EXPORT_DIR", str(emu.export_dir)).encode()
    return emu.http.request(method, emu.url(path), data=data,
                            headers={"Content-Type": "text/plain;charset=UTF-8", **headers})


def state_is_intact(emu) -> None:
    """The object, the rules, the request log and the export directory are as seeded."""
    assert emu.download("users/ada/secret", headers=ADMIN).content == b"ada's"
    assert emu.download("users/ada/secret").status_code == 403  # the rules still deny anonymous reads
    assert not emu.export_dir.exists()
    assert emu.http.get(emu.url("/_emulator/faults")).json() == {"faults": []}


@pytest.mark.parametrize("origin", FOREIGN_ORIGINS)
def test_a_foreign_page_gets_no_control_route(seeded, origin):
    for method, path, body in CONTROL_CALLS:
        assert_refused(call(seeded, method, path, body, {"Origin": origin}))
    state_is_intact(seeded)


def test_a_foreign_page_gets_no_preflight_for_a_control_route(seeded):
    for method, path, _ in CONTROL_CALLS:
        preflight = seeded.http.options(seeded.url(path), headers={
            "Origin": OTHER_PORT, "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": "content-type,authorization"})
        assert_refused(preflight)


@pytest.mark.parametrize("fetch_site", ["cross-site", "same-site"])
def test_a_request_without_origin_from_another_site_is_refused(seeded, fetch_site):
    """An <img> or a navigation sends no Origin, but Sec-Fetch-Site says where it comes from (a
    page of another port of localhost is same-site)."""
    for method, path, body in CONTROL_CALLS:
        assert_refused(call(seeded, method, path, body, {"Sec-Fetch-Site": fetch_site}))
    state_is_intact(seeded)


def test_a_rebound_name_is_foreign_even_on_the_emulators_port(seeded):
    """DNS rebinding: attacker.example pointed at 127.0.0.1, its page on the emulator's port."""
    rebound = f"http://attacker.example:{seeded.port}"
    assert_refused(seeded.http.get(seeded.url("/_emulator/requests"),
                                   headers={"Origin": rebound, "Host": f"attacker.example:{seeded.port}"}))


def test_listening_on_every_interface_a_rebound_name_is_still_foreign(start_emulator):
    """Any address may then be the emulator's own (a LAN address), but no other name."""
    emulator = start_emulator("--host", "0.0.0.0")
    own = emulator.http.get(emulator.url("/_emulator/requests"), headers={"Origin": f"http://10.1.2.3:{emulator.port}"})
    assert own.status_code == 200
    assert_refused(emulator.http.get(emulator.url("/_emulator/requests"), headers={
        "Origin": f"http://attacker.example:{emulator.port}", "Host": f"attacker.example:{emulator.port}"}))


def test_pending_email_codes_stay_hidden_from_a_foreign_page_on_either_port(seeded):
    """The codes are what a user's mailbox would hold: a page of another site must not read them,
    open their links, nor change the sign-in settings, through the storage port or the Auth port."""
    user = seeded.http.post(seeded.auth_base + "/identitytoolkit.googleapis.com/v1/accounts:signUp",
                            params={"key": "k"}, json={"email": "ada@example.com", "password": "secret-1"}).json()
    sent = seeded.http.post(seeded.auth_base + "/identitytoolkit.googleapis.com/v1/accounts:sendOobCode",
                            params={"key": "k"}, json={"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]})
    assert sent.status_code == 200, sent.text
    for base in (seeded.base, seeded.auth_base):
        codes = f"{base}/emulator/v1/projects/demo-project/oobCodes"
        config = f"{base}/emulator/v1/projects/demo-project/config"
        assert_refused(seeded.http.get(codes, headers={"Origin": OTHER_PORT}))
        assert_refused(seeded.http.patch(config, headers={"Origin": OTHER_PORT, "Content-Type": "text/plain"},
                                         data='{"emailPrivacyConfig": {"enableImprovedEmailPrivacy": true}}'))
        assert [code["email"] for code in seeded.http.get(codes).json()["oobCodes"]] == ["ada@example.com"]
        assert seeded.http.get(config).json()["emailPrivacyConfig"] == {"enableImprovedEmailPrivacy": False}
    # Nor may it open a code's link (which applies the code).
    (code,) = seeded.http.get(seeded.auth_base + "/emulator/v1/projects/demo-project/oobCodes").json()["oobCodes"]
    assert_refused(seeded.http.get(code["oobLink"], headers={"Origin": OTHER_PORT}, allow_redirects=False))
    assert_refused(seeded.http.get(code["oobLink"], headers={"Sec-Fetch-Site": "cross-site"}, allow_redirects=False))
    lookup = seeded.http.post(seeded.auth_base + "/identitytoolkit.googleapis.com/v1/accounts:lookup",
                              params={"key": "k"}, json={"idToken": user["idToken"]}).json()
    assert lookup["users"][0]["emailVerified"] is False


def test_a_foreign_page_may_exchange_for_an_app_check_token_as_in_production(seeded):
    """The exchange serves browsers (the web SDK calls it from the app's page): open like Auth's
    user routes, preflight included; an unregistered debug token gets the exchange's own answer."""
    exchange = seeded.url("/content-firebaseappcheck.googleapis.com/v1beta/projects/demo-project/apps/"
                          "1:12345:web:a:exchangeDebugToken")
    preflight = seeded.http.options(exchange, headers={"Origin": OTHER_PORT, "Access-Control-Request-Method": "POST",
                                                       "Access-Control-Request-Headers": "content-type"})
    assert preflight.status_code == 204 and preflight.headers["Access-Control-Allow-Origin"] == OTHER_PORT
    answered = seeded.http.post(exchange, headers={"Origin": OTHER_PORT}, json={"debug_token": "unregistered"})
    assert answered.status_code == 403 and answered.json()["error"]["status"] == "PERMISSION_DENIED"
    assert answered.headers["Access-Control-Allow-Origin"] == OTHER_PORT
    keys = seeded.http.get(seeded.url("/firebaseappcheck.googleapis.com/v1/jwks"), headers={"Origin": OTHER_PORT})
    assert keys.status_code == 200 and keys.json()["keys"][0]["alg"] == "RS256"


def test_tools_and_the_emulators_own_pages_keep_every_route(seeded):
    """No Origin (curl, the SDKs, firebase-tools), a typed address (Sec-Fetch-Site: none), and
    pages of the emulator's own port under any loopback name."""
    for headers in ({}, {"Sec-Fetch-Site": "none"}, {"Origin": seeded.base},
                    {"Origin": f"http://localhost:{seeded.port}", "Sec-Fetch-Site": "same-site"}):
        listed = seeded.http.get(seeded.url("/_emulator/requests"), headers=headers)
        assert listed.status_code == 200, (headers, listed.text)
        assert listed.headers.get("Access-Control-Allow-Origin") == headers.get("Origin")
    own = {"Origin": f"http://localhost:{seeded.port}"}
    assert call(seeded, "POST", "/internal/export", '{"path": "EXPORT_DIR"}', own).status_code == 200
    assert seeded.export_dir.is_dir()
    assert seeded.http.get(seeded.object_url("users/ada/secret"), headers={**ADMIN, **own}).status_code == 200
    assert seeded.http.post(seeded.url("/_emulator/reset"), headers=own).status_code == 200
    assert seeded.download("users/ada/secret", headers=ADMIN).status_code == 404


@pytest.mark.parametrize("authorization", ["Bearer owner", "Firebase owner", "Bearer OWNER",
                                           "Bearer ya29.emulator-anything"])
def test_admin_credentials_are_refused_from_a_foreign_page(seeded, authorization):
    foreign = {"Origin": OTHER_PORT, "Authorization": authorization}
    assert_refused(seeded.http.get(seeded.bucket_url(), headers=foreign))  # list everything
    assert_refused(seeded.http.get(seeded.object_url("users/ada/secret"), params={"alt": "media"}, headers=foreign))
    assert_refused(seeded.http.delete(seeded.object_url("users/ada/secret"), headers=foreign))
    assert_refused(seeded.http.get(f"{seeded.auth_base}{IDENTITY}/projects/demo-project/accounts:batchGet",
                                   headers=foreign))
    assert_refused(seeded.http.post(f"{seeded.auth_base}{IDENTITY}/accounts:lookup", json={"localId": ["x"]},
                                    headers=foreign))
    state_is_intact(seeded)


def test_the_gcs_apis_act_as_admin_so_a_foreign_page_gets_none(seeded):
    foreign = {"Origin": OTHER_PORT}
    for method, path in [("GET", "/storage/v1/b/b/o"), ("GET", "/ui/secret"), ("GET", "/uibucket/secret"), ("GET", "/storage/v1/b/b/o/users%2Fada%2Fsecret?alt=media"),
                         ("DELETE", "/storage/v1/b/b/o/users%2Fada%2Fsecret"), ("GET", "/b/users/ada/secret"),
                         ("POST", "/upload/storage/v1/b/b/o?uploadType=media&name=planted"),
                         ("POST", "/batch/storage/v1")]:
        assert_refused(seeded.http.request(method, seeded.url(path), data=b"x",
                                           headers={**foreign, "Content-Type": "text/plain"}))
    assert seeded.http.get(seeded.url("/storage/v1/b/b/o")).status_code == 200  # a tool still lists
    state_is_intact(seeded)


def test_a_foreign_page_acts_as_its_user_under_the_rules_with_cors(seeded):
    """What production serves a browser: the Firebase API, as the signed-in user, with CORS."""
    foreign = {"Origin": OTHER_PORT}
    auth = AuthClient(seeded.auth_base)
    signed_up = auth.http.post(f"{seeded.auth_base}{IDENTITY}/accounts:signUp", params=KEY,
                               json={"returnSecureToken": True}, headers=foreign)
    assert signed_up.status_code == 200 and signed_up.headers["Access-Control-Allow-Origin"] == OTHER_PORT
    session = signed_up.json()
    user = {**foreign, "Authorization": f"Firebase {session['idToken']}"}
    preflight = seeded.http.options(seeded.bucket_url(), headers={
        "Origin": OTHER_PORT, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,x-goog-upload-protocol"})
    assert preflight.status_code == 204 and "authorization" in preflight.headers["Access-Control-Allow-Headers"]
    own = seeded.upload(f"users/{session['localId']}/mine", b"mine", headers=user)
    assert own.status_code == 200 and own.headers["Access-Control-Allow-Origin"] == OTHER_PORT
    assert seeded.download(f"users/{session['localId']}/mine", headers=user).content == b"mine"
    denied = seeded.download("users/ada/secret", headers=user)
    assert denied.status_code == 403 and denied.headers["Access-Control-Allow-Origin"] == OTHER_PORT
    assert seeded.http.get(seeded.bucket_url(), params={"prefix": "users/"}, headers=user).status_code == 403
    state_is_intact(seeded)


XML_BUCKET = GCS_BUCKETS[1]  # "b" would read as the JSON API's /b/ path
HOSTILE_HTML = b"<!doctype html><script>fetch('/_emulator/reset', {method: 'POST'})</script>"


def test_object_bytes_are_served_sandboxed_on_every_api(emu):
    """An HTML object opened in a browser, from the origin that also serves the UI and the control
    routes, runs in an opaque origin (its requests say `Origin: null`, refused above) and no type
    is sniffed."""
    stored = emu.upload_ok("page.html", HOSTILE_HTML, content_type="text/html", headers=ADMIN)
    emu.upload_ok("page.html", HOSTILE_HTML, content_type="text/html", headers=ADMIN, bucket=XML_BUCKET)
    token = emu.http.get(emu.object_url("page.html"), headers=ADMIN).json()["downloadTokens"]
    downloads = {
        "v0": emu.download("page.html", headers=ADMIN),
        "v0 by download token": emu.download("page.html", params={"token": token}),
        "v0 range": emu.download("page.html", headers={**ADMIN, "Range": "bytes=0-9"}),
        "GCS JSON": emu.http.get(emu.url("/storage/v1/b/b/o/page.html"), params={"alt": "media"}),
        "GCS download host": emu.http.get(emu.url("/download/storage/v1/b/b/o/page.html"), params={"alt": "media"}),
        "XML": emu.http.get(emu.url(f"/{XML_BUCKET}/page.html")),
        "control": emu.http.get(emu.url("/_emulator/objects/b/page.html")),
    }
    for api, download in downloads.items():
        assert download.status_code in (200, 206), (api, download.status_code, download.text)
        assert download.content == HOSTILE_HTML[:len(download.content)] and download.content, api
        assert download.headers["Content-Security-Policy"] == "sandbox", (api, download.headers)
        assert download.headers["X-Content-Type-Options"] == "nosniff", (api, download.headers)
    assert stored["contentType"] == "text/html"


def test_cors_allow_origin_makes_an_origin_the_emulators_own(start_emulator):
    app = "http://localhost:5173"
    emulator = start_emulator("--cors-allow-origin", app + "/", "--cors-allow-origin", "https://[::1]:8443")
    preflight = emulator.http.options(emulator.url("/_emulator/rules"), headers={
        "Origin": app, "Access-Control-Request-Method": "PUT"})
    assert preflight.status_code == 204 and preflight.headers["Access-Control-Allow-Origin"] == app
    for origin in (app, "https://[::1]:8443"):
        listed = emulator.http.get(emulator.url("/_emulator/requests"), headers={"Origin": origin})
        assert listed.status_code == 200 and listed.headers["Access-Control-Allow-Origin"] == origin
    assert emulator.http.get(emulator.bucket_url(), headers={"Origin": app, **ADMIN}).status_code == 200
    assert_refused(emulator.http.get(emulator.url("/_emulator/requests"), headers={"Origin": "http://localhost:5174"}))


@pytest.mark.parametrize("value", ["localhost:5173", "ftp://host", "http://host/path", "http://host:99999"])
def test_cors_allow_origin_takes_origins_only(start_emulator, value):
    with pytest.raises(RuntimeError, match="--cors-allow-origin"):
        start_emulator("--cors-allow-origin", value)


def test_the_ui_on_its_own_port_is_the_emulators_own(start_emulator):
    """The UI's page, served on its own port, calls the storage port as the owner."""
    emulator = start_emulator()
    ui = emulator.process.stdout.readline().split()[1]
    assert emulator.http.get(emulator.bucket_url(), headers={"Origin": ui, **ADMIN}).status_code == 200
