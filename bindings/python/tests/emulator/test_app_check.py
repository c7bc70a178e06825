"""App Check (docs/emulator.md, "App Check"; docs/reference/app-check.md), over real HTTP: the
debug and custom token exchanges, the tokens and keys the emulator publishes, and `--app-check
enforce|monitor` on the Firebase (v0) API, before the rules, in both flavors."""

from __future__ import annotations

import base64
import json
import time

import jwt as pyjwt
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from conftest import ADMIN, FLAVORS, Emulator
from test_ui import UI

PROJECT = "demo-project"
PROJECT_NUMBER = "12345"
APP_ID = "1:12345:web:0a1b2c"
DEBUG_TOKEN = "6c4b8f0e-debug-secret"
EMAIL = "app-check-admin@demo-project.iam.gserviceaccount.com"
CUSTOM_AUDIENCE = "https://firebaseappcheck.googleapis.com/google.firebase.appcheck.v1.TokenExchangeService"
INVALID = {"error": {"code": 401, "message": "Firebase App Check token is invalid."}}
ATTESTATION_FAILED = {"error": {"code": 403, "message": "App attestation failed.", "status": "PERMISSION_DENIED"}}
RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /public/{file=**} { allow read; }
  }
}
"""
BUCKET = "b"


def private_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pem(key: rsa.RSAPrivateKey) -> str:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


@pytest.fixture(scope="module")
def service_key():
    return private_key()


@pytest.fixture(scope="module", params=["enforce", "monitor"])
def mode(request):
    return request.param


@pytest.fixture(scope="module", params=FLAVORS)
def app_check_emu(request, mode, service_key, tmp_path_factory):
    """An emulator in `mode`, with a registered debug token, a trusted service account, rules
    that open public/ only, and an object in public/ and one outside it; its UI's request log."""
    folder = tmp_path_factory.mktemp("app-check")
    (folder / "key.json").write_text(json.dumps({
        "type": "service_account", "project_id": PROJECT, "private_key_id": "k1", "private_key": pem(service_key),
        "client_email": EMAIL, "client_id": "1", "token_uri": "https://oauth2.googleapis.com/token"}))
    (folder / "storage.rules").write_text(RULES)
    emu = Emulator("--app-check", mode, "--app-check-debug-token", DEBUG_TOKEN, "--service-account",
                   str(folder / "key.json"), "--rules", str(folder / "storage.rules"), "--ui-port", "0",
                   "--log-level", "debug", "--bucket", BUCKET, flavor=request.param)
    emu.ui = UI(emu)
    for name in ("public/a.txt", "private/b.txt"):
        assert emu.upload_ok(name, b"data", bucket=BUCKET, headers=ADMIN)
    yield emu
    assert emu.stop() == 0
    assert "Traceback" not in emu.stderr(), emu.stderr()


def exchange_url(emu: Emulator, method: str, version: str = "v1", host: str = "firebaseappcheck.googleapis.com",
                 project: str = PROJECT, app_id: str = APP_ID) -> str:
    return emu.url(f"/{host}/{version}/projects/{project}/apps/{app_id}:{method}")


def debug_exchange(emu: Emulator, **body) -> requests.Response:
    return emu.http.post(exchange_url(emu, "exchangeDebugToken"), json={"debugToken": DEBUG_TOKEN, **body})


def app_token(emu: Emulator, **body) -> str:
    answer = debug_exchange(emu, **body)
    assert answer.status_code == 200, answer.text
    return answer.json()["token"]


def minted(emu: Emulator, **fields) -> str:
    """A token the exchange never issues (expired, another project's), from the control route."""
    answer = emu.http.post(emu.url("/_emulator/app-check/tokens"), json={"appId": APP_ID, **fields})
    assert answer.status_code == 200, answer.text
    return answer.json()["token"]


def custom_token(key: rsa.RSAPrivateKey, email: str = EMAIL, **claims) -> str:
    """What firebase-admin-node's createToken mints (src/app-check/token-generator.ts)."""
    now = int(time.time())
    payload = {"iss": email, "sub": email, "app_id": APP_ID, "aud": CUSTOM_AUDIENCE, "iat": now, "exp": now + 300,
               **claims}
    return pyjwt.encode({name: value for name, value in payload.items() if value is not None}, pem(key),
                        algorithm="RS256")


def claims_of(token: str) -> dict:
    return pyjwt.decode(token, options={"verify_signature": False})


def download(emu: Emulator, name: str, token: str | None) -> requests.Response:
    return emu.download(name, headers={"X-Firebase-AppCheck": token} if token else {})


def last_verdict(emu: Emulator) -> str | None:
    return emu.recorded()[-1]["app_check"]


def test_a_registered_debug_token_gets_a_token_with_productions_claims(app_check_emu):
    answer = debug_exchange(app_check_emu)
    assert answer.status_code == 200 and answer.json()["ttl"] == "3600s"
    token = answer.json()["token"]
    header, claims = pyjwt.get_unverified_header(token), claims_of(token)
    assert header["alg"] == "RS256" and header["typ"] == "JWT" and header["kid"]
    assert claims["iss"] == f"https://firebaseappcheck.googleapis.com/{PROJECT_NUMBER}"
    assert claims["aud"] == [f"projects/{PROJECT_NUMBER}", f"projects/{PROJECT}"]
    assert claims["sub"] == APP_ID and claims["exp"] - claims["iat"] == 3600 and "jti" not in claims
    # The web SDK's call: content-… host, v1beta, snake_case field; it reads `attestationToken`.
    beta = app_check_emu.http.post(exchange_url(app_check_emu, "exchangeDebugToken", "v1beta",
                                                "content-firebaseappcheck.googleapis.com"),
                                   json={"debug_token": DEBUG_TOKEN})
    assert beta.status_code == 200 and set(beta.json()) == {"attestationToken", "token", "ttl"}
    assert beta.json()["attestationToken"] == beta.json()["token"]
    assert claims_of(beta.json()["attestationToken"])["sub"] == APP_ID


def test_an_unregistered_or_missing_debug_token_is_refused(app_check_emu):
    refused = app_check_emu.http.post(exchange_url(app_check_emu, "exchangeDebugToken"), json={"debugToken": "guess"})
    assert refused.status_code == 403 and refused.json() == ATTESTATION_FAILED
    missing = app_check_emu.http.post(exchange_url(app_check_emu, "exchangeDebugToken"), json={})
    assert missing.status_code == 400 and missing.json()["error"]["status"] == "INVALID_ARGUMENT"
    not_json = app_check_emu.http.post(exchange_url(app_check_emu, "exchangeDebugToken"), data=b"\xff{")
    assert not_json.status_code == 400
    other = app_check_emu.http.post(exchange_url(app_check_emu, "exchangeDebugToken", project="other-project"),
                                    json={"debugToken": DEBUG_TOKEN})
    assert other.status_code == 404 and other.json()["error"]["status"] == "NOT_FOUND"


def test_a_custom_token_of_a_trusted_service_account_is_exchanged(app_check_emu, service_key):
    url = exchange_url(app_check_emu, "exchangeCustomToken")
    answer = app_check_emu.http.post(url, json={"customToken": custom_token(service_key)})
    assert answer.status_code == 200 and answer.json()["ttl"] == "3600s", answer.text
    assert claims_of(answer.json()["token"])["sub"] == APP_ID
    longer = app_check_emu.http.post(url, json={"customToken": custom_token(service_key, ttl="7200s")})
    assert longer.status_code == 200 and longer.json()["ttl"] == "7200s"
    assert download(app_check_emu, "public/a.txt", answer.json()["token"]).status_code == 200


@pytest.mark.parametrize("case", ["wrong aud", "unknown key", "expired", "other app", "not a JWT", "short ttl"])
def test_a_bad_custom_token_is_refused(app_check_emu, service_key, case):
    token = {
        "wrong aud": lambda: custom_token(service_key, aud="https://oauth2.googleapis.com/token"),
        "unknown key": lambda: custom_token(private_key()),
        "expired": lambda: custom_token(service_key, iat=int(time.time()) - 600, exp=int(time.time()) - 300),
        "other app": lambda: custom_token(service_key, app_id="1:12345:web:other"),
        "not a JWT": lambda: "not-a-jwt",
        "short ttl": lambda: custom_token(service_key, ttl="60s"),
    }[case]()
    answer = app_check_emu.http.post(exchange_url(app_check_emu, "exchangeCustomToken"), json={"customToken": token})
    if case in ("not a JWT", "short ttl"):
        assert answer.status_code == 400 and answer.json()["error"]["status"] == "INVALID_ARGUMENT", answer.text
    else:
        assert answer.status_code == 403 and answer.json() == ATTESTATION_FAILED, answer.text


@pytest.mark.parametrize("case", ["missing", "malformed", "expired", "forged", "tampered", "other project"])
def test_without_a_valid_token_enforce_refuses_before_the_rules_and_monitor_records(app_check_emu, mode, case):
    valid = app_token(app_check_emu)
    header, payload, signature = valid.split(".")
    token = {
        "missing": lambda: None,
        "malformed": lambda: "garbage",
        "expired": lambda: minted(app_check_emu, ttlSeconds=0),
        "forged": lambda: pyjwt.encode(claims_of(valid), pem(private_key()), algorithm="RS256",
                                       headers={"kid": pyjwt.get_unverified_header(valid)["kid"]}),
        "tampered": lambda: ".".join([header, base64.urlsafe_b64encode(json.dumps(
            {**claims_of(valid), "sub": "1:12345:web:other"}).encode()).rstrip(b"=").decode(), signature]),
        "other project": lambda: minted(app_check_emu, project="other-project"),
    }[case]()
    verdict = {"forged": "bad signature", "tampered": "bad signature"}.get(case, case)
    answer = download(app_check_emu, "public/a.txt", token)
    if mode == "enforce":
        assert answer.status_code == 401 and answer.json() == INVALID, answer.text
        # Before the rules: a path they deny answers the same.
        assert download(app_check_emu, "private/b.txt", token).json() == INVALID
    else:
        assert answer.status_code == 200 and answer.content == b"data"
    assert last_verdict(app_check_emu) == verdict


def test_a_valid_token_passes_to_the_rules(app_check_emu):
    token = app_token(app_check_emu)
    assert download(app_check_emu, "public/a.txt", token).status_code == 200
    assert last_verdict(app_check_emu) == "valid"
    denied = download(app_check_emu, "private/b.txt", token)
    assert denied.status_code == 403 and last_verdict(app_check_emu) == "valid"


def test_limited_use_tokens_carry_a_fresh_jti_and_are_accepted(app_check_emu):
    first, second = (app_token(app_check_emu, limitedUse=True) for _ in range(2))
    assert claims_of(first)["jti"] != claims_of(second)["jti"]
    for token in (first, second, first):  # Storage does not consume them (replay protection is opt-in elsewhere)
        assert download(app_check_emu, "public/a.txt", token).status_code == 200


def test_the_gcs_api_and_admin_credentials_are_not_behind_app_check(app_check_emu):
    listed = app_check_emu.http.get(app_check_emu.url(f"/storage/v1/b/{BUCKET}/o"))
    assert listed.status_code == 200 and last_verdict(app_check_emu) is None
    assert app_check_emu.download("private/b.txt", headers=ADMIN).status_code == 200
    assert last_verdict(app_check_emu) is None


def test_firebase_admin_verifies_the_emulators_tokens_against_its_jwks(app_check_emu, service_key, monkeypatch):
    """firebase_admin.app_check reads production's JWKS URL, a class attribute: pointed at ours."""
    from firebase_admin import app_check, credentials, delete_app, initialize_app

    monkeypatch.setattr(app_check._AppCheckService, "_JWKS_URL",
                        app_check_emu.url("/firebaseappcheck.googleapis.com/v1/jwks"))
    certificate = credentials.Certificate({
        "type": "service_account", "project_id": PROJECT, "private_key_id": "k1", "private_key": pem(service_key),
        "client_email": EMAIL, "client_id": "1", "token_uri": "https://oauth2.googleapis.com/token"})
    admin_app = initialize_app(certificate, {"projectId": PROJECT}, name=f"app-check-{id(app_check_emu)}")
    try:
        claims = app_check.verify_token(app_token(app_check_emu), admin_app)
        assert claims["app_id"] == APP_ID
        with pytest.raises(ValueError, match="expired"):
            app_check.verify_token(minted(app_check_emu, ttlSeconds=-60), admin_app)
        with pytest.raises(ValueError):
            app_check.verify_token(minted(app_check_emu, project="other-project"), admin_app)
    finally:
        delete_app(admin_app)


def test_tokens_stay_out_of_the_logs_and_the_ui_shows_the_verdict(app_check_emu):
    debug = app_token(app_check_emu)
    assert download(app_check_emu, "public/a.txt", debug).status_code == 200
    download(app_check_emu, "public/a.txt", None)
    stderr = app_check_emu.stderr()
    assert DEBUG_TOKEN not in stderr and debug not in stderr and debug.split(".")[2] not in stderr
    assert "app-check=valid" in stderr and "app-check=missing" in stderr
    entries = app_check_emu.ui.get("api/requests").json()["requests"]
    assert debug not in json.dumps(entries) and DEBUG_TOKEN not in json.dumps(entries)
    downloads = [entry["app_check"] for entry in entries if entry["method"] == "GET" and "public/a.txt" in entry["path"]]
    assert downloads[-2:] == ["valid", "missing"]


def test_short_token_ttl_and_off_by_default(start_emulator):
    emu = start_emulator("--app-check", "enforce", "--app-check-debug-token", DEBUG_TOKEN,
                         "--app-check-token-ttl", "1")
    token = app_token(emu)
    assert claims_of(token)["exp"] - claims_of(token)["iat"] == 1
    expires = claims_of(token)["exp"]
    # The token is judged against the clock: wait for its expiry instant, then it is refused.
    while time.time() < expires + 0.05:
        time.sleep(0.05)
    assert download(emu, "public/a.txt", token).json() == INVALID
    assert emu.recorded()[-1]["app_check"] == "expired"
    plain = start_emulator()
    assert download(plain, "public/a.txt", None).status_code == 404  # no App Check: the request reaches the store
    assert plain.recorded()[-1]["app_check"] is None
