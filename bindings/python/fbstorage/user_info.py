"""What a :class:`fbstorage.User` tells of its account: its sign-in methods (the SDKs'
``providerData``) and dates (``UserMetadata``), as Identity Toolkit's accounts:lookup reports
them at the sign-in (which reads the account, as the SDKs do), after :meth:`fbstorage.Auth.reload`
or an account change."""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from typing import Any

from ._conversion import decode
from ._native import TIME_ABSENT, library

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def utc_time(milliseconds: int) -> datetime.datetime | None:
    """A library time (milliseconds since the epoch) as an aware UTC datetime; None when absent."""
    return None if milliseconds == TIME_ABSENT else _EPOCH + datetime.timedelta(milliseconds=milliseconds)


@dataclass(frozen=True)
class UserInfo:
    """One sign-in method of an account: ``provider_id`` ("password", "google.com", …) and the
    user's id at that provider (``uid``; the email for "password"), with what it told."""

    provider_id: str
    uid: str
    email: str | None
    display_name: str | None
    photo_url: str | None
    phone_number: str | None


@dataclass(frozen=True)
class UserMetadata:
    """When the account was created and last signed in (aware UTC datetimes; None when not read
    yet)."""

    creation_time: datetime.datetime | None
    last_sign_in_time: datetime.datetime | None


def provider_data(handle: Any) -> tuple[UserInfo, ...]:
    """The sign-in methods of an ``fbs_user`` snapshot."""
    lib = library()

    def text(name: str, index: int) -> str | None:
        return decode(getattr(lib, f"fbs_user_provider_{name}")(handle, index))

    return tuple(
        UserInfo(provider_id=text("id", index) or "", uid=text("uid", index) or "", email=text("email", index),
                 display_name=text("display_name", index), photo_url=text("photo_url", index),
                 phone_number=text("phone_number", index))
        for index in range(lib.fbs_user_provider_count(handle))
    )


def user_metadata(handle: Any) -> UserMetadata:
    """The dates of an ``fbs_user`` snapshot."""
    lib = library()
    return UserMetadata(creation_time=utc_time(lib.fbs_user_creation_time(handle)),
                        last_sign_in_time=utc_time(lib.fbs_user_last_sign_in_time(handle)))


@dataclass(frozen=True)
class AdditionalUserInfo:
    """What a sign-in's answer said beyond the user (the SDKs' ``AdditionalUserInfo``): the
    provider, whether the sign-in made the account, the identity provider's profile of the user
    (its JSON object; None without a provider) and the user's name there."""

    provider_id: str | None
    is_new_user: bool
    profile: dict[str, Any] | None
    username: str | None


def additional_user_info(handle: Any) -> AdditionalUserInfo | None:
    """The additional information of an ``fbs_user`` a sign-in, reauthentication or provider's
    link answered; None for any other."""
    lib = library()
    new_user = lib.fbs_user_is_new_user(handle)
    if new_user < 0:
        return None
    profile = decode(lib.fbs_user_additional_profile_json(handle))
    parsed = json.loads(profile) if profile else None
    return AdditionalUserInfo(provider_id=decode(lib.fbs_user_additional_provider_id(handle)), is_new_user=new_user == 1,
                              profile=parsed if isinstance(parsed, dict) else None,
                              username=decode(lib.fbs_user_additional_username(handle)))
