"""Serving https: `--tls-cert`/`--tls-key`, or `--tls` with a self-signed pair generated once
into the data directory (a temporary one without `--data-dir`) and printed at start, for
clients to trust (`ca_file`, `SSL_CERT_FILE`)."""

from __future__ import annotations

import argparse
import datetime
import ipaddress
import ssl
import tempfile
from pathlib import Path

CERT_NAME = "emulator-tls-cert.pem"
KEY_NAME = "emulator-tls-key.pem"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("TLS (https)")
    group.add_argument("--tls", action="store_true",
                       help=f"serve https with a self-signed certificate made once into the data dir ({CERT_NAME})")
    group.add_argument("--tls-cert", metavar="PEM", help="serve https with this certificate chain (with --tls-key)")
    group.add_argument("--tls-key", metavar="PEM", help="the private key of --tls-cert")


def context(args: argparse.Namespace) -> tuple[ssl.SSLContext, Path] | None:
    """The server's TLS context and its certificate file, or None to serve plain http.
    Raises ValueError for a bad combination or unreadable files."""
    if bool(args.tls_cert) != bool(args.tls_key):
        raise ValueError("--tls-cert and --tls-key go together")
    if args.tls_cert:
        cert, key = Path(args.tls_cert), Path(args.tls_key)
    elif args.tls:
        directory = Path(args.data_dir) if args.data_dir else Path(tempfile.mkdtemp(prefix="fbstorage-emulator-tls-"))
        cert, key = directory / CERT_NAME, directory / KEY_NAME
        if not (cert.exists() and key.exists()):
            directory.mkdir(parents=True, exist_ok=True)
            write_self_signed(cert, key, hosts=["localhost", "127.0.0.1", "::1", args.host or "127.0.0.1"])
    else:
        return None
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        server.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as error:
        raise ValueError(f"cannot load the TLS certificate {cert} and key {key}: {error}") from None
    return server, cert


def write_self_signed(cert: Path, key: Path, hosts: list[str], days: int = 825,
                      not_before: datetime.datetime | None = None) -> None:
    """A self-signed CA certificate naming `hosts` (DNS names or IP addresses), valid `days` from
    `not_before` (default now), and its key (mode 0600). Needs `cryptography`."""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        raise ValueError("--tls needs the cryptography package (pip install cryptography), "
                         "or give --tls-cert and --tls-key") from None
    private_key = ec.generate_private_key(ec.SECP256R1())
    names: list[x509.GeneralName] = []
    for host in dict.fromkeys(hosts):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host.strip("[]"))))
        except ValueError:
            names.append(x509.DNSName(host))
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fbstorage emulator")])
    start = not_before or datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject).issuer_name(subject)
        .public_key(private_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start).not_valid_after(start + datetime.timedelta(days=days))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(private_key, hashes.SHA256())
    )
    key.touch(mode=0o600)
    key.write_bytes(private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                              serialization.NoEncryption()))
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
