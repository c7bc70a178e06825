"""What fbstorage.Auth and fbstorage.aio.Auth tell of an account, against the bundled emulator
(both flavors) over real HTTP: User.provider_data and User.metadata as accounts:lookup reports
them after a reload or an account change, and Auth.check_action_code on each kind of mailed
code (the code stays usable), with its errors."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Iterator

import pytest

import fbstorage
import fbstorage.aio
from fbstorage import ActionCodeInfo, ActionCodeSettings, UserInfo
from test_auth import PASSWORD, PROJECT, email, new_auth, one_flavor, raises_at_once
from test_auth_account import google, pending_code

if TYPE_CHECKING:
    from fbstorage.testing import EmulatorServer


@pytest.fixture
def auth(emulator: EmulatorServer) -> Iterator[fbstorage.Auth]:
    emulator.reset()
    with new_auth(emulator) as opened:
        yield opened


def now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def test_provider_data_and_metadata_follow_the_account(auth: fbstorage.Auth) -> None:
    address = email()
    before = now()
    created = auth.create_user(address, PASSWORD)
    after = now()
    # The sign-in reads the account (as the SDKs do): its methods and dates are there at once.
    password = UserInfo(provider_id="password", uid=address, email=address, display_name=None, photo_url=None,
                        phone_number=None)
    assert created.provider_data == (password,)
    creation, last_sign_in = created.metadata.creation_time, created.metadata.last_sign_in_time
    assert creation is not None and last_sign_in is not None
    second = datetime.timedelta(seconds=1)
    assert before - second <= creation <= after + second and creation <= last_sign_in <= after + second
    assert creation.tzinfo == datetime.timezone.utc
    reloaded = auth.reload()
    assert (reloaded.provider_data, reloaded.metadata) == (created.provider_data, created.metadata)
    signed_in_again = auth.sign_in_with_email(address, PASSWORD)
    assert signed_in_again.provider_data == (password,)
    assert signed_in_again.metadata.creation_time == creation
    assert signed_in_again.metadata.last_sign_in_time is not None and signed_in_again.metadata.last_sign_in_time >= last_sign_in

    linked = auth.link_with_credential(google("lee", address=address))
    by_provider = {info.provider_id: info for info in linked.provider_data}
    assert set(by_provider) == {"password", "google.com"}
    assert (by_provider["google.com"].uid, by_provider["google.com"].email, by_provider["google.com"].display_name) == (
        "google-lee", address, "lee")
    assert linked.metadata.creation_time == creation
    assert auth.current_user == linked

    unlinked = auth.unlink("google.com")
    assert [info.provider_id for info in unlinked.provider_data] == ["password"]
    assert len(linked.provider_data) == 2   # a snapshot keeps what it showed


def test_the_persisted_session_keeps_the_account_details(emulator: EmulatorServer, tmp_path) -> None:
    emulator.reset()
    path = tmp_path / "session.json"
    with new_auth(emulator, persistence_file=path) as first:
        first.create_user(email(), PASSWORD)
        reloaded = first.reload()
    with new_auth(emulator, persistence_file=path) as restored:
        user = restored.current_user
        assert user is not None
        assert (user.provider_data, user.metadata) == (reloaded.provider_data, reloaded.metadata)


def test_check_action_code_tells_each_kind(auth: fbstorage.Auth, emulator: EmulatorServer) -> None:
    address, changed = email(), email()
    auth.create_user(address, PASSWORD)

    auth.send_email_verification()
    verify = pending_code(emulator.url, "VERIFY_EMAIL", address)
    assert auth.check_action_code(verify) == ActionCodeInfo(operation="VERIFY_EMAIL", email=address, new_email=None)
    auth.apply_action_code(verify)   # checking used nothing up
    raises_at_once(fbstorage.InvalidActionCodeError, lambda: auth.check_action_code(verify))

    auth.send_password_reset_email(address)
    reset = pending_code(emulator.url, "PASSWORD_RESET", address)
    assert auth.check_action_code(reset) == ActionCodeInfo("PASSWORD_RESET", address, None)

    auth.verify_before_update_email(changed)
    change = pending_code(emulator.url, "VERIFY_AND_CHANGE_EMAIL", changed)
    assert auth.check_action_code(change) == ActionCodeInfo("VERIFY_AND_CHANGE_EMAIL", address, changed)

    auth.send_sign_in_link_to_email(address, ActionCodeSettings(url="https://app.example.com/finish",
                                                                handle_code_in_app=True))
    sign_in = pending_code(emulator.url, "EMAIL_SIGNIN", address)
    assert auth.check_action_code(sign_in) == ActionCodeInfo("EMAIL_SIGNIN", None, None)   # the address stays unsaid

    unknown = raises_at_once(fbstorage.InvalidActionCodeError, lambda: auth.check_action_code("no-such-code"))
    assert "no-such-code" not in str(unknown)
    with pytest.raises(fbstorage.StorageError) as empty:
        auth.check_action_code("")
    assert empty.value.code == fbstorage.StorageErrorCode.INVALID_ARGUMENT
    auth.confirm_password_reset(reset, "reset " + PASSWORD)   # still usable


@one_flavor
@pytest.mark.asyncio
async def test_aio_check_action_code_and_account_details(emulator: EmulatorServer) -> None:
    emulator.reset()
    async with fbstorage.aio.Auth("test-api-key", PROJECT) as auth:
        auth.use_emulator(emulator.host, emulator.port)
        address = email()
        await auth.create_user(address, PASSWORD)
        reloaded = await auth.reload()
        assert [info.provider_id for info in reloaded.provider_data] == ["password"]
        assert reloaded.metadata.creation_time is not None
        await auth.send_password_reset_email(address)
        code = pending_code(emulator.url, "PASSWORD_RESET", address)
        assert await auth.check_action_code(code) == ActionCodeInfo("PASSWORD_RESET", address, None)
        with pytest.raises(fbstorage.InvalidActionCodeError):
            await auth.check_action_code("no-such-code")
        await auth.confirm_password_reset(code, "reset " + PASSWORD)
