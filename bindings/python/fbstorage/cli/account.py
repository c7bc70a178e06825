"""login, logout and whoami: the signed-in user every other command runs as.

The session lives in ``$XDG_CONFIG_HOME/fbstorage/`` (default ``~/.config``): ``session.json`` is
the library's persistence file of the user (refresh token and profile, mode 0600, rewritten
atomically by the library on every sign-in and token refresh), ``app.json`` the app it belongs
to (API key and project id, mode 0600).
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..auth import Auth, User
from ..errors import StorageError, StorageErrorCode
from .context import STORAGE_EMULATOR_ENV_VAR, host_and_port
from .locations import UsageError
from .private_file import write_private_file

API_KEY_ENV_VAR = "FIREBASE_API_KEY"
PASSWORD_ENV_VAR = "FBSTORAGE_PASSWORD"
AUTH_EMULATOR_ENV_VAR = "FIREBASE_AUTH_EMULATOR_HOST"


def config_folder() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "fbstorage"


def session_file() -> Path:
    return config_folder() / "session.json"


def app_file() -> Path:
    return config_folder() / "app.json"


def _new_auth(api_key: str, project_id: str | None, emulator: str | None) -> Auth:
    """An Auth for the app, on the emulator of --emulator, else of $FIREBASE_AUTH_EMULATOR_HOST
    (read by the library), else of $FIREBASE_STORAGE_EMULATOR_HOST: the bundled emulator serves
    Auth on its storage port."""
    auth = Auth(api_key, project_id)
    address = emulator
    if address is None and not os.environ.get(AUTH_EMULATOR_ENV_VAR):
        address = os.environ.get(STORAGE_EMULATOR_ENV_VAR) or None
    if address is not None:
        try:
            auth.use_emulator(*host_and_port(address))
        except BaseException:
            auth.close()
            raise
    return auth


def open_session(emulator: str | None) -> Auth | None:
    """The auth of the saved session, its user restored; None when nobody is signed in."""
    try:
        app = json.loads(app_file().read_text())
    except FileNotFoundError:
        return None
    except ValueError:
        app = None
    if not isinstance(app, dict) or not isinstance(app.get("api_key"), str):
        raise UsageError(f"{app_file()} is not what fbstorage login writes: run it again")
    if not session_file().exists():
        return None
    auth = _new_auth(app["api_key"], app.get("project_id"), emulator)
    try:
        auth.set_persistence_file(session_file())
    except BaseException:
        auth.close()
        raise
    return auth


def login(options: Any) -> int:
    if options.create and options.email is None:
        raise UsageError("--create goes with --email")
    api_key = options.api_key or os.environ.get(API_KEY_ENV_VAR)
    if not api_key:
        raise UsageError(f"login needs the project's Web API key: --api-key or ${API_KEY_ENV_VAR}")
    with _new_auth(api_key, options.project, getattr(options, "emulator", None)) as auth:
        _keep_session_in_file(auth)
        if options.anonymous:
            user = auth.sign_in_anonymously()
        elif options.custom_token is not None:
            user = auth.sign_in_with_custom_token(options.custom_token)
        else:
            password = os.environ.get(PASSWORD_ENV_VAR)
            if password is None:
                password = getpass.getpass(f"Password for {options.email}: ")
            sign_in = auth.create_user if options.create else auth.sign_in_with_email
            user = sign_in(options.email, password)
    write_private_file(app_file(), json.dumps({"api_key": api_key, "project_id": options.project}))
    print(f"Signed in as {_who(user)}")
    return 0


def _keep_session_in_file(auth: Auth) -> None:
    """Persists the sign-in to come; an unreadable earlier session is replaced (a readable
    one stays the current user, and the session, if the sign-in fails)."""
    config_folder().mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        auth.set_persistence_file(session_file())
    except StorageError as error:
        if error.code != StorageErrorCode.INVALID_ARGUMENT or not session_file().exists():
            raise
        session_file().unlink()
        auth.set_persistence_file(session_file())


def logout(options: Any) -> int:
    """Forgets the session (as the SDKs' signOut, the refresh token is not revoked)."""
    signed_in = session_file().exists()
    for path in (session_file(), app_file()):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    print("Signed out" if signed_in else "Not signed in")
    return 0


def whoami(options: Any) -> int:
    auth = open_session(getattr(options, "emulator", None))
    if auth is None:
        print("Not signed in (fbstorage login)", file=sys.stderr)
        return 1
    with auth:
        auth.get_id_token()  # checks the session with the service, and reads the token's claims
        user = auth.current_user
    if user is None:
        print("Not signed in (fbstorage login)", file=sys.stderr)
        return 1
    print(f"uid: {user.uid}")
    print(f"email: {user.email or '-'}")
    print(f"provider: {user.sign_in_provider or '-'}")
    print(f"anonymous: {'yes' if user.is_anonymous else 'no'}")
    return 0


def _who(user: User) -> str:
    if user.is_anonymous:
        return f"{user.uid} (anonymous)"
    return f"{user.uid} ({user.email})" if user.email else user.uid
