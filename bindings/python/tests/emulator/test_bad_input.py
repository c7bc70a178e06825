"""Malformed requests get a clear 4xx (JSON in production), never a 500, a hang or a traceback."""

import json
import socket
import struct

import pytest

from conftest import Emulator, assert_error, assert_json_error, wait_until


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


TOO_FEW_PARTS = "Multipart body does not contain 2 or 3 parts."  # production's upload server page
BAD_METADATA = "Invalid metadata input."  # production's Firebase API


@pytest.mark.parametrize("body, message, production_message", [
    (META + b"--B--", "Unexpected number of parts", TOO_FEW_PARTS),
    (META + DATA + DATA + b"--B--", "Unexpected number of parts", None),
    (b"--B--", "Unexpected number of parts", TOO_FEW_PARTS),
    (b"--B\r\n\r\n{}\r\n" + DATA + b"--B--", "Missing content type", None),
    (b"--B\r\nContent-Type: application/json\r\n\r\n{bad\r\n" + DATA + b"--B--", "Invalid JSON", BAD_METADATA),
    (b"--B\r\nContent-Type: application/json\r\n\r\n[]\r\n" + DATA + b"--B--", "not a JSON object", BAD_METADATA),
    (META + b"--B\r\nContent-Type: text/plain\r\n\r\ndata without end", "Malformed multipart body", None),
    (b"no delimiter at all", "Malformed multipart body", None),
    (b"", "Malformed multipart body", None),
])
def test_malformed_multipart(emu, body, message, production_message):
    """Production's own answers are recorded (production-replay/firebase--multipart-upload.json)."""
    response = multipart(emu, body)
    expected = production_message if emu.production and production_message else message
    assert response.status_code == 400 and expected in response.text, response.text
    if emu.production and production_message == TOO_FEW_PARTS:
        assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
    elif emu.production:
        assert_json_error(response, 400)
    assert emu.get_metadata("m").status_code == 404


@pytest.mark.parametrize("path", [
    "/v0/b/b/o/a%zz", "/v0/b/b/o/%C3%28", "/v0/b/b/o/%", "/v0/b/b/o?name=%zz", "/v0/b/b/o?name=%FF",
    "/v0/b/b/o?name=", "/v0/b/b/o/a%0Ab", "/v0/b/%ZZ/o/x", "/v0/b//o/x", "/v0/b/b/o?name=" + "x" * 1025,
    "/v0/b/b/o?name=a%00b", "/v0/b/b/o/a%00b", "/v0/b/b%00a/o?name=x", "/v0/b/Caps/o?name=x", "/v0/b/odd%22bucket/o?name=x",
])
def test_bad_names(emu, path):
    reply = raw_request(emu, f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx".encode())
    assert status_of(reply) == 400
    head, _, body = reply.partition(b"\r\n\r\n")
    if emu.production:
        assert b"Content-Type: application/json" in head and b'"code": 400' in body
    else:
        assert body == b"Bad Request"


def test_nul_names_are_refused_by_the_gcs_api(emu):
    """A NUL in an object or bucket name is a 400 on the GCS API too: no two objects can then
    share one record on disk ("b" + NUL + "a", "x" and "b", "a" + NUL + "x" did)."""
    upload = emu.http.post(emu.url("/upload/storage/v1/b/b/o"), params={"uploadType": "media", "name": "a\0b"},
                           data=b"x")
    assert upload.status_code == 400
    if emu.production:
        assert "Disallowed unicode characters present in object name" in upload.text
    for path in ("/storage/v1/b/b%00a/o/x", "/upload/storage/v1/b/b%00a/o?uploadType=media&name=x",
                 "/storage/v1/b/b/o/s/copyTo/b/b%00a/o/x"):
        refused = emu.http.request("GET" if path.startswith("/storage") and "copyTo" not in path else "POST",
                                   emu.url(path), data=b"x")
        assert refused.status_code == 400 and "Invalid bucket name: 'b\\u0000a'" in refused.text, refused.text
    assert emu.list(prefix="a").json().get("items", []) == []


def test_a_configured_bucket_name_gcs_refuses_stops_the_start():
    with pytest.raises(RuntimeError, match="bucket 'Bad Bucket': GCS allows only"):
        Emulator("--bucket", "Bad Bucket")


def test_unencoded_slash_and_unknown_paths_are_json_404(emu):
    assert_error(emu, emu.http.get(emu.url("/v0/b/b/o/a/b")), 404, "Not Found")
    assert_json_error(emu.http.get(emu.url("/Not_A_Bucket!")), 404)
    assert_json_error(emu.http.get(emu.url("/_emulator/nothing")), 404)
    elsewhere = emu.http.get(emu.url("/elsewhere"))  # a bucket's name: the XML API's NoSuchBucket
    assert elsewhere.status_code == 404 and b"<Code>NoSuchBucket</Code>" in elsewhere.content


def test_method_not_allowed_names_the_allowed_ones(emu):
    for response, allowed in ((emu.http.patch(emu.bucket_url()), "GET, POST, PUT"),
                              (emu.http.delete(emu.bucket_url()), "GET, POST, PUT"),
                              (emu.http.request("TRACE", emu.object_url("x")), "DELETE, GET, HEAD, PATCH, POST, PUT")):
        assert_json_error(response, 405)
        assert response.headers["Allow"] == allowed  # RFC 9110: a 405 carries Allow
    control = emu.http.get(emu.url("/_emulator/reset"))
    assert_json_error(control, 405)
    assert "POST" in control.headers["Allow"]


@pytest.mark.parametrize("field", ["contentType", "cacheControl", "contentDisposition", "contentEncoding",
                                   "contentLanguage"])
@pytest.mark.parametrize("value", ["a\r\nX-Evil: 1", "tab\there", "nul\u0000", "del\u007f"])
def test_control_characters_in_header_bound_metadata_are_refused(emu, field, value):
    body = b"--B\r\nContent-Type: application/json\r\n\r\n" + json.dumps({field: value}).encode() + b"\r\n" + DATA + b"--B--"
    assert_error(emu, multipart(emu, body), 400, "Bad Request")
    assert_error(emu, emu.start_resumable("r", {field: value}), 400, "Bad Request")
    assert emu.get_metadata("m").status_code == 404 and emu.get_metadata("r").status_code == 404
    emu.upload_ok("p", b"kept")
    patched = emu.http.patch(emu.object_url("p"), json={field: value})
    assert_error(emu, patched, 400, "Bad Request")
    assert "control character" in patched.text or not emu.production
    assert emu.download("p").status_code == 200 and emu.download("p").content == b"kept"


def test_gcs_style_resumable_start_on_v0_never_stores_its_body(emu):
    response = emu.http.post(emu.bucket_url(), params={"uploadType": "resumable", "name": "c/meta.txt"},
                             json={"metadata": {"k": "v"}}, headers={"X-Upload-Content-Type": "text/plain"})
    if emu.production:  # refused: production's answer is unknown, the body is not the object
        assert_json_error(response, 400)
        assert "uploadType=resumable" in response.json()["error"]["message"]
        assert emu.get_metadata("c/meta.txt").status_code == 404
    else:  # the official emulator takes it as a media upload: faithful
        assert response.status_code == 200
        assert emu.download("c/meta.txt").json() == {"metadata": {"k": "v"}}


def test_client_gone_mid_download_is_one_info_line(start_emulator):
    emulator = start_emulator("--log-level", "info")
    emulator.upload_ok("big", b"x" * (32 << 20))
    with socket.create_connection(("127.0.0.1", emulator.port)) as sock:
        sock.sendall(b"GET /v0/b/b/o/big?alt=media HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST on close
    emulator.upload_ok("after", b"y")  # the emulator goes on serving
    wait_until(lambda: "client disconnected" in emulator.stderr())
    log = emulator.stderr()
    assert "ERROR" not in log and "Traceback" not in log
    assert log.count("client disconnected") == 1


def test_literal_dot_segments_are_names(emu):
    """Never normalised away as a path: the name `..`, which production refuses (GCS reserves it)."""
    reply = raw_request(emu, b"POST /v0/b/b/o/.. HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")
    if emu.production:
        assert status_of(reply) == 400 and reply.endswith(b'{"error": {"code": 400, "message": "Bad Request."}}')
        assert emu.download("..").status_code == 404
    else:
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


def _json_reply(reply: bytes) -> tuple[int, dict]:
    head, _, body = reply.partition(b"\r\n\r\n")
    assert b"Content-Type: application/json" in head, head
    return status_of(reply), json.loads(body)


@pytest.mark.parametrize("header, status", [
    (b"X-Long: " + b"a" * 9000, 431),                              # one field over the limit
    (b"\r\n".join(b"X-H%d: v" % i for i in range(200)), 431),      # too many fields
])
def test_oversized_request_headers_get_431_in_json(emu, header, status):
    reply = raw_request(emu, b"GET /v0/b/b/o HTTP/1.1\r\nHost: x\r\n" + header + b"\r\nConnection: close\r\n\r\n")
    code, error = _json_reply(reply)
    assert code == status == error["error"]["code"]
    assert "header" in error["error"]["message"]


def test_oversized_request_line_gets_414_in_json(emu):
    reply = raw_request(emu, b"GET /v0/b/b/o/" + b"n" * 9000 + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    code, error = _json_reply(reply)
    assert code == 414 == error["error"]["code"]


@pytest.mark.parametrize("parameter, value", [
    ("ifMetagenerationMatch", "1.5"), ("ifMetagenerationNotMatch", ""), ("ifGenerationMatch", "not-a-number"),
    ("generation", "7x")])
def test_gcs_integer_parameter_that_is_not_one(emu, parameter, value):
    """Production refuses it in its parser's words, the parameter as location (as recorded in
    gcs--metageneration-preconditions); the official emulator's message names the parameter."""
    emu.upload_ok("o")
    response = emu.http.patch(emu.url("/storage/v1/b/b/o/o"), params={parameter: value}, json={})
    error = assert_json_error(response, 400)
    if emu.production:
        message = f"Invalid long value: '{value}'."
        assert error == {"code": 400, "message": message, "errors": [{
            "domain": "global", "reason": "invalidParameter", "message": message,
            "location": parameter, "locationType": "parameter"}]}
    else:
        assert error["message"] == f"Invalid value for {parameter}: {value!r} is not an integer."
    assert emu.http.get(emu.url("/storage/v1/b/b/o/o")).json()["metageneration"] == "1"
