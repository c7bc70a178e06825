"""CA discovery like Go's crypto/x509, for real: in a private mount namespace (`unshare -m`, an
overlay on /etc), the system's bundles are removed and the https emulator's CA is written where
one distribution keeps its bundle, alone; a storage without ca_file must trust it there (and
report that path), and with no bundle anywhere the binding falls back on certifi's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Iterator

import pytest

from fbstorage.emulator.tls import write_self_signed
from fbstorage.testing import EmulatorServer, run_emulator

NEEDS_NAMESPACES = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare (mount namespaces)")
pytestmark = NEEDS_NAMESPACES

#: Where each layout keeps its bundle (Go's list; Debian's is the default of the build machine).
LAYOUTS = {
    "debian": "/etc/ssl/certs/ca-certificates.crt",
    "fedora": "/etc/pki/tls/certs/ca-bundle.crt",
    "opensuse": "/etc/ssl/ca-bundle.pem",
    "alpine": "/etc/ssl/cert.pem",
}

#: Runs in the namespace: hide every system bundle behind an overlay of /etc, then put the CA
#: at $BUNDLE (none when empty; then certifi's bundle is replaced by it instead), then run.
NAMESPACE_SCRIPT = r"""
set -e
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$WORK/upper,workdir=$WORK/work" /etc
rm -rf /etc/ssl/certs /etc/ssl/cert.pem /etc/ssl/ca-bundle.pem /etc/pki /etc/ca-certificates
if [ -n "$BUNDLE" ]; then
    mkdir -p "$(dirname "$BUNDLE")"
    cp "$CA" "$BUNDLE"
else
    mount --bind "$CA" "$CERTIFI_BUNDLE"
fi
exec "$@"
"""

CHILD = """
    import ctypes, sys, fbstorage
    from fbstorage._native import library, take_string
    found = ctypes.c_void_p()
    library().fbs_library_system_ca_bundle(ctypes.byref(found))
    print("BUNDLE", take_string(found.value))
    storage = fbstorage.Storage("test-bucket")
    print("CA_FILE", storage.ca_file)
    storage.use_endpoint(sys.argv[1])
    storage.max_operation_retry_time = storage.max_upload_retry_time = 10
    storage.reference("trust/object").put_data(b"trusted").wait(30)
    assert storage.reference("trust/object").get_data() == b"trusted"
    print("OK")
"""


@pytest.fixture(scope="module")
def secure(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EmulatorServer, Path]]:
    directory = tmp_path_factory.mktemp("trust")
    cert, key = directory / "ca.pem", directory / "ca.key"
    write_self_signed(cert, key, ["localhost", "127.0.0.1"])
    with run_emulator("production", "--tls-cert", str(cert), "--tls-key", str(key)) as server:
        yield server, cert


def run_in_namespace(secure: tuple[EmulatorServer, Path], tmp_path: Path, bundle: str,
                     python: str = sys.executable) -> list[str]:
    """Runs CHILD with `python` in a namespace where only `bundle` holds the CA; its lines. Another
    python (an installed wheel's) runs without this checkout's PYTHONPATH and library."""
    server, ca = secure
    (tmp_path / "upper").mkdir()
    (tmp_path / "work").mkdir()
    import certifi
    dropped = ("SSL_CERT_",) if python == sys.executable else ("SSL_CERT_", "PYTHONPATH", "FBSTORAGE_LIBRARY")
    env = {key: value for key, value in os.environ.items() if not key.startswith(dropped)}
    env.update(WORK=str(tmp_path), BUNDLE=bundle, CA=str(ca), CERTIFI_BUNDLE=certifi.where())
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", NAMESPACE_SCRIPT, "namespace",
         python, "-c", textwrap.dedent(CHILD), f"https://localhost:{server.port}"],
        env=env, capture_output=True, text=True, timeout=120)
    lines = done.stdout.splitlines()
    assert lines[-1:] == ["OK"], f"{done.stdout}\n{done.stderr}"
    return lines


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_bundle_of_each_layout_is_found(secure: tuple[EmulatorServer, Path], tmp_path: Path, layout: str) -> None:
    lines = run_in_namespace(secure, tmp_path, LAYOUTS[layout])
    assert lines[0] == f"BUNDLE {LAYOUTS[layout]}"
    assert lines[1] == "CA_FILE None"  # the library's own discovery, not the binding's fallback


def test_certifi_is_the_last_resort(secure: tuple[EmulatorServer, Path], tmp_path: Path) -> None:
    import certifi
    lines = run_in_namespace(secure, tmp_path, "")
    assert lines[0] == "BUNDLE None"
    assert lines[1] == f"CA_FILE {certifi.where()}"
