"""Where the link in an Auth email leads and which app may open it, as the Firebase SDKs'
``ActionCodeSettings``: for :meth:`fbstorage.Auth.send_sign_in_link_to_email`."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Iterator

from ._conversion import encode_optional_text, encode_text
from ._native import ActionCodeSettingsHandle, call_for_out, library


@dataclass(frozen=True)
class ActionCodeSettings:
    """``url``: the continue URL (absolute, its domain authorized for the project), where the
    link leads with its code. ``handle_code_in_app`` must be true for sign-in links (the app
    completes the sign-in)."""

    url: str
    handle_code_in_app: bool = False
    ios_bundle_id: str | None = None
    android_package_name: str | None = None
    android_install_app: bool = False
    android_minimum_version: str | None = None
    link_domain: str | None = None


@contextlib.contextmanager
def native_action_code_settings(settings: Any) -> Iterator[Any]:
    """An ``fbs_action_code_settings`` handle for the call; TypeError for anything but
    ActionCodeSettings, StorageError INVALID_ARGUMENT for a bad value."""
    if not isinstance(settings, ActionCodeSettings):
        raise TypeError(f"action_code_settings must be an fbstorage ActionCodeSettings, not {type(settings).__name__}")
    lib = library()
    native = call_for_out(lib.fbs_action_code_settings_new, encode_text(settings.url, "url"),
                          int(bool(settings.handle_code_in_app)), out_type=ActionCodeSettingsHandle)
    try:
        if settings.ios_bundle_id is not None:
            lib.fbs_action_code_settings_set_ios_bundle_id(native, encode_text(settings.ios_bundle_id, "ios_bundle_id"))
        if settings.android_package_name is not None:
            lib.fbs_action_code_settings_set_android_package_name(
                native, encode_text(settings.android_package_name, "android_package_name"),
                int(bool(settings.android_install_app)),
                encode_optional_text(settings.android_minimum_version, "android_minimum_version"))
        if settings.link_domain is not None:
            lib.fbs_action_code_settings_set_link_domain(native, encode_text(settings.link_domain, "link_domain"))
        yield native
    finally:
        lib.fbs_action_code_settings_free(native)
