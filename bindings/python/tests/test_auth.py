"""fbstorage.Auth and fbstorage.aio.Auth against the bundled emulator's Auth routes (served on its
storage port), over real HTTP: every sign-in flow, listeners, persistence across processes, the
error of each failure, storages signed in as a user under owner-only rules (both flavors), and
firebase-admin minting custom tokens and verifying our ID tokens."""

from __future__ import annotations

import asyncio
import base64
import datetime
import json
import os
import stat
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

import firebase_admin
import pytest
import requests
from firebase_admin import auth as admin_auth
from firebase_admin import credentials as admin_credentials
from google.auth.credentials import AnonymousCredentials

import fbstorage
import fbstorage.aio
from conftest import header
from fbstorage import StorageError, StorageErrorCode
from fbstorage.testing import run_emulator

if TYPE_CHECKING:
    from fbstorage.testing import EmulatorServer

API_KEY = "test-api-key"
PROJECT = "demo-project"  # the emulator's default project
PASSWORD = "correct horse"
PACKAGE_PARENT = Path(fbstorage.__file__).resolve().parents[1]

#: Auth alone does not depend on the storage flavor: those tests run once.
one_flavor = pytest.mark.parametrize("emulator", ["production"], indirect=True)

OWNER_ONLY_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{file=**} {
      allow read, write: if request.auth.uid == uid;
    }
  }
}
"""


def new_auth(emulator: EmulatorServer, **keywords: Any) -> fbstorage.Auth:
    auth = fbstorage.Auth(API_KEY, PROJECT, **keywords)
    auth.use_emulator(emulator.host, emulator.port)
    return auth


@pytest.fixture
def auth(emulator: EmulatorServer) -> Iterator[fbstorage.Auth]:
    """An Auth on the emulator, reset first (its accounts too)."""
    emulator.reset()
    with new_auth(emulator) as opened:
        yield opened


def payload_of(token: str) -> dict[str, Any]:
    part = token.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))))


def email() -> str:
    return f"user-{uuid.uuid4().hex[:8]}@example.com"


def admin_update(emulator: EmulatorServer, fields: dict[str, Any]) -> None:
    """The emulator's admin route, as firebase-admin's update_user calls it."""
    response = requests.post(
        f"{emulator.url}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:update",
        json=fields, headers={"Authorization": "Bearer owner"}, timeout=30)
    assert response.status_code == 200, response.text


def raises_at_once(error_class: type[StorageError], action: Callable[[], object]) -> StorageError:
    """``action`` fails with ``error_class`` without retrying (well under a second here)."""
    started = time.monotonic()
    with pytest.raises(error_class) as raised:
        action()
    assert time.monotonic() - started < 5
    assert isinstance(raised.value, fbstorage.AuthError) or error_class is StorageError
    return raised.value


class Recorder:
    """A listener that records every user it is called with and lets a test wait for calls."""

    def __init__(self) -> None:
        self.calls: list[fbstorage.User | None] = []
        self._condition = threading.Condition()

    def __call__(self, user: fbstorage.User | None) -> None:
        with self._condition:
            self.calls.append(user)
            self._condition.notify_all()

    def wait_for(self, count: int, timeout: float = 30) -> list[fbstorage.User | None]:
        with self._condition:
            assert self._condition.wait_for(lambda: len(self.calls) >= count, timeout), self.calls
            return list(self.calls)

    @property
    def uids(self) -> list[str | None]:
        return [user.uid if user else None for user in self.calls]


# -- sign-in flows --------------------------------------------------------------------------
@one_flavor
def test_anonymous_sign_in_gives_a_user_with_its_token_and_claims(auth: fbstorage.Auth) -> None:
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    user = auth.sign_in_anonymously()
    assert user.uid and user.is_anonymous and user.email is None
    assert user.sign_in_provider == "anonymous"
    claims = payload_of(user.id_token)
    assert claims["user_id"] == claims["sub"] == user.uid and claims["aud"] == PROJECT
    assert user.claims == claims and user.claims["firebase"]["sign_in_provider"] == "anonymous"
    assert user.refresh_token
    assert user.issued_at is not None and user.issued_at >= before - datetime.timedelta(seconds=5)
    assert user.token_expiration == user.issued_at + datetime.timedelta(hours=1)
    assert user.token_expiration.tzinfo == datetime.timezone.utc
    assert auth.current_user == user and hash(auth.current_user) == hash(user)
    token = auth.get_id_token()
    assert payload_of(token)["user_id"] == user.uid
    assert payload_of(auth.get_id_token(force_refresh=True))["user_id"] == user.uid
    shown = repr(user)
    assert user.uid in shown and user.id_token not in shown and user.refresh_token not in shown
    assert "id_token" not in shown and "refresh_token" not in shown

    auth.sign_out()
    assert auth.current_user is None
    raises_at_once(fbstorage.NoUserError, auth.get_id_token)
    auth.sign_out()  # already signed out: nothing


@one_flavor
def test_email_accounts_and_the_error_of_each_failure(auth: fbstorage.Auth, emulator) -> None:
    address = email()
    created = auth.create_user(address, PASSWORD)
    assert (created.email, created.is_anonymous, created.sign_in_provider) == (address, False, "password")
    raises_at_once(fbstorage.EmailAlreadyInUseError, lambda: auth.create_user(address, PASSWORD))
    raises_at_once(fbstorage.WeakPasswordError, lambda: auth.create_user(email(), "12345"))
    raises_at_once(fbstorage.InvalidEmailError, lambda: auth.create_user("not an email", PASSWORD))
    assert auth.current_user.uid == created.uid  # a failed sign-in keeps the current user

    with new_auth(emulator) as other:
        assert other.current_user is None
        signed_in = other.sign_in_with_email(address, PASSWORD)
        assert signed_in.uid == created.uid and signed_in.email == address
        wrong = raises_at_once(fbstorage.WrongPasswordError,
                               lambda: other.sign_in_with_email(address, "wrong password"))
        assert wrong.code == StorageErrorCode.AUTH_WRONG_PASSWORD
        assert other.current_user.uid == created.uid
        raises_at_once(fbstorage.UserNotFoundError, lambda: other.sign_in_with_email(email(), PASSWORD))
        raises_at_once(fbstorage.InvalidCustomTokenError,
                       lambda: other.sign_in_with_custom_token("not-a-token"))
        raises_at_once(fbstorage.InvalidRefreshTokenError,
                       lambda: other.sign_in_with_refresh_token("not-a-refresh-token"))


@one_flavor
def test_disabled_user_fails_sign_in_refresh_and_restore(auth: fbstorage.Auth, emulator) -> None:
    address = email()
    user = auth.create_user(address, PASSWORD)
    admin_update(emulator, {"localId": user.uid, "disableUser": True})
    with new_auth(emulator) as other:
        raises_at_once(fbstorage.UserDisabledError, lambda: other.sign_in_with_email(address, PASSWORD))
        raises_at_once(fbstorage.UserDisabledError,
                       lambda: other.sign_in_with_refresh_token(user.refresh_token))
    raises_at_once(fbstorage.UserDisabledError, lambda: auth.get_id_token(force_refresh=True))
    assert auth.current_user is None  # the session ended


@one_flavor
def test_deleted_user_is_signed_out_and_gone(auth: fbstorage.Auth, emulator) -> None:
    address = email()
    user = auth.create_user(address, PASSWORD)
    auth.delete_user()
    assert auth.current_user is None
    raises_at_once(fbstorage.NoUserError, auth.delete_user)
    raises_at_once(fbstorage.UserNotFoundError, lambda: auth.sign_in_with_email(address, PASSWORD))
    raises_at_once(fbstorage.UserNotFoundError, lambda: auth.sign_in_with_refresh_token(user.refresh_token))


def test_update_profile_sets_keeps_and_deletes_fields(auth: fbstorage.Auth, admin_app) -> None:
    raises_at_once(fbstorage.NoUserError, lambda: auth.update_profile(display_name="Ada"))
    created = auth.create_user(email(), PASSWORD)
    updated = auth.update_profile(display_name="Ada Lovelace", photo_url="https://example.com/ada.png")
    assert (updated.uid, updated.display_name, updated.photo_url) == (created.uid, "Ada Lovelace",
                                                                      "https://example.com/ada.png")
    assert auth.current_user.display_name == "Ada Lovelace"
    # A field left out stays; None deletes; firebase-admin sees what the server keeps.
    auth.update_profile(photo_url=None)
    record = admin_auth.get_user(created.uid, app=admin_app)
    assert (record.display_name, record.photo_url) == ("Ada Lovelace", None)
    claims = payload_of(auth.get_id_token(force_refresh=True))
    assert claims["name"] == "Ada Lovelace" and "picture" not in claims
    assert auth.current_user.photo_url is None
    for bad in ("line\nbreak", "tab\there"):
        raises_at_once(StorageError, lambda: auth.update_profile(display_name=bad))
    with pytest.raises(TypeError):
        auth.update_profile(display_name=5)


def test_wrong_argument_types_raise_at_once() -> None:
    with pytest.raises(TypeError):
        fbstorage.Auth(123)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        fbstorage.Auth(API_KEY, project_id=7)  # type: ignore[arg-type]
    with pytest.raises(StorageError) as empty_key:
        fbstorage.Auth("")
    assert empty_key.value.code == StorageErrorCode.INVALID_ARGUMENT
    with fbstorage.Auth(API_KEY, PROJECT) as auth:
        auth.use_emulator("127.0.0.1", 1)  # nothing listens: any request would fail otherwise
        with pytest.raises(TypeError):
            auth.sign_in_with_email(None, PASSWORD)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            auth.create_user("a@example.com", b"password")  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            auth.sign_in_with_custom_token("a\0b")
        with pytest.raises(TypeError):
            auth.get_id_token(force_refresh=1)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            auth.use_emulator("127.0.0.1", 2**40)
        with pytest.raises(TypeError):
            auth.add_state_listener("not callable")  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            auth.set_persistence_file(3)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            fbstorage.Storage("b", auth="not an auth")  # type: ignore[arg-type]
        empty = raises_at_once(StorageError, lambda: auth.sign_in_with_email("", PASSWORD))
        assert empty.code == StorageErrorCode.INVALID_ARGUMENT
        with pytest.raises(StorageError) as unknown:
            auth.remove_listener(12345)
        assert unknown.value.code == StorageErrorCode.INVALID_ARGUMENT
    with pytest.raises(StorageError, match="closed"):
        auth.sign_in_anonymously()


# -- listeners ------------------------------------------------------------------------------
@one_flavor
def test_listeners_run_at_registration_and_on_every_change(auth: fbstorage.Auth) -> None:
    states, tokens = Recorder(), Recorder()
    state_handle = auth.add_state_listener(states)
    token_handle = auth.add_id_token_listener(tokens)
    assert states.wait_for(1) == [None] and tokens.wait_for(1) == [None]

    user = auth.sign_in_anonymously()
    assert states.wait_for(2)[1].uid == user.uid
    assert tokens.wait_for(2)[1].uid == user.uid
    refreshed = auth.get_id_token(force_refresh=True)
    assert tokens.wait_for(3)[2].id_token == refreshed  # a new ID token: the token listener only
    auth.sign_out()
    assert states.wait_for(3)[2] is None and tokens.wait_for(4)[3] is None
    assert states.uids == [None, user.uid, None]

    auth.remove_listener(state_handle)
    sentinel = Recorder()  # called after the removed listener would have been, on the same thread
    auth.add_state_listener(sentinel)
    sentinel.wait_for(1)
    second = auth.sign_in_anonymously()
    assert sentinel.wait_for(2)[1].uid == second.uid
    assert tokens.wait_for(5)[4].uid == second.uid
    assert states.uids == [None, user.uid, None]
    auth.remove_listener(token_handle)


@one_flavor
def test_a_listener_that_raises_is_reported_and_the_others_go_on(auth: fbstorage.Auth) -> None:
    def broken(user: fbstorage.User | None) -> None:
        raise RuntimeError("listener bug")

    after = Recorder()
    with pytest.warns(RuntimeWarning, match="listener bug"):
        handle = auth.add_state_listener(broken)
        auth.add_state_listener(after)
        user = auth.sign_in_anonymously()
        assert after.wait_for(2) == [None, auth.current_user] and after.calls[1].uid == user.uid
        auth.remove_listener(handle)


# -- persistence and sessions across processes ----------------------------------------------
def run_python(code: str, emulator: EmulatorServer, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``code`` in another Python process, told about the Auth emulator by the environment."""
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_PARENT),
           "FIREBASE_AUTH_EMULATOR_HOST": f"{emulator.host}:{emulator.port}"}
    return subprocess.run([sys.executable, "-c", code], input=stdin, env=env,
                          capture_output=True, text=True, timeout=120)


RESTORE = """
import sys, fbstorage
with fbstorage.Auth(sys.argv[1] if len(sys.argv) > 1 else "test-api-key", "demo-project",
                    persistence_file={path!r}) as auth:
    restored = auth.current_user
    token = auth.get_id_token()
    print(restored.uid, auth.current_user.sign_in_provider, token == auth.current_user.id_token)
"""


@one_flavor
def test_persistence_file_is_private_and_restores_the_user_in_another_process(
        auth: fbstorage.Auth, emulator, tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    auth.set_persistence_file(path)
    assert not path.exists()
    user = auth.create_user(email(), PASSWORD)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert user.id_token not in path.read_text()  # the refresh token and profile only
    assert [entry.name for entry in tmp_path.iterdir()] == ["session.json"]  # no temporary left

    restored = run_python(RESTORE.format(path=str(path)), emulator)
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout.split() == [user.uid, "password", "True"]

    auth.sign_out()
    assert not path.exists()


@one_flavor
def test_a_malformed_persistence_file_is_named(auth: fbstorage.Auth, tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_text("{not json")
    with pytest.raises(StorageError) as raised:
        auth.set_persistence_file(path)
    assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT and str(path) in raised.value.message


RESTORE_FOR_APP = """
import sys, fbstorage
with fbstorage.Auth(sys.argv[1], "demo-project") as auth:
    auth.set_persistence_for_app("fbs-test-program", "my app/1")
    print(auth.current_user.uid if auth.current_user else "none")
"""


@one_flavor
def test_persistence_for_app_keeps_one_private_file_per_app_and_api_key(
        auth: fbstorage.Auth, emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config"  # missing: made, as the program's folder in it
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    auth.set_persistence_for_app("fbs-test-program", "my app/1")
    folder = config / "fbs-test-program"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and list(folder.iterdir()) == []
    user = auth.create_user(email(), PASSWORD)
    [file] = folder.iterdir()
    assert file.name.startswith("my_app_1-") and file.name.endswith(".json")
    assert len(file.name) == len("my_app_1-") + 16 + len(".json") and API_KEY not in file.name
    assert stat.S_IMODE(file.stat().st_mode) == 0o600

    def restored(api_key: str) -> str:
        code = RESTORE_FOR_APP.replace("sys.argv[1]", repr(api_key))
        process = run_python(code, emulator)
        assert process.returncode == 0, process.stderr
        return process.stdout.strip()

    assert restored(API_KEY) == user.uid
    assert restored("another-project-key") == "none"  # another key, another file
    auth.sign_out()
    assert not file.exists()


@one_flavor
def test_persistence_for_app_falls_back_to_home_and_refuses_what_names_no_folder(
        auth: fbstorage.Auth, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/config")  # not absolute: ignored, as XDG says
    monkeypatch.setenv("HOME", str(tmp_path))
    auth.set_persistence_for_app("fbs-test-program", "app")
    assert (tmp_path / ".config" / "fbs-test-program").is_dir()

    for program, app_name in [("a/b", "app"), ("..", "app"), ("", "app"), ("program", "")]:
        raised = raises_at_once(StorageError, lambda: auth.set_persistence_for_app(program, app_name))
        assert raised.code == StorageErrorCode.INVALID_ARGUMENT, (program, app_name)
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "file"))
    raised = raises_at_once(StorageError, lambda: auth.set_persistence_for_app("program", "app"))
    assert str(tmp_path / "file") in raised.message
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.delenv("HOME")
    raised = raises_at_once(StorageError, lambda: auth.set_persistence_for_app("program", "app"))
    assert "HOME" in raised.message


SIGN_IN_WITH_REFRESH_TOKEN = """
import sys, fbstorage
with fbstorage.Auth("test-api-key", "demo-project") as auth:
    user = auth.sign_in_with_refresh_token(sys.stdin.read())
    print(user.uid, user.email)
"""


@one_flavor
def test_a_refresh_token_saved_by_one_process_signs_in_another(auth: fbstorage.Auth, emulator) -> None:
    address = email()
    user = auth.create_user(address, PASSWORD)
    other = run_python(SIGN_IN_WITH_REFRESH_TOKEN, emulator, stdin=user.refresh_token)
    assert other.returncode == 0, other.stderr
    assert other.stdout.split() == [user.uid, address]


# -- firebase-admin --------------------------------------------------------------------------
class _NoNetworkCredential(admin_credentials.Base):
    """firebase-admin wants a credential; against the emulator it must not reach Google."""

    def get_credential(self) -> AnonymousCredentials:
        return AnonymousCredentials()


@pytest.fixture
def admin_app(emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[firebase_admin.App]:
    """firebase-admin on the emulator's Auth routes (FIREBASE_AUTH_EMULATOR_HOST)."""
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", f"{emulator.host}:{emulator.port}")
    app = firebase_admin.initialize_app(_NoNetworkCredential(), {"projectId": PROJECT},
                                        name=f"auth-test-{uuid.uuid4()}")
    yield app
    firebase_admin.delete_app(app)


@one_flavor
def test_firebase_admin_custom_tokens_claims_and_verification(auth: fbstorage.Auth, admin_app) -> None:
    created = admin_auth.create_user(email=email(), password=PASSWORD, app=admin_app)
    admin_auth.set_custom_user_claims(created.uid, {"role": "editor"}, app=admin_app)
    token = admin_auth.create_custom_token(created.uid, {"plan": "pro"}, app=admin_app)
    user = auth.sign_in_with_custom_token(token.decode())
    assert user.uid == created.uid and user.sign_in_provider == "custom" and not user.is_anonymous
    assert user.claims["plan"] == "pro"

    verified = admin_auth.verify_id_token(user.id_token, app=admin_app, check_revoked=True)
    assert verified["uid"] == created.uid and verified["firebase"]["sign_in_provider"] == "custom"

    signed_in = auth.sign_in_with_email(created.email, PASSWORD)
    assert signed_in.claims["role"] == "editor"  # claims set by the admin are in the ID token
    admin_auth.set_custom_user_claims(created.uid, {"role": "viewer"}, app=admin_app)
    assert payload_of(auth.get_id_token(force_refresh=True))["role"] == "viewer"
    assert auth.current_user.claims["role"] == "viewer"
    assert admin_auth.verify_id_token(auth.get_id_token(), app=admin_app)["uid"] == created.uid


@one_flavor
def test_a_revoked_session_fails_with_its_own_error(auth: fbstorage.Auth, emulator, admin_app) -> None:
    user = auth.sign_in_anonymously()
    admin_auth.revoke_refresh_tokens(user.uid, app=admin_app)
    raises_at_once(fbstorage.UserTokenExpiredError, lambda: auth.get_id_token(force_refresh=True))
    assert auth.current_user is None  # the session ended
    with new_auth(emulator) as other:
        raises_at_once(fbstorage.UserTokenExpiredError,
                       lambda: other.sign_in_with_refresh_token(user.refresh_token))


def test_an_id_token_the_server_refuses_ends_the_session_with_its_own_error(tmp_path: Path) -> None:
    """The accounts outlive an emulator restart (--data-dir), its signing key does not: the
    user's ID token, far from expiry, is then one the server never signed (INVALID_ID_TOKEN)."""
    data_dir = str(tmp_path / "data")
    with run_emulator("production", "--data-dir", data_dir) as first, new_auth(first) as auth:
        user = auth.sign_in_anonymously()
        first.process.terminate()
        first.process.wait(timeout=10)
        with run_emulator("production", "--data-dir", data_dir, "--port", str(first.port)):
            states = Recorder()
            auth.add_state_listener(states)
            assert states.wait_for(1)[0].uid == user.uid
            raised = raises_at_once(fbstorage.InvalidUserTokenError,
                                    lambda: auth.update_profile(display_name="after the restart"))
            assert raised.code == StorageErrorCode.AUTH_INVALID_USER_TOKEN
            assert auth.current_user is None  # signed out before the call returned
            assert states.wait_for(2)[1] is None


# -- credentials stay out of messages and logs -------------------------------------------------
@one_flavor
def test_tokens_and_passwords_never_appear_in_errors_or_log_lines(auth: fbstorage.Auth, emulator) -> None:
    lines: list[str] = []
    fbstorage.set_log_handler(lambda level, line: lines.append(line))
    try:
        address, secret = email(), "a secret password"
        user = auth.create_user(address, secret)
        errors: list[StorageError] = []
        for attempt in (lambda: auth.sign_in_with_email(address, secret + "!"),
                        lambda: auth.create_user(address, secret),
                        lambda: auth.sign_in_with_refresh_token(user.refresh_token + "x"),
                        lambda: auth.sign_in_with_custom_token(user.id_token)):
            with pytest.raises(StorageError) as raised:
                attempt()
            errors.append(raised.value)
        auth.get_id_token(force_refresh=True)
        with emulator.storage() as storage:
            storage.use_auth(auth)
            storage.reference("users/x").put_data(b"x").wait()
        current = auth.current_user
    finally:
        fbstorage.set_log_handler(None)
    assert any("identitytoolkit" in line or "securetoken" in line for line in lines), lines
    texts = lines + [str(error) for error in errors] + [error.message for error in errors]
    for credential in (secret, user.id_token, user.refresh_token, current.id_token, current.refresh_token):
        assert not any(credential in text for text in texts)


# -- storages signed in as a user (both flavors) -----------------------------------------------
def test_owner_only_rules_allow_the_users_folder_and_deny_another(auth: fbstorage.Auth, emulator) -> None:
    emulator.set_rules(OWNER_ONLY_RULES)
    with fbstorage.Storage("test-bucket", auth=auth) as storage:
        storage.use_emulator(emulator.host, emulator.port)
        assert storage.auth is auth
        with pytest.raises(StorageError) as signed_out:
            storage.reference("users/nobody/a.txt").put_data(b"x").wait()
        assert signed_out.value.code == StorageErrorCode.UNAUTHORIZED

        user = auth.sign_in_anonymously()  # the storage's next requests carry this user
        own = storage.reference(f"users/{user.uid}/notes.txt")
        assert own.put_data(b"mine").wait().size == 4
        assert own.get_data() == b"mine"
        with pytest.raises(StorageError) as denied:
            storage.reference("users/someone-else/notes.txt").put_data(b"x").wait()
        assert (denied.value.code, denied.value.http_status) == (StorageErrorCode.UNAUTHORIZED, 403)
        authorization = [header(entry, "Authorization") for entry in emulator.requests()
                         if f"users%2F{user.uid}" in entry["path"] + entry["query"]]
        assert authorization and all(value == f"Firebase {user.id_token}" for value in authorization)

        auth.sign_out()
        with pytest.raises(StorageError) as after_sign_out:
            own.get_data()
        assert after_sign_out.value.code == StorageErrorCode.UNAUTHORIZED
        storage.use_auth(None)
        assert storage.auth is None


@one_flavor  # the production flavor checks ID tokens against the accounts, as Google does
def test_a_user_disabled_meanwhile_fails_storage_requests_with_that_cause(
        auth: fbstorage.Auth, emulator) -> None:
    emulator.set_rules(OWNER_ONLY_RULES)
    user = auth.sign_in_anonymously()
    with fbstorage.Storage("test-bucket", auth=auth) as storage:
        storage.use_emulator(emulator.host, emulator.port)
        own = storage.reference(f"users/{user.uid}/a.txt")
        own.put_data(b"a").wait()
        states = Recorder()
        auth.add_state_listener(states)
        assert states.wait_for(1)[0].uid == user.uid
        admin_update(emulator, {"localId": user.uid, "disableUser": True})
        with pytest.raises(fbstorage.UserDisabledError):
            own.get_data()
        assert states.wait_for(2)[1] is None  # the session ended, and the listener heard it
        assert auth.current_user is None


def test_async_token_provider_answers_later_from_another_thread(auth: fbstorage.Auth, emulator) -> None:
    emulator.set_rules(OWNER_ONLY_RULES)
    user = auth.sign_in_anonymously()
    asked: list[bool] = []

    def provider(force_refresh: bool, request: fbstorage.TokenRequest) -> None:
        asked.append(force_refresh)
        threading.Thread(target=lambda: request.complete(auth.get_id_token(force_refresh))).start()

    with emulator.storage() as storage:
        storage.set_auth_token_provider_async(provider)
        own = storage.reference(f"users/{user.uid}/a.txt")
        assert own.put_data(b"a").wait().size == 1
        assert asked and asked[0] is False

        storage.set_auth_token_provider_async(lambda force, request: request.fail("no session"))
        with pytest.raises(StorageError) as failed:
            own.get_data()
        assert failed.value.code == StorageErrorCode.UNAUTHENTICATED


def test_a_token_provider_that_never_answers_ends_the_request_at_its_deadline(emulator) -> None:
    """No silent wait: the request gives up when its retry time has passed, as it would for a
    server that never answers; an upload task too."""
    kept: list[fbstorage.TokenRequest] = []  # asked, never answered (and never released)
    with emulator.storage() as storage:
        storage.max_operation_retry_time = 1.5
        storage.max_upload_retry_time = 1.5
        storage.set_auth_token_provider_async(lambda force, request: kept.append(request))
        started = time.monotonic()
        with pytest.raises(StorageError) as failed:
            storage.reference("silent.txt").get_metadata()
        waited = time.monotonic() - started
        assert failed.value.code == StorageErrorCode.RETRY_LIMIT_EXCEEDED, failed.value
        assert "provider has not answered" in str(failed.value)
        assert 1.4 < waited < 10, waited
        with pytest.raises(StorageError) as upload_failed:
            storage.reference("silent.txt").put_data(b"x").wait(30)
        assert upload_failed.value.code == StorageErrorCode.RETRY_LIMIT_EXCEEDED
        assert kept  # the provider was asked
        kept[0].complete("late")  # an answer after the end changes nothing


# -- asyncio ---------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_aio_auth_flows_listeners_and_storage(emulator) -> None:
    emulator.reset()
    emulator.set_rules(OWNER_ONLY_RULES)
    async with fbstorage.aio.Auth(API_KEY, PROJECT) as auth:
        auth.use_emulator(emulator.host, emulator.port)
        loop_thread = threading.get_ident()
        seen: list[tuple[str | None, int]] = []
        changed = asyncio.Event()

        def on_change(user: fbstorage.User | None) -> None:
            seen.append((user.uid if user else None, threading.get_ident()))
            changed.set()

        handle = auth.add_state_listener(on_change)
        await changed.wait()
        changed.clear()
        address = email()
        created = await auth.create_user(address, PASSWORD)
        await changed.wait()
        assert seen == [(None, loop_thread), (created.uid, loop_thread)]  # on the loop
        auth.remove_listener(handle)

        with pytest.raises(fbstorage.WrongPasswordError):
            await auth.sign_in_with_email(address, "wrong")
        user = await auth.sign_in_with_email(address, PASSWORD)
        assert user.uid == created.uid
        assert payload_of(await auth.get_id_token(force_refresh=True))["user_id"] == user.uid
        again = await auth.sign_in_with_refresh_token(user.refresh_token)
        assert again.uid == user.uid

        async with fbstorage.aio.Storage("test-bucket", auth=auth) as storage:
            storage.use_emulator(emulator.host, emulator.port)
            await storage.reference(f"users/{user.uid}/a.txt").put_data(b"aio")
            assert await storage.reference(f"users/{user.uid}/a.txt").get_data() == b"aio"
            with pytest.raises(StorageError) as denied:
                await storage.reference("users/other/a.txt").put_data(b"x")
            assert denied.value.code == StorageErrorCode.UNAUTHORIZED

            async def provider(force_refresh: bool) -> str:
                return await auth.get_id_token(force_refresh)

            storage.set_auth_token_provider_async(provider)
            assert await storage.reference(f"users/{user.uid}/a.txt").get_data() == b"aio"

        renamed = await auth.update_profile(display_name="Aio")
        assert renamed.display_name == "Aio" and auth.current_user.display_name == "Aio"
        await auth.delete_user()
        assert auth.current_user is None and seen[-1][0] == created.uid  # removed: not called
        with pytest.raises(fbstorage.NoUserError):
            await auth.get_id_token()
        anonymous = await auth.sign_in_anonymously()
        assert anonymous.is_anonymous
