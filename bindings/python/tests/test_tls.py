"""https for real: the bundled emulator serving TLS (--tls-cert/--tls-key, --tls), reached with
use_endpoint(); uploads, downloads and listings over it, trusting its CA through ca_file,
SSL_CERT_FILE or a system bundle; and a wrong CA, an expired certificate and a host name the
certificate does not name, each failing at once with TLS (never retried, never downgraded)."""

from __future__ import annotations

import contextlib
import datetime
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Iterator

import pytest

import fbstorage
from fbstorage.emulator.tls import write_self_signed
from fbstorage.testing import EmulatorServer, run_emulator

from conftest import SMALL_CHUNK, payload

BUCKET = "test-bucket"
LOCAL_NAMES = ["localhost", "127.0.0.1"]


def _pair(directory: Path, name: str, hosts: list[str], **validity: object) -> tuple[Path, Path]:
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    write_self_signed(cert, key, hosts, **validity)  # type: ignore[arg-type]
    return cert, key


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """Self-signed pairs made now (never committed): the server's, another CA's, an expired
    one, and one for another host name."""
    directory = tmp_path_factory.mktemp("tls")
    long_ago = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=30)
    return {
        "good": _pair(directory, "good", LOCAL_NAMES),
        "other": _pair(directory, "other", LOCAL_NAMES),
        "expired": _pair(directory, "expired", LOCAL_NAMES, days=2, not_before=long_ago),
        "elsewhere": _pair(directory, "elsewhere", ["storage.example.test"]),
    }


@contextlib.contextmanager
def https_emulator(cert: Path, key: Path) -> Iterator[EmulatorServer]:
    with run_emulator("production", "--tls-cert", str(cert), "--tls-key", str(key)) as server:
        assert server.url.startswith("https://127.0.0.1:")
        yield server


@pytest.fixture(scope="module")
def secure(certificates: dict[str, tuple[Path, Path]]) -> Iterator[EmulatorServer]:
    with https_emulator(*certificates["good"]) as server:
        yield server


def https_storage(server: EmulatorServer, host: str = "localhost") -> fbstorage.Storage:
    storage = fbstorage.Storage(BUCKET)
    storage.use_endpoint(f"https://{host}:{server.port}")
    storage.upload_chunk_size = SMALL_CHUNK
    storage.max_operation_retry_time = storage.max_upload_retry_time = storage.max_download_retry_time = 30
    return storage


def round_trip(storage: fbstorage.Storage, tmp_path: Path, name: str) -> None:
    """A resumable upload, a small one, a listing, a download to a file and into memory."""
    big, small = payload(3 * SMALL_CHUNK + 123), payload(1000)
    storage.reference(f"{name}/big.bin").put_data(big).wait(30)
    storage.reference(f"{name}/small.bin").put_data(small).wait(30)
    listed = storage.reference(name).list_all()
    assert sorted(item.name for item in listed.items) == ["big.bin", "small.bin"]
    target = tmp_path / f"{name}.bin"
    storage.reference(f"{name}/big.bin").write_to_file(target).wait(30)
    assert target.read_bytes() == big
    assert storage.reference(f"{name}/small.bin").get_data() == small


def test_endpoint_urls_are_checked(offline_storage: fbstorage.Storage) -> None:
    for url in ("ftp://host", "https://", "https://host/path", "https://user@host", "https://host:0",
                "https://host:99999", "host:443", "https://host?x=1", " https://host"):
        with pytest.raises(fbstorage.StorageError) as raised:
            offline_storage.use_endpoint(url)
        assert raised.value.code == fbstorage.StorageErrorCode.INVALID_ARGUMENT, url
    for url in ("https://host", "https://host:8443/", "http://[::1]:9199", "HTTPS://Host.example:1"):
        offline_storage.use_endpoint(url)


def test_round_trip_over_https_with_ca_file(secure: EmulatorServer, certificates: dict[str, tuple[Path, Path]],
                                            tmp_path: Path) -> None:
    with https_storage(secure) as storage:
        storage.ca_file = certificates["good"][0]
        round_trip(storage, tmp_path, "ca-file")


def _failing_at_once(storage: fbstorage.Storage) -> fbstorage.StorageError:
    started = time.monotonic()
    with pytest.raises(fbstorage.StorageError) as raised:
        storage.reference("refused.bin").put_data(b"x" * 10).wait(30)
    assert time.monotonic() - started < 3, "a TLS failure must not be retried"
    with pytest.raises(fbstorage.StorageError) as listing:
        storage.reference().list_all()
    assert listing.value.code == fbstorage.StorageErrorCode.TLS
    return raised.value


@pytest.mark.parametrize("served, trusted, reason", [
    ("good", "other", "self-signed certificate"),   # a CA the client does not trust
    ("expired", "expired", "certificate has expired"),
    ("elsewhere", "elsewhere", "localhost"),         # no name of the certificate is localhost
])
def test_unverifiable_certificate_fails_at_once(certificates: dict[str, tuple[Path, Path]], served: str,
                                                trusted: str, reason: str) -> None:
    with https_emulator(*certificates[served]) as server, https_storage(server) as storage:
        storage.ca_file = certificates[trusted][0]
        error = _failing_at_once(storage)
    assert error.code == fbstorage.StorageErrorCode.TLS
    assert reason in str(error), error


def test_plain_http_client_is_not_downgraded(secure: EmulatorServer) -> None:
    """http:// to a TLS port fails (no fallback); https:// to a plain-http port fails with TLS."""
    with fbstorage.Storage(BUCKET) as storage:
        storage.use_endpoint(f"http://localhost:{secure.port}")
        storage.max_operation_retry_time = 2
        with pytest.raises(fbstorage.StorageError):
            storage.reference().list_all()
    with run_emulator("production") as plain, https_storage(plain) as storage:
        started = time.monotonic()
        with pytest.raises(fbstorage.StorageError) as raised:
            storage.reference().list_all()
        assert raised.value.code == fbstorage.StorageErrorCode.TLS
        assert time.monotonic() - started < 3


def _run_child(code: str, env: dict[str, str], *prefix: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*prefix, sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=120)


CHILD_ROUND_TRIP = """
    import sys, fbstorage
    storage = fbstorage.Storage("test-bucket")
    storage.use_endpoint(sys.argv[1] if len(sys.argv) > 1 else "{url}")
    storage.max_operation_retry_time = storage.max_upload_retry_time = 10
    storage.reference("child/{name}").put_data(b"over https").wait(30)
    assert storage.reference("child/{name}").get_data() == b"over https"
    assert [i.name for i in storage.reference("child").list_all().items].count("{name}") == 1
    print("OK")
"""


def test_ssl_cert_file_is_trusted(secure: EmulatorServer, certificates: dict[str, tuple[Path, Path]]) -> None:
    """No ca_file: SSL_CERT_FILE names the bundle (read in a fresh process: the library looks once)."""
    code = CHILD_ROUND_TRIP.format(url=f"https://localhost:{secure.port}", name="ssl-cert-file")
    trusted = _run_child(code, {**os.environ, "SSL_CERT_FILE": str(certificates["good"][0])})
    assert trusted.stdout.strip() == "OK", trusted.stderr
    untrusted = _run_child(code, {**os.environ, "SSL_CERT_FILE": str(certificates["other"][0])})
    assert untrusted.returncode != 0 and "TLS" in untrusted.stderr


def test_ssl_cert_dir_is_trusted(secure: EmulatorServer, certificates: dict[str, tuple[Path, Path]],
                                 tmp_path: Path) -> None:
    """SSL_CERT_DIR: a directory hashed by `openssl rehash` (as /etc/ssl/certs is)."""
    (tmp_path / "server-ca.pem").write_bytes(certificates["good"][0].read_bytes())
    subprocess.run(["openssl", "rehash", str(tmp_path)], check=True)
    code = CHILD_ROUND_TRIP.format(url=f"https://localhost:{secure.port}", name="ssl-cert-dir")
    env = {**os.environ, "SSL_CERT_DIR": str(tmp_path)}
    env.pop("SSL_CERT_FILE", None)
    trusted = _run_child(code, env)
    assert trusted.stdout.strip() == "OK", trusted.stderr


def test_cli_over_https_with_a_speed_cap(secure: EmulatorServer, certificates: dict[str, tuple[Path, Path]],
                                         tmp_path: Path) -> None:
    """`fbstorage --endpoint https://… --ca-file … --max-speed 256K cp`: 512 KiB take 2 s."""
    data = payload(512 * 1024)
    (tmp_path / "up.bin").write_bytes(data)
    env = {key: value for key, value in os.environ.items()
           if key not in ("FIREBASE_STORAGE_EMULATOR_HOST", "FBSTORAGE_TOKEN")}
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    base = [sys.executable, "-m", "fbstorage", "--endpoint", f"https://localhost:{secure.port}",
            "--ca-file", str(certificates["good"][0])]
    started = time.monotonic()
    copied = subprocess.run([*base, "--max-speed", "256K", "cp", str(tmp_path / "up.bin"), f"gs://{BUCKET}/cli/up.bin"],
                            env=env, capture_output=True, text=True, timeout=120)
    assert copied.returncode == 0, copied.stderr
    assert time.monotonic() - started >= 1.8
    shown = subprocess.run([*base, "cat", f"gs://{BUCKET}/cli/up.bin"], env=env, capture_output=True, timeout=120)
    assert shown.returncode == 0 and shown.stdout == data, shown.stderr
    refused = subprocess.run([*base[:5], "ls", f"gs://{BUCKET}/cli"], env=env, capture_output=True, text=True,
                             timeout=120)
    assert refused.returncode == 1 and "TLS" in refused.stderr, refused.stderr


def test_emulator_makes_its_own_certificate(tmp_path: Path) -> None:
    """--tls: a self-signed pair written once into the data dir, its path printed after READY."""
    for run in range(2):   # the second start reuses the pair
        with run_emulator("production", "--tls", "--data-dir", str(tmp_path)) as server:
            assert server.process.stdout is not None
            line = server.process.stdout.readline().strip()
            certificate = Path(line.rsplit(": ", 1)[1])
            assert line.startswith("TLS certificate") and certificate == tmp_path / "emulator-tls-cert.pem"
            if run == 0:
                first = certificate.read_bytes()
            assert certificate.read_bytes() == first
            assert (tmp_path / "emulator-tls-key.pem").stat().st_mode & 0o077 == 0
            with https_storage(server) as storage:
                storage.ca_file = certificate
                storage.reference("self-signed.txt").put_data(b"tls").wait(30)
                assert storage.reference("self-signed.txt").get_data() == b"tls"


@pytest.mark.parametrize("arguments, message", [
    (["--tls-cert", "cert.pem"], "--tls-cert and --tls-key go together"),
    (["--tls-cert", "missing.pem", "--tls-key", "missing.key"], "cannot load the TLS certificate"),
])
def test_emulator_tls_arguments_are_checked(tmp_path: Path, arguments: list[str], message: str) -> None:
    package_parent = str(Path(fbstorage.__file__).resolve().parents[1])   # PYTHONPATH may be relative
    done = subprocess.run([sys.executable, "-m", "fbstorage.emulator", "--port", "0", *arguments],
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": package_parent},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and message in done.stderr and "Traceback" not in done.stderr, done.stderr
