"""Command line: `python -m fbstorage.emulator --host 127.0.0.1 --port 9199 [options]`.

Prints `READY http://HOST:PORT` (flushed) once it accepts connections, then `READY-AUTH
http://HOST:PORT` for the Auth emulator's own port (unless --no-auth) and `READY-UI http://HOST:PORT`
for the web UI (unless --no-ui), and exits cleanly on
SIGINT or SIGTERM (or, with --stop-on-stdin-eof, when its stdin closes: a parent that dies
without stopping it cannot leave it running).

`python -m fbstorage.emulator exec [options] -- COMMAND…` runs COMMAND against the emulator
instead, with the emulator variables set, and exits with its status.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Callable

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from .app_check.tokens import DEFAULT_TTL_SECONDS, MODES, AppCheck
from .exec_command import emulator_environment, run_command, split_exec_argv
from .flavor import FLAVORS, PRODUCTION
from .rules import loading
from .rules.registry import BucketRules
from .identity.accounts import AccountStore
from .identity.signing import SigningKeys
from .identity.settings import auth_settings
from .limits import STOP_GRACE_SECONDS
from .origins import CrossSitePolicy, parse_origin
from . import tls
from .server import create_app, create_auth_app, app_runner
from .service_accounts import ServiceAccounts
from .session_journal import SessionJournal
from .state import EmulatorState
from .store import ObjectStore
from .tuning import keep_large_buffers_in_heap
from .uploads import UploadSessions
from .ui import UiSettings, add_to_storage_app, start_ui_server
from .workflows import Workflows, add_arguments as add_workflow_arguments

log = logging.getLogger("fbstorage.emulator")
DEFAULT_UI_PORT = 4000


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m fbstorage.emulator",
                                     description="Local Firebase Storage (v0 REST API) emulator.")
    parser.add_argument("--host", help="address to listen on (default: firebase.json's, else 127.0.0.1)")
    parser.add_argument("--port", type=_port, help="port; 0 picks a free one (default: firebase.json's, else 9199)")
    parser.add_argument("--data-dir", help="persist objects here across restarts (default: memory only)")
    parser.add_argument("--flavor", choices=sorted(FLAVORS), default=PRODUCTION.name,
                        help="production (default) or firebase-tools: the official emulator's quirks")
    parser.add_argument("--bucket", action="append", default=[],
                        help="a bucket that exists from the start, for the GCS API (repeatable)")
    rules = parser.add_mutually_exclusive_group()
    rules.add_argument("--rules", help="storage.rules file, reloaded when it changes (default: everything allowed)")
    rules.add_argument("--config", help='firebase.json: the rules named by its "storage" key')
    auth = parser.add_argument_group("Auth emulator")
    auth.add_argument("--auth-port", type=_port,
                      help="its own port; 0 picks a free one (default: 9099, firebase.json's emulators.auth.port, "
                           "or 0 when --port is 0)")
    auth.add_argument("--no-auth", action="store_true", help="no Auth port (the storage port still serves Auth)")
    auth.add_argument("--project", help="project id of the accounts and tokens (default: .firebaserc's default "
                                        "project next to --config, else demo-project)")
    auth.add_argument("--service-account", action="append", default=[], metavar="KEY_JSON",
                      help="trust this service-account key (repeatable): its assertions get access tokens at "
                           "/oauth2.googleapis.com/token, admin on both storage APIs, and its signed URLs work")
    auth.add_argument("--auth-token-lifetime", type=_positive, default=3600, metavar="SECONDS",
                      help="lifetime of the ID tokens it issues (default 3600)")
    auth.add_argument("--auth-oob-code-lifetime", type=_positive, default=3600, metavar="SECONDS",
                      help="lifetime of its email action codes, after which they answer EXPIRED_OOB_CODE (default 3600)")
    auth.add_argument("--auth-recent-login", type=_positive, metavar="SECONDS",
                      help="how recent a sign-in must be to change the email or password or delete the user "
                           "(default: 300 in the production flavor; the firebase-tools flavor never asks)")
    app_check = parser.add_argument_group("App Check (docs/emulator.md, \"App Check\")")
    app_check.add_argument("--app-check", choices=MODES, default="off",
                           help="on the Firebase (v0) API: off (default), monitor (record each request's verdict) "
                                "or enforce (refuse a request without a valid App Check token with a 401)")
    app_check.add_argument("--app-check-debug-token", action="append", default=[], metavar="TOKEN",
                           help="a registered debug token: :exchangeDebugToken answers it with an App Check token "
                                "(repeatable)")
    app_check.add_argument("--app-check-token-ttl", type=_positive, default=DEFAULT_TTL_SECONDS, metavar="SECONDS",
                           help=f"lifetime of the App Check tokens it issues (default {DEFAULT_TTL_SECONDS})")
    tls.add_arguments(parser)
    parser.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="warning",
                        help="the least severe log lines shown on stderr (default warning)")
    parser.add_argument("--loop", choices=("auto", "uvloop", "asyncio"), default="auto",
                        help="event loop: uvloop (auto: when installed) or asyncio's own (default auto)")
    parser.add_argument("--ui-port", type=_port,
                        help="port of the web UI, also served under /ui on the storage port; 0 picks a free one "
                             f"(default {DEFAULT_UI_PORT}, or a free one when --port is 0)")
    parser.add_argument("--no-ui", action="store_true", help="serve no web UI (and keep no UI request log)")
    parser.add_argument("--cors-allow-origin", action="append", default=[], type=_origin, metavar="ORIGIN",
                        help="treat pages of ORIGIN (http://host:port) as the emulator's own: they may use the "
                             "control routes and admin credentials (repeatable; docs/security.md)")
    parser.add_argument("--stop-on-stdin-eof", action="store_true",
                        help="also stop when stdin reaches end of file (for test harnesses)")
    add_workflow_arguments(parser)
    return parser.parse_args(argv)


def _port(text: str) -> int:
    port = int(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port (0-65535)")
    return port


def _origin(text: str) -> str:
    try:
        return parse_origin(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive number")
    return value


def _announce(line: str) -> None:
    """Prints a READY line. A harness that read the first line and closed its end of the pipe
    does not stop the emulator: later lines are then dropped."""
    try:
        print(line, flush=True)
    except BrokenPipeError:
        # Nothing reads stdout any more; point it at /dev/null so no later write or the final
        # flush at exit fails again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


async def serve(args: argparse.Namespace) -> int:
    """Run until stopped (or, for `exec`, until the command ends); the exit status."""
    workflows = Workflows(args)
    sources = _rules_sources(args)
    rules = loading.load(sources) if sources else BucketRules.allow_all()
    auth = auth_settings(args)
    flavor = FLAVORS[args.flavor]
    recent_login = args.auth_recent_login or flavor.recent_login_seconds
    accounts = AccountStore(args.data_dir, auth.project, args.auth_token_lifetime, args.auth_oob_code_lifetime,
                            recent_login, SigningKeys() if flavor.verifies_id_tokens else None)
    service_accounts = ServiceAccounts.from_key_files(args.service_account)
    store = ObjectStore(args.data_dir)
    status = 0
    # The project's default bucket exists, as in a real Firebase project.
    store.configure_buckets([f"{auth.project}.appspot.com", *args.bucket,
                             *(bucket for source in sources for bucket in source.buckets or ())])
    serving_tls = tls.context(args)
    try:
        await workflows.load(store, auth.project)
        journal = SessionJournal(store.root / "sessions") if store.persistent else None
        state = EmulatorState(flavor=flavor, store=store, startup_rules=rules, rules=rules,
                              sessions=UploadSessions(journal=journal),
                              accounts=accounts, service_accounts=service_accounts,
                              cross_site=CrossSitePolicy(args.host or "", allowed_origins=frozenset(args.cors_allow_origin)),
                              app_check=AppCheck(auth.project, args.app_check, frozenset(args.app_check_debug_token),
                                                 args.app_check_token_ttl))
        app = create_app(state)
        ui = None if args.no_ui else UiSettings(args.host or "")  # None: every interface
        if ui:
            add_to_storage_app(app, state, ui)
        runner = app_runner(app)
        ui_runner = None
        auth_runner = app_runner(create_auth_app(state))
        await runner.setup()
        await auth_runner.setup()
        try:
            site = web.TCPSite(runner, args.host, args.port, reuse_address=True,
                               ssl_context=serving_tls[0] if serving_tls else None)
            await site.start()
            if auth.port is not None:
                await web.TCPSite(auth_runner, auth.host or args.host, auth.port, reuse_address=True).start()
            loop = asyncio.get_running_loop()
            log.info("event loop: %s.%s", type(loop).__module__, type(loop).__qualname__)
            watcher = loop.create_task(loading.watch(sources, rules)) if sources else None
            if ui:
                ui_runner = await start_ui_server(state, ui, _address(runner), args.host, _ui_port(args))
            # Pages of the emulator's own ports (the UI's, on its port, calls the storage port).
            state.cross_site.own_ports.update(_port_of(served) for served in (runner, auth_runner, ui_runner)
                                              if served is not None and served.addresses)
            # Every emulator served, by name: `exec` exports their variables.
            addresses = {"storage": _address(runner).removeprefix("http://"),  # the storage port serves Auth too
                         "auth": _address(auth_runner if auth.port is not None else runner).removeprefix("http://")}
            workflows.start(store, _address(runner))
            if args.command:
                status = await run_command(args.command, emulator_environment(addresses, auth.project))
            else:
                stop = _stop_event(args, loop)  # before READY: a signal right after it must stop us cleanly
                _announce(f"READY {_address(runner, 'https' if serving_tls else 'http')}")
                if serving_tls:
                    _announce(f"TLS certificate (trust it as the CA): {serving_tls[1]}")
                if auth.port is not None:
                    _announce(f"READY-AUTH {_address(auth_runner)}")
                if ui_runner:
                    _announce(f"READY-UI {_address(ui_runner)}")
                await stop.wait()
            if watcher:
                watcher.cancel()
        finally:
            if state.requests.in_flight:  # the stop waits for them: say so, and for how long
                log.warning("stopping: %d request(s) in flight get up to %g s to finish, then are cut",
                            state.requests.in_flight, STOP_GRACE_SECONDS)
            if ui_runner:
                await ui_runner.cleanup()
            await auth_runner.cleanup()
            await runner.cleanup()
            await workflows.stop(store)
    finally:
        store.close()
    return status


def _ui_port(args: argparse.Namespace) -> int:
    return args.ui_port if args.ui_port is not None else 0 if args.port == 0 else DEFAULT_UI_PORT


def _stop_event(args: argparse.Namespace, loop: asyncio.AbstractEventLoop) -> asyncio.Event:
    """Set by SIGINT or SIGTERM (or, with --stop-on-stdin-eof, the end of stdin)."""
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    if args.stop_on_stdin_eof:
        _stop_on_stdin_eof(loop, stop)
    return stop


def _port_of(runner: web.AppRunner) -> int:
    return runner.addresses[0][1]


def _address(runner: web.AppRunner, scheme: str = "http") -> str:
    host, port = runner.addresses[0][:2]
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


def _rules_sources(args: argparse.Namespace) -> list[loading.RulesSource]:
    if args.rules:
        return [loading.RulesSource(Path(args.rules), None)]
    if args.config:
        return loading.sources_from_config(Path(args.config), args.project)
    return []


def event_loop_factory(choice: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """--loop `choice` as asyncio.Runner's loop factory (None: asyncio's own loop)."""
    if choice == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        if choice == "uvloop":
            raise ValueError("--loop uvloop: uvloop is not installed (pip install uvloop)") from None
        return None
    return uvloop.new_event_loop


def _stop_on_stdin_eof(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    def drain() -> None:
        # os.read, not sys.stdin: a daemon thread blocked in a buffered read makes the interpreter
        # abort (SIGABRT) when a signal stops it with stdin still open.
        while os.read(sys.stdin.fileno(), 65536):
            pass
        loop.call_soon_threadsafe(stop.set)
    threading.Thread(target=drain, name="stdin-eof", daemon=True).start()


def _shorten_bad_http(record: logging.LogRecord) -> bool:
    """aiohttp logs a client's malformed HTTP with a traceback; one line says enough."""
    error = record.exc_info[1] if record.exc_info else None
    if isinstance(error, web.RequestPayloadError):  # a body it failed to decode (Content-Encoding)
        error = error.__cause__
    if isinstance(error, HttpProcessingError):
        record.msg, record.args, record.exc_info = f"rejected malformed HTTP: {str(error).splitlines()[0]}", (), None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
    return True


def main(argv: list[str] | None = None) -> int:
    """`[options]`, or `exec [options] -- COMMAND…` (run COMMAND against the emulator)."""
    argv = sys.argv[1:] if argv is None else argv
    command = None
    if argv[:1] == ["exec"]:
        try:
            argv, command = split_exec_argv(argv)
        except ValueError as error:
            print(f"fbstorage.emulator: {error}", file=sys.stderr)
            return 2
    args = parse_args(argv)
    args.command = command
    logging.basicConfig(level=args.log_level.upper(), format="fbstorage.emulator: %(levelname)s %(message)s")
    logging.getLogger("aiohttp.server").addFilter(_shorten_bad_http)
    keep_large_buffers_in_heap()
    # A parent may spawn us from a thread that blocks signals; the mask is inherited.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        with asyncio.Runner(loop_factory=event_loop_factory(args.loop)) as runner:
            return runner.run(serve(args))
    except (OSError, ValueError) as error:  # no uvloop, port in use, unreadable rules, data or import dir
        print(f"fbstorage.emulator: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
