#!/usr/bin/env python3
"""HTTP/1.1 test server for the HTTP engine tests (Python stdlib only).

Starts on 127.0.0.1, port 0 (or argv[1]), prints the port on the first stdout line and serves until
its stdin reaches EOF (the test process exited), so it never outlives the tests.

Endpoints (query parameters in brackets):
  /echo            any method: JSON {method, path, headers: [[name, value]...], length, md5, crc32}
  /sink            reads and discards the body fast: JSON {"bytes": n}
  /status/N        status N, JSON body [retry_after=S adds Retry-After]
  /slow            sleeps [delay=S] before answering 200
  /stall           sends the head and [n] body bytes of a larger Content-Length, then sleeps [delay=S]
  /drop            sends the head (Content-Length 100000) and 1000 bytes, then closes the connection
  /reset           reads the request, then resets the connection (RST)
  /download        [size=N] bytes of the pattern i % 251
  /chunked         [size=N] pattern bytes in chunked transfer coding, with a trailer
  /garbage         answers with bytes that are not HTTP
  /bigheader       a response header with a [size=N]-byte value
  /headers         repeated and mixed-case response headers
  /continue        an interim 100 Continue (with its own header) before the final response
  /redirect        302 to /echo (engines must not follow it)
  /connections     JSON {"connections": number of TCP connections accepted so far}
"""
import hashlib
import json
import os
import socket
import struct
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PATTERN = bytes(i % 251 for i in range(251 * 4096))
CONNECTIONS = 0
LOCK = threading.Lock()


def pattern(size):
    """Yields `size` bytes of the pattern i % 251 in pieces."""
    sent = 0
    while sent < size:
        n = min(len(PATTERN), size - sent)
        yield PATTERN[:n]
        sent += n


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        global CONNECTIONS
        with LOCK:
            CONNECTIONS += 1
        super().setup()

    def log_message(self, *args):
        pass

    # -- helpers --------------------------------------------------------------------------------

    def query(self, name, default):
        values = parse_qs(urlsplit(self.path).query).get(name)
        return type(default)(values[0]) if values else default

    def read_body(self, sink=None):
        """Reads the request body (Content-Length or chunked); returns the byte count."""
        total = 0
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return total
                data = self.rfile.read(size)
                self.rfile.readline()
                total += len(data)
                if sink:
                    sink(data)
        remaining = int(self.headers.get("Content-Length", "0"))
        buf = bytearray(4 << 20)
        view = memoryview(buf)
        while remaining > 0:
            n = self.rfile.readinto(view[: min(len(buf), remaining)])
            if not n:
                break
            if sink:
                sink(view[:n])
            remaining -= n
            total += n
        return total

    def reply(self, status, body=b"", headers=(), content_type="application/json"):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def reply_json(self, status, obj, headers=()):
        self.reply(status, json.dumps(obj).encode(), headers)

    # -- dispatch -------------------------------------------------------------------------------

    def handle_any(self):
        route = urlsplit(self.path).path
        if route.startswith("/status/"):
            self.read_body()
            headers = []
            retry_after = self.query("retry_after", "")
            if retry_after:
                headers.append(("Retry-After", retry_after))
            return self.reply_json(int(route[len("/status/"):]), {"status": int(route[len("/status/"):])}, headers)
        handler = getattr(self, "do_" + route.strip("/").replace("/", "_"), None)
        if handler is None:
            self.read_body()
            return self.reply_json(404, {"error": "no route " + route})
        handler()

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = handle_any

    # -- endpoints ------------------------------------------------------------------------------

    def do_echo(self):
        md5 = hashlib.md5()
        crc = 0

        def update(data):
            nonlocal crc
            md5.update(data)
            crc = zlib.crc32(data, crc)

        n = self.read_body(update)
        self.reply_json(200, {
            "method": self.command,
            "path": self.path,
            "headers": [[k, v] for k, v in self.headers.items()],
            "length": n,
            "md5": md5.hexdigest(),
            "crc32": crc,
        })

    def do_sink(self):
        self.reply_json(200, {"bytes": self.read_body()})

    def do_slow(self):
        self.read_body()
        time.sleep(self.query("delay", 1.0))
        self.reply_json(200, {"slept": True})

    def do_stall(self):
        self.read_body()
        n = self.query("n", 10)
        self.send_response(200)
        self.send_header("Content-Length", str(n + 1000))
        self.end_headers()
        self.wfile.write(PATTERN[:n])
        self.wfile.flush()
        time.sleep(self.query("delay", 10.0))
        self.close_connection = True

    def do_drop(self):
        self.read_body()
        self.send_response(200)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        self.wfile.write(PATTERN[:1000])
        self.wfile.flush()
        self.close_connection = True

    def do_reset(self):
        self.read_body()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True

    def do_download(self):
        self.read_body()
        size = self.query("size", 1000)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        if self.command != "HEAD":
            for piece in pattern(size):
                self.wfile.write(piece)

    def do_chunked(self):
        self.read_body()
        size = self.query("size", 100000)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Trailer", "X-Trailer")
        self.end_headers()
        for piece in pattern(size):
            for i in range(0, len(piece), 7919):
                part = piece[i:i + 7919]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
        self.wfile.write(b"0\r\nX-Trailer: done\r\n\r\n")

    def do_garbage(self):
        self.read_body()
        self.wfile.write(b"THIS IS NOT HTTP\r\n\x00\xff garbage\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True

    def do_bigheader(self):
        self.read_body()
        self.reply_json(200, {"ok": True}, [("X-Big", "b" * self.query("size", 50000))])

    def do_headers(self):
        self.read_body()
        self.reply(200, b"ok", [("X-Multi", "one"), ("x-multi", "two"), ("X-MiXeD-CaSe", "Value With Spaces"),
                                ("X-Empty", "")], content_type="text/plain")

    def do_continue(self):
        self.wfile.write(b"HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\n")
        self.read_body()
        self.reply_json(201, {"final": True}, [("X-Final", "yes")])

    def do_redirect(self):
        self.read_body()
        self.reply(302, b"moved", [("Location", "/echo")], content_type="text/plain")

    def do_connections(self):
        self.read_body()
        with LOCK:
            count = CONNECTIONS
        self.reply_json(200, {"connections": count})


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address):
        pass  # clients that abort mid-request are part of the tests


def main():
    server = Server(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        os._exit(0)


if __name__ == "__main__":
    main()
