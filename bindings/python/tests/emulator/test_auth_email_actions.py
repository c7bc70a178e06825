"""The Auth emulator's email flows over real HTTP, in both flavors: linking email/password to an
anonymous user, verification codes read from the emulator's oobCodes route and applied, password
reset, email-link sign-in, email change, createAuthUri, the sign-in config route, and their errors.
A verified email reaches the ID token, and storage rules see it."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from auth_helpers import ADMIN, AuthClient, assert_auth_error, claims_of
from conftest import wait_until

PROJECT = "demo-project"
RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /verified/{file=**} { allow write: if request.auth.token.email_verified == true; }
  }
}
"""


@pytest.fixture
def auth(emu):
    client = AuthClient(emu.auth_base)
    yield client
    client.http.close()


def pending_codes(base: str, project: str = PROJECT) -> list[dict]:
    response = requests.get(f"{base}/emulator/v1/projects/{project}/oobCodes", timeout=10)
    assert response.status_code == 200, response.text
    assert set(response.json()) == {"oobCodes"}
    return response.json()["oobCodes"]


def only_code(base: str, request_type: str, email: str) -> dict:
    codes = [code for code in pending_codes(base) if code["requestType"] == request_type and code["email"] == email]
    assert len(codes) == 1, codes
    return codes[0]


def link_email(auth: AuthClient, id_token: str, email: str = "ada@example.com") -> dict:
    return auth.ok("update", {"idToken": id_token, "email": email, "password": "secret-1", "returnSecureToken": True})


def test_anonymous_user_links_email_verifies_it_and_rules_see_it(emu, auth):
    assert emu.http.put(emu.url("/_emulator/rules"), data=RULES).status_code == 204
    anonymous = auth.anonymous()
    uid = anonymous["localId"]
    linked = link_email(auth, anonymous["idToken"])
    assert linked["localId"] == uid and linked["emailVerified"] is False
    claims = claims_of(linked["idToken"])
    assert claims["user_id"] == uid and claims["email_verified"] is False
    assert claims["firebase"] == {"identities": {"email": ["ada@example.com"]}, "sign_in_provider": "password"}
    headers = {"Authorization": f"Firebase {linked['idToken']}"}
    assert emu.upload("verified/a", b"x", headers=headers).status_code == 403

    sent = auth.ok("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": linked["idToken"]})
    assert sent == {"kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": "ada@example.com"}
    code = only_code(emu.auth_base, "VERIFY_EMAIL", "ada@example.com")
    assert set(code) == {"email", "oobCode", "oobLink", "requestType"} and len(code["oobCode"]) == 54
    link = urlsplit(code["oobLink"])
    assert f"{link.scheme}://{link.netloc}" == emu.auth_base and link.path == "/emulator/action"
    assert parse_qs(link.query) == {"mode": ["verifyEmail"], "lang": ["en"], "oobCode": [code["oobCode"]],
                                    "apiKey": ["fake-api-key"]}

    applied = auth.ok("update", {"oobCode": code["oobCode"]})
    assert applied["localId"] == uid and applied["emailVerified"] is True and applied["email"] == "ada@example.com"
    assert pending_codes(emu.auth_base) == []
    assert_auth_error(auth.call("update", {"oobCode": code["oobCode"]}), "INVALID_OOB_CODE")  # used once only

    fresh = auth.refresh(linked["refreshToken"]).json()["id_token"]
    assert claims_of(fresh)["email_verified"] is True and claims_of(fresh)["user_id"] == uid
    assert emu.upload("verified/a", b"x", headers={"Authorization": f"Firebase {fresh}"}).status_code == 200


def test_password_reset(emu, auth):
    created = auth.sign_up("bob@example.com", "old-secret")
    assert auth.ok("sendOobCode", {"requestType": "PASSWORD_RESET", "email": "Bob@Example.com"})["email"] == \
        "bob@example.com"
    code = only_code(emu.auth_base, "PASSWORD_RESET", "bob@example.com")
    assert parse_qs(urlsplit(code["oobLink"]).query)["mode"] == ["resetPassword"]
    # Without a new password the code is only read (checkActionCode), not used.
    checked = auth.ok("resetPassword", {"oobCode": code["oobCode"]})
    assert checked == {"kind": "identitytoolkit#ResetPasswordResponse", "requestType": "PASSWORD_RESET",
                       "email": "bob@example.com"}
    assert_auth_error(auth.call("resetPassword", {"oobCode": code["oobCode"], "newPassword": "12345"}),
                      "WEAK_PASSWORD : Password should be at least 6 characters")
    assert_auth_error(auth.call("update", {"oobCode": code["oobCode"]}), "INVALID_OOB_CODE")
    reset = auth.ok("resetPassword", {"oobCode": code["oobCode"], "newPassword": "new-secret"})
    assert reset["requestType"] == "PASSWORD_RESET" and reset["email"] == "bob@example.com"
    assert_auth_error(auth.sign_in("bob@example.com", "old-secret"), "INVALID_PASSWORD")
    signed_in = auth.sign_in("bob@example.com", "new-secret").json()
    assert signed_in["localId"] == created["localId"] and claims_of(signed_in["idToken"])["email_verified"] is True
    assert_auth_error(auth.refresh(created["refreshToken"]), "TOKEN_EXPIRED")  # the old sessions end
    assert_auth_error(auth.call("resetPassword", {"oobCode": code["oobCode"], "newPassword": "other-1"}),
                      "INVALID_OOB_CODE")


def test_email_link_sign_in_creates_then_signs_in_the_user(emu, auth):
    sent = auth.ok("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "cy@example.com",
                                   "continueUrl": "https://app.example.com/done"})
    assert sent["email"] == "cy@example.com"
    code = only_code(emu.auth_base, "EMAIL_SIGNIN", "cy@example.com")
    query = parse_qs(urlsplit(code["oobLink"]).query)
    assert query["mode"] == ["signIn"] and query["continueUrl"] == ["https://app.example.com/done"]
    # Inspecting an email sign-in code does not reveal its email.
    assert auth.ok("resetPassword", {"oobCode": code["oobCode"]}) == {
        "kind": "identitytoolkit#ResetPasswordResponse", "requestType": "EMAIL_SIGNIN"}
    assert_auth_error(auth.call("signInWithEmailLink", {"email": "other@example.com", "oobCode": code["oobCode"]}),
                      "INVALID_EMAIL : The email provided does not match the sign-in email address.")
    first = auth.ok("signInWithEmailLink", {"email": "CY@example.com", "oobCode": code["oobCode"]})
    assert first["isNewUser"] is True and first["email"] == "cy@example.com"
    claims = claims_of(first["idToken"])
    assert claims["email_verified"] is True and claims["firebase"]["sign_in_provider"] == "password"
    assert_auth_error(auth.call("signInWithEmailLink", {"email": "cy@example.com", "oobCode": code["oobCode"]}),
                      "INVALID_OOB_CODE")

    auth.ok("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "cy@example.com"})
    again = auth.ok("signInWithEmailLink", {"email": "cy@example.com",
                                            "oobCode": only_code(emu.auth_base, "EMAIL_SIGNIN", "cy@example.com")["oobCode"]})
    assert again["isNewUser"] is False and again["localId"] == first["localId"]
    looked_up = auth.ok("lookup", {"idToken": again["idToken"]})["users"][0]
    assert [provider["providerId"] for provider in looked_up["providerUserInfo"]] == ["password"]
    assert "passwordHash" not in looked_up  # a link, no password


def test_email_link_links_to_an_anonymous_user(emu, auth):
    anonymous = auth.anonymous()
    auth.ok("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "dee@example.com"})
    code = only_code(emu.auth_base, "EMAIL_SIGNIN", "dee@example.com")["oobCode"]
    linked = auth.ok("signInWithEmailLink", {"email": "dee@example.com", "oobCode": code,
                                             "idToken": anonymous["idToken"]})
    assert linked["localId"] == anonymous["localId"] and linked["isNewUser"] is False
    # An email another user has cannot be linked.
    auth.sign_up("taken@example.com")
    other = auth.anonymous()
    auth.ok("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "taken@example.com"})
    code = only_code(emu.auth_base, "EMAIL_SIGNIN", "taken@example.com")["oobCode"]
    assert_auth_error(auth.call("signInWithEmailLink", {"email": "taken@example.com", "oobCode": code,
                                                        "idToken": other["idToken"]}), "EMAIL_EXISTS")


def test_verify_and_change_email(emu, auth):
    user = auth.sign_up("old@example.com")
    auth.sign_up("busy@example.com")
    assert_auth_error(auth.call("sendOobCode", {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"],
                                                "newEmail": "busy@example.com"}), "EMAIL_EXISTS")
    assert_auth_error(auth.call("sendOobCode", {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"]}),
                      "MISSING_NEW_EMAIL")
    auth.ok("sendOobCode", {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"],
                            "newEmail": "new@example.com"})
    code = only_code(emu.auth_base, "VERIFY_AND_CHANGE_EMAIL", "old@example.com")
    assert code["newEmail"] == "new@example.com"
    assert parse_qs(urlsplit(code["oobLink"]).query)["mode"] == ["verifyAndChangeEmail"]
    assert auth.ok("resetPassword", {"oobCode": code["oobCode"]})["newEmail"] == "new@example.com"
    changed = auth.ok("update", {"oobCode": code["oobCode"]})
    assert changed["email"] == "new@example.com" and changed["newEmail"] == "new@example.com"
    assert changed["emailVerified"] is True and changed["localId"] == user["localId"]
    assert auth.sign_in("new@example.com").status_code == 200
    assert_auth_error(auth.sign_in("old@example.com"), "EMAIL_NOT_FOUND")


def test_admin_asks_for_links(emu, auth):
    auth.sign_up("eve@example.com")
    admin_call = f"{emu.auth_base}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:sendOobCode"
    answer = requests.post(admin_call, headers=ADMIN, timeout=10,
                           json={"requestType": "VERIFY_EMAIL", "email": "eve@example.com", "returnOobLink": True})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["oobLink"] == only_code(emu.auth_base, "VERIFY_EMAIL", "eve@example.com")["oobLink"]
    assert body["oobCode"] in body["oobLink"]
    assert_auth_error(auth.call("sendOobCode", {"requestType": "VERIFY_EMAIL", "email": "eve@example.com",
                                                "returnOobLink": True}), "INSUFFICIENT_PERMISSION")


@pytest.mark.parametrize("body, message", [
    ({}, "MISSING_REQ_TYPE"),
    ({"requestType": "PASSWORD_RESET"}, "MISSING_EMAIL"),
    ({"requestType": "PASSWORD_RESET", "email": "nobody@example.com"}, "EMAIL_NOT_FOUND"),
    ({"requestType": "EMAIL_SIGNIN", "email": "not-an-email"}, "INVALID_EMAIL"),
    ({"requestType": "VERIFY_EMAIL"}, "MISSING_ID_TOKEN"),
    ({"requestType": "VERIFY_EMAIL", "idToken": "junk"}, "INVALID_ID_TOKEN"),
    ({"requestType": "EMAIL_SIGNIN", "email": "a@example.com", "continueUrl": "not/absolute"},
     "INVALID_CONTINUE_URI : ((expected an absolute URI with valid scheme and host))"),
])
def test_send_oob_code_errors(emu, auth, body, message):
    assert_auth_error(auth.call("sendOobCode", body), message)
    assert pending_codes(emu.auth_base) == []


def test_verify_email_needs_an_email(emu, auth):
    anonymous = auth.anonymous()
    assert_auth_error(auth.call("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": anonymous["idToken"]}),
                      "MISSING_EMAIL")


@pytest.mark.parametrize("operation, body", [
    ("update", {"oobCode": "no-such-code"}),
    ("resetPassword", {"oobCode": "no-such-code", "newPassword": "secret-2"}),
    ("signInWithEmailLink", {"oobCode": "no-such-code", "email": "a@example.com"}),
])
def test_unknown_codes_are_invalid(auth, operation, body):
    assert_auth_error(auth.call(operation, body), "INVALID_OOB_CODE")


def test_codes_of_the_wrong_kind_are_invalid(emu, auth):
    user = auth.sign_up("fay@example.com")
    auth.ok("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]})
    verify = only_code(emu.auth_base, "VERIFY_EMAIL", "fay@example.com")["oobCode"]
    assert_auth_error(auth.call("resetPassword", {"oobCode": verify, "newPassword": "secret-2"}), "INVALID_OOB_CODE")
    assert_auth_error(auth.call("signInWithEmailLink", {"oobCode": verify, "email": "fay@example.com"}),
                      "INVALID_OOB_CODE")
    assert_auth_error(auth.call("resetPassword", {}), "MISSING_OOB_CODE")
    assert auth.ok("update", {"oobCode": verify})["emailVerified"] is True  # still good for its own purpose


def test_expired_codes(start_emulator):
    emulator = start_emulator("--auth-oob-code-lifetime", "1")
    auth = AuthClient(emulator.auth_base)
    user = auth.sign_up("gus@example.com")
    auth.ok("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]})
    code = only_code(emulator.auth_base, "VERIFY_EMAIL", "gus@example.com")["oobCode"]
    wait_until(lambda: pending_codes(emulator.auth_base) == [])  # an expired code is no longer pending
    assert_auth_error(auth.call("update", {"oobCode": code}), "EXPIRED_OOB_CODE")
    auth.http.close()


def test_create_auth_uri(emu, auth):
    auth.sign_up("hal@example.com")
    known = auth.ok("createAuthUri", {"identifier": "HAL@example.com", "continueUri": "http://localhost/"})
    assert known["registered"] is True and known["allProviders"] == ["password"]
    assert known["signinMethods"] == ["password"] and len(known["sessionId"]) == 27
    unknown = auth.ok("createAuthUri", {"identifier": "nobody@example.com", "continueUri": "http://localhost/"})
    assert unknown["registered"] is False and unknown["allProviders"] == [] and unknown["signinMethods"] == []
    assert_auth_error(auth.call("createAuthUri", {"continueUri": "http://localhost/"}), "MISSING_IDENTIFIER")
    assert_auth_error(auth.call("createAuthUri", {"identifier": "hal@example.com"}), "MISSING_CONTINUE_URI")
    assert_auth_error(auth.call("createAuthUri", {"identifier": "hal", "continueUri": "http://localhost/"}),
                      "INVALID_IDENTIFIER")
    assert_auth_error(auth.call("createAuthUri", {"identifier": "hal@example.com", "continueUri": "relative"}),
                      "INVALID_CONTINUE_URI")


def test_config_route_and_email_privacy(emu, auth):
    config_url = f"{emu.auth_base}/emulator/v1/projects/{PROJECT}/config"
    assert requests.get(config_url, timeout=10).json() == {
        "signIn": {"allowDuplicateEmails": False}, "emailPrivacyConfig": {"enableImprovedEmailPrivacy": False}}
    changed = requests.patch(config_url, json={"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}, timeout=10)
    assert changed.status_code == 200 and changed.json()["emailPrivacyConfig"] == {"enableImprovedEmailPrivacy": True}
    assert changed.json()["signIn"] == {"allowDuplicateEmails": False}
    auth.sign_up("ivy@example.com")
    assert_auth_error(auth.sign_in("nobody@example.com"), "INVALID_LOGIN_CREDENTIALS")
    assert_auth_error(auth.sign_in("ivy@example.com", "wrong-password"), "INVALID_LOGIN_CREDENTIALS")
    # A reset for an unknown email looks like any other; no code is made.
    assert auth.ok("sendOobCode", {"requestType": "PASSWORD_RESET", "email": "nobody@example.com"})["email"] == \
        "nobody@example.com"
    assert pending_codes(emu.auth_base) == []
    assert set(auth.ok("createAuthUri", {"identifier": "ivy@example.com", "continueUri": "http://localhost/"})) == {
        "kind", "sessionId"}
    bad = requests.patch(config_url, json={"signIn": {"allowDuplicateEmails": "yes"}}, timeout=10)
    assert_auth_error(bad, "Invalid JSON payload received. Invalid value at 'signIn.allowDuplicateEmails' (TYPE_BOOL).")
    assert requests.get(config_url, timeout=10).json()["signIn"] == {"allowDuplicateEmails": False}


def test_unlinking_the_password_provider(emu, auth):
    user = auth.sign_up("jo@example.com")
    changed = auth.ok("update", {"idToken": user["idToken"], "deleteProvider": ["password"]})
    assert changed["providerUserInfo"] == [] and "email" not in changed


def open_link(link: str, **extra) -> requests.Response:
    """What a user's click does (any HTTP client will do, as with firebase-tools)."""
    return requests.get(link, params=extra or None, allow_redirects=False, timeout=10)


def test_opening_a_verification_link(emu, auth):
    user = auth.sign_up("kim@example.com")
    auth.ok("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]})
    link = only_code(emu.auth_base, "VERIFY_EMAIL", "kim@example.com")["oobLink"]
    opened = open_link(link)
    assert opened.status_code == 200 and opened.json() == {
        "authEmulator": {"success": "The email has been successfully verified.", "email": "kim@example.com"}}
    assert auth.ok("lookup", {"idToken": user["idToken"]})["users"][0]["emailVerified"] is True
    again = open_link(link)
    assert again.status_code == 400 and again.json()["authEmulator"] == {
        "error": "Your request to verify your email has expired or the link has already been used.",
        "instructions": "Try verifying your email again."}


def test_a_link_goes_on_to_its_own_continue_url_only(emu, auth):
    user = auth.sign_up("lou@example.com")
    auth.ok("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": user["idToken"],
                            "continueUrl": "https://app.example.com/verified"})
    link = only_code(emu.auth_base, "VERIFY_EMAIL", "lou@example.com")["oobLink"]
    forged = link.replace("app.example.com", "evil.example.net")
    opened = open_link(forged)
    assert opened.status_code == 303 and opened.headers["Location"] == "https://app.example.com/verified"


def test_opening_a_password_reset_link(emu, auth):
    auth.sign_up("max@example.com")
    auth.ok("sendOobCode", {"requestType": "PASSWORD_RESET", "email": "max@example.com"})
    link = only_code(emu.auth_base, "PASSWORD_RESET", "max@example.com")["oobLink"]
    asked = open_link(link)
    assert asked.status_code == 400 and asked.json()["authEmulator"]["error"] == "missing newPassword query parameter"
    assert asked.json()["authEmulator"]["urlTemplate"] == link + "&newPassword=NEW_PASSWORD_HERE"
    placeholder = open_link(link, newPassword="NEW_PASSWORD_HERE")
    assert placeholder.json()["authEmulator"]["error"] == "newPassword must be something other than 'NEW_PASSWORD_HERE'"
    assert open_link(link, newPassword="123").json()["authEmulator"]["error"] == \
        "WEAK_PASSWORD : Password should be at least 6 characters"
    done = open_link(link, newPassword="fresh-secret")
    assert done.status_code == 200 and done.json()["authEmulator"] == {
        "success": "The password has been successfully updated.", "email": "max@example.com"}
    assert auth.sign_in("max@example.com", "fresh-secret").status_code == 200


def test_opening_an_email_sign_in_link_hands_the_code_to_the_app(emu, auth):
    auth.ok("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "ned@example.com",
                            "continueUrl": "https://app.example.com/finish?step=2"})
    code = only_code(emu.auth_base, "EMAIL_SIGNIN", "ned@example.com")
    opened = open_link(code["oobLink"])
    assert opened.status_code == 303
    location = urlsplit(opened.headers["Location"])
    assert (location.netloc, location.path) == ("app.example.com", "/finish")
    query = parse_qs(location.query)
    assert query["step"] == ["2"] and query["mode"] == ["signIn"] and query["oobCode"] == [code["oobCode"]]
    assert auth.ok("signInWithEmailLink", {"email": "ned@example.com", "oobCode": query["oobCode"][0]})["isNewUser"]


def test_action_link_errors(emu, auth):
    user = auth.sign_up("oz@example.com")
    auth.ok("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]})
    link = only_code(emu.auth_base, "VERIFY_EMAIL", "oz@example.com")["oobLink"]
    wrong_mode = open_link(link.replace("mode=verifyEmail", "mode=resetPassword"))
    assert wrong_mode.status_code == 400
    assert wrong_mode.json()["authEmulator"]["error"] == "Requested mode does not match the OOB code provided."
    assert open_link(link.replace("mode=verifyEmail", "mode=dance")).json() == {"authEmulator": {"error": "Invalid mode"}}
    no_key = open_link(link.replace("apiKey=fake-api-key", "apiKey="))
    assert no_key.status_code == 400 and no_key.json()["authEmulator"]["error"] == "missing apiKey query parameter"
    # A sign-in link without a continueUrl has nowhere to go.
    auth.ok("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "oz@example.com"})
    sign_in = only_code(emu.auth_base, "EMAIL_SIGNIN", "oz@example.com")["oobLink"]
    assert open_link(sign_in).status_code == 400
    assert auth.ok("lookup", {"idToken": user["idToken"]})["users"][0]["emailVerified"] is False
