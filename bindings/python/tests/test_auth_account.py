"""The account lifecycle through fbstorage.Auth and fbstorage.aio.Auth against the bundled emulator,
over real HTTP: credentials (email and password, Google and other providers' fake IdP tokens),
linking an anonymous user (who keeps the uid and its files), unlinking, email verification read
from the emulator's oobCodes route and seen by storage rules, password reset, email and password
changes, reauthentication, and the error of each failure."""

from __future__ import annotations

import base64
import json
import time
from typing import TYPE_CHECKING, Any, Iterator

import pytest
import requests

import fbstorage
import fbstorage.aio
from conftest import eventually
from fbstorage import StorageError, StorageErrorCode
from test_auth import PASSWORD, PROJECT, Recorder, email, new_auth, one_flavor, raises_at_once

if TYPE_CHECKING:
    from fbstorage.testing import EmulatorServer

VERIFIED_ONLY_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{file=**} {
      allow read: if request.auth.uid == uid;
      allow write: if request.auth.uid == uid && request.auth.token.email_verified == true;
    }
    match /drafts/{uid}/{file=**} {
      allow read, write: if request.auth.uid == uid;
    }
  }
}
"""


@pytest.fixture
def auth(emulator: EmulatorServer) -> Iterator[fbstorage.Auth]:
    emulator.reset()
    with new_auth(emulator) as opened:
        yield opened


def pending_code(base_url: str, request_type: str, address: str) -> str:
    """The code the emulator 'mailed' (GET /emulator/v1/projects/{project}/oobCodes)."""
    response = requests.get(f"{base_url}/emulator/v1/projects/{PROJECT}/oobCodes", timeout=30)
    assert response.status_code == 200, response.text
    codes = [entry["oobCode"] for entry in response.json()["oobCodes"]
             if entry["requestType"] == request_type and address.lower() in (entry["email"], entry.get("newEmail"))]
    assert len(codes) == 1, response.text
    return str(codes[0])


def idp_token(claims: dict[str, Any], *, as_jwt: bool = True) -> str:
    """The official Auth emulator's fake IdP token: an unsigned JWT, or plain JSON."""
    if not as_jwt:
        return json.dumps(claims)

    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()
    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."


def google(name: str, *, verified: bool = True, address: str | None = None) -> fbstorage.AuthCredential:
    return fbstorage.GoogleAuthProvider.credential(id_token=idp_token(
        {"sub": f"google-{name}", "email": address or f"{name}@gmail.com", "email_verified": verified, "name": name}))


def identities(user: fbstorage.User) -> dict[str, Any]:
    return dict(user.claims["firebase"]["identities"])


# -- linking and email verification ---------------------------------------------------------
def test_anonymous_user_links_an_email_verifies_it_and_rules_see_it(auth: fbstorage.Auth, emulator) -> None:
    emulator.set_rules(VERIFIED_ONLY_RULES)
    tokens = Recorder()
    anonymous = auth.sign_in_anonymously()
    auth.add_id_token_listener(tokens)
    tokens.wait_for(1)
    with fbstorage.Storage("test-bucket", auth=auth) as storage:
        storage.use_emulator(emulator.host, emulator.port)
        draft = storage.reference(f"drafts/{anonymous.uid}/a.txt")
        assert draft.put_data(b"made anonymously").wait().size == 16

        address = email()
        linked = auth.link_with_credential(fbstorage.EmailAuthProvider.credential(address, PASSWORD))
        assert (linked.uid, linked.email, linked.is_anonymous) == (anonymous.uid, address, False)
        assert linked.sign_in_provider == "password" and linked.id_token != anonymous.id_token
        assert linked.email_verified is False and auth.current_user == linked
        assert linked.additional_user_info is None  # a password's link says nothing more, as the SDKs'
        assert tokens.wait_for(2)[-1] == linked  # the listener heard the new tokens
        assert draft.get_data() == b"made anonymously"  # the files stay the user's

        mine = storage.reference(f"users/{linked.uid}/b.txt")
        with pytest.raises(StorageError) as unverified:
            mine.put_data(b"x").wait()
        assert unverified.value.code == StorageErrorCode.UNAUTHORIZED

        auth.send_email_verification()
        auth.apply_action_code(pending_code(emulator.url, "VERIFY_EMAIL", address))
        assert auth.current_user.email_verified is False  # a snapshot until reload
        reloaded = auth.reload()
        assert reloaded.email_verified is True and reloaded.claims["email_verified"] is True
        assert reloaded.uid == anonymous.uid and auth.current_user == reloaded
        assert mine.put_data(b"verified").wait().size == 8

    again = new_auth(emulator)
    with again:
        assert again.sign_in_with_credential(fbstorage.EmailAuthProvider.credential(address, PASSWORD)).uid == anonymous.uid


@one_flavor
def test_action_code_errors(auth: fbstorage.Auth, emulator) -> None:
    user = auth.create_user(email(), PASSWORD)
    raises_at_once(fbstorage.InvalidActionCodeError, lambda: auth.apply_action_code("not-a-code"))
    auth.send_email_verification()
    code = pending_code(emulator.url, "VERIFY_EMAIL", user.email)
    auth.apply_action_code(code)
    used = raises_at_once(fbstorage.InvalidActionCodeError, lambda: auth.apply_action_code(code))
    assert used.code == StorageErrorCode.AUTH_INVALID_ACTION_CODE and code not in str(used)
    raises_at_once(fbstorage.InvalidActionCodeError, lambda: auth.verify_password_reset_code("not-a-code"))
    anonymous_auth = new_auth(emulator)
    with anonymous_auth:
        anonymous_auth.sign_in_anonymously()
        with pytest.raises(StorageError) as no_email:
            anonymous_auth.send_email_verification()
        assert no_email.value.code == StorageErrorCode.INVALID_ARGUMENT


def test_expired_codes_and_recent_login() -> None:
    from fbstorage.testing import run_emulator

    # A 4 s window: after reauthenticating (auth_time in whole seconds) the change that follows
    # has 3 s at least, however loaded the machine.
    with run_emulator("production", "--auth-oob-code-lifetime", "1", "--auth-recent-login", "4") as server:
        with new_auth(server) as auth:
            user = auth.create_user(email(), PASSWORD)
            auth.send_email_verification()
            code = pending_code(server.url, "VERIFY_EMAIL", user.email)
            codes_url = f"{server.url}/emulator/v1/projects/{PROJECT}/oobCodes"
            assert eventually(lambda: requests.get(codes_url, timeout=30).json()["oobCodes"] == [])
            raises_at_once(fbstorage.ExpiredActionCodeError, lambda: auth.apply_action_code(code))

            assert eventually(lambda: time.time() - user.auth_time.timestamp() > 5)
            stale = raises_at_once(fbstorage.RequiresRecentLoginError, lambda: auth.update_password("new " + PASSWORD))
            assert stale.code == StorageErrorCode.AUTH_REQUIRES_RECENT_LOGIN
            again = auth.reauthenticate(fbstorage.EmailAuthProvider.credential(user.email, PASSWORD))
            assert again.uid == user.uid and again.auth_time > user.auth_time
            assert again.additional_user_info == fbstorage.AdditionalUserInfo(
                provider_id="password", is_new_user=False, profile=None, username=None)
            assert auth.update_password("new " + PASSWORD).uid == user.uid


# -- password reset -------------------------------------------------------------------------
@one_flavor
def test_password_reset_through_the_mailed_code(auth: fbstorage.Auth, emulator) -> None:
    address = email()
    auth.create_user(address, PASSWORD)
    auth.sign_out()
    auth.send_password_reset_email(address)
    code = pending_code(emulator.url, "PASSWORD_RESET", address)
    assert auth.verify_password_reset_code(code) == address
    raises_at_once(fbstorage.WeakPasswordError, lambda: auth.confirm_password_reset(code, "short"))
    auth.confirm_password_reset(code, "a new " + PASSWORD)
    raises_at_once(fbstorage.InvalidActionCodeError, lambda: auth.confirm_password_reset(code, "another " + PASSWORD))
    raises_at_once(fbstorage.WrongPasswordError, lambda: auth.sign_in_with_email(address, PASSWORD))
    assert auth.sign_in_with_email(address, "a new " + PASSWORD).email_verified is True  # the mail reached them
    raises_at_once(fbstorage.UserNotFoundError, lambda: auth.send_password_reset_email(email()))
    raises_at_once(fbstorage.InvalidEmailError, lambda: auth.send_password_reset_email("not-an-email"))


# -- identity providers ---------------------------------------------------------------------
@one_flavor
@pytest.mark.parametrize("as_jwt", (True, False), ids=("jwt", "json"))
def test_google_sign_in_then_the_same_account(auth: fbstorage.Auth, as_jwt: bool) -> None:
    credential = fbstorage.GoogleAuthProvider.credential(id_token=idp_token(
        {"sub": "google-ann", "email": "ann@gmail.com", "email_verified": True, "name": "Ann"}, as_jwt=as_jwt))
    assert repr(credential) == "AuthCredential('google.com')"
    first = auth.sign_in_with_credential(credential)
    assert (first.sign_in_provider, first.email, first.email_verified, first.display_name) == \
        ("google.com", "ann@gmail.com", True, "Ann")
    assert identities(first)["google.com"] == ["google-ann"]
    auth.sign_out()
    assert auth.sign_in_with_credential(credential).uid == first.uid


@one_flavor
def test_anonymous_user_links_google_and_unlinks_it(auth: fbstorage.Auth, emulator) -> None:
    emulator.set_rules(VERIFIED_ONLY_RULES)
    anonymous = auth.sign_in_anonymously()
    with fbstorage.Storage("test-bucket", auth=auth) as storage:
        storage.use_emulator(emulator.host, emulator.port)
        draft = storage.reference(f"drafts/{anonymous.uid}/a.txt")
        draft.put_data(b"kept").wait()
        linked = auth.link_with_credential(google("bea"))
        assert (linked.uid, linked.email, linked.email_verified) == (anonymous.uid, "bea@gmail.com", True)
        assert identities(linked)["google.com"] == ["google-bea"]
        # A provider's link answers what the provider said, as a sign-in does.
        info = linked.additional_user_info
        assert (info.provider_id, info.is_new_user, info.profile["sub"]) == ("google.com", False, "google-bea")
        assert draft.get_data() == b"kept"
        storage.reference(f"users/{linked.uid}/b.txt").put_data(b"verified by Google").wait()

    raises_at_once(fbstorage.ProviderAlreadyLinkedError, lambda: auth.link_with_credential(google("bea")))
    other = new_auth(emulator)
    with other:
        other.sign_in_anonymously()
        in_use = raises_at_once(fbstorage.CredentialAlreadyInUseError, lambda: other.link_with_credential(google("bea")))
        assert in_use.code == StorageErrorCode.AUTH_CREDENTIAL_ALREADY_IN_USE

    unlinked = auth.unlink("google.com")
    assert unlinked.uid == anonymous.uid and "google.com" not in identities(unlinked)
    # The account keeps the verified email, which Google's token vouches for: it signs in again
    # (one account per email) and Google is linked anew.
    auth.sign_out()
    again = auth.sign_in_with_credential(google("bea"))
    assert again.uid == anonymous.uid and identities(again)["google.com"] == ["google-bea"]
    reauthenticated = auth.reauthenticate(google("bea")).additional_user_info
    assert (reauthenticated.provider_id, reauthenticated.is_new_user, reauthenticated.profile["name"]) == (
        "google.com", False, "bea")


@one_flavor
def test_provider_errors(auth: fbstorage.Auth) -> None:
    github = fbstorage.OAuthProvider.credential("github.com", access_token=idp_token({"sub": "gh-1"}, as_jwt=False))
    first = auth.sign_in_with_credential(github)
    assert first.sign_in_provider == "github.com"
    assert first.additional_user_info == fbstorage.AdditionalUserInfo(
        provider_id="github.com", is_new_user=True, profile={"sub": "gh-1"}, username=None)
    assert auth.current_user.additional_user_info is None and auth.current_user == first
    assert auth.sign_in_with_credential(github).additional_user_info.is_new_user is False
    junk = fbstorage.GoogleAuthProvider.credential(id_token="not a token")
    refused = raises_at_once(fbstorage.InvalidCredentialError, lambda: auth.sign_in_with_credential(junk))
    assert "not a token" not in str(refused) + (refused.server_response or "")

    address = email()
    created = auth.create_user(address, PASSWORD)  # unverified: Google must not take the account over silently
    assert (created.additional_user_info.is_new_user, created.additional_user_info.profile) == (True, None)
    exists = raises_at_once(fbstorage.AccountExistsWithDifferentCredentialError,
                            lambda: auth.sign_in_with_credential(google("cy", verified=False, address=address)))
    assert exists.code == StorageErrorCode.AUTH_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL
    assert auth.current_user.email == address  # a failed sign-in keeps the user

    mismatch = raises_at_once(fbstorage.UserMismatchError,
                              lambda: auth.reauthenticate(github))
    assert mismatch.code == StorageErrorCode.AUTH_USER_MISMATCH and auth.current_user.email == address
    wrong = raises_at_once(fbstorage.WrongPasswordError, lambda: auth.reauthenticate(
        fbstorage.EmailAuthProvider.credential(address, "not the " + PASSWORD)))
    assert "not the " + PASSWORD not in str(wrong) + (wrong.server_response or "")
    raises_at_once(fbstorage.ProviderAlreadyLinkedError,
                   lambda: auth.link_with_credential(fbstorage.EmailAuthProvider.credential(email(), PASSWORD)))

    twitter = fbstorage.TwitterAuthProvider.credential(idp_token({"sub": "tw-1"}, as_jwt=False), "token secret")
    assert auth.sign_in_with_credential(twitter).sign_in_provider == "twitter.com"
    # A provider Identity Toolkit does not know: the SDKs' internal error, the tokens left out.
    unknown = fbstorage.OAuthProvider.credential("bad provider id", id_token=idp_token({"sub": "x-1"}))
    refused = raises_at_once(StorageError, lambda: auth.sign_in_with_credential(unknown))
    assert refused.code == StorageErrorCode.UNKNOWN and "INVALID_CREDENTIAL_OR_PROVIDER_ID" in str(refused)
    assert "x-1" not in str(refused) and auth.current_user.sign_in_provider == "twitter.com"


@one_flavor
def test_an_unlinked_password_can_be_linked_again(auth: fbstorage.Auth) -> None:
    anonymous = auth.sign_in_anonymously()
    auth.link_with_credential(fbstorage.EmailAuthProvider.credential(email(), PASSWORD))
    raises_at_once(fbstorage.ProviderAlreadyLinkedError,
                   lambda: auth.link_with_credential(fbstorage.EmailAuthProvider.credential(email(), PASSWORD)))
    assert [p.provider_id for p in auth.unlink("password").provider_data] == []
    relinked = auth.link_with_credential(fbstorage.EmailAuthProvider.credential(second := email(), PASSWORD))
    assert (relinked.uid, relinked.email, [p.provider_id for p in relinked.provider_data]) == (anonymous.uid, second, ["password"])


@one_flavor
def test_email_and_password_changes(auth: fbstorage.Auth, emulator) -> None:
    user = auth.create_user(email(), PASSWORD)
    changed = auth.update_email(new := email())
    assert (changed.uid, changed.email) == (user.uid, new)
    assert auth.update_password("other " + PASSWORD).uid == user.uid
    raises_at_once(fbstorage.WeakPasswordError, lambda: auth.update_password("short"))
    auth.sign_out()
    assert auth.sign_in_with_email(new, "other " + PASSWORD).uid == user.uid

    later = email()
    auth.verify_before_update_email(later)
    auth.apply_action_code(pending_code(emulator.url, "VERIFY_AND_CHANGE_EMAIL", later))
    reloaded = auth.reload()
    assert (reloaded.email, reloaded.email_verified) == (later, True)


def test_bad_arguments_fail_at_once(emulator) -> None:
    for make in (lambda: fbstorage.EmailAuthProvider.credential("", PASSWORD),
                 lambda: fbstorage.EmailAuthProvider.credential("a@example.com", ""),
                 lambda: fbstorage.OAuthProvider.credential("github.com"),
                 lambda: fbstorage.OAuthProvider.credential("password", id_token="x"),
                 lambda: fbstorage.GoogleAuthProvider.credential(id_token=""),
                 lambda: fbstorage.OAuthProvider.credential("apple.com", access_token="x", raw_nonce="n"),
                 lambda: fbstorage.OAuthProvider.credential("github.com", id_token="x", secret="s"),
                 lambda: fbstorage.TwitterAuthProvider.credential("token", "")):
        with pytest.raises(StorageError) as raised:
            make()
        assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT
    with new_auth(emulator) as auth:
        with pytest.raises(TypeError):
            auth.sign_in_with_credential("a@example.com")  # type: ignore[arg-type]
        for call in (lambda: auth.link_with_credential(google("dee")), auth.reload, auth.send_email_verification,
                     lambda: auth.unlink("google.com"), lambda: auth.update_password(PASSWORD)):
            raises_at_once(fbstorage.NoUserError, call)
        with pytest.raises(StorageError) as empty:
            auth.apply_action_code("")
        assert empty.value.code == StorageErrorCode.INVALID_ARGUMENT


@one_flavor
@pytest.mark.asyncio
async def test_aio_link_verify_and_reset(emulator) -> None:
    emulator.reset()
    async with fbstorage.aio.Auth("test-api-key", PROJECT) as auth:
        auth.use_emulator(emulator.host, emulator.port)
        anonymous = await auth.sign_in_anonymously()
        address = email()
        linked = await auth.link_with_credential(fbstorage.EmailAuthProvider.credential(address, PASSWORD))
        assert linked.uid == anonymous.uid
        await auth.send_email_verification()
        await auth.apply_action_code(pending_code(emulator.url, "VERIFY_EMAIL", address))
        assert (await auth.reload()).email_verified is True
        await auth.send_password_reset_email(address)
        code = pending_code(emulator.url, "PASSWORD_RESET", address)
        assert await auth.verify_password_reset_code(code) == address
        await auth.confirm_password_reset(code, "reset " + PASSWORD)
        with pytest.raises(fbstorage.InvalidActionCodeError):
            await auth.apply_action_code("not-a-code")
        assert (await auth.sign_in_with_credential(
            fbstorage.EmailAuthProvider.credential(address, "reset " + PASSWORD))).uid == anonymous.uid
        assert (await auth.unlink("password")).uid == anonymous.uid
        assert await auth.fetch_sign_in_methods(address) == []  # its password is gone


@one_flavor
def test_fetch_sign_in_methods(auth: fbstorage.Auth, emulator) -> None:
    address = email()
    auth.create_user(address, PASSWORD)
    auth.link_with_credential(google("gus", address=address))
    assert sorted(auth.fetch_sign_in_methods(address)) == ["google.com", "password"]
    assert auth.fetch_sign_in_methods(email()) == []
    raises_at_once(fbstorage.InvalidEmailError, lambda: auth.fetch_sign_in_methods("not an email"))
    with pytest.raises(StorageError) as empty:
        auth.fetch_sign_in_methods("")
    assert empty.value.code == StorageErrorCode.INVALID_ARGUMENT
    # Email enumeration protection (the emulator's config route, as the console's switch): nothing.
    response = requests.patch(f"{emulator.url}/emulator/v1/projects/{PROJECT}/config", timeout=30,
                              json={"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}})
    assert response.status_code == 200, response.text
    assert auth.fetch_sign_in_methods(address) == []
