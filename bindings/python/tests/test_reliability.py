"""The debug log, resuming an upload in another process, and failing in time when offline."""

from __future__ import annotations

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
from fbstorage.testing import EmulatorServer

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
    storage.reference("resume/killed.bin").put_file_resuming(file, session).wait()

    assert storage.reference("resume/killed.bin").get_data(len(data)) == data
    sent = sum(entry["body_size"] for entry in upload_chunk_requests(emulator))
    assert 0 < sent <= len(data) - progress + SMALL_CHUNK  # at most the chunk in flight again
    assert not [e for e in emulator.requests() if header(e, "X-Goog-Upload-Command") == "start"]


def test_offline_upload_fails_within_deadline() -> None:
    with socket.socket() as probe:  # a port with nothing listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with fbstorage.Storage("offline-bucket") as storage:
        storage.use_emulator("127.0.0.1", port)
        storage.max_upload_retry_time = 3
        started = time.monotonic()
        with pytest.raises(StorageError) as raised:
            storage.reference("offline.bin").put_data(payload(SMALL_CHUNK + 1)).wait()
        assert time.monotonic() - started < 3 + 2.5
    assert raised.value.code == StorageErrorCode.RETRY_LIMIT_EXCEEDED
    assert "connect" in str(raised.value)


def test_a_server_back_within_the_loopback_grace_is_reached() -> None:
    """A restart of about 1.5 s fails no client: the last attempt is made at the end of the 2 s
    grace the library gives a loopback address that refuses connections. The restarted server is
    a bare HTTP listener (it binds at once, where an emulator would spend its start-up time)."""
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

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    servers: list[http.server.HTTPServer] = []

    def come_back() -> None:
        server = http.server.HTTPServer(("127.0.0.1", port), NotFound)
        servers.append(server)
        server.serve_forever()

    storage = fbstorage.Storage("grace-bucket")
    storage.use_emulator("127.0.0.1", port)
    started = time.monotonic()
    timer = threading.Timer(1.5, come_back)   # the downtime the scenario is about, not an ordering
    timer.start()
    try:
        with pytest.raises(StorageError) as failure:
            storage.reference("missing.txt").get_metadata()
        assert failure.value.code == StorageErrorCode.OBJECT_NOT_FOUND   # the server was reached
        assert time.monotonic() - started < 3
    finally:
        storage.close()
        while not servers and timer.is_alive():
            time.sleep(0.01)
        for server in servers:
            server.shutdown()
        timer.join()
