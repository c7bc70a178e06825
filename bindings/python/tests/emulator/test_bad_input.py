"""Malformed requests get a clear 4xx (JSON in production), never a 500, a hang or a traceback."""

import socket

import pytest

from conftest import assert_error, assert_json_error


def raw_request(emu, request: bytes) -> bytes:
    """Send bytes exactly as given (no client-side normalisation); return the whole reply."""
    with socket.create_connection(("127.0.0.1", emu.port), timeout=5) as sock:
        sock.sendall(request)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    return reply


def status_of(reply: bytes) -> int:
    return int(reply.split(b" ", 2)[1])


def multipart(emu, body: bytes, content_type: str = "multipart/related; boundary=B"):
    return emu.http.post(emu.bucket_url(), params={"name": "m"}, data=body,
                         headers={"X-Goog-Upload-Protocol": "multipart", "Content-Type": content_type})


META = b"--B\r\nContent-Type: application/json\r\n\r\n{}\r\n"
DATA = b"--B\r\nContent-Type: text/plain\r\n\r\ndata\r\n"


@pytest.mark.parametrize("content_type", ["text/plain", "multipart/related", "multipart/form-data; boundary=B", ""])
def test_multipart_bad_content_type(emu, content_type):
    response = multipart(emu, META + DATA + b"--B--", content_type)
    assert response.status_code == 400 and "Bad content type." in response.text
    if emu.production:
        assert_json_error(response, 400)


@pytest.mark.parametrize("body, message", [
    (META + b"--B--", "Unexpected number of parts"),
    (META + DATA + DATA + b"--B--", "Unexpected number of parts"),
    (b"--B--", "Unexpected number of parts"),
    (b"--B\r\n\r\n{}\r\n" + DATA + b"--B--", "Missing content type"),
    (b"--B\r\nContent-Type: application/json\r\n\r\n{bad\r\n" + DATA + b"--B--", "Invalid JSON"),
    (b"--B\r\nContent-Type: application/json\r\n\r\n[]\r\n" + DATA + b"--B--", "not a JSON object"),
    (META + b"--B\r\nContent-Type: text/plain\r\n\r\ndata without end", "Malformed multipart body"),
    (b"no delimiter at all", "Malformed multipart body"),
    (b"", "Malformed multipart body"),
])
def test_malformed_multipart(emu, body, message):
    response = multipart(emu, body)
    assert response.status_code == 400 and message in response.text, response.text
    if emu.production:
        assert_json_error(response, 400)
    assert emu.get_metadata("m").status_code == 404


@pytest.mark.parametrize("path", [
    "/v0/b/b/o/a%zz", "/v0/b/b/o/%C3%28", "/v0/b/b/o/%", "/v0/b/b/o?name=%zz", "/v0/b/b/o?name=%FF",
    "/v0/b/b/o?name=", "/v0/b/b/o/a%0Ab", "/v0/b/%ZZ/o/x", "/v0/b//o/x", "/v0/b/b/o?name=" + "x" * 1025,
])
def test_bad_names(emu, path):
    reply = raw_request(emu, f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx".encode())
    assert status_of(reply) == 400
    head, _, body = reply.partition(b"\r\n\r\n")
    if emu.production:
        assert b"Content-Type: application/json" in head and b'"code": 400' in body
    else:
        assert body == b"Bad Request"


def test_unencoded_slash_and_unknown_paths_are_json_404(emu):
    assert_error(emu, emu.http.get(emu.url("/v0/b/b/o/a/b")), 404, "Not Found")
    assert_json_error(emu.http.get(emu.url("/elsewhere")), 404)
    assert_json_error(emu.http.get(emu.url("/_emulator/nothing")), 404)


def test_method_not_allowed(emu):
    assert_json_error(emu.http.patch(emu.bucket_url()), 405)
    assert_json_error(emu.http.delete(emu.bucket_url()), 405)
    assert_json_error(emu.http.get(emu.url("/_emulator/reset")), 405)


def test_literal_dot_segments_are_names(emu):
    reply = raw_request(emu, b"POST /v0/b/b/o/.. HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")
    assert status_of(reply) == 200 and b'"name": ".."' in reply
    assert emu.download("..").content == b"hi"


def test_garbage_http_is_rejected(emu):
    reply = raw_request(emu, b"NOT HTTP AT ALL\r\nConnection: close\r\n\r\n")
    assert 400 <= status_of(reply) < 500


def test_body_shorter_than_content_length_then_close(emu):
    with socket.create_connection(("127.0.0.1", emu.port)) as sock:
        sock.sendall(b"POST /v0/b/b/o?name=short HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly-this")
    assert emu.get_metadata("short").status_code == 404


def test_bad_chunked_encoding(emu):
    reply = raw_request(emu, b"POST /v0/b/b/o?name=c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                             b"Connection: close\r\n\r\nzz\r\nabc\r\n0\r\n\r\n")
    assert reply == b"" or 400 <= status_of(reply) < 500
    assert emu.get_metadata("c").status_code == 404


def test_control_api_bad_json(emu):
    assert_json_error(emu.http.post(emu.url("/_emulator/faults"), data=b"{nope"), 400)
    assert_json_error(emu.http.put(emu.url("/_emulator/rules"), data=b"\xff"), 400)
