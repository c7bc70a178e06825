"""Production flavor: ID tokens judged by their claims as production judges them (for this
project, times that are numbers and in range) and object names GCS reserves refused on upload,
through both APIs; the firebase-tools flavor accepts both, as firebase-tools does. And error pages
sent as text/html carry no markup, whatever the object name."""

from __future__ import annotations

import json
import time

import pytest
from urllib.parse import quote

from auth_helpers import unsigned_jwt

PROJECT = "demo-project"  # the emulator's default project
ISSUER = f"https://securetoken.google.com/{PROJECT}"
RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o { match /users/{uid}/{file=**} { allow read, write: if request.auth.uid == uid; } }
}
"""


def token(**claims) -> str:
    now = int(time.time())
    return unsigned_jwt({"user_id": "ada", "sub": "ada", "aud": PROJECT, "iss": ISSUER, "iat": now,
                         "exp": now + 3600, **claims})


@pytest.fixture
def ruled(emu):
    assert emu.http.put(emu.url("/_emulator/rules"), data=RULES).status_code == 204
    return emu


def test_a_well_formed_token_of_this_project_is_accepted(ruled):
    assert ruled.upload("users/ada/f", b"x", headers={"Authorization": f"Firebase {token()}"}).status_code == 200


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
    answer = ruled.upload("users/ada/f", b"x", headers={"Authorization": f"Firebase {token(**claims)}"})
    if ruled.production:
        assert answer.status_code == 401, answer.text
        message = answer.json()["error"]["message"]
        assert message.startswith("Invalid Credentials:") and words in message, message
        assert ruled.download("users/ada/f", headers={"Authorization": "Bearer owner"}).status_code == 404
    else:  # firebase-tools reads any token it can decode
        assert answer.status_code == 200, answer.text


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
