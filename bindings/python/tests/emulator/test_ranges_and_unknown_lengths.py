"""Range downloads at their edges on both APIs, and resumable uploads whose length is unknown
until the end (v0 without X-Goog-Upload-Header-Content-Length; GCS with `bytes A-B/*`), both
flavors: what fbstorage's ranged reads, streams and stream uploads rely on."""

import os

import pytest
import requests

from conftest import assert_json_error, md5_b64

CHUNK = 256 * 1024


def gcs_media(emu, name: str, range_header: str | None) -> requests.Response:
    headers = {"Range": range_header} if range_header else {}
    return requests.get(emu.url(f"/storage/v1/b/b/o/{name}"), params={"alt": "media"}, headers=headers)


def v0_media(emu, name: str, range_header: str | None) -> requests.Response:
    return emu.download(name, headers={"Range": range_header} if range_header else {})


@pytest.mark.parametrize("fetch", [v0_media, gcs_media], ids=["v0", "gcs"])
@pytest.mark.parametrize("range_header, status, wanted, content_range", [
    ("bytes=0-0", 206, slice(0, 1), "bytes 0-0/10"),
    ("bytes=9-9", 206, slice(9, 10), "bytes 9-9/10"),
    ("bytes=9-", 206, slice(9, 10), "bytes 9-9/10"),
    ("bytes=-1", 206, slice(9, 10), "bytes 9-9/10"),
    ("bytes=-10", 206, slice(0, 10), "bytes 0-9/10"),
    ("bytes=-11", 206, slice(0, 10), "bytes 0-9/10"),  # a suffix longer than the object: all of it
    ("bytes=3-99", 206, slice(3, 10), "bytes 3-9/10"),  # an end past the object's: clamped
])
def test_satisfiable_ranges(emu, fetch, range_header, status, wanted, content_range):
    data = b"0123456789"
    meta = emu.upload_ok("r", data)
    response = fetch(emu, "r", range_header)
    assert response.status_code == status and response.content == data[wanted]
    assert response.headers["Content-Range"] == content_range
    assert response.headers["Content-Length"] == str(wanted.stop - wanted.start)
    assert response.headers["x-goog-generation"] == meta["generation"]  # what a resumed download compares


@pytest.mark.parametrize("fetch", [v0_media, gcs_media], ids=["v0", "gcs"])
@pytest.mark.parametrize("name, data, range_header", [
    ("r", b"0123456789", "bytes=10-"),
    ("r", b"0123456789", "bytes=10-20"),
    ("r", b"0123456789", "bytes=-0"),
    ("empty", b"", "bytes=0-"),
])
def test_unsatisfiable_ranges(emu, fetch, name, data, range_header):
    emu.upload_ok(name, data)
    response = fetch(emu, name, range_header)
    if emu.production:  # 416 naming the size, which fbstorage reads to tell an empty range at the end
        assert response.status_code == 416
        if fetch is v0_media:  # production's XML page and stored length (the recorded errors/range exchanges)
            assert "<Code>InvalidRange</Code>" in response.text
            assert response.headers["x-goog-stored-content-length"] == str(len(data))
            assert "Content-Range" not in response.headers
        else:
            assert response.headers["Content-Range"] == f"bytes */{len(data)}"
    else:  # the official emulator ignores the range
        assert response.status_code == 200 and response.content == data


def test_the_last_byte_of_an_empty_object_as_production_answers(emu):
    """Recorded production (errors/range): `bytes=-1` of an empty object is a 200 on the Firebase
    API and a 206 `bytes 0-0/0` on the JSON API, not a 416."""
    emu.upload_ok("empty", b"")
    v0, gcs = v0_media(emu, "empty", "bytes=-1"), gcs_media(emu, "empty", "bytes=-1")
    if emu.production:
        assert (v0.status_code, v0.content) == (200, b"")
        assert (gcs.status_code, gcs.headers["Content-Range"], gcs.content) == (206, "bytes 0-0/0", b"")
    else:
        assert v0.status_code == gcs.status_code == 200


@pytest.mark.parametrize("size", [0, 1, CHUNK, CHUNK + 1, 3 * CHUNK])
def test_v0_resumable_upload_of_unknown_length(emu, size):
    data = os.urandom(size)
    session = emu.session_url("unknown", size=None)
    offset = 0
    while offset + CHUNK <= size:  # whole chunks while the end is not known yet
        answer = emu.chunk(session, "upload", data[offset:offset + CHUNK], offset=offset)
        assert answer.status_code == 200 and answer.headers["X-Goog-Upload-Status"] == "active", answer.text
        offset += CHUNK
    final = emu.chunk(session, "upload, finalize" if offset < size else "finalize", data[offset:], offset=offset)
    assert final.status_code == 200 and final.headers["X-Goog-Upload-Status"] == "final", final.text
    assert final.json()["size"] == str(size) and final.json()["md5Hash"] == md5_b64(data)
    assert emu.download("unknown").content == data


@pytest.mark.parametrize("size", [0, 1, CHUNK, CHUNK + 1, 3 * CHUNK])
def test_gcs_resumable_upload_of_unknown_length(emu, size):
    data = os.urandom(size)
    started = requests.post(emu.url("/upload/storage/v1/b/b/o"), params={"uploadType": "resumable", "name": "unknown"},
                            json={})
    assert started.status_code == 200, started.text
    session = started.headers["Location"]
    offset = 0
    while offset + CHUNK <= size:
        answer = requests.put(session, data=data[offset:offset + CHUNK],
                              headers={"Content-Range": f"bytes {offset}-{offset + CHUNK - 1}/*"})
        assert answer.status_code == 308 and answer.headers["Range"] == f"bytes=0-{offset + CHUNK - 1}"
        offset += CHUNK
    last = f"bytes {offset}-{size - 1}/{size}" if offset < size else f"bytes */{size}"
    final = requests.put(session, data=data[offset:], headers={"Content-Range": last})
    assert final.status_code == 200, final.text
    assert final.json()["size"] == str(size) and final.json()["md5Hash"] == md5_b64(data)
    assert gcs_media(emu, "unknown", None).content == data
