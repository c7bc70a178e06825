"""Fuzz smoke: random and adversarial input, from a seeded generator, against a running emulator's
JSON, multipart and header parsers. Every answer comes in time and is not a 500; the server's
memory stays bounded (VmHWM from /proc) and it logs no traceback.

The seed is FBSTORAGE_FUZZ_SEED (default 38); a failure names the seed and the request."""

from __future__ import annotations

import gzip
import json
import os
import random
import socket
import time

import pytest
import requests

from conftest import ADMIN

SEED = int(os.environ.get("FBSTORAGE_FUZZ_SEED", "38"))
SECONDS_PER_FLAVOR = 20
MAX_REQUESTS = 4000
MIB = 1 << 20

JSON_ROUTES = [
    ("PATCH", "/v0/b/b/o/fuzz"), ("POST", "/v0/b/b/o?name=r"), ("PATCH", "/storage/v1/b/b/o/fuzz"),
    ("PUT", "/storage/v1/b/b/o/fuzz"), ("POST", "/storage/v1/b"), ("PATCH", "/storage/v1/b/b"),
    ("POST", "/upload/storage/v1/b/b/o?uploadType=resumable&name=g"),
    ("POST", "/storage/v1/b/b/o/fuzz/rewriteTo/b/b/o/copy"), ("POST", "/storage/v1/b/b/o/c/compose"),
    ("POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"),
    ("POST", "/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k"),
    ("POST", "/identitytoolkit.googleapis.com/v1/accounts:update?key=k"),
    ("POST", "/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key=k"),
    ("POST", "/securetoken.googleapis.com/v1/token?key=k"),
    ("POST", "/oauth2.googleapis.com/token"), ("PUT", "/internal/setRules"), ("POST", "/_emulator/faults"),
]
UPLOAD_HEADERS = ["X-Goog-Upload-Protocol", "X-Goog-Upload-Command", "X-Goog-Upload-Offset",
                  "X-Goog-Upload-Header-Content-Length", "X-Goog-Upload-Header-Content-Type", "Content-Range",
                  "Range", "Content-Type", "Content-Encoding", "Authorization", "If-Match", "If-None-Match",
                  "X-HTTP-Method-Override", "X-Goog-Api-Key", "X-Upload-Content-Length", "Accept-Encoding",
                  "Origin", "X-Goog-If-Generation-Match"]
ATOMS = ["", "0", "-1", "1e999999", "18446744073709551616", "null", "true", "\"\"", "[]", "{}", "\"\\ud800\"",
         "bytes */*", "bytes 0-0/1", "bytes=-0", "bytes=5-1", "multipart/related; boundary=", "gzip", "upload",
         "start", "finalize", "upload, finalize", "query", "cancel", "resumable", "multipart", "Bearer owner",
         "Bearer a.b.c", "Bearer " + "A" * 3000, "*", "\u00e9\u00e9", "%00", "..", "a/b", "PATCH"]


def header_value(text: str) -> str:
    """`text` as a client library sends it in a header: its UTF-8 bytes, no control characters
    (the raw-socket requests send those)."""
    raw = text.encode("utf-8").decode("latin-1")
    return "".join(character for character in raw if " " <= character != "\x7f").strip()


class Fuzzer:
    def __init__(self, seed: int):
        self.random = random.Random(seed)

    def text(self, limit: int = 40) -> str:
        alphabet = "ab/.%\\\"{}[]:,\u00e9\u2028\x00\x1f 0123456789-+eE"
        return "".join(self.random.choice(alphabet) for _ in range(self.random.randrange(limit)))

    def value(self, depth: int = 0):
        choice = self.random.randrange(9 if depth < 6 else 5)
        if choice == 0:
            return self.random.choice([None, True, False, 0, -1, 1.5, 2 ** 63, -2 ** 64, 1e308])
        if choice in (1, 2):
            return self.text()
        if choice == 3:
            return "x" * self.random.choice([1, 1024, 4097, 8193, 70_000])
        if choice == 4:
            return self.random.randrange(-10 ** 20, 10 ** 20)
        if choice in (5, 6):
            return {self.random.choice(["metadata", "contentType", "name", "bucket", "sourceObjects", "email",
                                        "password", "token", "idToken", "customAttributes", "rules", "files",
                                        "grant_type", "assertion", "action", "cacheControl", self.text(8)]):
                    self.value(depth + 1) for _ in range(self.random.randrange(5))}
        return [self.value(depth + 1) for _ in range(self.random.randrange(4))]

    def json_body(self) -> bytes:
        kind = self.random.randrange(10)
        if kind == 0:  # nested far too deep, or just at the bound
            depth = self.random.choice([99, 100, 101, 1500, 50_000])
            opener, closer = self.random.choice([("[", "]"), ('{"a":', "}")])
            return (opener * depth + "1" * (opener != "[") + closer * depth).encode()
        if kind == 1:  # random bytes, often not UTF-8
            return self.random.randbytes(self.random.randrange(200))
        if kind == 2:  # truncated
            document = json.dumps(self.value()).encode()
            return document[:self.random.randrange(len(document) + 1)]
        if kind == 3:
            return self.random.choice(ATOMS).encode()
        return json.dumps(self.value()).encode()

    def headers(self) -> dict[str, str]:
        return {self.random.choice(UPLOAD_HEADERS): header_value(self.random.choice(ATOMS + [self.text(60)]))
                for _ in range(self.random.randrange(5))}

    def multipart(self, boundary: str) -> bytes:
        parts = []
        for _ in range(self.random.randrange(4)):
            head = "".join(f"{self.random.choice(['Content-Type', 'Content-ID', 'X-' + self.text(5)])}: "
                           f"{self.random.choice(ATOMS + ['application/json', 'application/http', 'text/plain'])}\r\n"
                           for _ in range(self.random.randrange(3)))
            method = self.random.choice(["GET", "DELETE", "PATCH", "POST"])
            call = f"{method} /storage/v1/b/b/o/{self.text(10)} HTTP/1.1\r\nContent-Type: application/json\r\n\r\n"
            body = self.json_body() if self.random.random() < 0.5 else call.encode() + self.json_body()
            parts.append(f"--{boundary}\r\n{head}\r\n".encode() + body + b"\r\n")
        ending = self.random.choice([f"--{boundary}--\r\n", f"--{boundary}", "", f"--{boundary}-\r\n"]).encode()
        return b"".join(parts) + ending

    def request(self) -> tuple[str, str, dict[str, str], bytes]:
        kind = self.random.randrange(6)
        headers = self.headers()
        if kind <= 2:
            method, path = self.random.choice(JSON_ROUTES)
            headers.setdefault("Content-Type", "application/json")
            return method, path, headers, self.json_body()
        boundary = header_value(self.random.choice(["B", "x" * 70, "a b", "=", self.text(10)])) or "B"
        if kind == 3:  # v0 and GCS multipart uploads
            path = self.random.choice(["/v0/b/b/o?name=m", "/upload/storage/v1/b/b/o?uploadType=multipart&name=m"])
            headers.update({"X-Goog-Upload-Protocol": "multipart",
                            "Content-Type": f"multipart/related; boundary={boundary}"})
            return "POST", path, headers, self.multipart(boundary)
        if kind == 4:  # batch
            headers["Content-Type"] = f"multipart/mixed; boundary={boundary}"
            return "POST", "/batch/storage/v1", headers, self.multipart(boundary)
        body = self.random.randbytes(self.random.randrange(2000))
        if self.random.random() < 0.3:
            body = gzip.compress(self.json_body()) if self.random.random() < 0.5 else b"\x1f\x8b" + body
            headers["Content-Encoding"] = "gzip"
        method = self.random.choice(["GET", "PUT", "POST", "PATCH", "DELETE", "HEAD", "OPTIONS"])
        path = self.random.choice(["/v0/b/b/o/fuzz", "/v0/b/b/o?name=f", "/storage/v1/b/b/o/fuzz?alt=media",
                                   "/b/o/fuzz", "/b/fuzz?uploads", "/download/storage/v1/b/b/o/fuzz?alt=media",
                                   "/v0/b/b/o/fuzz?alt=media", "/storage/v1/b/b/o?prefix=" + self.text(5)])
        return method, path, headers, body

    def raw_header_request(self) -> bytes:
        """Header bytes no client library would send: odd separators, long and repeated fields."""
        line = self.random.choice([b"GET /v0/b/b/o/fuzz HTTP/1.1", b"POST /v0/b/b/o?name=f HTTP/1.1",
                                   b"PUT /storage/v1/b/b/o/fuzz HTTP/1.1", b"GET / HTTP/1.0"])
        fields = [b"Host: x"]
        for _ in range(self.random.randrange(6)):
            name = self.random.choice([b"Content-Length", b"Transfer-Encoding", b"Content-Type", b"Range",
                                       b"X-Goog-Upload-Command", b"Authorization", self.random.randbytes(5)])
            value = self.random.choice([b"chunked", b"-1", b"1, 2", b"\xff\xfe", b"x" * 9000, b"0", b"bytes=0-"])
            fields.append(name + self.random.choice([b": ", b":", b" : "]) + value)
        return line + b"\r\n" + b"\r\n".join(fields) + b"\r\n\r\n" + self.random.randbytes(self.random.randrange(50))


def _raw_exchange(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    return reply


@pytest.mark.timeout(120)
@pytest.mark.parametrize("flavor", ["production", "firebase-tools"])
def test_fuzzed_requests_never_get_a_500_a_hang_or_unbounded_memory(start_emulator, flavor):
    emulator = start_emulator("--bucket=b", flavor=flavor)
    fuzzer = Fuzzer(SEED)
    emulator.upload_ok("fuzz", b"fuzz data", headers=ADMIN)
    emulator.upload_ok("c", b"c", headers=ADMIN)
    baseline = emulator.rss_bytes()
    deadline, sent = time.monotonic() + SECONDS_PER_FLAVOR, 0
    while time.monotonic() < deadline and sent < MAX_REQUESTS:
        sent += 1
        if fuzzer.random.random() < 0.1:
            request = fuzzer.raw_header_request()
            reply = _raw_exchange(emulator.port, request)
            assert not reply.startswith(b"HTTP/1.1 500") and not reply.startswith(b"HTTP/1.0 500"), \
                (SEED, sent, request[:300], reply[:300])
            continue
        method, path, headers, body = fuzzer.request()
        try:
            response = emulator.http.request(method, emulator.url(path), headers=headers, data=body, timeout=10,
                                             allow_redirects=False)
        except requests.ConnectionError:  # the emulator may close on a request it refuses outright
            emulator.http.close()
            continue
        assert response.status_code != 500 and "Internal emulator error" not in response.text, \
            (SEED, sent, method, path, headers, body[:300], response.text[:500])
    assert sent >= 200, "too few requests in the time given"
    print(f"fuzz smoke ({flavor}, seed {SEED}): {sent} requests")
    assert emulator.process.poll() is None
    assert emulator.rss_bytes("VmHWM") - baseline < 150 * MIB
    emulator.http.close()
    emulator.upload_ok("after-fuzz", b"served", headers=ADMIN)  # and it still serves
    assert emulator.download("after-fuzz", headers=ADMIN).content == b"served"
