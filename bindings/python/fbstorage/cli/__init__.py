"""The ``fbstorage`` command: copy, list, inspect and delete objects from the shell, as a
signed-in user (``fbstorage login``) or with a token.

Exit status: 0 when everything succeeded, 1 when something failed (each failure is named on
stderr, then a summary), 2 for a usage error, 128 + the signal's number when interrupted: 130
(Ctrl-C, SIGINT), 143 (SIGTERM), 129 (SIGHUP).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from typing import Any

from . import account, app_check, commands, copy, interrupts, session_cache
from .context import TOKEN_ENV_VAR, CommandContext, Connection
from ..auth import Auth
from ..errors import StorageError
from .locations import RemotePath, UsageError

EMULATOR_ENV_VAR = "FIREBASE_STORAGE_EMULATOR_HOST"

_SIZE_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def _size(text: str) -> int:
    """"262144", "256K", "8M" or "1G" (binary units)."""
    number, suffix = text[:-1], text[-1:].upper()
    if suffix not in _SIZE_SUFFIXES or not text[-1].isalpha():
        number, suffix = text, ""
    if not number.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 262144, 256K or 8M")
    return int(number) * _SIZE_SUFFIXES[suffix]


def _key_value(text: str) -> tuple[str, str]:
    key, separator, value = text.partition("=")
    if not separator or not key:
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    return key, value


_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _duration(text: str) -> int:
    """"600", "10m", "12h" or "7d": whole seconds."""
    number, unit = (text[:-1], text[-1].lower()) if text[-1:].lower() in _DURATION_UNITS else (text, "s")
    if not number.isdigit() or int(number) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration such as 600, 10m, 12h or 7d")
    return int(number) * _DURATION_UNITS[unit]


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return seconds


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    # Connection options are accepted before and after the command (SUPPRESS: a later
    # position does not reset an earlier one to its default).
    connection = argparse.ArgumentParser(add_help=False)
    connection.add_argument(
        "--emulator", metavar="HOST:PORT", default=argparse.SUPPRESS,
        help=f"use the Firebase emulator there, for Storage and Auth (default: "
             f"${EMULATOR_ENV_VAR})")
    connection.add_argument(
        "--endpoint", metavar="URL", default=argparse.SUPPRESS,
        help="send Storage requests to this server, https://host[:port] or http://host[:port] "
             "(a private endpoint, a TLS-terminating proxy, an emulator serving https)")
    connection.add_argument(
        "--ca-file", metavar="PEM", default=argparse.SUPPRESS,
        help="trust these CA certificates for https instead of the system's")
    connection.add_argument(
        "--proxy", metavar="URL", default=argparse.SUPPRESS,
        help="send requests through this proxy, e.g. http://proxy:3128 (default: $https_proxy, "
             "$http_proxy; credentials from $FBSTORAGE_PROXY_USER and $FBSTORAGE_PROXY_PASSWORD)")
    connection.add_argument(
        "--max-speed", type=_size, metavar="SIZE", default=argparse.SUPPRESS,
        help="cap each transfer's speed in bytes per second, e.g. 1M")
    connection.add_argument(
        "--token", default=argparse.SUPPRESS,
        help=f"a Firebase Auth ID token (default: ${TOKEN_ENV_VAR}; the variable keeps it "
             "out of the process list)")
    connection.add_argument(
        "--service-account", metavar="KEY_JSON", default=argparse.SUPPRESS,
        help="act as this service account (admin access, rules bypassed): ls -l reads each page's "
             "metadata in one request, cp/mv within a bucket copy on the server")
    connection.add_argument(
        "--chunk-size", type=_size, metavar="SIZE", default=argparse.SUPPRESS,
        help="bytes per resumable upload request, e.g. 8M (default: the library's)")
    connection.add_argument(
        "--retry-time", type=_seconds, metavar="SECONDS", default=argparse.SUPPRESS,
        help="how long each transfer or request keeps retrying after failures (default: the "
             "library's, 600 s for transfers and 120 s for other requests)")
    app_check.add_arguments(connection)

    parser = argparse.ArgumentParser(
        prog="fbstorage", parents=[connection],
        description="Copy, list, inspect and delete objects in Cloud Storage for Firebase. "
                    "Remote paths are written gs://bucket/path.",
        epilog="Exit status: 0 success, 1 something failed, 2 usage error, 128 + the signal when "
               "interrupted (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).")
    subcommands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return subcommands.add_parser(name, parents=[connection], help=help, description=help)

    for name, help in (("cp", "copy files and objects (local ↔ remote, remote → remote)"),
                       ("mv", "copy, then delete each source that was copied")):
        transfer = command(name, help)
        transfer.add_argument("sources", nargs="+", metavar="SOURCE")
        transfer.add_argument("destination", metavar="DESTINATION")
        transfer.add_argument("-r", "--recursive", action="store_true",
                              help="copy folders and everything below them")
        transfer.add_argument("-j", "--jobs", type=_positive, default=8,
                              help="transfers running at once (default 8)")
        transfer.add_argument("--content-type", help="content type of uploaded objects")
        transfer.add_argument("--metadata", action="append", type=_key_value, default=[],
                              metavar="KEY=VALUE", help="custom metadata of uploaded objects")

    listing = command("ls", "list objects and folders")
    listing.add_argument("targets", nargs="+", metavar="gs://BUCKET[/PATH]")
    listing.add_argument("-l", "--long", action="store_true", help="with size, time and type")
    listing.add_argument("-r", "--recursive", action="store_true", help="every object below")

    shown: dict[str, argparse.ArgumentParser] = {}
    for name, help in (("stat", "show an object's metadata"),
                       ("cat", "write objects' bytes to stdout, streamed"),
                       ("url", "print objects' download URLs")):
        shown[name] = command(name, help)
        shown[name].add_argument("targets", nargs="+", metavar="gs://BUCKET/PATH")
    shown["cat"].add_argument("-r", "--range", dest="byte_range", metavar="START-END",
                              help="only these bytes: START-END (END inclusive), START-, or -N (the last N); "
                                   "past the end is an error")

    signing = command("signurl", "print V4 signed URLs (needs --service-account): anyone holding one may "
                                 "do METHOD to the object until it expires")
    signing.add_argument("targets", nargs="+", metavar="gs://BUCKET/PATH")
    signing.add_argument("-m", "--method", choices=("GET", "HEAD", "PUT", "DELETE"), default="GET")
    signing.add_argument("-d", "--duration", type=_duration, default=3600,
                         help="how long the URL works: seconds, or 10m, 12h, 7d (default 1h, at most 7d)")

    removal = command("rm", "delete objects")
    removal.add_argument("targets", nargs="+", metavar="gs://BUCKET/PATH")
    removal.add_argument("-r", "--recursive", action="store_true", help="every object below")
    removal.add_argument("-j", "--jobs", type=_positive, default=8,
                         help="deletions running at once (default 8)")

    login = command("login", "sign in to Firebase Auth; later commands run as that user")
    how = login.add_mutually_exclusive_group(required=True)
    how.add_argument("--anonymous", action="store_true", help="as a new anonymous user")
    how.add_argument("--email", metavar="ADDRESS",
                     help=f"with email and password (the password is asked for, or read from "
                          f"${account.PASSWORD_ENV_VAR})")
    how.add_argument("--custom-token", metavar="TOKEN", help="with a custom token from your backend")
    login.add_argument("--create", action="store_true",
                       help="with --email: create the account first")
    login.add_argument("--api-key", help=f"the project's Web API key (default: ${account.API_KEY_ENV_VAR})")
    login.add_argument("--project", help="the project id (default: learnt from the sign-in)")
    command("logout", "forget the signed-in user")
    command("whoami", "show the signed-in user: uid, email, provider (never tokens)")
    return parser


_ACCOUNT_COMMANDS = {"login": account.login, "logout": account.logout, "whoami": account.whoami}


async def _run(options: argparse.Namespace) -> int:
    interrupts.cancel_on_termination()
    emulator, token = getattr(options, "emulator", None), getattr(options, "token", None)
    service_account = getattr(options, "service_account", None)
    auth = account.open_session(emulator) if token is None and service_account is None else None
    try:
        return await _run_with(options, auth)
    finally:
        if auth is not None:
            auth.close()


async def _run_with(options: argparse.Namespace, auth: Auth | None) -> int:
    # Without --emulator, the library itself reads $FIREBASE_STORAGE_EMULATOR_HOST (and names it in
    # its errors).
    async with CommandContext(getattr(options, "emulator", None), getattr(options, "token", None),
                              getattr(options, "chunk_size", None),
                              getattr(options, "retry_time", None),
                              getattr(options, "jobs", 8), auth,
                              getattr(options, "service_account", None),
                              Connection(getattr(options, "endpoint", None), getattr(options, "ca_file", None),
                                         getattr(options, "proxy", None), getattr(options, "max_speed", None)),
                              lambda bucket, emulator: app_check.open_app_check(options, bucket, emulator)) as ctx:
        if options.command in ("cp", "mv"):
            flags = copy.MetadataFlags(options.content_type, dict(options.metadata))
            await copy.copy(ctx, options.sources, options.destination, options.recursive,
                            flags, move=options.command == "mv")
        else:
            targets = [RemotePath.parse(target) for target in options.targets]
            arguments: dict[str, Any] = {"recursive": options.recursive} if options.command in (
                "ls", "rm") else {}
            if options.command == "ls":
                arguments["long"] = options.long
            if options.command == "signurl":
                arguments.update(method=options.method, duration=options.duration)
            if options.command == "cat":
                arguments["byte_range"] = options.byte_range
            await getattr(commands, options.command)(ctx, targets, **arguments)
        if ctx.failures:
            print(f"fbstorage: {options.command}: {ctx.failures} failed, "
                  f"{ctx.successes} succeeded", file=sys.stderr)
            return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    options = parser.parse_args(argv)
    try:
        if options.command in _ACCOUNT_COMMANDS:
            return _ACCOUNT_COMMANDS[options.command](options)
        return asyncio.run(_run(options))
    except StorageError as error:  # signing in failed
        print(f"fbstorage: {options.command}: {error}", file=sys.stderr)
        return 1
    except UsageError as error:
        parser.print_usage(sys.stderr)
        print(f"fbstorage: error: {error}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, asyncio.CancelledError):  # Ctrl-C; SIGTERM or SIGHUP (interrupts)
        number = interrupts.received()
        kept = session_cache.kept_sessions()
        resume = (f"; {kept} upload session{'s' * (kept > 1)} kept: run the same command again to resume"
                  if kept else "")
        how = "interrupted" if number == signal.SIGINT else f"terminated by {number.name}"
        print(f"fbstorage: {how}{resume}", file=sys.stderr, flush=True)
        sys.stdout.flush()
        # No interpreter shutdown: it would close the storages, cancelling the upload sessions
        # that the next run continues (see copy._observed).
        os._exit(128 + number)
    except OSError as error:  # the library cannot be loaded
        print(f"fbstorage: {error}", file=sys.stderr)
        return 1
