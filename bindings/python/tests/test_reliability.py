"""The debug log, resuming an upload in another process, and failing in time when offline."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fbstorage
from fbstorage import StorageError, StorageErrorCode
from fbstorage.testing import TEST_BUCKET, EmulatorServer

from conftest import SMALL_CHUNK, header, payload, slow_chunks, upload_chunk_requests

TOKEN = "PLANTED-PY-TOKEN-3b7a"


@pytest.fixture
def log_lines():
    """Every library log line as (level, line) while the test runs."""
    lines: list[tuple[int, str]] = []
    fbstorage.set_log_handler(lambda level, line: lines.append((level, line)))
    yield lines
    fbstorage.set_log_handler(None)


def test_log_covers_attempts_and_retries_without_secrets(
    emulator: EmulatorServer, storage: fbstorage.Storage, log_lines: list[tuple[int, str]]
) -> None:
    storage.set_auth_token(TOKEN)
    storage.upload_chunk_size = SMALL_CHUNK
    emulator.add_fault({"match": {"header": {"X-Goog-Upload-Command": "upload"}}, "times": 1,
                        "action": {"status": 503, "retry_after": 0}})
    task = storage.reference("log/object.bin").put_data(payload(3 * SMALL_CHUNK))
    session = None
    while session is None and task.snapshot.status not in (fbstorage.TaskStatus.SUCCESS, fbstorage.TaskStatus.FAILURE):
        session = task.upload_session
        time.sleep(0.001)
    task.wait()
    assert all(header(e, "Authorization") == f"Firebase {TOKEN}" for e in emulator.requests()
               if "upload_id" not in e["query"])  # the token really went out
    text = "\n".join(line for _, line in log_lines)
    assert "[start] -> HTTP 200" in text
    assert "[upload at 0] -> HTTP 503" in text
    assert any(level == fbstorage.log.WARNING and "retrying in" in line for level, line in log_lines)
    assert any(level == fbstorage.log.INFO and "the server has" in line for level, line in log_lines)
    assert TOKEN not in text
    assert session is not None
    upload_id = session.split("upload_id=")[1].split("&")[0].split('"')[0]
    assert upload_id and upload_id not in text
    assert "upload_id=REDACTED" in text


def test_log_to_logging(storage: fbstorage.Storage, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="fbstorage")
    fbstorage.log_to_logging()
    try:
        storage.reference("log/small.txt").put_data(b"small").wait()
    finally:
        fbstorage.set_log_handler(None)
    records = [r for r in caplog.records if r.name == "fbstorage"]
    assert any(r.levelno == logging.DEBUG and r.getMessage().startswith("POST ") for r in records)


def test_log_handler_must_be_callable() -> None:
    with pytest.raises(TypeError):
        fbstorage.set_log_handler("not callable")  # type: ignore[arg-type]


_UPLOADER = """
import sys, threading, fbstorage
host, port, path, name, half = sys.argv[1:6]
storage = fbstorage.Storage("test-bucket")
storage.use_emulator(host, int(port))
storage.upload_chunk_size = 256 * 1024
task = storage.reference(name).put_file(path)
half_sent, paused = threading.Event(), threading.Event()
def progress(snapshot):
    print("PROGRESS", snapshot.bytes_transferred, flush=True)
    if snapshot.bytes_transferred >= int(half):
        half_sent.set()
task.observe(fbstorage.TaskStatus.PROGRESS, progress)
task.observe(fbstorage.TaskStatus.PAUSE, lambda snapshot: paused.set())
half_sent.wait()
task.pause()
paused.wait()
# Taken once nothing more is read, the session vouches for every byte the server can have.
print("SESSION", task.upload_session, flush=True)
threading.Event().wait()
"""


def test_resume_upload_in_new_process(emulator: EmulatorServer, storage: fbstorage.Storage,
                                      tmp_path: Path) -> None:
    data = payload(5 * 1024 * 1024 + 99)
    file = tmp_path / "big.bin"
    file.write_bytes(data)
    slow_chunks(emulator, delay_ms=100)
    child = subprocess.Popen([sys.executable, "-c", _UPLOADER, emulator.host, str(emulator.port),
                              str(file), "resume/killed.bin", str(len(data) // 2)],
                             stdout=subprocess.PIPE, text=True)
    session, progress = None, 0
    try:
        assert child.stdout is not None
        for line in child.stdout:
            kind, _, value = line.strip().partition(" ")
            if kind == "SESSION":
                session = value
                break
            if kind == "PROGRESS":
                progress = int(value)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL and session and progress >= len(data) // 2
    emulator.clear_faults()
    emulator.wait_idle()  # the chunk sent before the pause lands now, not during the resume
    emulator.clear_requests()

    storage.upload_chunk_size = SMALL_CHUNK
    resumed = storage.reference("resume/killed.bin").put_file_resuming(file, session)
    resumes: list[int] = []
    resumed.observe(fbstorage.TaskStatus.RESUME, lambda snapshot: resumes.append(snapshot.bytes_transferred))
    resumed.wait()
    # Its RESUME starts where the server had confirmed bytes when the session was taken, not at 0.
    assert resumes and resumes[0] == json.loads(session)["confirmedBytes"] > 0

    assert storage.reference("resume/killed.bin").get_data(len(data)) == data
    sent = sum(entry["body_size"] for entry in upload_chunk_requests(emulator))
    assert 0 < sent <= len(data) - progress + SMALL_CHUNK  # at most the chunk in flight again
    assert not [e for e in emulator.requests() if header(e, "X-Goog-Upload-Command") == "start"]


def unused_port() -> int:
    """A loopback port with nothing listening (bound once, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_offline_upload_fails_within_deadline() -> None:
    port = unused_port()
    with fbstorage.Storage("offline-bucket") as storage:
        storage.use_emulator("127.0.0.1", port)
        storage.max_upload_retry_time = 3
        started = time.monotonic()
        with pytest.raises(StorageError) as raised:
            storage.reference("offline.bin").put_data(payload(SMALL_CHUNK + 1)).wait()
        assert time.monotonic() - started < 3 + 2.5
    assert raised.value.code == StorageErrorCode.RETRY_LIMIT_EXCEEDED
    assert "connect" in str(raised.value)


@pytest.mark.parametrize(("grace", "downtime"), [(None, 1.5), (6.0, 4.0)])
def test_a_server_back_within_the_loopback_grace_is_reached(grace: float | None, downtime: float) -> None:
    """A restart within the grace fails no client: the last attempt is made at the end of the
    grace (2 s by default, `loopback_refused_grace`) the library gives a loopback address that
    refuses connections. The restarted server is a bare HTTP listener (it binds at once, where an
    emulator would spend its start-up time)."""
    import http.server
    import threading

    class NotFound(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            body = b'{"error": {"code": 404, "message": "Not Found."}}'
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments: object) -> None:
            pass

    port = unused_port()
    servers: list[http.server.HTTPServer] = []

    def come_back() -> None:
        server = http.server.HTTPServer(("127.0.0.1", port), NotFound)
        servers.append(server)
        server.serve_forever()

    storage = fbstorage.Storage("grace-bucket")
    storage.use_emulator("127.0.0.1", port)
    if grace is not None:
        storage.loopback_refused_grace = grace
    assert storage.loopback_refused_grace == (grace or 2.0)
    started = time.monotonic()
    timer = threading.Timer(downtime, come_back)   # the downtime the scenario is about, not an ordering
    timer.start()
    try:
        with pytest.raises(StorageError) as failure:
            storage.reference("missing.txt").get_metadata()
        assert failure.value.code == StorageErrorCode.OBJECT_NOT_FOUND   # the server was reached
        # Backoff may wait past the downtime, never past the grace: the last attempt is at its end.
        assert time.monotonic() - started < (grace or 2.0) + 1.5
    finally:
        storage.close()
        while not servers and timer.is_alive():
            time.sleep(0.01)
        for server in servers:
            server.shutdown()
        timer.join()


def test_zero_loopback_grace_fails_at_the_first_refusal() -> None:
    port = unused_port()
    with fbstorage.Storage("offline-bucket") as storage:
        storage.use_emulator("127.0.0.1", port)
        storage.loopback_refused_grace = 0
        started = time.monotonic()
        with pytest.raises(StorageError) as raised:
            storage.reference("a.txt").get_metadata()
        assert time.monotonic() - started < 1
        assert raised.value.code == StorageErrorCode.RETRY_LIMIT_EXCEEDED
        assert "Nothing is listening" in str(raised.value)
        for bad in (-1, float("nan"), float("inf")):
            with pytest.raises(StorageError) as invalid:
                storage.loopback_refused_grace = bad
            assert invalid.value.code == StorageErrorCode.INVALID_ARGUMENT


def test_a_failed_name_lookup_leaves_the_storage_working(emulator: EmulatorServer) -> None:
    """The reproduction of the real-networks issue: after one failed lookup every later request
    of the storage failed ("A libcurl function was given a bad argument (CURLOPT_BUFFERSIZE)").
    A name that does not exist fails at once; where this machine's resolver cannot answer, the
    lookup is retried until the deadline. Either way the storage then serves a reachable endpoint,
    here by name (localhost), from the first call on."""
    with fbstorage.Storage(TEST_BUCKET) as storage:
        storage.max_operation_retry_time = 2
        storage.max_upload_retry_time = 3
        storage.use_endpoint(f"http://nonexistent.invalid:{emulator.port}")
        started = time.monotonic()
        with pytest.raises(StorageError) as lookup:
            storage.reference("a.txt").get_metadata()
        elapsed = time.monotonic() - started
        assert lookup.value.code in (StorageErrorCode.HOST_NOT_FOUND, StorageErrorCode.RETRY_LIMIT_EXCEEDED)
        if lookup.value.code == StorageErrorCode.HOST_NOT_FOUND:
            assert elapsed < 1.5 and "nonexistent.invalid" in str(lookup.value)
        assert "CURLOPT" not in str(lookup.value)

        storage.use_endpoint(f"http://localhost:{emulator.port}")
        for i in range(20):
            storage.reference(f"after-lookup/{i}.txt").put_data(b"x").wait()
        assert len(storage.reference("after-lookup").list_all().items) == 20


def test_an_option_libcurl_refuses_fails_at_once_without_retrying(emulator: EmulatorServer) -> None:
    """A programming error is reported at once as INTERNAL, naming the option, never retried for
    the minutes of the retry deadline; the credential it carried appears nowhere."""
    secret = "s" * 8_000_001   # over libcurl's CURL_MAX_INPUT_LENGTH: CURLOPT_PROXYPASSWORD refuses it
    with fbstorage.Storage(TEST_BUCKET) as storage:
        storage.use_emulator(emulator.host, emulator.port)
        storage.max_operation_retry_time = 120
        storage.set_proxy(f"http://127.0.0.1:{emulator.port}", username="user", password=secret)
        started = time.monotonic()
        with pytest.raises(StorageError) as raised:
            storage.reference("a.txt").get_metadata()
        assert time.monotonic() - started < 1
        assert raised.value.code == StorageErrorCode.INTERNAL
        assert "CURLOPT_PROXYPASSWORD" in str(raised.value)
        assert "sss" not in str(raised.value)
        storage.set_proxy("")   # the same storage works again once the input is fixed
        with pytest.raises(StorageError) as missing:
            storage.reference("a.txt").get_metadata()
        assert missing.value.code == StorageErrorCode.OBJECT_NOT_FOUND
