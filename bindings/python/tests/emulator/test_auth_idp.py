"""accounts:signInWithIdp with the official Auth emulator's fake identity-provider tokens (an
unsigned JWT or a JSON object with sub, email, email_verified, name, picture), over real HTTP in
both flavors: new and returning users, linking to the signed-in user, unlinking, the errors
Identity Toolkit answers, and what ID tokens and storage rules see."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest

from auth_helpers import AuthClient, assert_auth_error, claims_of, unsigned_jwt

GOOGLE_ALICE = {"sub": "google-alice", "email": "alice@gmail.com", "email_verified": True, "name": "Alice",
                "picture": "https://example.com/alice.png"}
RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /google/{file=**} {
      allow write: if request.auth.token.firebase.sign_in_provider == 'google.com'
                   && request.auth.token.firebase.identities['google.com'][0] == 'google-alice';
    }
  }
}
"""


@pytest.fixture
def auth(emu):
    client = AuthClient(emu.auth_base)
    yield client
    client.http.close()


def idp(auth: AuthClient, claims: dict | str, *, id_token: str | None = None, as_jwt: bool = True,
        provider: str = "google.com"):
    """The request the SDKs send for a Google credential (the IdP token in postBody)."""
    token = claims if isinstance(claims, str) else unsigned_jwt(claims) if as_jwt else json.dumps(claims)
    body = {"requestUri": "http://localhost", "postBody": urlencode({"id_token": token, "providerId": provider}),
            "returnSecureToken": True, "returnIdpCredential": True}
    if id_token:
        body["idToken"] = id_token
    return auth.call("signInWithIdp", body)


def ok(response) -> dict:
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("as_jwt", (True, False), ids=("jwt", "json"))
def test_new_user_then_returning_user(emu, auth, as_jwt):
    assert emu.http.put(emu.url("/_emulator/rules"), data=RULES).status_code == 204
    first = ok(idp(auth, GOOGLE_ALICE, as_jwt=as_jwt))
    assert first["isNewUser"] is True and first["providerId"] == "google.com"
    assert first["federatedId"] == "https://accounts.google.com/google-alice"
    assert first["email"] == "alice@gmail.com" and first["emailVerified"] is True and first["displayName"] == "Alice"
    assert first["oauthAccessToken"] == "FirebaseAuthEmulatorFakeAccessToken_google.com"
    claims = claims_of(first["idToken"])
    assert claims["user_id"] == first["localId"] and claims["email_verified"] is True
    assert claims["name"] == "Alice" and claims["picture"] == GOOGLE_ALICE["picture"]
    assert claims["firebase"] == {"identities": {"email": ["alice@gmail.com"], "google.com": ["google-alice"]},
                                  "sign_in_provider": "google.com"}
    assert emu.upload("google/a", b"x", headers={"Authorization": f"Firebase {first['idToken']}"}).status_code == 200

    again = ok(idp(auth, GOOGLE_ALICE, as_jwt=as_jwt))
    assert again["isNewUser"] is False and again["localId"] == first["localId"]
    user = auth.ok("lookup", {"idToken": again["idToken"]})["users"][0]
    assert user["providerUserInfo"] == [{"providerId": "google.com", "rawId": "google-alice",
                                         "federatedId": "google-alice", "email": "alice@gmail.com",
                                         "displayName": "Alice", "photoUrl": GOOGLE_ALICE["picture"]}]


def test_the_idp_token_may_travel_in_the_request_uri(auth):
    token = unsigned_jwt({"sub": "fb-1"})
    answer = ok(auth.call("signInWithIdp", {"requestUri": f"http://localhost/#id_token={token}&providerId=facebook.com",
                                            "returnSecureToken": True}))
    assert answer["providerId"] == "facebook.com" and answer["federatedId"] == "fb-1" and answer["isNewUser"] is True
    assert "email" not in answer


def test_anonymous_user_links_google_and_keeps_its_uid(auth):
    anonymous = auth.anonymous()
    linked = ok(idp(auth, GOOGLE_ALICE, id_token=anonymous["idToken"]))
    assert linked["localId"] == anonymous["localId"] and linked["isNewUser"] is False
    claims = claims_of(linked["idToken"])
    assert claims["user_id"] == anonymous["localId"] and claims["email"] == "alice@gmail.com"
    assert claims["firebase"]["sign_in_provider"] == "google.com"
    # Signing in with Google later finds the same user.
    assert ok(idp(auth, GOOGLE_ALICE))["localId"] == anonymous["localId"]


def test_password_user_links_google(auth):
    user = auth.sign_up("alice@gmail.com")
    linked = ok(idp(auth, GOOGLE_ALICE, id_token=user["idToken"]))
    assert linked["localId"] == user["localId"] and linked["emailVerified"] is True  # Google vouches for it
    providers = [p["providerId"] for p in auth.ok("lookup", {"idToken": linked["idToken"]})["users"][0]["providerUserInfo"]]
    assert providers == ["password", "google.com"]
    unlinked = auth.ok("update", {"idToken": linked["idToken"], "deleteProvider": ["google.com"]})
    assert [p["providerId"] for p in unlinked["providerUserInfo"]] == ["password"]
    assert ok(idp(auth, GOOGLE_ALICE))["localId"] == user["localId"]  # the verified email still finds the user


def test_already_linked_identity_is_refused(auth):
    owner = ok(idp(auth, GOOGLE_ALICE))
    other = auth.anonymous()
    assert_auth_error(idp(auth, GOOGLE_ALICE, id_token=other["idToken"]), "FEDERATED_USER_ID_ALREADY_LINKED")
    assert_auth_error(idp(auth, GOOGLE_ALICE, id_token=owner["idToken"]), "FEDERATED_USER_ID_ALREADY_LINKED")


def test_linking_an_identity_whose_email_another_user_has(auth):
    auth.sign_up("alice@gmail.com")
    other = auth.anonymous()
    assert_auth_error(idp(auth, GOOGLE_ALICE, id_token=other["idToken"]), "EMAIL_EXISTS")


def test_an_unverified_idp_email_of_an_existing_user_needs_confirmation(auth):
    user = auth.sign_up("bob@example.com")
    answer = ok(idp(auth, {"sub": "gh-bob", "email": "bob@example.com"}, provider="github.com"))
    assert answer["needConfirmation"] is True and answer["localId"] == user["localId"]
    assert "idToken" not in answer


def test_a_verified_idp_email_takes_over_an_unverified_password_account(auth):
    squatter = auth.sign_up("alice@gmail.com")
    answer = ok(idp(auth, GOOGLE_ALICE))
    assert answer["localId"] == squatter["localId"] and answer["isNewUser"] is False
    assert_auth_error(auth.sign_in("alice@gmail.com"), "INVALID_PASSWORD")  # the unverified password is gone
    assert_auth_error(auth.refresh(squatter["refreshToken"]), "TOKEN_EXPIRED")


@pytest.mark.parametrize("body, message", [
    ({}, "MISSING_REQUEST_URI"),
    ({"requestUri": "not-absolute", "postBody": "id_token={}&providerId=google.com"}, "INVALID_REQUEST_URI"),
    ({"requestUri": "http://localhost", "postBody": 'id_token={"sub":"x"}'},
     "INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential: the providerId is missing"),
    ({"requestUri": "http://localhost", "postBody": 'id_token={"sub":"x"}&providerId=bad provider id'},
     "INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential: providerId=bad provider id"),
    ({"requestUri": "http://localhost", "postBody": 'id_token={"sub":"x"}&providerId=example.com'},
     "INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential: providerId=example.com"),
    ({"requestUri": "http://localhost", "postBody": "id_token={not json&providerId=google.com"},
     "INVALID_IDP_RESPONSE : Unable to parse id_token ((Auth Emulator failed to parse fake id_token as strict JSON.))"),
    ({"requestUri": "http://localhost", "postBody": 'id_token={"email":"a@b.c"}&providerId=google.com'},
     'INVALID_IDP_RESPONSE : Invalid Idp Response: id_token missing required fields. '
     '((Missing "sub" field. This field is required and must be a unique identifier.))'),
    ({"requestUri": "http://localhost", "postBody": 'id_token={"sub":7}&providerId=google.com'},
     'INVALID_IDP_RESPONSE : ((The "sub" field must be a string.))'),
    ({"requestUri": "http://localhost", "postBody": "id_token=garbage&providerId=google.com"},
     "INVALID_IDP_RESPONSE : ((Auth Emulator only accepts strict JSON or JWTs as fake id_tokens.))"),
])
def test_idp_errors(auth, body, message):
    assert_auth_error(auth.call("signInWithIdp", body), message)


def test_disabled_idp_user(auth):
    user = ok(idp(auth, GOOGLE_ALICE))
    assert auth.admin("demo-project", "update", {"localId": user["localId"], "disableUser": True}).status_code == 200
    assert_auth_error(idp(auth, GOOGLE_ALICE), "USER_DISABLED")


def test_create_auth_uri_lists_linked_providers(auth):
    ok(idp(auth, GOOGLE_ALICE))
    answer = auth.ok("createAuthUri", {"identifier": "alice@gmail.com", "continueUri": "http://localhost/"})
    assert answer["registered"] is True and answer["allProviders"] == answer["signinMethods"] == ["google.com"]


def test_with_duplicate_emails_allowed_an_idp_user_is_a_new_account(emu, auth):
    config = f"{emu.auth_base}/emulator/v1/projects/demo-project/config"
    assert auth.http.patch(config, json={"signIn": {"allowDuplicateEmails": True}}).json()["signIn"] == \
        {"allowDuplicateEmails": True}
    password_user = auth.sign_up("alice@gmail.com")
    google_user = ok(idp(auth, GOOGLE_ALICE))
    assert google_user["isNewUser"] is True and google_user["localId"] != password_user["localId"]
    # The IdP's email stays on its identity; the account itself has none.
    looked_up = auth.ok("lookup", {"idToken": google_user["idToken"]})["users"][0]
    assert "email" not in looked_up and looked_up["providerUserInfo"][0]["email"] == "alice@gmail.com"
    answer = auth.ok("createAuthUri", {"identifier": "alice@gmail.com", "continueUri": "http://localhost/"})
    assert answer["allProviders"] == answer["signinMethods"] == ["password"]


def test_a_second_identity_of_a_provider_replaces_the_first(auth):
    """The SDKs refuse it themselves (provider-already-linked); the server, as firebase-tools',
    keeps one identity per provider."""
    user = auth.anonymous()
    ok(idp(auth, {"sub": "first"}, id_token=user["idToken"]))
    session = ok(idp(auth, {"sub": "first"}))
    replaced = ok(idp(auth, {"sub": "second"}, id_token=session["idToken"]))
    assert replaced["localId"] == user["localId"]
    assert claims_of(replaced["idToken"])["firebase"]["identities"] == {"google.com": ["second"]}
    assert ok(idp(auth, {"sub": "first"}))["isNewUser"] is True  # no longer anyone's


@pytest.mark.parametrize("provider", ("twitter.com", "apple.com", "oidc.corporate", "saml.partner"))
def test_built_in_and_project_providers_sign_in(auth, provider):
    answer = ok(idp(auth, {"sub": f"{provider}-bob"}, provider=provider))
    assert answer["providerId"] == provider and answer["isNewUser"] is True
    assert claims_of(answer["idToken"])["firebase"]["sign_in_provider"] == provider
