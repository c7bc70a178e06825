"""GCS uploads through Tests/support/fault_proxy.py: a chunk cut mid-request keeps whole 256 KiB
granules, a status query after the cut says how many, a re-sent chunk is accepted, and
google-cloud-storage finishes an upload whose connections are cut at random."""

import os
import sys
from pathlib import Path

import pytest
import requests
from google.api_core.retry import Retry
from google.cloud.storage.retry import DEFAULT_RETRY

from conftest import md5_b64

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "Tests" / "support"))
from fault_proxy import FaultProxy  # noqa: E402

BUCKET = "b"
CHUNK = 256 * 1024
FAST_RETRY: Retry = DEFAULT_RETRY.with_delay(initial=0.01, maximum=0.05)


@pytest.fixture
def proxy(emu):
    proxy = FaultProxy(("127.0.0.1", emu.port))
    proxy.url = f"http://127.0.0.1:{proxy.start()}"
    yield proxy
    proxy.stop()


def start_session(base: str, size: int) -> str:
    response = requests.post(f"{base}/upload/storage/v1/b/{BUCKET}/o", params={"uploadType": "resumable", "name": "cut"},
                             json={}, headers={"X-Upload-Content-Length": str(size)})
    assert response.status_code == 200, response.text
    return response.headers["Location"]


def cut_put(proxy: FaultProxy, session: str, data: bytes, content_range: str, after_body_bytes: int) -> None:
    """A chunk whose connection the proxy cuts once about `after_body_bytes` of its body went through."""
    proxy.cut_next_connection(after_body_bytes + 1024)  # + the request line and headers
    with pytest.raises(requests.ConnectionError):
        requests.put(session, data=data, headers={"Content-Range": content_range, "Connection": "close"})


def persisted(session: str) -> int:
    reply = requests.put(session, headers={"Content-Range": "bytes */*"})
    assert reply.status_code == 308, reply.text
    return int(reply.headers["Range"].rsplit("-", 1)[1]) + 1 if "Range" in reply.headers else 0


def test_a_cut_chunk_keeps_whole_granules_and_a_status_query_resumes_it(emu, proxy):
    data = os.urandom(4 * CHUNK)
    session = start_session(proxy.url, len(data))
    cut_put(proxy, session, data, f"bytes 0-{len(data) - 1}/{len(data)}", 3 * CHUNK + 10_000)
    kept = persisted(session)
    # The proxy's own buffer (< 64 KiB) may be lost with the cut, so 2 or 3 granules arrive.
    assert kept in (2 * CHUNK, 3 * CHUNK)
    done = requests.put(session, data=data[kept:], headers={"Content-Range": f"bytes {kept}-{len(data) - 1}/{len(data)}"})
    assert done.status_code == 200 and done.json()["md5Hash"] == md5_b64(data)
    assert emu.download("cut").content == data


def test_a_chunk_resent_whole_after_a_cut_is_accepted(emu, proxy):
    data = os.urandom(2 * CHUNK + 99)
    session = start_session(proxy.url, len(data))
    cut_put(proxy, session, data, f"bytes 0-{len(data) - 1}/{len(data)}", CHUNK + 120_000)
    assert persisted(session) == CHUNK  # the granule that fully arrived before the cut
    again = requests.put(session, data=data, headers={"Content-Range": f"bytes 0-{len(data) - 1}/{len(data)}"})
    assert again.status_code == 200 and again.json()["md5Hash"] == md5_b64(data)


def test_google_cloud_storage_upload_survives_random_cuts(emu, monkeypatch):
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    proxy = FaultProxy(("127.0.0.1", emu.port), mean_cut_bytes=3 << 20, seed=7)
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://127.0.0.1:{proxy.start()}")
    try:
        client = storage.Client(project="demo-project", credentials=AnonymousCredentials())
        data = os.urandom(12 << 20)
        blob = client.bucket(BUCKET).blob("random-cuts", chunk_size=1 << 20)
        blob.upload_from_string(data, retry=FAST_RETRY)
        stats = proxy.stats
    finally:
        proxy.stop()
    assert stats.cuts_request + stats.cuts_response >= 2, stats  # the seed gives several cuts
    assert blob.md5_hash == md5_b64(data) and emu.download("random-cuts").content == data
