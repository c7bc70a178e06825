"""Storage requests as signed-in users of the bundled Auth emulator, over real HTTP, in both
flavors: rules reading request.auth (uid, email, sign-in provider, custom claims), and the 401s
production Storage gives for expired tokens and for disabled, deleted or revoked users."""

from __future__ import annotations

import time

import pytest

from auth_helpers import AuthClient, claims_of, unsigned_jwt
from conftest import wait_until

CUSTOM_AUDIENCE = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /admin/{file=**} { allow read, write: if request.auth.token.admin == true; }
    match /users/{uid}/{file=**} { allow read, write: if request.auth.uid == uid; }
    match /mail/{file=**} {
      allow write: if request.auth.token.email == 'ada@example.com'
                   && request.auth.token.firebase.sign_in_provider == 'password';
    }
    match /guests/{file=**} { allow write: if request.auth.token.firebase.sign_in_provider == 'anonymous'; }
  }
}
"""


def use_rules(emu) -> None:
    assert emu.http.put(emu.url("/_emulator/rules"), data=RULES).status_code == 204


def firebase(token: str) -> dict:
    return {"Authorization": f"Firebase {token}"}


@pytest.fixture
def auth(emu):
    use_rules(emu)
    client = AuthClient(emu.auth_base)
    yield client
    client.http.close()


def custom_session(auth: AuthClient, uid: str, claims: dict | None = None) -> dict:
    token = unsigned_jwt({"aud": CUSTOM_AUDIENCE, "uid": uid, **({"claims": claims} if claims else {})})
    return auth.ok("signInWithCustomToken", {"token": token, "returnSecureToken": True})


def test_custom_claims_decide(emu, auth):
    admin = custom_session(auth, "boss", {"admin": True})
    worker = custom_session(auth, "worker", {"admin": False})
    assert emu.upload("admin/report", b"x", headers=firebase(admin["idToken"])).status_code == 200
    assert emu.upload("admin/report", b"x", headers=firebase(worker["idToken"])).status_code == 403
    assert emu.upload("admin/report", b"x").status_code == 403


def test_claims_set_by_an_admin_apply_after_a_refresh(emu, auth):
    session = auth.sign_up("ada@example.com")
    assert emu.upload("admin/a", b"x", headers=firebase(session["idToken"])).status_code == 403
    response = auth.admin("demo-project", "update", {"localId": session["localId"],
                                                     "customAttributes": '{"admin": true}'})
    assert response.status_code == 200, response.text
    refreshed = auth.refresh(session["refreshToken"]).json()["id_token"]
    assert emu.upload("admin/a", b"x", headers=firebase(refreshed)).status_code == 200
    assert emu.get_metadata("admin/a", headers=firebase(refreshed)).status_code == 200


def test_uid_email_and_provider(emu, auth):
    ada = auth.sign_up("ada@example.com")
    guest = auth.anonymous()
    assert emu.upload(f"users/{ada['localId']}/f", b"x", headers=firebase(ada["idToken"])).status_code == 200
    assert emu.upload(f"users/{guest['localId']}/f", b"x", headers=firebase(ada["idToken"])).status_code == 403
    assert emu.upload("mail/f", b"x", headers=firebase(ada["idToken"])).status_code == 200
    assert emu.upload("mail/f", b"x", headers=firebase(guest["idToken"])).status_code == 403
    assert emu.upload("guests/f", b"x", headers=firebase(guest["idToken"])).status_code == 200
    assert emu.upload("guests/f", b"x", headers=firebase(ada["idToken"])).status_code == 403


@pytest.mark.parametrize("change", ["disable", "delete", "revoke"])
def test_tokens_of_disabled_deleted_or_revoked_users(emu, auth, change):
    """Production answers 401 (the client refreshes and learns why from Auth); the official
    emulator keeps accepting any decodable token."""
    session = auth.sign_up("ada@example.com")
    path = f"users/{session['localId']}/f"
    assert emu.upload(path, b"x", headers=firebase(session["idToken"])).status_code == 200
    uid = session["localId"]
    body = {"disable": {"localId": uid, "disableUser": True}, "delete": {"localId": uid},
            "revoke": {"localId": uid, "validSince": str(claims_of(session["idToken"])["iat"] + 1)}}[change]
    response = auth.admin("demo-project", "delete" if change == "delete" else "update", body)
    assert response.status_code == 200, response.text
    answer = emu.upload(path, b"x", headers=firebase(session["idToken"]))
    if emu.production:
        assert answer.status_code == 401, answer.text
        assert answer.json()["error"]["message"].startswith("Invalid Credentials:")
        expected = {"disable": "USER_DISABLED", "delete": "USER_NOT_FOUND", "revoke": "TOKEN_EXPIRED"}[change]
        assert auth.refresh(session["refreshToken"]).json()["error"]["message"] == expected
    else:
        assert answer.status_code == 200, answer.text


def test_tokens_of_users_this_auth_never_had(emu, auth):
    """Minted by the control API for any claims: judged by their claims only."""
    assert emu.upload("users/someone/f", b"x", headers=firebase(emu.id_token("someone"))).status_code == 200
    auth.anonymous()  # the project exists: odd claims are judged against its accounts
    odd = emu.id_token("a", user_id=["a"], iat="soon", exp="later")
    # Production refuses times that are no numbers (test_token_claims.py); the rules then see no uid.
    assert emu.upload("users/a/f", b"x", headers=firebase(odd)).status_code == (401 if emu.production else 403)


@pytest.mark.parametrize("flavor", ["production", "firebase-tools"])
def test_expired_tokens(start_emulator, flavor):
    emu = start_emulator("--auth-token-lifetime", "1", flavor=flavor)
    use_rules(emu)
    auth = AuthClient(emu.auth_base)
    session = auth.anonymous()
    assert session["expiresIn"] == "1"
    expires = claims_of(session["idToken"])["exp"]
    wait_until(lambda: time.time() > expires + 0.01, timeout=5)
    path = f"users/{session['localId']}/f"
    answer = emu.upload(path, b"x", headers=firebase(session["idToken"]))
    if flavor == "production":
        assert answer.status_code == 401, answer.text
        assert answer.json()["error"]["message"] == "Invalid Credentials: the Firebase ID token has expired."
        fresh = auth.refresh(session["refreshToken"]).json()
        assert fresh["expires_in"] == "1"
        assert emu.upload(path, b"x", headers=firebase(fresh["id_token"])).status_code == 200
    else:
        assert answer.status_code == 200, answer.text
    auth.http.close()


def test_auth_requests_are_counted(emu, auth):
    """Requests to either port land in the one request log, so a benchmark can count refreshes."""
    emu.http.delete(emu.url("/_emulator/requests"))
    session = auth.anonymous()
    AuthClient(emu.base).refresh(session["refreshToken"])
    emu.upload(f"users/{session['localId']}/f", b"x", headers=firebase(session["idToken"]))
    paths = [entry["path"] for entry in emu.recorded()]
    assert paths == ["/identitytoolkit.googleapis.com/v1/accounts:signUp", "/securetoken.googleapis.com/v1/token",
                     "/v0/b/b/o"]


def test_faults_reach_auth_requests(emu, auth):
    """A client's refresh can be made to fail, as its storage requests can."""
    session = auth.anonymous()
    emu.add_fault({"match": {"path_prefix": "/securetoken.googleapis.com/"}, "action": {"status": 503}})
    assert auth.refresh(session["refreshToken"]).status_code == 503
    assert auth.refresh(session["refreshToken"]).status_code == 200
