"""The link's own figures, measured from the client namespace through the relay and the HTTP/2
front (Tests/netlab/http2_front.py), with nothing but the standard library:

  link_probe.py rtt HOST PORT CA_FILE COUNT    COUNT requests for /_front/ping on one kept-alive
                                               TLS connection (nginx answers them itself)
  link_probe.py download HOST PORT CA_FILE     /_front/blob on one connection

Prints {"rtt_ms": [...]} or {"seconds": S, "bytes": N}.
"""

from __future__ import annotations

import json
import socket
import ssl
import sys
import time


def connect(host: str, port: int, ca_file: str) -> ssl.SSLSocket:
    context = ssl.create_default_context(cafile=ca_file)
    context.set_alpn_protocols(["http/1.1"])
    return context.wrap_socket(socket.create_connection((host, port), timeout=60), server_hostname=host)


def read_head(connection: ssl.SSLSocket, buffered: bytes) -> tuple[bytes, bytes]:
    """The response head (through the blank line) and what came after it."""
    while b"\r\n\r\n" not in buffered:
        chunk = connection.recv(65536)
        if not chunk:
            raise ConnectionError("the front closed the connection")
        buffered += chunk
    head, _, rest = buffered.partition(b"\r\n\r\n")
    return head, rest


def rtt(host: str, port: int, ca_file: str, count: int) -> None:
    request = f"GET /_front/ping HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
    with connect(host, port, ca_file) as connection:
        samples = []
        for _ in range(count):
            started = time.perf_counter()
            connection.sendall(request)
            head, rest = read_head(connection, b"")
            samples.append(1000 * (time.perf_counter() - started))
            if not head.startswith(b"HTTP/1.1 204") or rest:
                raise RuntimeError(f"unexpected answer {head[:80]!r}")
    print(json.dumps({"rtt_ms": samples}))


def download(host: str, port: int, ca_file: str) -> None:
    with connect(host, port, ca_file) as connection:
        started = time.perf_counter()
        connection.sendall(f"GET /_front/blob HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        head, rest = read_head(connection, b"")
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:")))
        received = len(rest)
        while received < length:
            chunk = connection.recv(1 << 20)
            if not chunk:
                raise ConnectionError(f"the front closed the connection after {received} of {length} bytes")
            received += len(chunk)
        print(json.dumps({"seconds": time.perf_counter() - started, "bytes": received}))


if __name__ == "__main__":
    command, host, port, ca_file, *rest = sys.argv[1:]
    if command == "rtt":
        rtt(host, int(port), ca_file, int(rest[0]))
    else:
        download(host, int(port), ca_file)
