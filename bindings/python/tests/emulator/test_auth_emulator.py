"""The bundled Auth emulator's user routes over real HTTP, on its own port and on the storage port:
sign-up, sign-in, custom tokens, lookup, Secure Token refresh, and production's error bodies."""

from __future__ import annotations

import time

import pytest
import requests

from auth_helpers import (IDENTITY, KEY, SECURE_TOKEN, AuthClient, assert_auth_error, claims_of, header_of,
                          unsigned_jwt)
from conftest import Emulator

PROJECT = "demo-project"
CUSTOM_AUDIENCE = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"


@pytest.fixture(scope="module")
def auth_emulator():
    emulator = Emulator()
    yield emulator
    assert emulator.stop() == 0
    assert "Traceback" not in emulator.stderr(), emulator.stderr()


@pytest.fixture(params=("auth-port", "storage-port"))
def auth(request, auth_emulator) -> AuthClient:
    """A client of the freshly reset Auth emulator, through either port."""
    auth_emulator.reset()
    client = AuthClient(auth_emulator.auth_base if request.param == "auth-port" else auth_emulator.base)
    yield client
    client.http.close()


def assert_id_token(token: str, uid: str, provider: str, lifetime: int = 3600) -> dict:
    header = header_of(token)
    assert header["alg"] == "RS256" and header["kid"] and header["typ"] == "JWT"  # the production flavor signs
    claims = claims_of(token)
    assert claims["iss"] == f"https://securetoken.google.com/{PROJECT}" and claims["aud"] == PROJECT
    assert claims["sub"] == claims["user_id"] == uid
    assert claims["firebase"]["sign_in_provider"] == provider
    assert claims["exp"] - claims["iat"] == lifetime
    assert abs(claims["iat"] - time.time()) < 60 and claims["auth_time"] <= claims["iat"]
    return claims


def test_ready_route_on_the_auth_port(auth_emulator):
    response = requests.get(auth_emulator.auth_base + "/")
    assert response.status_code == 200 and response.json() == {"authEmulator": {"ready": True}}


def test_anonymous_sign_up(auth):
    answer = auth.anonymous()
    assert answer["kind"] == "identitytoolkit#SignupNewUserResponse" and answer["expiresIn"] == "3600"
    claims = assert_id_token(answer["idToken"], answer["localId"], "anonymous")
    assert claims["provider_id"] == "anonymous" and claims["firebase"]["identities"] == {}
    assert "email" not in claims
    # The refresh token is opaque: nothing in it to decode.
    assert answer["refreshToken"].count(".") == 0 and len(answer["refreshToken"]) >= 40
    assert auth.anonymous()["localId"] != answer["localId"]


def test_email_sign_up_then_sign_in(auth):
    created = auth.sign_up("Ada@Example.com")
    assert created["email"] == "ada@example.com"
    claims = assert_id_token(created["idToken"], created["localId"], "password")
    assert claims["email"] == "ada@example.com" and claims["email_verified"] is False
    assert claims["firebase"]["identities"] == {"email": ["ada@example.com"]} and "provider_id" not in claims
    signed_in = auth.sign_in("ADA@example.com")
    assert signed_in.status_code == 200, signed_in.text
    answer = signed_in.json()
    assert answer["registered"] is True and answer["localId"] == created["localId"]
    assert answer["email"] == "ada@example.com" and answer["refreshToken"] != created["refreshToken"]
    assert_id_token(answer["idToken"], created["localId"], "password")


@pytest.mark.parametrize("body, message", [
    ({"email": "taken@example.com", "password": "secret-1"}, "EMAIL_EXISTS"),
    ({"email": "short@example.com", "password": "12345"}, "WEAK_PASSWORD : Password should be at least 6 characters"),
    ({"email": "no-at-sign", "password": "secret-1"}, "INVALID_EMAIL"),
    ({"email": "", "password": "secret-1"}, "MISSING_EMAIL"),
    ({"email": "nopassword@example.com"}, "MISSING_PASSWORD"),
    ({"password": "secret-1"}, "MISSING_EMAIL"),
    ({"localId": "chosen"}, "UNEXPECTED_PARAMETER : User ID"),
])
def test_sign_up_errors(auth, body, message):
    auth.sign_up("taken@example.com")
    assert_auth_error(auth.call("signUp", body), message)


@pytest.mark.parametrize("email, password, message", [
    ("ada@example.com", "wrong-password", "INVALID_PASSWORD"),
    ("nobody@example.com", "secret-1", "EMAIL_NOT_FOUND"),
    ("ada@example.com", "", "MISSING_PASSWORD"),
    ("not an email", "secret-1", "INVALID_EMAIL"),
])
def test_sign_in_errors(auth, email, password, message):
    auth.sign_up("ada@example.com")
    assert_auth_error(auth.sign_in(email, password), message)


def test_custom_token_sign_in_carries_developer_claims(auth):
    token = unsigned_jwt({"aud": CUSTOM_AUDIENCE, "uid": "worker-7", "claims": {"admin": True, "tier": 3}})
    answer = auth.ok("signInWithCustomToken", {"token": token, "returnSecureToken": True})
    assert answer["isNewUser"] is True and answer["kind"] == "identitytoolkit#VerifyCustomTokenResponse"
    claims = assert_id_token(answer["idToken"], "worker-7", "custom")
    assert claims["admin"] is True and claims["tier"] == 3
    again = auth.ok("signInWithCustomToken", {"token": token})
    assert again["isNewUser"] is False
    # A refresh keeps the developer claims.
    refreshed = auth.refresh(answer["refreshToken"]).json()
    assert claims_of(refreshed["id_token"])["admin"] is True


def test_custom_token_forms_the_emulator_accepts(auth):
    signed = unsigned_jwt({"aud": CUSTOM_AUDIENCE, "uid": "signed-user", "iss": "sa@example.iam.gserviceaccount.com"},
                          header={"alg": "RS256", "typ": "JWT"})[:-1] + ".c2lnbmF0dXJl"
    assert claims_of(auth.ok("signInWithCustomToken", {"token": signed})["idToken"])["user_id"] == "signed-user"
    plain = auth.ok("signInWithCustomToken", {"token": '{"uid": "json-user", "claims": {"role": "x"}}'})
    assert claims_of(plain["idToken"])["role"] == "x"


@pytest.mark.parametrize("token, message", [
    ("", "MISSING_CUSTOM_TOKEN"),
    ("not-a-jwt", "INVALID_CUSTOM_TOKEN : Invalid assertion format"),
    ("{not json", "INVALID_CUSTOM_TOKEN : ((Auth Emulator only accepts strict JSON or JWTs as fake custom tokens.))"),
    (unsigned_jwt({"aud": "my-project", "uid": "u"}),
     "INVALID_CUSTOM_TOKEN : ((Invalid aud (audience): my-project Note: Firebase ID Tokens / third-party tokens "
     "cannot be used with signInWithCustomToken.))"),
    (unsigned_jwt({"aud": CUSTOM_AUDIENCE}), "MISSING_IDENTIFIER"),
    (unsigned_jwt({"aud": CUSTOM_AUDIENCE, "uid": "u", "claims": {"firebase": 1}}), "FORBIDDEN_CLAIM : firebase"),
    (unsigned_jwt({"aud": CUSTOM_AUDIENCE, "uid": "u", "claims": [1]}), "INVALID_CLAIMS"),
])
def test_custom_token_errors(auth, token, message):
    assert_auth_error(auth.call("signInWithCustomToken", {"token": token}), message)


def test_lookup_with_an_id_token(auth):
    created = auth.sign_up("ada@example.com")
    users = auth.ok("lookup", {"idToken": created["idToken"]})["users"]
    assert len(users) == 1
    user = users[0]
    assert user["localId"] == created["localId"] and user["email"] == "ada@example.com"
    assert user["passwordHash"] == "UkVEQUNURUQ=" and "salt" not in user  # redacted for users
    assert user["providerUserInfo"][0]["providerId"] == "password"
    assert int(user["createdAt"]) <= int(user["lastLoginAt"]) <= time.time() * 1000


@pytest.mark.parametrize("id_token, message", [(None, "MISSING_ID_TOKEN"), ("garbage", "INVALID_ID_TOKEN")])
def test_lookup_errors(auth, id_token, message):
    assert_auth_error(auth.call("lookup", {} if id_token is None else {"idToken": id_token}), message)


@pytest.mark.parametrize("form", [True, False], ids=["form", "json"])
def test_refresh(auth, form):
    created = auth.sign_up("ada@example.com")
    response = auth.refresh(created["refreshToken"], form=form)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert set(answer) == {"id_token", "access_token", "refresh_token", "expires_in", "token_type", "user_id",
                           "project_id"}
    assert answer["access_token"] == answer["id_token"] and answer["token_type"] == "Bearer"
    assert answer["expires_in"] == "3600" and answer["user_id"] == created["localId"]
    assert answer["refresh_token"] == created["refreshToken"]
    assert_id_token(answer["id_token"], created["localId"], "password")


def test_refresh_accepts_camel_case_form_and_snake_case_json(auth):
    token = auth.anonymous()["refreshToken"]
    url = auth.base + SECURE_TOKEN
    camel_form = auth.http.post(url, params=KEY, data={"grantType": "refresh_token", "refreshToken": token})
    snake_json = auth.http.post(url, params=KEY, json={"grant_type": "refresh_token", "refresh_token": token})
    assert camel_form.status_code == 200 and snake_json.status_code == 200, (camel_form.text, snake_json.text)


@pytest.mark.parametrize("body, message", [
    ({"refresh_token": "x"}, "MISSING_GRANT_TYPE"),
    ({"grant_type": "authorization_code", "refresh_token": "x"}, "INVALID_GRANT_TYPE"),
    ({"grant_type": "refresh_token"}, "MISSING_REFRESH_TOKEN"),
    ({"grant_type": "refresh_token", "refresh_token": "made-up"}, "INVALID_REFRESH_TOKEN"),
])
def test_refresh_errors(auth, body, message):
    assert_auth_error(auth.http.post(auth.base + SECURE_TOKEN, params=KEY, data=body), message)


@pytest.mark.parametrize("path", [f"{IDENTITY}/accounts:signUp", f"{IDENTITY}/accounts:signInWithPassword",
                                  f"{IDENTITY}/accounts:signInWithCustomToken", f"{IDENTITY}/accounts:lookup",
                                  f"{IDENTITY}/accounts:update", f"{IDENTITY}/accounts:delete", SECURE_TOKEN])
def test_a_missing_api_key_is_refused(auth, path):
    for params in ({}, {"key": ""}):
        assert_auth_error(auth.http.post(auth.base + path, params=params, json={}),
                          "The request is missing a valid API key.", 403)


def test_the_api_key_may_come_in_a_header(auth):
    response = auth.http.post(f"{auth.base}{IDENTITY}/accounts:signUp", json={},
                              headers={"X-Goog-Api-Key": "header-key"})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("data, fragment", [
    (b"{not json", "Invalid JSON payload received."),
    (b"[1, 2]", "Invalid JSON payload received. Expected an object"),
    (b'{"email": 12, "password": "secret-1"}', "Invalid JSON payload received. Invalid value at 'email' (TYPE_STRING): got int"),
    (b'{"email": "a@b.c", "password": ["secret-1"]}', "Invalid value at 'password' (TYPE_STRING): got list"),
    (b'{"email": "a@b.c", "password": "secret-1", "displayName": {}}', "Invalid value at 'displayName'"),
])
def test_bad_bodies_get_a_clear_400(auth, data, fragment):
    response = auth.http.post(f"{auth.base}{IDENTITY}/accounts:signUp", params=KEY, data=data,
                              headers={"Content-Type": "application/json"})
    assert response.status_code == 400, response.text
    assert fragment in response.json()["error"]["message"]
    assert "secret-1" not in response.text  # a password never comes back in a message


def test_an_unknown_operation_is_404(auth):
    assert_auth_error(auth.call("signInWithTelepathy", {}), "Not Found", 404)


def test_cors_preflight_on_the_auth_port(auth_emulator):
    response = requests.options(f"{auth_emulator.auth_base}{IDENTITY}/accounts:signUp",
                                headers={"Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST",
                                         "Access-Control-Request-Headers": "content-type,x-client-version"})
    assert response.status_code == 204
    assert response.headers["Access-Control-Allow-Origin"] == "http://localhost:5173"
    assert "x-client-version" in response.headers["Access-Control-Allow-Headers"]


# accounts:update and accounts:delete, called by the user with an ID token.

def test_user_changes_profile(auth):
    session = auth.sign_up("ada@example.com")
    answer = auth.ok("update", {"idToken": session["idToken"], "displayName": "Ada",
                                "photoUrl": "https://example.com/ada.png", "returnSecureToken": True})
    assert answer["displayName"] == "Ada" and answer["photoUrl"] == "https://example.com/ada.png"
    assert "idToken" not in answer  # a profile change keeps the session as it is
    user = auth.ok("lookup", {"idToken": session["idToken"]})["users"][0]
    assert user["displayName"] == "Ada"
    claims = claims_of(auth.refresh(session["refreshToken"]).json()["id_token"])
    assert claims["name"] == "Ada" and claims["picture"] == "https://example.com/ada.png"
    cleared = auth.ok("update", {"idToken": session["idToken"], "deleteAttribute": ["DISPLAY_NAME", "PHOTO_URL"]})
    assert "displayName" not in cleared and "photoUrl" not in cleared


def test_password_change_revokes_other_sessions(auth):
    first = auth.sign_up("ada@example.com")
    second = auth.sign_in("ada@example.com").json()
    answer = auth.ok("update", {"idToken": second["idToken"], "password": "new-secret", "returnSecureToken": True})
    assert answer["idToken"] and answer["refreshToken"]  # the caller's session goes on with new tokens
    assert auth.refresh(answer["refreshToken"]).status_code == 200
    assert_auth_error(auth.refresh(first["refreshToken"]), "TOKEN_EXPIRED")
    assert_auth_error(auth.refresh(second["refreshToken"]), "TOKEN_EXPIRED")
    assert_auth_error(auth.sign_in("ada@example.com"), "INVALID_PASSWORD")
    assert auth.sign_in("ada@example.com", "new-secret").status_code == 200


def test_anonymous_user_upgrades_to_email_and_password(auth):
    anonymous = auth.anonymous()
    linked = auth.ok("signUp", {"idToken": anonymous["idToken"], "email": "ada@example.com", "password": "secret-1",
                                "returnSecureToken": True})
    assert linked["localId"] == anonymous["localId"]
    assert claims_of(linked["idToken"])["firebase"]["sign_in_provider"] == "password"
    assert auth.sign_in("ada@example.com").json()["localId"] == anonymous["localId"]


def test_user_changes_email(auth):
    session = auth.sign_up("ada@example.com")
    auth.sign_up("taken@example.com")
    assert_auth_error(auth.call("update", {"idToken": session["idToken"], "email": "taken@example.com"}),
                      "EMAIL_EXISTS")
    assert_auth_error(auth.call("update", {"idToken": session["idToken"], "email": "bad"}), "INVALID_EMAIL")
    answer = auth.ok("update", {"idToken": session["idToken"], "email": "Ada2@example.com"})
    assert answer["email"] == "ada2@example.com" and answer["emailVerified"] is False
    assert auth.sign_in("ada2@example.com").status_code == 200


@pytest.mark.parametrize("body, message", [
    ({}, "INVALID_REQ_TYPE : Unsupported request parameters."),
    ({"idToken": "{token}", "customAttributes": '{"admin": true}'}, "INSUFFICIENT_PERMISSION"),
    ({"idToken": "{token}", "disableUser": True}, "OPERATION_NOT_ALLOWED"),
    ({"idToken": "{token}", "password": "short"}, "WEAK_PASSWORD : Password should be at least 6 characters"),
])
def test_user_update_errors(auth, body, message):
    token = auth.sign_up("ada@example.com")["idToken"]
    body = {key: token if value == "{token}" else value for key, value in body.items()}
    assert_auth_error(auth.call("update", body), message)


def test_user_deletes_own_account(auth):
    session = auth.sign_up("ada@example.com")
    assert auth.ok("delete", {"idToken": session["idToken"]}) == {"kind": "identitytoolkit#DeleteAccountResponse"}
    assert_auth_error(auth.call("lookup", {"idToken": session["idToken"]}), "USER_NOT_FOUND")
    assert_auth_error(auth.refresh(session["refreshToken"]), "USER_NOT_FOUND")
    assert_auth_error(auth.sign_in("ada@example.com"), "EMAIL_NOT_FOUND")


def test_id_tokens_of_another_project_are_refused(auth, auth_emulator):
    foreign = auth_emulator.id_token("u", iss="https://securetoken.google.com/other", aud="other")
    assert_auth_error(auth.call("lookup", {"idToken": foreign}), "INVALID_ID_TOKEN")


def test_id_tokens_it_did_not_sign_are_refused(auth):
    """A page that knows a uid cannot forge its token and change the account (production flavor)."""
    session = auth.sign_up("ada@example.com")
    claims = claims_of(session["idToken"])
    for forged in (unsigned_jwt(claims), session["idToken"][:-8] + "AAAAAAAA"):
        assert_auth_error(auth.call("update", {"idToken": forged, "password": "taken-over"}), "INVALID_ID_TOKEN")
    assert auth.sign_in("ada@example.com").status_code == 200  # the password is still the user's


def test_a_refused_update_changes_nothing(auth):
    session = auth.sign_up("ada@example.com")
    assert_auth_error(auth.call("update", {"idToken": session["idToken"], "email": "new@example.com",
                                           "displayName": "Ada", "password": "short"}),
                      "WEAK_PASSWORD : Password should be at least 6 characters")
    user = auth.ok("lookup", {"idToken": session["idToken"]})["users"][0]
    assert user["email"] == "ada@example.com" and "displayName" not in user
    assert auth.refresh(session["refreshToken"]).status_code == 200


def test_a_refused_sign_up_creates_no_account(auth):
    assert_auth_error(auth.call("signUp", {"email": "ada@example.com", "password": "short"}),
                      "WEAK_PASSWORD : Password should be at least 6 characters")
    response = auth.http.post(f"{auth.base}{IDENTITY}/accounts:signUp", json={"email": "ada@example.com",
                              "emailVerified": "not a bool"}, headers={"Authorization": "Bearer owner"})
    assert response.status_code == 400, response.text
    assert_auth_error(auth.sign_in("ada@example.com"), "EMAIL_NOT_FOUND")
    listed = auth.http.get(f"{auth.base}{IDENTITY}/projects/demo-project/accounts:batchGet",
                           headers={"Authorization": "Bearer owner"}).json()
    assert listed["users"] == []


def test_legacy_v3_routes(auth):
    """The relyingparty names embedded clients (Firebase-ESP-Client) still call, as firebase-tools maps them."""
    def legacy(name: str, body: dict) -> dict:
        response = auth.http.post(f"{auth.base}/www.googleapis.com/identitytoolkit/v3/relyingparty/{name}",
                                  params=KEY, json=body)
        assert response.status_code == 200, response.text
        return response.json()
    created = legacy("signupNewUser", {"email": "ada@example.com", "password": "secret-1", "returnSecureToken": True})
    signed_in = legacy("verifyPassword", {"email": "ada@example.com", "password": "secret-1"})
    assert signed_in["localId"] == created["localId"]
    assert legacy("getAccountInfo", {"idToken": signed_in["idToken"]})["users"][0]["email"] == "ada@example.com"
    assert legacy("setAccountInfo", {"idToken": signed_in["idToken"], "displayName": "Ada"})["displayName"] == "Ada"
    custom = legacy("verifyCustomToken", {"token": '{"uid": "device-1"}'})
    assert claims_of(custom["idToken"])["user_id"] == "device-1"
    legacy("deleteAccount", {"idToken": custom["idToken"]})
    assert_auth_error(auth.http.post(f"{auth.base}/www.googleapis.com/identitytoolkit/v3/relyingparty/signOutUser",
                                     params=KEY, json={}), "Not Found", 404)


FIELDS = ("email", "password", "idToken", "token", "localId", "localIds", "displayName", "photoUrl", "customAttributes",
          "deleteAttribute", "deleteProvider", "validSince", "disableUser", "emailVerified", "phoneNumber", "disabled",
          "refreshToken", "grantType", "force", "targetProjectId")
ODD_VALUES = (-1, 1e300, True, None, "", ["x"], {"a": 1}, "\ud800")


def test_no_field_value_makes_a_server_error(auth_emulator):
    """Every route, every field, values of every JSON type: a 2xx or a 4xx with a JSON error."""
    client = AuthClient(auth_emulator.auth_base)
    routes = [(f"{IDENTITY}/accounts:{name}", {"params": KEY}) for name in
              ("signUp", "signInWithPassword", "signInWithCustomToken", "lookup", "update", "delete")]
    routes += [(f"{IDENTITY}/accounts:{name}", {"headers": {"Authorization": "Bearer owner"}}) for name in
               ("signUp", "lookup", "update", "delete")]
    routes += [(f"{IDENTITY}/projects/demo-project/accounts{suffix}", {"headers": {"Authorization": "Bearer owner"}})
               for suffix in ("", ":lookup", ":update", ":delete", ":batchDelete")]
    routes += [(SECURE_TOKEN, {"params": KEY})]
    for path, extra in routes:
        auth_emulator.reset()  # a fresh user per route: a delete must not spoil the next calls
        session = client.sign_up("ada@example.com")
        for field in FIELDS:
            for value in ODD_VALUES:
                body = {"idToken": session["idToken"], "localId": session["localId"], field: value}
                response = client.http.post(auth_emulator.auth_base + path, json=body, **extra)
                assert response.status_code < 500, (path, field, value, response.text)
                if response.status_code >= 400:
                    assert response.json()["error"]["message"], (path, field, value)
    client.http.close()


def test_identity_toolkit_answers_carry_production_headers_in_the_production_flavor(emu):
    """Production's (errors--authorization.json's sign-ups); the firebase-tools flavor keeps aiohttp's."""
    response = requests.post(emu.url(IDENTITY + "/accounts:signUp"), params=KEY, json={},
                             headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200 and response.json()["kind"] == "identitytoolkit#SignupNewUserResponse"
    recorded = {"Cache-Control": "no-cache, no-store, max-age=0, must-revalidate", "Content-Encoding": "gzip",
                "Content-Type": "application/json; charset=UTF-8", "Expires": "Mon, 01 Jan 1990 00:00:00 GMT",
                "Pragma": "no-cache", "Vary": "Origin, X-Origin, Referer", "X-Content-Type-Options": "nosniff",
                "X-Frame-Options": "SAMEORIGIN", "X-XSS-Protection": "0"}
    if emu.production:
        assert {name: response.headers.get(name) for name in recorded} == recorded
    else:
        assert response.headers["Content-Type"] == "application/json; charset=utf-8"
        assert not {"Content-Encoding", "X-Frame-Options", "Pragma"} & set(response.headers)
    plain = requests.post(emu.url(IDENTITY + "/accounts:signUp"), params=KEY, json={},
                          headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in plain.headers and plain.json()["localId"]
