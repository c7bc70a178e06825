"""pytest fixtures for code that uses fbstorage: the bundled emulator and a ready Storage.

Installed with the wheel, this plugin is active in every pytest run (entry point
``pytest11``); from a source tree, enable it with ``pytest_plugins = ["fbstorage.testing"]``
in a conftest.py.

Fixtures:
    fbstorage_emulator (session): the bundled emulator (``python -m fbstorage.emulator``)
        running on a free port, an :class:`EmulatorServer`. pytest options pass the emulator's
        own: ``--fbstorage-emulator-flavor=production|firebase-tools`` (default production),
        ``--fbstorage-emulator-rules=storage.rules``, ``--fbstorage-emulator-config=firebase.json``
        and ``--fbstorage-emulator-args="--project demo-x ..."`` for any other.
    fbstorage_storage: a :class:`fbstorage.Storage` for bucket "test-bucket" pointed at
        that emulator, which is reset first; closed after the test.

:func:`run_emulator` starts an emulator outside fixtures (e.g. one per flavor);
:func:`mint_id_token` gets an ID token for any uid and claims from a running emulator.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from typing import IO, Any, Iterator

import pytest

from .storage import Storage

#: The bucket of the fbstorage_storage fixture.
TEST_BUCKET = "test-bucket"

_STARTUP_TIMEOUT_SECONDS = 30.0


class EmulatorServer:
    """A running bundled emulator, and its test control API (``/_emulator/``).

    Attributes:
        host: the address it listens on, e.g. "127.0.0.1".
        port: its port.
        url: "http://host:port".
        flavor: "production" or "firebase-tools".
    """

    def __init__(self, process: subprocess.Popen[str], url: str, flavor: str,
                 ssl_context: ssl.SSLContext | None = None) -> None:
        self.process = process
        self._ssl_context = ssl_context  # for an https emulator whose CA the system does not trust
        self._rules_installed = False  # by set_rules(), which reset() then keeps
        self._rules: str | None = None
        self.url = url
        self.flavor = flavor
        host_and_port = url.split("://", 1)[1]
        host, _, port = host_and_port.rpartition(":")
        self.host = host.strip("[]")
        self.port = int(port)

    def __repr__(self) -> str:
        return f"<EmulatorServer {self.url} {self.flavor}>"

    def _control(self, method: str, path: str, json_body: str | None = None) -> Any:
        return self._call(method, f"/_emulator/{path}", json_body)

    def _call(self, method: str, path: str, json_body: str | None = None) -> Any:
        data = None if json_body is None else json_body.encode()
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=data,
            method=method,
            headers={"Content-Type": "application/json"} if data is not None else {},
        )
        with urllib.request.urlopen(request, timeout=30, context=self._ssl_context) as response:
            payload = response.read()
        return json.loads(payload) if payload else None

    def reset(self, *, keep_rules: bool = True) -> None:
        """Deletes every object, upload session, recorded request and fault. The rules stay those
        of the last set_rules() call, else those the emulator started with; keep_rules=False
        forgets set_rules() and restores the latter. Waits first (10 s at most) for the requests
        being handled, so that one of an earlier test's closed storage cannot land in the next
        test's log."""
        with contextlib.suppress(TimeoutError):
            self.wait_idle()
        self._control("POST", "reset")
        if not keep_rules:
            self._rules_installed, self._rules = False, None
        elif self._rules_installed:
            self._install_rules(self._rules)

    def requests(self) -> list[dict[str, Any]]:
        """The v0 requests received since the last reset (method, path, query, headers,
        body_size, status)."""
        return list(self._control("GET", "requests")["requests"])

    def wait_idle(self, timeout: float = 10) -> None:
        """Waits until no request is being handled (one of a paused or killed client may still
        be), so that the request log is final; raises TimeoutError after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while self._control("GET", "requests")["in_flight"]:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the emulator still handles requests after {timeout} s")
            time.sleep(0.01)

    def clear_requests(self) -> None:
        """Forgets the recorded requests."""
        self._control("DELETE", "requests")

    def add_fault(self, fault: dict[str, Any]) -> None:
        """Makes matching requests fail, drop or stall (see docs/emulator.md)."""
        self._control("POST", "faults", json.dumps(fault))

    def clear_faults(self) -> None:
        """Removes every fault."""
        self._control("DELETE", "faults")

    def set_rules(self, rules: str | None) -> None:
        """Replaces the security rules (the text of a storage.rules file), also for after every
        reset(); None allows everything. Rules go through firebase-tools' ``PUT /internal/setRules``, as
        @firebase/rules-unit-testing sends them; rules that do not compile raise HTTPError 400
        and leave the previous rules in force."""
        self._install_rules(rules)
        self._rules_installed, self._rules = True, rules

    def _install_rules(self, rules: str | None) -> None:
        if not rules:
            self._control("PUT", "rules", "")
            return
        self._call("PUT", "/internal/setRules",
                   json.dumps({"rules": {"files": [{"name": "storage.rules", "content": rules}]}}))

    def id_token(self, uid: str, **claims: Any) -> str:
        """An ID token for ``uid`` with ``claims``: see :func:`mint_id_token`."""
        return mint_id_token(self.url, uid, **claims)

    def storage(self, bucket: str = TEST_BUCKET) -> Storage:
        """A new Storage for ``bucket`` pointed at this emulator (close it when done)."""
        storage = Storage(bucket)
        storage.use_emulator(self.host, self.port)
        return storage


def mint_id_token(url: str, uid: str, **claims: Any) -> str:
    """An ID token for ``uid`` minted by the emulator at ``url`` (``POST /_emulator/tokens``):
    signed with its Auth's key in the production flavor (which refuses unsigned tokens), unsigned
    in the firebase-tools flavor. It holds this project's standard claims (``aud``, ``iss``,
    ``iat``, ``exp``, ``sub``) unless ``claims`` gives them; a claim given as None is left out."""
    body = json.dumps({"user_id": uid, "sub": uid, **claims}).encode()
    request = urllib.request.Request(f"{url}/_emulator/tokens", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return str(json.loads(response.read())["idToken"])


@contextlib.contextmanager
def run_emulator(
    flavor: str = "production", *extra_arguments: str, python: str = sys.executable
) -> Iterator[EmulatorServer]:
    """Runs ``python -m fbstorage.emulator`` on a free port for the duration of the block.

    ``extra_arguments`` are passed to the emulator (e.g. ``"--rules", "storage.rules"``).
    """
    with tempfile.TemporaryFile(mode="w+") as error_log:
        process = subprocess.Popen(
            [python, "-m", "fbstorage.emulator", "--host", "127.0.0.1", "--port", "0",
             "--flavor", flavor, *extra_arguments],
            stdout=subprocess.PIPE,
            stderr=error_log,
            text=True,
        )
        try:
            url = _wait_until_ready(process, error_log)
            yield EmulatorServer(process, url, flavor)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()


def _wait_until_ready(process: subprocess.Popen[str], error_log: IO[str]) -> str:
    """Reads the emulator's "READY http://host:port" line; its URL."""
    stdout = process.stdout
    assert stdout is not None
    first_line: list[str] = []
    reader = threading.Thread(target=lambda: first_line.append(stdout.readline()), daemon=True)
    reader.start()
    reader.join(_STARTUP_TIMEOUT_SECONDS)
    line = first_line[0].strip() if first_line else ""
    if not line.startswith("READY "):
        process.kill()
        process.wait()
        error_log.seek(0)
        raise RuntimeError(
            f"the fbstorage emulator did not start (first line {line!r}):\n{error_log.read()}"
        )
    return line.split(" ", 1)[1]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fbstorage", "the fbstorage_emulator fixture (python -m fbstorage.emulator)")
    group.addoption("--fbstorage-emulator-flavor", default="production", choices=("production", "firebase-tools"),
                    help="the emulator's --flavor")
    group.addoption("--fbstorage-emulator-rules", metavar="PATH", help="the emulator's --rules: a storage.rules file")
    group.addoption("--fbstorage-emulator-config", metavar="PATH",
                    help="the emulator's --config: a firebase.json (its \"storage\" rules, host and port)")
    group.addoption("--fbstorage-emulator-args", default="", metavar="ARGS",
                    help="any other emulator options, one shell-quoted string")


def emulator_arguments(config: pytest.Config) -> list[str]:
    """The emulator's command-line options given by the pytest options."""
    arguments = []
    for option in ("rules", "config"):
        value = config.getoption(f"--fbstorage-emulator-{option}")
        if value:
            arguments += [f"--{option}", value]
    return arguments + shlex.split(config.getoption("--fbstorage-emulator-args"))


@pytest.fixture(scope="session")
def fbstorage_emulator(pytestconfig: pytest.Config) -> Iterator[EmulatorServer]:
    """The bundled emulator on a free port, for the whole session."""
    flavor = pytestconfig.getoption("--fbstorage-emulator-flavor")
    with run_emulator(flavor, *emulator_arguments(pytestconfig)) as emulator:
        yield emulator


@pytest.fixture
def fbstorage_storage(fbstorage_emulator: EmulatorServer) -> Iterator[Storage]:
    """A Storage for "test-bucket" on the (reset) emulator; closed after the test."""
    fbstorage_emulator.reset()
    with fbstorage_emulator.storage() as storage:
        yield storage
