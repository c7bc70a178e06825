"""The process: READY line, signals, port conflicts, HTTP/1.1 behaviour, concurrency, memory."""

import http.client
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from conftest import PYTHON_ROOT, Emulator, md5_b64


def memory_kib(emu: Emulator, field: str) -> int:
    for line in Path(f"/proc/{emu.process.pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(field)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_ready_line_and_clean_stop(start_emulator, sig):
    emu = start_emulator()
    assert emu.base == f"http://127.0.0.1:{emu.port}" and emu.port > 0
    assert emu.http.get(emu.url("/v0/")).json() == {"emulator": "storage"}
    emu.upload_ok("x")
    assert emu.stop(sig) == 0


@pytest.mark.parametrize("stop", ["close stdin", "SIGTERM"])
def test_stop_on_stdin_eof(stop):
    """--stop-on-stdin-eof: stdin's end stops it; so does a signal while stdin is still open."""
    process = subprocess.Popen([sys.executable, "-m", "fbstorage.emulator", "--port", "0", "--stop-on-stdin-eof"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONPATH": str(PYTHON_ROOT)})
    try:
        assert process.stdout.readline().startswith(b"READY ")
        if stop == "SIGTERM":
            process.send_signal(signal.SIGTERM)  # stdin stays open until it has exited
        else:
            process.stdin.close()
        assert process.wait(10) == 0
        assert b"Fatal Python error" not in process.stderr.read()
    finally:
        process.kill()
        process.stdin.close()
        process.stdout.close()
        process.stderr.close()


def test_a_harness_that_reads_only_the_first_ready_line_keeps_a_working_emulator():
    """Harnesses read `READY http://…` and close the pipe: the READY-AUTH and READY-UI lines that
    follow must not kill the emulator (they are printed before it serves its first request)."""
    process = subprocess.Popen([sys.executable, "-m", "fbstorage.emulator", "--port", "0", "--stop-on-stdin-eof"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONPATH": str(PYTHON_ROOT)})
    try:
        address = process.stdout.readline().decode().split()[1]
        process.stdout.close()
        for _ in range(2):
            assert requests.get(f"{address}/_emulator/requests", timeout=10).status_code == 200
        process.stdin.close()
        assert process.wait(10) == 0
        assert b"Traceback" not in process.stderr.read()
    finally:
        process.kill()
        process.stderr.close()


def test_a_stop_cuts_a_stalled_upload_and_a_refused_body_after_the_grace(start_emulator):
    """A client stalled mid-body, and one whose refused body the server would read on for 10 s,
    hold a stop for the grace only (limits.STOP_GRACE_SECONDS: 2 s), not aiohttp's 60 s."""
    emu = start_emulator()
    with socket.create_connection(("127.0.0.1", emu.port), timeout=30) as stalled, \
            socket.create_connection(("127.0.0.1", emu.port), timeout=30) as refused:
        stalled.sendall(b"POST /v0/b/b/o?name=stalled HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n"
                        b"Expect: 100-continue\r\n\r\n")
        assert stalled.recv(100).startswith(b"HTTP/1.1 100 Continue")  # its handler runs
        stalled.sendall(b"x" * 1000)
        refused.sendall(b"POST /identitytoolkit.googleapis.com/v1/accounts:signUp?key=k HTTP/1.1\r\nHost: x\r\n"
                        b"Content-Type: application/json\r\nContent-Length: 2000000\r\n\r\n" + b"{" * 1000)
        assert refused.recv(100).startswith(b"HTTP/1.1 413")  # answered; the rest of its body is awaited
        started = time.monotonic()
        assert emu.stop(signal.SIGTERM, timeout=60) == 0
        assert time.monotonic() - started < 8
        assert stalled.recv(100) == b""  # cut: the upload was never acknowledged
    assert "stopping: 1 request(s) in flight get up to 2 s to finish, then are cut" in emu.stderr()


def test_port_in_use_fails_with_message(start_emulator):
    emu = start_emulator()
    with pytest.raises(RuntimeError, match="address already in use"):
        Emulator("--port", str(emu.port))


def test_keep_alive_and_expect_100_continue(emu):
    with socket.create_connection(("127.0.0.1", emu.port), timeout=5) as sock:
        sock.sendall(b"POST /v0/b/b/o?name=e HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(b"hello")
        reader = sock.makefile("rb")
        assert reader.readline().startswith(b"HTTP/1.1 200")
        length = 0
        while (line := reader.readline()) != b"\r\n":
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        reader.read(length)
        sock.sendall(b"GET /v0/b/b/o/e?alt=media HTTP/1.1\r\nHost: x\r\n\r\n")  # same connection
        assert reader.readline().startswith(b"HTTP/1.1 200")
        while reader.readline() != b"\r\n":
            pass
        assert reader.read(5) == b"hello"


def test_many_concurrent_clients(emu):
    errors = []

    def client(index: int) -> None:
        try:
            with requests.Session() as session:
                data = bytes([index]) * (100000 + index)
                for round_ in range(3):
                    name = f"c/{index}/{round_}"
                    meta = session.post(emu.bucket_url(), params={"name": name}, data=data).json()
                    assert meta["md5Hash"] == md5_b64(data)
                    assert session.get(emu.object_url(name), params={"alt": "media"}).content == data
        except Exception as error:  # reported below with the client's index
            errors.append((index, error))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len(emu.list(prefix="c/").json()["items"]) == 72
    assert len(emu.list(prefix="c/", delimiter="/").json()["prefixes"]) == 24


def test_large_upload_and_download_stream_without_growing_memory(start_emulator):
    emu = start_emulator()
    size = 256 << 20
    piece = bytes(range(256)) * 4096  # 1 MiB
    baseline = memory_kib(emu, "VmRSS")
    connection = http.client.HTTPConnection("127.0.0.1", emu.port)
    connection.request("PUT", "/v0/b/b/o?name=huge", body=(piece for _ in range(size // len(piece))),
                       headers={"Content-Length": str(size)})
    response = connection.getresponse()
    assert response.status == 200 and response.read()
    connection.request("GET", "/v0/b/b/o/huge?alt=media")
    response = connection.getresponse()
    received = 0
    while chunk := response.read(1 << 20):
        received += len(chunk)
    assert received == size
    growth_mib = (memory_kib(emu, "VmHWM") - baseline) / 1024
    assert growth_mib < 64, f"peak RSS grew by {growth_mib:.1f} MiB"


@pytest.mark.parametrize("flags, loop", [((), "uvloop.Loop"), (("--loop", "uvloop"), "uvloop.Loop"),
                                         (("--loop", "asyncio"), "asyncio.unix_events.")])
def test_event_loop(start_emulator, flags, loop):
    """uvloop when installed, asyncio's own loop when asked for."""
    pytest.importorskip("uvloop")
    emu = start_emulator("--log-level", "info", *flags)
    assert f"event loop: {loop}" in emu.stderr()
    assert emu.upload_ok("x", b"data")["size"] == "4"


def test_event_loop_without_uvloop(start_emulator, tmp_path):
    """Without uvloop the emulator runs on asyncio's loop, unless uvloop was asked for."""
    (tmp_path / "uvloop").mkdir()
    (tmp_path / "uvloop" / "__init__.py").write_text("raise ImportError('uvloop hidden by the test')\n")
    hidden = {"PYTHONPATH": f"{tmp_path}:{Path(__file__).resolve().parents[2]}"}
    emu = start_emulator("--log-level", "info", env=hidden)
    assert "event loop: asyncio.unix_events." in emu.stderr()
    assert emu.upload_ok("x", b"data")["size"] == "4"
    with pytest.raises(RuntimeError, match="--loop uvloop: uvloop is not installed"):
        start_emulator("--loop", "uvloop", env=hidden)
