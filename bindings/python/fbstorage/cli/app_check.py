"""--app-check-app-id, --app-check-project and --app-check-debug-token: the App Check a
project that enforces it needs (docs/app-check.md). The debug secret is best given in
$FIREBASE_APP_CHECK_DEBUG_TOKEN (the library reads it, and the Apple SDK's names), which keeps it
out of the process list."""

from __future__ import annotations

import argparse
import os

from ..app_check import AppCheck
from .locations import UsageError

APP_ID_ENV_VAR = "FBSTORAGE_APP_CHECK_APP_ID"
PROJECT_ENV_VAR = "FBSTORAGE_APP_CHECK_PROJECT"
#: Default buckets end so; what comes before is the project id.
_DEFAULT_BUCKET_SUFFIXES = (".appspot.com", ".firebasestorage.app")


def add_arguments(connection: argparse.ArgumentParser) -> None:
    connection.add_argument(
        "--app-check-app-id", metavar="APP_ID", default=argparse.SUPPRESS,
        help=f"send App Check tokens of this app (1:1234:web:abcd), for projects that enforce App "
             f"Check (default: ${APP_ID_ENV_VAR})")
    connection.add_argument(
        "--app-check-project", metavar="PROJECT", default=argparse.SUPPRESS,
        help=f"the App Check app's project id (default: ${PROJECT_ENV_VAR}, else the bucket's "
             "name without .appspot.com or .firebasestorage.app)")
    connection.add_argument(
        "--app-check-debug-token", metavar="SECRET", default=argparse.SUPPRESS,
        help="the App Check debug token registered for the app (default: "
             "$FIREBASE_APP_CHECK_DEBUG_TOKEN, which keeps it out of the process list)")


def open_app_check(options: argparse.Namespace, bucket: str, emulator: tuple[str, int] | None) -> AppCheck | None:
    """The App Check the options ask for, or None; UsageError when they are incomplete."""
    app_id = getattr(options, "app_check_app_id", None) or os.environ.get(APP_ID_ENV_VAR)
    secret = getattr(options, "app_check_debug_token", None)
    if app_id is None:
        if secret is not None:
            raise UsageError(f"--app-check-debug-token needs the app: --app-check-app-id or ${APP_ID_ENV_VAR}")
        return None
    project = getattr(options, "app_check_project", None) or os.environ.get(PROJECT_ENV_VAR)
    if project is None:
        project = next((bucket[: -len(suffix)] for suffix in _DEFAULT_BUCKET_SUFFIXES if bucket.endswith(suffix)), None)
    if not project:
        raise UsageError(f"App Check needs the project id of {bucket!r}: --app-check-project or ${PROJECT_ENV_VAR}")
    app_check = AppCheck(project, app_id)
    try:
        if emulator is not None:
            app_check.use_emulator(*emulator)
        app_check.set_debug_provider(secret)
    except BaseException:
        app_check.close()
        raise
    return app_check
