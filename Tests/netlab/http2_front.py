"""An HTTP/2 front in the server namespace: Debian's nginx terminating TLS (ALPN h2 and
http/1.1) with the emulator's certificate and proxying to the emulator over https, as Google's
front ends stand before Cloud Storage. Clients that speak HTTP/2 then use it (multiplexing many
transfers on one connection); the rest get HTTP/1.1.

Listens on 127.0.0.1:FRONT_PORT of the server namespace: a relay (`Relay(port=...,
upstream_port=FRONT_PORT)`) puts it on the link. Requests reach the emulator with the Host the
client sent to the relay (`public_port`), so the URLs the emulator hands out (resumable upload
sessions) lead back through the relay. Two locations of its own measure the link:
`/_front/ping` (204, answered by nginx alone: one round trip) and `/_front/blob` (a file of
`blob_bytes`, served by nginx from disk). Its access log keeps each request's protocol:
`protocols()` counts those since the last call (which clients spoke HTTP/2).
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

from .emulator import PORT as EMULATOR_PORT
from .emulator import NetworkEmulator
from .namespaces import Topology
from .processes import NamespaceProcess, wait_for

FRONT_PORT = 9445
NGINX = "/usr/sbin/nginx"

# The worker runs as root, as everything in the lab: its files live in the run's private
# temporary directory.
CONFIG = """\
user root;
worker_processes 1;
daemon off;
pid {directory}/nginx.pid;
error_log stderr warn;
events {{ worker_connections 4096; }}
http {{
    log_format protocols '$server_protocol';
    access_log {directory}/access.log protocols;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    upstream emulator {{
        server 127.0.0.1:{emulator_port};
        keepalive 256;
    }}
    server {{
        listen 127.0.0.1:{port} ssl http2;
        ssl_certificate {certificate};
        ssl_certificate_key {key};
        ssl_protocols TLSv1.2 TLSv1.3;
        client_max_body_size 0;
        # The window an HTTP/2 upload gets (nginx's 64 KiB default allows 64 KiB per round
        # trip: 1.5 MiB/s at 40 ms); Google's front ends grant megabytes.
        http2_body_preread_size 4m;
        client_body_buffer_size 4m;
        keepalive_requests 1000000;
        http2_max_concurrent_streams 256;
        location = /_front/ping {{ return 204; }}
        location = /_front/blob {{ alias {directory}/blob; }}
        location / {{
            proxy_pass https://emulator;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host:{public_port};
            proxy_request_buffering off;
            proxy_buffering off;
            proxy_read_timeout 600s;
            proxy_send_timeout 600s;
            proxy_ssl_verify on;
            proxy_ssl_trusted_certificate {certificate};
            proxy_ssl_server_name on;
            proxy_ssl_name $host;
            proxy_ssl_session_reuse on;
        }}
    }}
}}
"""


def missing() -> str | None:
    """None when nginx with HTTP/2 is installed, else what is missing."""
    return None if shutil.which(NGINX) else f"{NGINX} (Debian's nginx) is not installed"


class Http2Front:
    def __init__(self, topology: Topology, emulator: NetworkEmulator, directory: Path, public_port: int,
                 blob_bytes: int = 64 << 20) -> None:
        self.topology = topology
        self.directory = directory / "http2-front"
        self.directory.mkdir(parents=True, exist_ok=True)
        self.blob_bytes = blob_bytes
        with open(self.directory / "blob", "wb") as blob:
            blob.write(os.urandom(blob_bytes))
        self.config = self.directory / "nginx.conf"
        self.config.write_text(CONFIG.format(
            directory=self.directory, emulator_port=EMULATOR_PORT, port=FRONT_PORT, public_port=public_port,
            certificate=emulator.ca_file, key=emulator.key_file))
        self.process: NamespaceProcess | None = None
        self._log_offset = 0

    def protocols(self) -> Counter[str]:
        """{"HTTP/2.0": requests, "HTTP/1.1": requests} since the last call (nginx writes each
        line as its request ends)."""
        log = self.directory / "access.log"
        if not log.exists():
            return Counter()
        with open(log) as lines:
            lines.seek(self._log_offset)
            counted = Counter(line.strip() for line in lines if line.strip())
            self._log_offset = lines.tell()
        return counted

    def start(self) -> None:
        self.process = NamespaceProcess(self.topology.server, [NGINX, "-c", str(self.config), "-e", "stderr"])
        wait_for(self._listening, 10, "nginx did not listen")

    def _listening(self) -> bool:
        assert self.process is not None
        if self.process.process.poll() is not None:
            raise RuntimeError(f"nginx exited: {self.process.error_output()}")
        return (self.directory / "nginx.pid").exists()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None
