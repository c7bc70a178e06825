"""Production's requires-recent-login over real HTTP: changing the email or password, or deleting
the user, with an ID token from an old sign-in is CREDENTIAL_TOO_OLD_LOGIN_AGAIN until the user
signs in again (re-authentication); the firebase-tools flavor, as its Auth emulator, never asks."""

from __future__ import annotations

import time

import pytest

from auth_helpers import AuthClient, assert_auth_error, claims_of, unsigned_jwt
from conftest import wait_until

WINDOW = 1  # seconds (--auth-recent-login): production's is longer


@pytest.fixture
def production(start_emulator):
    emulator = start_emulator("--auth-recent-login", str(WINDOW))
    client = AuthClient(emulator.auth_base)
    yield client
    client.http.close()


def outlive_the_window(id_token: str) -> None:
    signed_in_at = claims_of(id_token)["auth_time"]
    wait_until(lambda: time.time() - signed_in_at > WINDOW, timeout=WINDOW + 5)


def test_sensitive_changes_need_a_recent_sign_in(production):
    user = production.sign_up("old@example.com")
    outlive_the_window(user["idToken"])
    for body in ({"password": "secret-2"}, {"email": "new@example.com"}):
        assert_auth_error(production.call("update", {"idToken": user["idToken"], **body}),
                          "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
    assert_auth_error(production.call("sendOobCode", {"requestType": "VERIFY_AND_CHANGE_EMAIL",
                                                      "idToken": user["idToken"], "newEmail": "new@example.com"}),
                      "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
    assert_auth_error(production.call("delete", {"idToken": user["idToken"]}), "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
    # A refreshed token keeps its sign-in time; only a new sign-in helps.
    refreshed = production.refresh(user["refreshToken"]).json()["id_token"]
    assert_auth_error(production.call("update", {"idToken": refreshed, "password": "secret-2"}),
                      "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
    # Profile changes are not sensitive.
    assert production.ok("update", {"idToken": user["idToken"], "displayName": "Old"})["displayName"] == "Old"
    assert production.sign_in("old@example.com", "secret-2").status_code == 400  # nothing changed

    again = production.sign_in("old@example.com").json()  # re-authentication
    changed = production.ok("update", {"idToken": again["idToken"], "password": "secret-2"})
    assert production.sign_in("old@example.com", "secret-2").status_code == 200
    assert production.ok("delete", {"idToken": changed["idToken"]})["kind"] == "identitytoolkit#DeleteAccountResponse"


def test_an_anonymous_user_links_an_email_whenever_it_likes(production):
    anonymous = production.anonymous()
    outlive_the_window(anonymous["idToken"])
    linked = production.ok("update", {"idToken": anonymous["idToken"], "email": "late@example.com",
                                      "password": "secret-1"})
    assert linked["localId"] == anonymous["localId"]


def test_the_firebase_tools_flavor_never_asks(start_emulator):
    emulator = start_emulator(flavor="firebase-tools")
    client = AuthClient(emulator.auth_base)
    user = client.sign_up("ann@example.com")
    stale = unsigned_jwt({**claims_of(user["idToken"]), "auth_time": int(time.time()) - 86400})
    assert client.ok("update", {"idToken": stale, "password": "secret-2"})["localId"] == user["localId"]
    client.http.close()
