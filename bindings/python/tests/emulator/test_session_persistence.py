"""--data-dir keeps resumable upload sessions across restarts: every acknowledged chunk survives a
SIGKILL, the session goes on where it was, with its caller (whose rules decide at finalize) and
the JSON API's preconditions; a finished or cancelled session does not come back."""

import json
import os
import signal
import time

import pytest
import requests

from conftest import md5_b64

GRANULE = 256 * 1024
RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{path=**} {
      allow read: if true;
      allow write: if request.auth != null && request.auth.uid == 'alice';
    }
  }
}
"""


@pytest.fixture
def rules_file(tmp_path):
    path = tmp_path / "storage.rules"
    path.write_text(RULES)
    return str(path)


def restarted(start_emulator, emulator, data_dir, *args, flavor="production"):
    """The emulator killed (no clean shutdown) and started again on the same data directory."""
    emulator.stop(signal.SIGKILL)
    return start_emulator("--data-dir", str(data_dir), *args, flavor=flavor)


@pytest.mark.parametrize("flavor", ["production", "firebase-tools"])
def test_a_v0_session_resumes_after_sigkill_with_its_callers_rules(start_emulator, tmp_path, rules_file, flavor):
    data_dir = tmp_path / "data"
    data = os.urandom(3 * GRANULE + 1000)
    first = start_emulator("--data-dir", str(data_dir), "--rules", rules_file, flavor=flavor)
    alice = {"Authorization": f"Firebase {first.id_token('alice')}"}
    started = first.start_resumable("kept.bin", size=len(data), headers=alice)
    assert started.status_code == 200, started.text
    session = started.headers["X-Goog-Upload-URL"]
    assert first.chunk(session, "upload", data[:2 * GRANULE], offset=0).status_code == 200

    second = restarted(start_emulator, first, data_dir, "--rules", rules_file, flavor=flavor)
    session = session.replace(first.base, second.base)
    query = second.chunk(session, "query")
    assert query.status_code == 200 and query.headers["X-Goog-Upload-Status"] == "active"
    assert query.headers["X-Goog-Upload-Size-Received"] == str(2 * GRANULE)
    final = second.chunk(session, "upload, finalize", data[2 * GRANULE:], offset=2 * GRANULE)
    assert final.status_code == 200, final.text  # alice's start decides, though no chunk carries a token
    assert final.json()["md5Hash"] == md5_b64(data)
    assert second.download("kept.bin").content == data
    assert not list((data_dir / "sessions").iterdir()) and not list((data_dir / "tmp").iterdir())


def test_a_session_started_anonymously_is_still_refused_by_the_rules_after_a_restart(start_emulator, tmp_path,
                                                                                    rules_file):
    data_dir = tmp_path / "data"
    first = start_emulator("--data-dir", str(data_dir), "--rules", rules_file)
    session = first.session_url("anonymous.bin", size=GRANULE)
    second = restarted(start_emulator, first, data_dir, "--rules", rules_file)
    refused = second.chunk(session.replace(first.base, second.base), "upload, finalize", b"x" * GRANULE, offset=0)
    assert refused.status_code == 403
    assert second.get_metadata("anonymous.bin").status_code == 404


def test_a_json_api_session_resumes_and_keeps_its_preconditions(start_emulator, tmp_path):
    data_dir = tmp_path / "data"
    data = os.urandom(2 * GRANULE + 10)
    first = start_emulator("--data-dir", str(data_dir), "--bucket", "b")
    path = "/upload/storage/v1/b/b/o"

    def start(name, **params):
        response = requests.post(first.url(path), params={"uploadType": "resumable", "name": name, **params}, json={})
        assert response.status_code == 200, response.text
        return response.headers["Location"]

    plain, guarded = start("plain.bin"), start("guarded.bin", ifGenerationMatch="0")
    for session in (plain, guarded):
        answer = requests.put(session, data=data[:GRANULE], headers={"Content-Range": f"bytes 0-{GRANULE - 1}/*"})
        assert answer.status_code == 308 and answer.headers["Range"] == f"bytes=0-{GRANULE - 1}"

    second = restarted(start_emulator, first, data_dir, "--bucket", "b")
    plain, guarded = (session.replace(first.base, second.base) for session in (plain, guarded))
    status = requests.put(plain, headers={"Content-Range": "bytes */*"})
    assert status.status_code == 308 and status.headers["Range"] == f"bytes=0-{GRANULE - 1}"
    done = requests.put(plain, data=data[GRANULE:], headers={"Content-Range": f"bytes {GRANULE}-{len(data) - 1}/{len(data)}"})
    assert done.status_code == 200 and done.json()["md5Hash"] == md5_b64(data)
    assert second.upload_ok("guarded.bin", b"there first")
    late = requests.put(guarded, data=data[GRANULE:], headers={"Content-Range": f"bytes {GRANULE}-{len(data) - 1}/{len(data)}"})
    assert late.status_code == 412, late.text
    assert second.download("guarded.bin").content == b"there first"


def test_finished_and_cancelled_sessions_do_not_come_back(start_emulator, tmp_path):
    data_dir = tmp_path / "data"
    first = start_emulator("--data-dir", str(data_dir))
    finished, cancelled, open_one = (first.session_url(name) for name in ("finished", "cancelled", "open"))
    assert first.chunk(finished, "upload, finalize", b"done", offset=0).status_code == 200
    assert first.chunk(cancelled, "cancel").status_code == 200
    (data_dir / "sessions" / "0123abcd.bin").write_bytes(b"bytes left without a record")
    (data_dir / "sessions" / "4567cdef.json").write_text('{"truncated')

    second = restarted(start_emulator, first, data_dir)
    assert second.chunk(cancelled.replace(first.base, second.base), "query").status_code == 404
    assert second.chunk(open_one.replace(first.base, second.base), "query").headers["X-Goog-Upload-Size-Received"] == "0"
    assert second.download("finished").content == b"done"
    assert sorted(path.suffix for path in (data_dir / "sessions").iterdir()) == [".bin", ".json"]  # the open one's
    reset = second.http.post(second.url("/_emulator/reset"))
    assert reset.status_code == 200
    assert not list((data_dir / "sessions").glob("*.json"))


def test_a_session_older_than_a_week_is_not_resumed(start_emulator, tmp_path):
    data_dir = tmp_path / "data"
    first = start_emulator("--data-dir", str(data_dir))
    session = first.session_url("old")
    assert first.chunk(session, "upload", b"x" * GRANULE, offset=0).status_code == 200
    first.stop(signal.SIGKILL)
    record_path, = (data_dir / "sessions").glob("*.json")
    record = json.loads(record_path.read_text())
    record["started_at"] = time.time() - 7 * 24 * 3600 - 60  # its week ran out while the emulator was down
    record_path.write_text(json.dumps(record))
    second = start_emulator("--data-dir", str(data_dir))
    assert second.chunk(session.replace(first.base, second.base), "query").status_code == 404
    assert not list((data_dir / "sessions").iterdir())
