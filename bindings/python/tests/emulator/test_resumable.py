"""Resumable upload protocol: offsets, granularity, declared size, drops, cancel, unknown sessions."""

import os
import socket
import time
from urllib.parse import urlsplit

import pytest
import requests

from conftest import assert_error, md5_b64, wait_until


def granularity(emu) -> int:
    return 262144 if emu.production else 10000


def size_received(emu, url) -> int:
    return int(emu.chunk(url, "query").headers["X-Goog-Upload-Size-Received"])


def test_wrong_offset(emu):
    g = granularity(emu)
    data = os.urandom(2 * g)
    url = emu.session_url("o", size=len(data))
    assert emu.chunk(url, "upload", data[:g], offset=0).status_code == 200
    resent = emu.chunk(url, "upload", data[:g], offset=0)  # a retry of a chunk that already arrived
    if emu.production:  # the upload server's page (production-replay/firebase--resumable-upload.json)
        assert resent.status_code == 400
        assert resent.text == f"Client uploaded to the wrong offset (0 instead of {g})."
        assert resent.headers["Content-Type"] == "text/plain; charset=utf-8"
        assert size_received(emu, url) == g
    else:
        assert resent.status_code == 200  # offsets are not checked: the bytes are appended twice
        assert size_received(emu, url) == 2 * g


def test_non_final_chunk_must_be_granularity_multiple(emu):
    g = granularity(emu)
    url = emu.session_url("g")
    response = emu.chunk(url, "upload", b"x" * (g + 1), offset=0)
    if emu.production:
        assert_error(emu, response, 400, None)
        assert response.headers["X-Goog-Upload-Size-Received"] == "0"
        assert size_received(emu, url) == 0
    else:
        assert response.status_code == 200
        assert size_received(emu, url) == g + 1


def test_non_multiple_chunked_body_is_rolled_back(emu):
    url = emu.session_url("gc")

    def body():  # no Content-Length: the size is only known at the end
        yield b"x" * 1000

    response = emu.http.post(url, data=body(), headers={"X-Goog-Upload-Command": "upload", "X-Goog-Upload-Offset": "0"})
    if emu.production:
        assert_error(emu, response, 400, None)
        assert size_received(emu, url) == 0
    else:  # the official emulator enforces no granularity
        assert response.status_code == 200
        assert size_received(emu, url) == 1000


def test_bytes_beyond_declared_length_and_size_mismatch_at_finalize(emu):
    g = granularity(emu)
    url = emu.session_url("s", size=g)
    too_many = emu.chunk(url, "upload, finalize", b"y" * (g + 5), offset=0)
    short_url = emu.session_url("t", size=g + 10)
    emu.chunk(short_url, "upload", b"z" * g, offset=0)
    early = emu.chunk(short_url, "finalize", offset=g)
    if emu.production:
        assert_error(emu, too_many, 400, None)
        assert size_received(emu, url) == 0
        assert_error(emu, early, 400, None)
        assert early.headers["X-Goog-Upload-Status"] == "active"
        finished = emu.chunk(short_url, "upload, finalize", b"z" * 10, offset=g)
        assert finished.status_code == 200 and finished.json()["size"] == str(g + 10)
    else:
        assert too_many.status_code == 200 and too_many.json()["size"] == str(g + 5)
        assert early.status_code == 200 and early.json()["size"] == str(g)


def test_cancel(emu):
    url = emu.session_url("c")
    cancel = emu.chunk(url, "cancel")
    assert cancel.status_code == 200 and cancel.headers["X-Goog-Upload-Status"] == "cancelled"
    assert emu.chunk(url, "cancel").status_code == 200
    assert_error(emu, emu.chunk(url, "upload", b"a", offset=0), 400, "Bad Request")
    assert_error(emu, emu.chunk(url, "finalize", offset=0), 400, "Bad Request")
    assert emu.chunk(url, "query").headers["X-Goog-Upload-Status"] == "cancelled"
    assert_error(emu, emu.get_metadata("c"), 404, "Not Found")


def test_upload_after_final_and_cancel_after_final(emu):
    url = emu.session_url("f")
    assert emu.chunk(url, "upload, finalize", b"abc", offset=0).status_code == 200
    assert_error(emu, emu.chunk(url, "upload", b"more", offset=3), 400, "Bad Request")
    assert_error(emu, emu.chunk(url, "cancel"), 400, "Bad Request")
    assert emu.download("f").content == b"abc"


def test_unknown_upload_id_and_bad_command(emu):
    response = emu.http.post(emu.bucket_url(), params={"name": "x", "upload_id": "nope", "upload_protocol": "resumable"},
                             headers={"X-Goog-Upload-Command": "query"})
    assert_error(emu, response, 404, "Not Found")
    url = emu.session_url("cmd")
    assert_error(emu, emu.chunk(url, "dance"), 400, "Bad Request")
    no_start = emu.http.post(emu.bucket_url(), params={"name": "x"}, headers={"X-Goog-Upload-Protocol": "resumable"})
    assert_error(emu, no_start, 400, "Bad Request")


def send_partial_chunk(url: str, total: int, sent: bytes) -> None:
    """Start a chunk request announcing `total` bytes, send `sent`, then drop the connection."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port)) as sock:
        sock.sendall((f"POST {parts.path}?{parts.query} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                      f"X-Goog-Upload-Command: upload, finalize\r\nX-Goog-Upload-Offset: 0\r\n"
                      f"Content-Length: {total}\r\n\r\n").encode() + sent)


def test_dropped_connection_keeps_whole_granules_then_resume(emu):
    g = granularity(emu)
    data = os.urandom(3 * g)
    url = emu.session_url("drop", size=len(data))
    send_partial_chunk(url, len(data), data[:2 * g + g // 2])
    wait_until(lambda: size_received(emu, url) == 2 * g)
    final = emu.chunk(url, "upload, finalize", data[2 * g:], offset=2 * g)
    assert final.status_code == 200, final.text
    assert final.json()["md5Hash"] == md5_b64(data)
    assert emu.download("drop").content == data


def test_concurrent_sessions_are_independent(emu):
    urls = {name: emu.session_url(name) for name in ("p", "q")}
    emu.chunk(urls["p"], "upload, finalize", b"pp", offset=0)
    emu.chunk(urls["q"], "upload, finalize", b"qq", offset=0)
    assert emu.download("p").content == b"pp" and emu.download("q").content == b"qq"


def test_resumable_start_with_invalid_json(emu):
    response = emu.http.post(emu.bucket_url(), params={"name": "j"}, data=b"{not json", headers={
        "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"})
    assert_error(emu, response, 400, "Bad Request")
    bad_length = emu.start_resumable("j", size=None, headers={"X-Goog-Upload-Header-Content-Length": "-3"})
    assert_error(emu, bad_length, 400, "Bad Request")


def test_fault_drop_mid_chunk_then_query_and_continue(emu):
    g = granularity(emu)
    data = os.urandom(2 * g)
    url = emu.session_url("fd", size=len(data))
    emu.add_fault({"match": {"query_contains": "upload_id", "header": {"X-Goog-Upload-Command": "upload, finalize"}},
                   "action": {"drop_after_bytes": g + 100}})
    with pytest.raises(requests.ConnectionError):
        emu.chunk(url, "upload, finalize", data, offset=0)
    assert size_received(emu, url) == g
    final = emu.chunk(url, "upload, finalize", data[g:], offset=g)
    assert final.status_code == 200 and final.json()["md5Hash"] == md5_b64(data)


def test_reset_during_a_chunk_cancels_the_session(emu):
    url = urlsplit(emu.session_url("reset-me"))
    with socket.create_connection((url.hostname, url.port), timeout=5) as sock:
        sock.sendall((f"POST {url.path}?{url.query} HTTP/1.1\r\nHost: {url.netloc}\r\n"
                      "X-Goog-Upload-Command: upload, finalize\r\nContent-Length: 10\r\n\r\n12345").encode())
        time.sleep(0.2)  # the handler is now waiting for the rest of the body
        emu.reset()
        sock.sendall(b"67890")
        assert sock.recv(100).startswith(b"HTTP/1.1 404")
    assert emu.get_metadata("reset-me").status_code == 404
