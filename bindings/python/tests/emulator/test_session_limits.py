"""Resumable upload sessions are bounded: no open file between requests (checked with a real
`ulimit -n` and 1,100 abandoned sessions), a week's lifetime and a cap on open sessions."""

from __future__ import annotations

import asyncio
import os
import resource
from pathlib import Path

import pytest

from conftest import ADMIN
from fbstorage.emulator import uploads
from fbstorage.emulator.auth import ADMIN as ADMIN_PRINCIPAL
from fbstorage.emulator.blobs import BlobWriter
from fbstorage.emulator.errors import ApiError
from fbstorage.emulator.limits import SESSION_LIFETIME_SECONDS
from fbstorage.emulator.uploads import ACTIVE, CANCELLED, UploadSessions

FILE_LIMIT = 1024
ABANDONED = 1100


def _low_file_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FILE_LIMIT, FILE_LIMIT))


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@pytest.mark.timeout(120)
def test_abandoned_sessions_hold_no_files_under_a_real_ulimit(start_emulator):
    """Both APIs' sessions; the flavors keep sessions alike."""
    emulator = start_emulator("--bucket=b", preexec_fn=_low_file_limit)
    assert f"Max open files            {FILE_LIMIT}" in Path(f"/proc/{emulator.process.pid}/limits").read_text()
    baseline = open_files(emulator.process.pid)
    gcs_start = emulator.url("/upload/storage/v1/b/b/o")
    chunk = b"x" * (256 * 1024)  # the granularity: a chunk that is not the last one
    for index in range(ABANDONED):
        sends_a_chunk = index % 10 < 2  # every session has a staged file; some get a chunk first
        if index % 2:  # a Firebase (v0) session
            session = emulator.session_url(f"v0/{index}")
            if sends_a_chunk:
                assert emulator.chunk(session, "upload", chunk, offset=0).status_code == 200
        else:  # a GCS JSON API session
            started = emulator.http.post(gcs_start, params={"uploadType": "resumable", "name": f"gcs/{index}"},
                                         json={}, headers=ADMIN)
            assert started.status_code == 200, started.text
            if sends_a_chunk:
                sent = emulator.http.put(started.headers["Location"], data=chunk,
                                         headers={"Content-Range": f"bytes 0-{len(chunk) - 1}/*"})
                assert sent.status_code == 308, sent.text
    assert open_files(emulator.process.pid) < baseline + 20
    # Everything still works: an upload, a new session finished, a download.
    emulator.upload_ok("after", b"still fine", headers=ADMIN)
    session = emulator.session_url("finished")
    assert emulator.chunk(session, "upload, finalize", b"done", offset=0).status_code == 200
    assert emulator.download("finished", headers=ADMIN).content == b"done"
    # An abandoned session resumes where it stopped, its file reopened for the request.
    resumed = emulator.session_url("resumed")
    assert emulator.chunk(resumed, "upload", chunk, offset=0).status_code == 200
    assert emulator.chunk(resumed, "upload, finalize", b"end", offset=len(chunk)).status_code == 200
    assert emulator.download("resumed", headers=ADMIN).content == chunk + b"end"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _start(sessions: UploadSessions, directory: Path, name: str = "n") -> uploads.UploadSession:
    return await sessions.start(bucket="b", name=name, resource={}, declared_size=None, declared_content_type=None,
                          writer=BlobWriter(str(directory), durable=False), principal=ADMIN_PRINCIPAL)


def test_sessions_expire_a_week_after_they_started(tmp_path):
    async def scenario() -> None:
        clock = FakeClock()
        sessions = UploadSessions(clock)
        session = await _start(sessions, tmp_path)
        clock.now += SESSION_LIFETIME_SECONDS
        assert sessions.get(session.id) is session  # a week to the second: still valid
        clock.now += 1
        assert sessions.get(session.id) is None
        assert session.state == CANCELLED
        await asyncio.sleep(0)  # the discard runs as its own task
        await asyncio.sleep(0)
        assert list(tmp_path.iterdir()) == []  # its staged bytes are deleted
    asyncio.run(scenario())


def test_open_sessions_are_capped_and_finished_or_expired_ones_make_room(tmp_path, monkeypatch):
    monkeypatch.setattr(uploads, "MAX_OPEN_SESSIONS", 3)

    async def scenario() -> None:
        clock = FakeClock()
        sessions = UploadSessions(clock)
        first, second, third = [await _start(sessions, tmp_path, str(index)) for index in range(3)]
        with pytest.raises(ApiError) as refused:
            await _start(sessions, tmp_path)
        assert refused.value.status == 429 and "Too many open resumable upload sessions (3)" in refused.value.message
        for _ in range(3):
            await asyncio.sleep(0)
        assert len(list(tmp_path.iterdir())) == 3  # the refused session's file is gone
        first.state = uploads.FINAL  # finished: kept only for status queries, it makes room
        fourth = await _start(sessions, tmp_path)
        assert sessions.get(first.id) is None and fourth.state == ACTIVE
        clock.now += SESSION_LIFETIME_SECONDS + 1  # the three open ones expire
        await _start(sessions, tmp_path)
        assert sessions.get(second.id) is None and sessions.get(third.id) is None
    asyncio.run(scenario())

