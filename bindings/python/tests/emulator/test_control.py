"""The /_emulator/ control API: reset, request log and fault injection (status, drop, delay)."""

import concurrent.futures
import socket
import time

import pytest
import requests

from conftest import assert_json_error


def test_reset_deletes_objects_sessions_faults_and_log(emu):
    emu.upload_ok("x")
    url = emu.session_url("s")
    emu.add_fault({"match": {"path_prefix": "/v0/b/never"}, "action": {"status": 500}})
    emu.reset()
    assert emu.get_metadata("x").status_code == 404
    assert emu.chunk(url, "query").status_code == 404
    assert emu.http.get(emu.url("/_emulator/faults")).json() == {"faults": []}
    assert [r["path"] for r in emu.recorded()] == ["/v0/b/b/o/x", "/v0/b/b/o"]


def test_request_log_records_verbatim(emu):
    headers = {"Authorization": "Firebase secret-token", "X-Firebase-AppCheck": "app-check", "X-Custom": "1"}
    emu.http.post(emu.bucket_url(), params={"name": "a/b"}, data=b"12345", headers=headers)
    emu.http.get(emu.object_url("a/b"))
    first, second = emu.recorded()
    assert first["method"] == "POST" and first["path"] == "/v0/b/b/o" and first["query"] == "name=a%2Fb"
    assert first["headers"]["Authorization"] == "Firebase secret-token"
    assert first["headers"]["X-Firebase-AppCheck"] == "app-check"
    assert first["body_size"] == 5 and first["status"] == 200 and first["dropped"] is False
    assert second["method"] == "GET" and second["path"] == "/v0/b/b/o/a%2Fb"
    assert emu.http.delete(emu.url("/_emulator/requests")).status_code == 204
    assert emu.recorded() == []


def test_status_fault_with_retry_after(emu):
    emu.add_fault({"match": {"method": "POST", "path_prefix": "/v0/b/"}, "times": 2,
                   "action": {"status": 503, "retry_after": 1}})
    for _ in range(2):
        response = emu.upload("f", b"x")
        assert_json_error(response, 503)
        assert response.headers["Retry-After"] == "1"
    assert emu.upload("f", b"x").status_code == 200
    assert [r["status"] for r in emu.recorded()] == [503, 503, 200]


def test_status_fault_with_custom_body_and_header_match(emu):
    url = emu.session_url("h")
    emu.add_fault({"match": {"query_contains": "upload_id", "header": {"x-goog-upload-command": "UPLOAD"}},
                   "action": {"status": 429, "body": "slow down"}})
    assert emu.chunk(url, "query").status_code == 200  # another command: no match
    response = emu.chunk(url, "upload", b"", offset=0)
    assert response.status_code == 429 and response.text == "slow down"
    assert response.headers["Content-Type"].startswith("text/plain")


def test_drop_fault_on_media_upload_keeps_nothing(emu):
    emu.add_fault({"match": {"method": "POST"}, "action": {"drop_after_bytes": 10}})
    with pytest.raises(requests.ConnectionError):
        emu.upload("dropped", b"x" * 100000)
    assert emu.get_metadata("dropped").status_code == 404
    assert emu.recorded()[0]["dropped"] is True


def test_drop_fault_after_short_body_loses_the_response(emu):
    emu.add_fault({"match": {"method": "POST"}, "action": {"drop_after_bytes": 1000}})
    with pytest.raises(requests.ConnectionError):
        emu.upload("processed", b"tiny")
    assert emu.download("processed").content == b"tiny"


def test_delay_fault(emu):
    emu.upload_ok("d")
    emu.add_fault({"match": {"method": "GET"}, "action": {"delay_ms": 300}})
    started = time.monotonic()
    assert emu.get_metadata("d").status_code == 200
    assert time.monotonic() - started >= 0.3
    started = time.monotonic()
    emu.get_metadata("d")
    assert time.monotonic() - started < 0.3


def test_clear_and_list_faults(emu):
    emu.add_fault({"action": {"status": 500}, "times": 3})
    faults = emu.http.get(emu.url("/_emulator/faults")).json()["faults"]
    assert faults[0]["remaining"] == 3
    assert emu.http.delete(emu.url("/_emulator/faults")).status_code == 204
    assert emu.upload("ok", b"x").status_code == 200


@pytest.mark.parametrize("spec", [
    {"action": {"status": 99}},
    {"action": {"status": 500, "delay_ms": 1}},
    {"action": {}},
    {"match": {"verb": "GET"}, "action": {"status": 500}},
    {"times": 0, "action": {"status": 500}},
    {"action": {"drop_after_bytes": -1}},
    [1, 2],
])
def test_invalid_fault(emu, spec):
    assert_json_error(emu.http.post(emu.url("/_emulator/faults"), json=spec), 400)


def test_raw_object_endpoint(emu):
    meta = emu.upload_ok("dir/raw", b"raw bytes")
    response = emu.http.get(emu.url("/_emulator/objects/b/dir%2Fraw"))
    assert response.content == b"raw bytes"
    assert response.headers["x-goog-hash"].endswith(f"md5={meta['md5Hash']}")
    assert_json_error(emu.http.get(emu.url("/_emulator/objects/b/missing")), 404)
    assert emu.recorded()[-1]["path"] == "/v0/b/b/o"  # control calls are not recorded


def test_request_log_counts_requests_in_flight(emu):
    emu.add_fault({"match": {"path_prefix": "/v0/b/b/o/held"}, "times": 1, "action": {"delay_ms": 400}})
    session = requests.Session()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        held = pool.submit(session.get, emu.object_url("held"))
        log = emu.http.get(emu.url("/_emulator/requests")).json()
        while log["in_flight"] == 0 and not held.done():  # until the server has the request
            log = emu.http.get(emu.url("/_emulator/requests")).json()
        assert log["in_flight"] == 1 and log["requests"] == []  # logged once answered
        assert held.result().status_code == 404
    log = emu.http.get(emu.url("/_emulator/requests")).json()
    assert log["in_flight"] == 0 and [entry["path"] for entry in log["requests"]] == ["/v0/b/b/o/held"]


def test_a_client_gone_during_a_delay_is_a_dropped_request_not_an_error(emu):
    emu.upload_ok("left", b"x" * 1000)
    emu.add_fault({"match": {"path_prefix": "/v0/b/b/o/left"}, "times": 1, "action": {"delay_ms": 300}})
    client = socket.create_connection(("127.0.0.1", emu.port))
    client.sendall(f"GET {emu.object_url('left')[len(emu.base):]}?alt=media HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    client.close()  # gone before the delayed reply
    def downloads():
        return [entry for entry in emu.recorded() if entry["method"] == "GET"]
    while not downloads():  # until the server is done with it: it logs a request once answered
        pass
    assert downloads()[0]["dropped"] is True
    assert "Traceback" not in emu.stderr() and "unexpected error" not in emu.stderr()
    assert emu.download("left").content == b"x" * 1000
