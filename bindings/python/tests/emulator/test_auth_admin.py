"""firebase-admin (Python, with FIREBASE_AUTH_EMULATOR_HOST) against the bundled Auth emulator:
user management, custom claims, custom tokens, verify_id_token on the tokens clients obtain, and
the users clients link and verify (providers, email_verified) and the email links it generates."""

from __future__ import annotations

import json
import os
import time
import uuid
from urllib.parse import parse_qs, urlencode, urlsplit

import firebase_admin
import pytest
from firebase_admin import auth as admin_auth

from auth_helpers import ADMIN, IDENTITY, AuthClient, assert_auth_error, claims_of
from conftest import Emulator

PROJECT = "admin-project"


@pytest.fixture(scope="module")
def auth_emulator():
    emulator = Emulator("--project", PROJECT)
    yield emulator
    assert emulator.stop() == 0
    assert "Traceback" not in emulator.stderr(), emulator.stderr()


@pytest.fixture(scope="module")
def admin_app(auth_emulator):
    """An Admin SDK app whose Auth client talks to the emulator's Auth port."""
    previous = os.environ.get("FIREBASE_AUTH_EMULATOR_HOST")
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = auth_emulator.auth_base.removeprefix("http://")
    app = firebase_admin.initialize_app(options={"projectId": PROJECT}, name=f"authemu-{uuid.uuid4()}")
    yield app
    firebase_admin.delete_app(app)
    if previous is None:
        os.environ.pop("FIREBASE_AUTH_EMULATOR_HOST", None)
    else:
        os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = previous


@pytest.fixture
def admin(admin_app, auth_emulator):
    """The module's firebase-admin Auth client, on a freshly reset emulator."""
    auth_emulator.reset()
    return admin_auth.Client(admin_app)


@pytest.fixture
def client(auth_emulator):
    http = AuthClient(auth_emulator.auth_base)
    yield http
    http.http.close()


def next_second() -> None:
    """Wait for the clock to enter a new second: revocation compares whole seconds (production)."""
    start = int(time.time())
    while int(time.time()) == start:
        time.sleep(0.01)


def test_created_users_sign_in_and_read_back(admin, client):
    uid = admin.create_user(email="Grace@Example.com", password="secret-1", display_name="Grace",
                            photo_url="https://example.com/g.png", email_verified=True).uid
    user = admin.get_user(uid)
    assert (user.email, user.display_name, user.photo_url, user.email_verified, user.disabled) == \
        ("grace@example.com", "Grace", "https://example.com/g.png", True, False)
    assert [p.provider_id for p in user.provider_data] == ["password"]
    assert user.user_metadata.creation_timestamp <= time.time() * 1000
    assert admin.get_user_by_email("grace@example.com").uid == uid
    signed_in = client.sign_in("grace@example.com")
    assert signed_in.status_code == 200, signed_in.text
    claims = claims_of(signed_in.json()["idToken"])
    assert claims["name"] == "Grace" and claims["email_verified"] is True
    metadata = admin.get_user(uid).user_metadata
    assert metadata.last_sign_in_timestamp >= user.user_metadata.creation_timestamp
    assert abs(metadata.last_refresh_timestamp - time.time() * 1000) < 60_000


def test_create_user_errors_map_to_admin_exceptions(admin):
    admin.create_user(uid="fixed-uid", email="taken@example.com")
    with pytest.raises(admin_auth.UidAlreadyExistsError):
        admin.create_user(uid="fixed-uid")
    with pytest.raises(admin_auth.EmailAlreadyExistsError):
        admin.create_user(email="taken@example.com")
    with pytest.raises(admin_auth.UserNotFoundError):
        admin.get_user("nobody")
    with pytest.raises(admin_auth.UserNotFoundError):
        admin.get_user_by_email("nobody@example.com")


def test_custom_claims_reach_the_id_tokens(admin, client):
    uid = admin.create_user(email="ada@example.com", password="secret-1").uid
    admin.set_custom_user_claims(uid, {"admin": True, "groups": ["ops"]})
    assert admin.get_user(uid).custom_claims == {"admin": True, "groups": ["ops"]}
    session = client.sign_in("ada@example.com").json()
    claims = admin.verify_id_token(session["idToken"])
    assert claims["admin"] is True and claims["groups"] == ["ops"] and claims["uid"] == uid
    # A refresh mints the claims as they are now.
    admin.set_custom_user_claims(uid, None)
    assert admin.get_user(uid).custom_claims is None
    refreshed = client.refresh(session["refreshToken"]).json()
    assert "admin" not in claims_of(refreshed["id_token"])


def test_reserved_custom_claims_are_refused(client, admin):
    uid = admin.create_user().uid
    response = client.admin(PROJECT, "update", {"localId": uid, "customAttributes": '{"sub": "x"}'})
    assert_auth_error(response, "FORBIDDEN_CLAIM : sub")
    response = client.admin(PROJECT, "update", {"localId": uid, "customAttributes": "[1]"})
    assert_auth_error(response, "INVALID_CLAIMS")


def test_minted_custom_tokens_sign_in(admin, client):
    token = admin.create_custom_token("worker-1", {"role": "builder"}).decode()
    answer = client.ok("signInWithCustomToken", {"token": token, "returnSecureToken": True})
    claims = admin.verify_id_token(answer["idToken"], check_revoked=True)
    assert claims["uid"] == "worker-1" and claims["role"] == "builder"
    assert claims["firebase"]["sign_in_provider"] == "custom"
    assert admin.get_user("worker-1").uid == "worker-1"


@pytest.mark.parametrize("sign_in", ["anonymous", "password"])
def test_verify_id_token_accepts_client_tokens(admin, client, sign_in):
    answer = client.anonymous() if sign_in == "anonymous" else client.sign_up("ada@example.com")
    claims = admin.verify_id_token(answer["idToken"], check_revoked=True)
    assert claims["uid"] == answer["localId"] and claims["firebase"]["sign_in_provider"] == sign_in
    refreshed = client.refresh(answer["refreshToken"]).json()["id_token"]
    assert admin.verify_id_token(refreshed)["uid"] == answer["localId"]


def test_revoked_sessions(admin, client):
    session = client.sign_up("ada@example.com")
    next_second()
    admin.revoke_refresh_tokens(session["localId"])
    assert admin.verify_id_token(session["idToken"])["uid"] == session["localId"]  # without the check
    with pytest.raises(admin_auth.RevokedIdTokenError):
        admin.verify_id_token(session["idToken"], check_revoked=True)
    assert_auth_error(client.refresh(session["refreshToken"]), "TOKEN_EXPIRED")
    assert_auth_error(client.call("lookup", {"idToken": session["idToken"]}), "TOKEN_EXPIRED")
    # Signing in again starts a session the revocation does not cover.
    fresh = client.sign_in("ada@example.com").json()
    assert client.refresh(fresh["refreshToken"]).status_code == 200
    assert admin.verify_id_token(fresh["idToken"], check_revoked=True)["uid"] == session["localId"]


def test_revocation_in_the_same_second_still_ends_refresh_tokens(admin, client):
    session = client.anonymous()
    admin.revoke_refresh_tokens(session["localId"])
    assert_auth_error(client.refresh(session["refreshToken"]), "TOKEN_EXPIRED")


def test_disabled_users(admin, client):
    session = client.sign_up("ada@example.com")
    admin.update_user(session["localId"], disabled=True)
    assert admin.get_user(session["localId"]).disabled is True
    assert_auth_error(client.sign_in("ada@example.com"), "USER_DISABLED")
    assert_auth_error(client.refresh(session["refreshToken"]), "USER_DISABLED")
    with pytest.raises(admin_auth.UserDisabledError):
        admin.verify_id_token(session["idToken"], check_revoked=True)
    admin.update_user(session["localId"], disabled=False)
    assert client.refresh(session["refreshToken"]).status_code == 200


def test_disabled_custom_token_user_cannot_sign_in(admin, client):
    admin.create_user(uid="robot", disabled=True)
    token = admin.create_custom_token("robot").decode()
    assert_auth_error(client.call("signInWithCustomToken", {"token": token}), "USER_DISABLED")


def test_deleted_users(admin, client):
    session = client.sign_up("ada@example.com")
    admin.delete_user(session["localId"])
    with pytest.raises(admin_auth.UserNotFoundError):
        admin.get_user(session["localId"])
    with pytest.raises(admin_auth.UserNotFoundError):
        admin.delete_user(session["localId"])
    assert_auth_error(client.refresh(session["refreshToken"]), "USER_NOT_FOUND")
    assert_auth_error(client.sign_in("ada@example.com"), "EMAIL_NOT_FOUND")


def test_a_new_account_with_a_deleted_uid_does_not_inherit_its_sessions(admin, client):
    token = admin.create_custom_token("reused").decode()
    old = client.ok("signInWithCustomToken", {"token": token})
    admin.delete_user("reused")
    admin.create_user(uid="reused")
    assert_auth_error(client.refresh(old["refreshToken"]), "USER_NOT_FOUND")


def test_update_user_fields(admin, client):
    uid = admin.create_user(email="old@example.com", password="secret-1", display_name="Old",
                            photo_url="https://example.com/old.png").uid
    admin.update_user(uid, email="new@example.com", password="secret-2", display_name=admin_auth.DELETE_ATTRIBUTE,
                      photo_url=admin_auth.DELETE_ATTRIBUTE, email_verified=True, phone_number="+15555550100")
    user = admin.get_user(uid)
    assert (user.email, user.display_name, user.photo_url, user.email_verified, user.phone_number) == \
        ("new@example.com", None, None, True, "+15555550100")
    assert_auth_error(client.sign_in("new@example.com", "secret-1"), "INVALID_PASSWORD")
    assert client.sign_in("new@example.com", "secret-2").status_code == 200
    admin.update_user(uid, phone_number=admin_auth.DELETE_ATTRIBUTE)
    assert admin.get_user(uid).phone_number is None


def test_get_users_list_users_and_delete_users(admin, client):
    uids = [admin.create_user(uid=f"user-{index:02d}", email=f"u{index}@example.com").uid for index in range(7)]
    found = admin.get_users([admin_auth.UidIdentifier("user-01"), admin_auth.EmailIdentifier("u2@example.com"),
                             admin_auth.UidIdentifier("missing")])
    assert sorted(user.uid for user in found.users) == ["user-01", "user-02"]
    assert [identifier.uid for identifier in found.not_found] == ["missing"]
    page = admin.list_users(max_results=3)
    assert [user.uid for user in page.users] == uids[:3] and page.has_next_page
    assert [user.uid for user in page.iterate_all()] == uids
    # Without `force` (the Admin SDK always sends it), only disabled accounts go.
    admin.update_user("user-00", disabled=True)
    response = client.admin(PROJECT, "batchDelete", {"localIds": ["user-00", "user-01", "missing"]})
    assert response.status_code == 200, response.text
    assert response.json() == {"errors": [{"index": 1, "localId": "user-01",
                                           "message": "NOT_DISABLED : Disable the account before batch deletion."}]}
    result = admin.delete_users(["user-01", "user-02", "missing"])
    assert result.success_count == 3 and result.failure_count == 0
    assert [user.uid for user in admin.list_users().iterate_all()] == uids[3:]
    assert_auth_error(client.admin(PROJECT, "batchDelete", {"localIds": []}), "LOCAL_ID_LIST_EXCEEDS_LIMIT")


@pytest.mark.parametrize("authorization, status", [(None, 401), ("Bearer not-a-service-token", 401),
                                                   ("Bearer ya29.any-access-token", 200), ("Bearer owner", 200)])
def test_admin_routes_require_an_admin_credential(client, authorization, status):
    headers = {"Authorization": authorization} if authorization else {}
    response = client.http.post(f"{client.base}{IDENTITY}/projects/{PROJECT}/accounts", json={}, headers=headers)
    if status == 200:
        assert response.status_code == 200 and response.json()["localId"], response.text
    else:
        message = ("Request is missing required authentication credential" if authorization is None
                   else "Request had invalid authentication credentials")
        assert response.status_code == 401 and response.json()["error"]["message"].startswith(message)
        assert response.json()["error"]["status"] == "UNAUTHENTICATED"


def test_admin_sign_up_returns_no_tokens_and_needs_no_key(client):
    response = client.http.post(f"{client.base}{IDENTITY}/accounts:signUp", json={"localId": "chosen"}, headers=ADMIN)
    assert response.status_code == 200, response.text
    assert response.json()["localId"] == "chosen" and "idToken" not in response.json()


def test_reset_route_forgets_the_project_accounts(admin, client):
    session = client.sign_up("ada@example.com")
    response = client.http.delete(f"{client.base}/emulator/v1/projects/{PROJECT}/accounts")
    assert response.status_code == 200 and response.json() == {}
    with pytest.raises(admin_auth.UserNotFoundError):
        admin.get_user(session["localId"])
    assert_auth_error(client.refresh(session["refreshToken"]), "INVALID_REFRESH_TOKEN")


def _oob_code(link: str) -> str:
    return parse_qs(urlsplit(link).query)["oobCode"][0]


def test_admin_sees_linked_and_verified_users(admin, client):
    anonymous = client.anonymous()
    uid = anonymous["localId"]
    assert admin.get_user(uid).provider_data == []
    client.ok("update", {"idToken": anonymous["idToken"], "email": "lin@example.com", "password": "secret-1",
                         "displayName": "Lin"})
    user = admin.get_user(uid)
    assert (user.email, user.email_verified, user.display_name) == ("lin@example.com", False, "Lin")
    assert [provider.provider_id for provider in user.provider_data] == ["password"]

    link = admin.generate_email_verification_link("lin@example.com")
    assert client.ok("update", {"oobCode": _oob_code(link)})["localId"] == uid
    assert admin.get_user(uid).email_verified is True

    google = {"sub": "g-lin", "email": "lin@example.com", "email_verified": True, "name": "Lin G"}
    session = client.sign_in("lin@example.com").json()
    client.ok("signInWithIdp", {"requestUri": "http://localhost", "idToken": session["idToken"],
                                "postBody": urlencode({"id_token": json.dumps(google), "providerId": "google.com"})})
    user = admin.get_user(uid)
    providers = {provider.provider_id: provider for provider in user.provider_data}
    assert sorted(providers) == ["google.com", "password"]
    assert (providers["google.com"].uid, providers["google.com"].email, providers["google.com"].display_name) == \
        ("g-lin", "lin@example.com", "Lin G")
    assert admin.get_user_by_email("lin@example.com").uid == uid


def test_admin_links_reset_passwords_and_sign_in_by_email(admin, client):
    uid = admin.create_user(email="max@example.com", password="secret-1").uid
    reset = admin.generate_password_reset_link("max@example.com")
    assert urlsplit(reset).path == "/emulator/action"
    client.ok("resetPassword", {"oobCode": _oob_code(reset), "newPassword": "secret-2"})
    assert client.sign_in("max@example.com", "secret-2").json()["localId"] == uid
    settings = admin_auth.ActionCodeSettings(url="https://app.example.com/finish", handle_code_in_app=True)
    sign_in = admin.generate_sign_in_with_email_link("max@example.com", settings)
    assert parse_qs(urlsplit(sign_in).query)["continueUrl"] == ["https://app.example.com/finish"]
    answer = client.ok("signInWithEmailLink", {"email": "max@example.com", "oobCode": _oob_code(sign_in)})
    assert answer["localId"] == uid and answer["isNewUser"] is False
    with pytest.raises(admin_auth.UserNotFoundError):
        admin.generate_email_verification_link("nobody@example.com")
