"""Proxies, through a real one: Debian's tinyproxy, started here on a free port (make test
installs it). https tunnels through CONNECT and http is forwarded; set_proxy() and the
environment variables both work; no_proxy bypasses; a proxy that refuses and one that wants
credentials fail at once with a message that says so; credentials never reach the logs."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

import fbstorage
from fbstorage.emulator.tls import write_self_signed
from fbstorage.testing import EmulatorServer, run_emulator

pytestmark = pytest.mark.skipif(shutil.which("tinyproxy") is None, reason="tinyproxy is not installed")

USER, PASSWORD = "proxy-user", "proxy-secret-3141"


class Tinyproxy:
    def __init__(self, port: int, log: Path) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.log = log

    def requests(self) -> str:
        """The lines tinyproxy logged for the requests it took."""
        return "\n".join(line for line in self.log.read_text().splitlines() if "Request" in line)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def tinyproxy(directory: Path, *settings: str) -> Iterator[Tinyproxy]:
    """A tinyproxy in the foreground on a free port, with these extra config lines."""
    port, log = _free_port(), directory / "tinyproxy.log"
    config = directory / "tinyproxy.conf"
    config.write_text("\n".join([f"Port {port}", "Listen 127.0.0.1", "Timeout 30", "LogLevel Info",
                                 f"LogFile \"{log}\"", "MaxClients 50", "DisableViaHeader Yes", *settings]) + "\n")
    log.touch()
    process = subprocess.Popen(["tinyproxy", "-d", "-c", str(config)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while True:  # ready once it accepts connections
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            assert time.monotonic() < deadline, "tinyproxy did not start"
            time.sleep(0.02)
        yield Tinyproxy(port, log)
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EmulatorServer, EmulatorServer, Path]]:
    """A plain-http emulator and an https one, with the latter's CA."""
    directory = tmp_path_factory.mktemp("proxy-tls")
    cert, key = directory / "ca.pem", directory / "ca.key"
    write_self_signed(cert, key, ["localhost", "127.0.0.1"])
    with run_emulator("production") as plain, \
            run_emulator("production", "--tls-cert", str(cert), "--tls-key", str(key)) as secure:
        yield plain, secure, cert


@pytest.fixture
def open_proxy(tmp_path: Path) -> Iterator[Tinyproxy]:
    with tinyproxy(tmp_path, "Allow 127.0.0.1") as proxy:
        yield proxy


def storage_for(server: EmulatorServer, ca: Path | None = None) -> fbstorage.Storage:
    storage = fbstorage.Storage("test-bucket")
    storage.use_endpoint(f"{'https' if ca else 'http'}://localhost:{server.port}")
    if ca:
        storage.ca_file = ca
    storage.max_operation_retry_time = storage.max_upload_retry_time = 10
    return storage


def round_trip(storage: fbstorage.Storage, name: str) -> None:
    data = name.encode() * 1000
    storage.reference(f"proxy/{name}").put_data(data).wait(30)
    assert storage.reference(f"proxy/{name}").get_data() == data
    assert name in [item.name for item in storage.reference("proxy").list_all().items]


def test_https_through_connect(servers: tuple[EmulatorServer, EmulatorServer, Path], open_proxy: Tinyproxy) -> None:
    _, secure, ca = servers
    with storage_for(secure, ca) as storage:
        storage.set_proxy(open_proxy.url)
        round_trip(storage, "https-connect")
    assert f"CONNECT localhost:{secure.port}" in open_proxy.requests()


def test_http_forwarded(servers: tuple[EmulatorServer, EmulatorServer, Path], open_proxy: Tinyproxy) -> None:
    plain, _, _ = servers
    with storage_for(plain) as storage:
        storage.set_proxy(open_proxy.url)
        round_trip(storage, "http-forwarded")
    assert f"http://localhost:{plain.port}/v0/b/test-bucket/o" in open_proxy.requests()


def test_environment_variables_and_no_proxy(servers: tuple[EmulatorServer, EmulatorServer, Path],
                                            open_proxy: Tinyproxy, monkeypatch: pytest.MonkeyPatch) -> None:
    _, secure, ca = servers
    monkeypatch.setenv("https_proxy", open_proxy.url)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    with storage_for(secure, ca) as storage:
        round_trip(storage, "from-environment")
        through = open_proxy.requests().count("CONNECT")
        assert through >= 1
        storage.set_proxy(open_proxy.url, no_proxy="localhost")   # bypassed: straight to the server
        round_trip(storage, "no-proxy")
        assert open_proxy.requests().count("CONNECT") == through
        storage.set_proxy("")   # no proxy at all, the environment ignored
        round_trip(storage, "direct")
        assert open_proxy.requests().count("CONNECT") == through


def _fails_at_once(storage: fbstorage.Storage) -> fbstorage.StorageError:
    started = time.monotonic()
    with pytest.raises(fbstorage.StorageError) as raised:
        storage.reference("proxy/refused").get_metadata()
    assert time.monotonic() - started < 3, "a refusing proxy must not be retried"
    return raised.value


def test_refusing_proxy(servers: tuple[EmulatorServer, EmulatorServer, Path], tmp_path: Path) -> None:
    plain, secure, ca = servers
    with tinyproxy(tmp_path, "Allow 10.9.8.7") as proxy:   # not us
        with storage_for(secure, ca) as storage:
            storage.set_proxy(proxy.url)
            error = _fails_at_once(storage)
            assert "proxy refused" in str(error) and "403" in str(error)
        with storage_for(plain) as storage:
            storage.set_proxy(proxy.url)
            assert _fails_at_once(storage).http_status == 403


def test_proxy_requiring_credentials(servers: tuple[EmulatorServer, EmulatorServer, Path], tmp_path: Path) -> None:
    plain, secure, ca = servers
    lines: list[str] = []
    fbstorage.set_log_handler(lambda level, line: lines.append(line))
    try:
        with tinyproxy(tmp_path, "Allow 127.0.0.1", f"BasicAuth {USER} {PASSWORD}") as proxy:
            for server, authority in ((secure, ca), (plain, None)):
                with storage_for(server, authority) as storage:
                    storage.set_proxy(proxy.url)
                    error = _fails_at_once(storage)
                    assert "requires credentials" in str(error) and "407" in str(error)
                    storage.set_proxy(proxy.url, username=USER, password="wrong")
                    wrong = _fails_at_once(storage)   # tinyproxy answers a wrong password with 401
                    assert "credentials" in str(wrong) or wrong.http_status == 401, wrong
                    storage.set_proxy(proxy.url, username=USER, password=PASSWORD)
                    round_trip(storage, f"with-credentials-{server.port}")
    finally:
        fbstorage.set_log_handler(None)
    assert lines and not any(PASSWORD in line for line in lines)


def test_proxy_arguments_are_checked(offline_storage: fbstorage.Storage) -> None:
    with pytest.raises(fbstorage.StorageError) as raised:
        offline_storage.set_proxy(None, username=USER)
    assert raised.value.code == fbstorage.StorageErrorCode.INVALID_ARGUMENT
    offline_storage.set_proxy(None)
