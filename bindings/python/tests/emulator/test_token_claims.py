"""Production flavor: ID tokens judged as production judges them (signed by the emulator's Auth
with the key it publishes, every required claim there, for this project, times that are numbers
and in range) and object names GCS reserves refused on upload,
through both APIs; the firebase-tools flavor accepts both, as firebase-tools does. And error pages
sent as text/html carry no markup, whatever the object name."""

from __future__ import annotations

import base64
import json
import time

import google.auth.transport.requests
import pytest
import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from google.oauth2 import id_token as google_id_token
from urllib.parse import quote

from auth_helpers import AuthClient, claims_of, header_of, unsigned_jwt


PROJECT = "demo-project"  # the emulator's default project
ISSUER = f"https://securetoken.google.com/{PROJECT}"
X509 = "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
JWKS = "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"
RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o { match /users/{uid}/{file=**} { allow read, write: if request.auth.uid == uid; } }
}
"""


@pytest.fixture
def ruled(emu):
    assert emu.http.put(emu.url("/_emulator/rules"), data=RULES).status_code == 204
    return emu


def test_a_well_formed_token_of_this_project_is_accepted(ruled):
    assert ruled.upload("users/ada/f", b"x", headers={"Authorization": f"Firebase {ruled.id_token('ada')}"}).status_code == 200


@pytest.mark.parametrize("claims, words", [
    ({"aud": "other-project"}, "incorrect aud"),
    ({"iss": "https://securetoken.google.com/other-project"}, "incorrect iss"),
    ({"aud": "other-project", "iss": "https://securetoken.google.com/other-project"}, "incorrect aud"),
    ({"exp": "9999999999"}, "exp claim is not a number"),
    ({"exp": True}, "exp claim is not a number"),
    ({"iat": "0"}, "iat claim is not a number"),
    ({"exp": int(time.time()) - 10}, "has expired"),
    ({"iat": int(time.time()) + 3600, "exp": int(time.time()) + 7200}, "issued in the future"),
])
def test_claims_production_refuses(ruled, claims, words):
    answer = ruled.upload("users/ada/f", b"x", headers={"Authorization": f"Firebase {ruled.id_token('ada', **claims)}"})
    if ruled.production:
        assert answer.status_code == 401, answer.text
        message = answer.json()["error"]["message"]
        assert message.startswith("Invalid Credentials:") and words in message, message
        assert ruled.download("users/ada/f", headers={"Authorization": "Bearer owner"}).status_code == 404
    else:  # firebase-tools reads any token it can decode
        assert answer.status_code == 200, answer.text


def _part(value: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def _unsigned(token: str) -> tuple[str, str]:
    return unsigned_jwt(claims_of(token)), "ada"


def _another_uid(token: str) -> tuple[str, str]:
    header, _, signature = token.split(".")
    return f"{header}.{_part({**claims_of(token), 'user_id': 'bob', 'sub': 'bob'})}.{signature}", "bob"


def _unknown_kid(token: str) -> tuple[str, str]:
    _, payload, signature = token.split(".")
    return f"{_part({**header_of(token), 'kid': 'a-key-it-never-had'})}.{payload}.{signature}", "ada"


def _bad_signature(token: str) -> tuple[str, str]:
    signing_input = token.rpartition(".")[0]
    return f"{signing_input}.{base64.urlsafe_b64encode(bytes(256)).decode().rstrip('=')}", "ada"


@pytest.mark.parametrize("forge, words", [
    (_unsigned, "incorrect algorithm 'none'"),
    (_another_uid, "invalid signature"),
    (_unknown_kid, "does not correspond to a known public key"),
    (_bad_signature, "invalid signature"),
])
def test_tokens_its_auth_did_not_sign_are_refused_in_production(ruled, forge, words):
    forged, uid = forge(ruled.id_token("ada"))
    bearer = {"Authorization": f"Firebase {forged}"}
    answer = ruled.upload(f"users/{uid}/f", b"x", headers=bearer)
    gcs = ruled.http.get(ruled.url("/storage/v1/b/b/o"), headers={"Authorization": f"Bearer {forged}"})
    if ruled.production:
        for refused in (answer, gcs):
            assert refused.status_code == 401, refused.text
            message = refused.json()["error"]["message"]
            assert message.startswith("Invalid Credentials:") and words in message, message
        assert ruled.download(f"users/{uid}/f", headers={"Authorization": "Bearer owner"}).status_code == 404
    else:  # firebase-tools reads any token it can decode, as @firebase/rules-unit-testing needs
        assert (answer.status_code, gcs.status_code) == (200, 200), (answer.text, gcs.text)


@pytest.mark.parametrize("claim", ["aud", "iss", "exp", "iat", "sub"])
def test_tokens_missing_a_required_claim_are_refused_in_production(ruled, claim):
    answer = ruled.upload("users/ada/f", b"x", headers={"Authorization": f"Firebase {ruled.id_token('ada', **{claim: None})}"})
    if ruled.production:
        assert answer.status_code == 401, answer.text
        assert answer.json()["error"]["message"] == f"Invalid Credentials: the Firebase ID token has no '{claim}' claim."
    else:
        assert answer.status_code == 200, answer.text


def test_signed_tokens_work_on_both_apis(emu):
    token = emu.id_token("ada")
    assert header_of(token)["alg"] == ("RS256" if emu.production else "none")
    assert emu.upload("users/ada/f", b"x", headers={"Authorization": f"Firebase {token}"}).status_code == 200
    assert emu.http.get(emu.url("/storage/v1/b/b/o"), headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_the_published_keys_verify_its_auths_tokens(emu):
    """google-auth verifies a signed-in user's token as a backend verifies production's, against the
    x509 map; the JWKS holds the same key. The firebase-tools flavor signs nothing and publishes nothing."""
    session = AuthClient(emu.base).anonymous()
    certificates = emu.http.get(emu.url(X509))
    if not emu.production:
        assert certificates.status_code == 404 and header_of(session["idToken"])["alg"] == "none"
        return
    assert certificates.status_code == 200 and "max-age=" in certificates.headers["Cache-Control"]
    with requests.Session() as http:
        claims = google_id_token.verify_token(session["idToken"], google.auth.transport.requests.Request(http),
                                              audience=PROJECT, certs_url=emu.url(X509))
    assert claims["user_id"] == session["localId"] and claims["iss"] == ISSUER
    [key] = emu.http.get(emu.url(JWKS)).json()["keys"]
    assert key["kid"] == header_of(session["idToken"])["kid"] and list(certificates.json()) == [key["kid"]]
    with pytest.raises(ValueError, match="Could not verify token signature"):
        google_id_token.verify_token(_another_uid(session["idToken"])[0], google.auth.transport.requests.Request(),
                                     audience=PROJECT, certs_url=emu.url(X509))
    public = rsa.RSAPublicNumbers(_uint(key["e"]), _uint(key["n"])).public_key()
    signing_input, _, signature = session["idToken"].rpartition(".")
    public.verify(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)), signing_input.encode(),
                  padding.PKCS1v15(), hashes.SHA256())  # raises InvalidSignature otherwise


def _uint(text: str) -> int:
    return int.from_bytes(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "big")


def test_hand_made_unsigned_tokens_work_in_the_firebase_tools_flavor_only(ruled):
    now = int(time.time())
    token = unsigned_jwt({"user_id": "ada", "sub": "ada", "aud": PROJECT, "iss": ISSUER, "iat": now, "exp": now + 60})
    answer = ruled.upload("users/ada/f", b"x", headers={"Authorization": f"Firebase {token}"})
    assert answer.status_code == (401 if ruled.production else 200), answer.text


@pytest.mark.parametrize("name", [".", "..", ".well-known/acme-challenge/token"])
def test_names_gcs_reserves_are_refused_in_production(emu, name):
    v0 = emu.upload(name, b"x")
    gcs = emu.http.post(emu.url("/upload/storage/v1/b/b/o"), params={"uploadType": "media", "name": name}, data=b"x")
    if emu.production:
        assert (v0.status_code, v0.json()["error"]["message"]) == (400, "Bad Request.")
        assert gcs.status_code == 400 and gcs.headers["Content-Type"].startswith("text/html")
        assert "is reserved" in json.loads(gcs.text)["error"]["message"]
        assert emu.http.get(emu.url("/storage/v1/b/b/o")).json().get("items", []) == []
    else:
        assert (v0.status_code, gcs.status_code) == (200, 200)


MARKUP = "<img src=x onerror=alert(1)>&"


def test_a_missing_objects_text_page_escapes_its_name(emu):
    page = emu.http.get(emu.url(f"/storage/v1/b/b/o/{quote(MARKUP, safe='')}"), params={"alt": "media"})
    assert page.status_code == 404
    if emu.production:  # production's text/html page
        assert page.headers["Content-Type"].startswith("text/html")
        assert "<" not in page.text and page.text.endswith("&lt;img src=x onerror=alert(1)&gt;&amp;")
    else:
        assert page.headers["Content-Type"].startswith("application/json")
        assert MARKUP in page.json()["error"]["message"]


def test_a_refused_names_json_page_holds_no_markup(emu):
    name = "a\n" + MARKUP
    page = emu.http.post(emu.url("/upload/storage/v1/b/b/o"), params={"uploadType": "media", "name": name}, data=b"x")
    assert page.status_code == 400
    if emu.production:  # JSON sent as text/html: the same JSON value, with no markup character
        assert page.headers["Content-Type"].startswith("text/html")
        assert not set("<>&") & set(page.text)
        assert name in json.loads(page.text)["error"]["message"]


def test_a_token_of_an_earlier_run_is_refused_and_its_session_refreshes(start_emulator, tmp_path):
    """Each run signs with a key of its own; the accounts (--data-dir) outlive it, so the 401 makes
    the client refresh, and the refreshed token is this run's."""
    first = start_emulator("--data-dir", str(tmp_path))
    session = AuthClient(first.base).anonymous()
    assert first.stop() == 0
    second = start_emulator("--data-dir", str(tmp_path))
    path = f"users/{session['localId']}/f"
    stale = second.upload(path, b"x", headers={"Authorization": f"Firebase {session['idToken']}"})
    assert stale.status_code == 401 and "known public key" in stale.json()["error"]["message"], stale.text
    refreshed = AuthClient(second.base).refresh(session["refreshToken"])
    assert refreshed.status_code == 200, refreshed.text
    fresh = refreshed.json()["id_token"]
    assert header_of(fresh)["kid"] != header_of(session["idToken"])["kid"]
    assert second.upload(path, b"x", headers={"Authorization": f"Firebase {fresh}"}).status_code == 200
