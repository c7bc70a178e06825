"""Email-link sign-in through fbstorage.Auth and fbstorage.aio.Auth against the bundled emulator
(both flavors), over real HTTP: the link read from the emulator's oobCodes route as a mail
reader would, sign-in with it (a new account, then the same one), the checks of links and
settings, and the error of each failure."""

from __future__ import annotations

import asyncio
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import pytest
import requests

import fbstorage
import fbstorage.aio
from fbstorage import ActionCodeSettings, StorageError, StorageErrorCode
from test_auth import API_KEY, PASSWORD, PROJECT, email, new_auth, raises_at_once

if TYPE_CHECKING:
    from fbstorage.testing import EmulatorServer

CONTINUE_URL = "https://app.example.com/finish-sign-in?cart=12"
SETTINGS = ActionCodeSettings(url=CONTINUE_URL, handle_code_in_app=True, ios_bundle_id="com.example.ios",
                              android_package_name="com.example.android", android_install_app=True,
                              android_minimum_version="12")


@pytest.fixture
def auth(emulator: EmulatorServer) -> Iterator[fbstorage.Auth]:
    emulator.reset()
    with new_auth(emulator) as opened:
        yield opened


def mailed_link(emulator: EmulatorServer, address: str) -> str:
    """The sign-in link the emulator 'mailed' to ``address`` (its oobCodes route)."""
    response = requests.get(f"{emulator.url}/emulator/v1/projects/{PROJECT}/oobCodes", timeout=30)
    assert response.status_code == 200, response.text
    links = [entry["oobLink"] for entry in response.json()["oobCodes"]
             if entry["requestType"] == "EMAIL_SIGNIN" and entry["email"] == address.lower()]
    assert len(links) == 1, response.text
    return str(links[0])


def test_a_mailed_link_signs_in_a_new_account_then_the_same_one(auth: fbstorage.Auth, emulator) -> None:
    address = email()
    auth.send_sign_in_link_to_email(address, SETTINGS)
    link = mailed_link(emulator, address)
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["continueUrl"] == [CONTINUE_URL]
    assert auth.is_sign_in_with_email_link(link)

    user = auth.sign_in_with_email_link(address, link)
    assert (user.email, user.email_verified, user.is_anonymous) == (address, True, False)
    assert user.sign_in_provider == "password" and user.claims["email_verified"] is True
    assert auth.current_user == user
    used = raises_at_once(fbstorage.InvalidActionCodeError, lambda: auth.sign_in_with_email_link(address, link))
    assert used.code == StorageErrorCode.AUTH_INVALID_ACTION_CODE

    auth.sign_out()
    auth.send_sign_in_link_to_email(address, SETTINGS)
    again = auth.sign_in_with_email_link(address, mailed_link(emulator, address))
    assert again.uid == user.uid


def test_links_are_told_apart_without_a_request(auth: fbstorage.Auth, emulator) -> None:
    address = email()
    auth.create_user(address, PASSWORD)
    auth.send_email_verification()
    listed = requests.get(f"{emulator.url}/emulator/v1/projects/{PROJECT}/oobCodes", timeout=30).json()["oobCodes"]
    verification_link = next(entry["oobLink"] for entry in listed if entry["requestType"] == "VERIFY_EMAIL")
    assert not auth.is_sign_in_with_email_link(verification_link)
    assert not auth.is_sign_in_with_email_link("https://example.com/?mode=signIn")  # no code
    assert not auth.is_sign_in_with_email_link("not a link")

    auth.send_sign_in_link_to_email(address, SETTINGS)
    link = mailed_link(emulator, address)
    wrapped = "https://example.page.link/?link=" + urllib.parse.quote(link, safe="") + "&apn=com.example.android"
    assert auth.is_sign_in_with_email_link(wrapped)  # a Dynamic Link carries it in `link`
    deep = "https://example.com/?deep_link_id=" + urllib.parse.quote(wrapped, safe="")
    assert auth.is_sign_in_with_email_link(deep)
    assert auth.sign_in_with_email_link(address, deep).email == address

    not_sign_in = raises_at_once(StorageError, lambda: auth.sign_in_with_email_link(address, verification_link))
    assert not_sign_in.code == StorageErrorCode.INVALID_ARGUMENT and "sign-in link" in not_sign_in.message


def test_settings_and_addresses_are_checked(auth: fbstorage.Auth, emulator) -> None:
    address = email()
    in_browser = raises_at_once(StorageError, lambda: auth.send_sign_in_link_to_email(
        address, ActionCodeSettings(url=CONTINUE_URL)))
    assert in_browser.code == StorageErrorCode.INVALID_ARGUMENT and "handleCodeInApp" in in_browser.message
    relative = raises_at_once(StorageError, lambda: auth.send_sign_in_link_to_email(
        address, ActionCodeSettings(url="/finish", handle_code_in_app=True)))
    assert relative.code == StorageErrorCode.INVALID_ARGUMENT and "continue URL" in relative.message
    control = raises_at_once(StorageError, lambda: auth.send_sign_in_link_to_email(
        address, ActionCodeSettings(url=CONTINUE_URL, handle_code_in_app=True, link_domain="a\nb")))
    assert control.code == StorageErrorCode.INVALID_ARGUMENT
    with pytest.raises(TypeError):
        auth.send_sign_in_link_to_email(address, {"url": CONTINUE_URL})  # type: ignore[arg-type]
    raises_at_once(fbstorage.InvalidEmailError, lambda: auth.send_sign_in_link_to_email("not-an-email", SETTINGS))

    auth.send_sign_in_link_to_email(address, SETTINGS)
    link = mailed_link(emulator, address)
    other = raises_at_once(fbstorage.InvalidEmailError, lambda: auth.sign_in_with_email_link(email(), link))
    assert other.code == StorageErrorCode.AUTH_INVALID_EMAIL and auth.current_user is None
    forged = link.replace("oobCode=", "oobCode=x")
    raises_at_once(fbstorage.InvalidActionCodeError, lambda: auth.sign_in_with_email_link(address, forged))
    assert auth.sign_in_with_email_link(address, link).email == address  # the failures used nothing up


def test_a_linked_in_session_restores_verified(auth: fbstorage.Auth, emulator, tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    auth.set_persistence_file(path)
    address = email()
    auth.send_sign_in_link_to_email(address, SETTINGS)
    uid = auth.sign_in_with_email_link(address, mailed_link(emulator, address)).uid
    with fbstorage.Auth(API_KEY, PROJECT, persistence_file=path) as restored:
        user = restored.current_user
        assert user is not None and user.id_token is None  # before any refresh: from the file
        assert (user.uid, user.email, user.email_verified) == (uid, address, True)


def test_aio_email_link_sign_in(emulator) -> None:
    emulator.reset()

    async def scenario() -> None:
        async with fbstorage.aio.Auth(API_KEY, PROJECT) as auth:
            auth.use_emulator(emulator.host, emulator.port)
            address = email()
            await auth.send_sign_in_link_to_email(address, SETTINGS)
            link = mailed_link(emulator, address)
            assert auth.is_sign_in_with_email_link(link)
            user = await auth.sign_in_with_email_link(address, link)
            assert (user.email, user.email_verified) == (address, True)
            with pytest.raises(fbstorage.InvalidActionCodeError):
                await auth.sign_in_with_email_link(address, link)
            with pytest.raises(StorageError) as refused:
                await auth.send_sign_in_link_to_email(address, ActionCodeSettings(url=CONTINUE_URL))
            assert refused.value.code == StorageErrorCode.INVALID_ARGUMENT

    asyncio.run(asyncio.wait_for(scenario(), 120))
