"""The GCS resumable protocol over raw HTTP, and bad input on every GCS upload route: a 400 in the
GCS shape, nothing stored, and the session still usable where GCS keeps it usable."""

import json
import os

import pytest
import requests

from conftest import md5_b64

BUCKET = "b"
CHUNK = 256 * 1024


def upload_url(emu) -> str:
    return emu.url(f"/upload/storage/v1/b/{BUCKET}/o")


def start(emu, name: str = "obj", size: int | None = None, params: dict | None = None, **resource) -> str:
    headers = {"X-Upload-Content-Length": str(size)} if size is not None else {}
    response = requests.post(upload_url(emu), params={"uploadType": "resumable", "name": name, **(params or {})},
                             json=resource, headers=headers)
    assert response.status_code == 200, response.text
    return response.headers["Location"]


def put(session: str, data: bytes = b"", content_range: str | None = None, **kwargs) -> requests.Response:
    headers = {"Content-Range": content_range} if content_range else {}
    return requests.put(session, data=data, headers=headers, **kwargs)


def status(session: str, total: str = "*") -> requests.Response:
    return put(session, content_range=f"bytes */{total}")


def assert_gcs_error(response: requests.Response, status_code: int, reason: str) -> None:
    assert response.status_code == status_code, (response.status_code, response.text)
    error = response.json()["error"]
    assert error["code"] == status_code and error["message"]
    assert error["errors"][0]["reason"] == reason and error["errors"][0]["domain"] == "global"


def stored(emu, name: str = "obj") -> requests.Response:
    return requests.get(emu.url(f"/storage/v1/b/{BUCKET}/o/{name}"))


def test_chunks_get_308_with_range_and_the_last_one_the_resource(emu):
    data = os.urandom(2 * CHUNK + 5)
    session = start(emu, size=len(data), contentType="text/plain", metadata={"k": "v"})
    assert "upload_id=" in session and session.startswith(emu.base + "/upload/storage/v1/b/b/o?")
    first = put(session, data[:CHUNK], f"bytes 0-{CHUNK - 1}/{len(data)}")
    assert first.status_code == 308 and first.headers["Range"] == f"bytes=0-{CHUNK - 1}"
    second = put(session, data[CHUNK:2 * CHUNK], f"bytes {CHUNK}-{2 * CHUNK - 1}/{len(data)}")
    assert second.status_code == 308 and second.headers["Range"] == f"bytes=0-{2 * CHUNK - 1}"
    last = put(session, data[2 * CHUNK:], f"bytes {2 * CHUNK}-{len(data) - 1}/{len(data)}")
    assert last.status_code == 200, last.text
    resource = last.json()
    assert resource["size"] == str(len(data)) and resource["md5Hash"] == md5_b64(data)
    assert resource["contentType"] == "text/plain" and resource["metadata"]["k"] == "v"
    assert requests.get(resource["mediaLink"]).content == data


def test_status_query_answers_308_and_never_finalizes(emu):
    session = start(emu)
    empty = status(session)
    assert empty.status_code == 308 and "Range" not in empty.headers
    assert put(session, b"x" * CHUNK, f"bytes 0-{CHUNK - 1}/*").status_code == 308
    for total in ("*", str(2 * CHUNK)):
        query = status(session, total)
        assert query.status_code == 308 and query.headers["Range"] == f"bytes=0-{CHUNK - 1}"
    assert stored(emu).status_code == 404
    done = put(session, b"y" * CHUNK, f"bytes {CHUNK}-{2 * CHUNK - 1}/{2 * CHUNK}")
    assert done.status_code == 200
    after = status(session)
    assert after.status_code == 200 and after.json()["generation"] == done.json()["generation"]


def test_unknown_size_ends_with_a_status_query_that_gives_the_total(emu):
    session = start(emu)
    assert put(session, b"a" * CHUNK, f"bytes 0-{CHUNK - 1}/*").status_code == 308
    assert put(session, b"b" * CHUNK, f"bytes {CHUNK}-{2 * CHUNK - 1}/*").status_code == 308
    final = status(session, str(2 * CHUNK))
    assert final.status_code == 200 and final.json()["size"] == str(2 * CHUNK)
    assert requests.get(final.json()["mediaLink"]).content == b"a" * CHUNK + b"b" * CHUNK


def test_a_resent_chunk_is_accepted_and_its_known_bytes_skipped(emu):
    data = os.urandom(3 * CHUNK)
    session = start(emu)
    assert put(session, data[:2 * CHUNK], f"bytes 0-{2 * CHUNK - 1}/*").status_code == 308
    again = put(session, data[:2 * CHUNK], f"bytes 0-{2 * CHUNK - 1}/*")  # a retry after a lost reply
    assert again.status_code == 308 and again.headers["Range"] == f"bytes=0-{2 * CHUNK - 1}"
    overlapping = put(session, data[CHUNK:], f"bytes {CHUNK}-{3 * CHUNK - 1}/{3 * CHUNK}")
    assert overlapping.status_code == 200 and overlapping.json()["md5Hash"] == md5_b64(data)


def test_a_whole_object_in_one_put_without_content_range(emu):
    session = start(emu, name="one")
    assert_gcs_error(put(session, iter([b"no ", b"length"])), 400, "invalid")  # chunked: no Content-Length
    response = put(session, b"all at once")
    assert response.status_code == 200 and response.json()["size"] == "11"
    assert put(start(emu, name="empty"), b"").json()["size"] == "0"


def test_cancel_by_delete(emu):
    session = start(emu)
    assert put(session, b"x" * CHUNK, f"bytes 0-{CHUNK - 1}/*").status_code == 308
    assert requests.delete(session).status_code == 499
    assert_gcs_error(status(session), 404, "notFound")
    assert stored(emu).status_code == 404


def test_precondition_fails_the_finalize_when_the_object_appeared_meanwhile(emu):
    session = start(emu, params={"ifGenerationMatch": "0"})
    assert emu.upload("obj", b"v0 wins").status_code == 200
    assert_gcs_error(put(session, b"late", "bytes 0-3/4"), 412, "conditionNotMet")
    assert requests.get(emu.url(f"/download/storage/v1/b/{BUCKET}/o/obj?alt=media")).content == b"v0 wins"
    assert_gcs_error(requests.post(upload_url(emu), params={"uploadType": "resumable", "name": "obj",
                                                             "ifGenerationMatch": "0"}, json={}), 412, "conditionNotMet")


# Bad input.

def test_malformed_json_is_a_400_and_starts_nothing(emu):
    for body in (b"{not json", b"[1, 2]"):
        response = requests.post(upload_url(emu), params={"uploadType": "resumable", "name": "j"}, data=body,
                                 headers={"Content-Type": "application/json"})
        assert_gcs_error(response, 400, "invalid")
    patch = requests.patch(emu.url(f"/storage/v1/b/{BUCKET}/o/j"), data=b"{oops")
    assert_gcs_error(patch, 400, "invalid")


@pytest.mark.parametrize("content_range, body", [
    ("bytes 0-9", b"x" * 10),                      # no total
    ("bytes=0-9/10", b"x" * 10),                   # the Range syntax, not Content-Range
    ("bytes 9-0/10", b"x" * 10),                   # ends before it starts
    ("bytes 5-14/*", b"x" * 10),                   # a gap: the session holds 0 bytes
    ("bytes 0-9/*", b"x" * 11),                    # a body longer than the range
    ("bytes 0-9/*", b"x" * 9),                     # a body shorter than the range
    ("bytes 0-9/5", b"x" * 10),                    # past the total it declares
])
def test_a_wrong_content_range_is_a_400_that_keeps_nothing_and_the_session_usable(emu, content_range, body):
    session = start(emu)
    assert_gcs_error(put(session, body, content_range), 400, "invalid")
    assert status(session).status_code == 308 and "Range" not in status(session).headers
    finished = put(session, b"z" * 10, "bytes 0-9/10")
    assert finished.status_code == 200 and finished.json()["md5Hash"] == md5_b64(b"z" * 10)


def test_a_chunked_body_of_the_wrong_length_keeps_nothing(emu):
    session = start(emu)
    assert put(session, b"a" * CHUNK, f"bytes 0-{CHUNK - 1}/*").status_code == 308
    pieces = iter([b"b" * CHUNK, b"extra"])  # a generator: sent chunked, the length is known only at the end
    assert_gcs_error(put(session, pieces, f"bytes {CHUNK}-{2 * CHUNK - 1}/*"), 400, "invalid")
    assert status(session).headers["Range"] == f"bytes=0-{CHUNK - 1}"


def test_a_chunk_past_the_declared_size_is_a_400(emu):
    session = start(emu, size=CHUNK)
    assert_gcs_error(put(session, b"x" * (CHUNK + 1), f"bytes 0-{CHUNK}/{CHUNK + 1}"), 400, "invalid")
    assert_gcs_error(put(session, b"x" * (CHUNK + 1), f"bytes 0-{CHUNK}/*"), 400, "invalid")
    assert status(session).status_code == 308 and stored(emu).status_code == 404
    assert put(session, b"x" * CHUNK, f"bytes 0-{CHUNK - 1}/{CHUNK}").status_code == 200


def test_bad_start_requests(emu):
    for params, headers in (({"uploadType": "resumable"}, {}),                               # no name
                            ({"uploadType": "resumable", "name": "a"}, {"X-Upload-Content-Length": "-1"}),
                            ({"uploadType": "tus", "name": "a"}, {}),
                            ({"uploadType": "media"}, {})):
        assert_gcs_error(requests.post(upload_url(emu), params=params, json={}, headers=headers), 400, "invalid")
    for condition in ({"ifGenerationMatch": "x"}, {"ifMetagenerationMatch": "--5"}):  # not a long: production's reason
        response = requests.post(upload_url(emu), params={"uploadType": "resumable", "name": "a", **condition}, json={})
        assert_gcs_error(response, 400, "invalidParameter" if emu.production else "invalid")
    assert_gcs_error(put(upload_url(emu) + "?upload_id=unknown", b"x", "bytes 0-0/1"), 404, "notFound")
    assert requests.get(emu.url(f"/storage/v1/b/{BUCKET}/o")).json() == {"kind": "storage#objects"}


def test_huge_multipart_part_headers_are_a_400_and_store_nothing(emu):
    boundary = "sep"
    body = (f"--{boundary}\r\nContent-Type: application/json\r\nX-Pad: {'p' * 100_000}\r\n\r\n"
            f'{{"name": "mp"}}\r\n--{boundary}\r\nContent-Type: text/plain\r\n\r\ndata\r\n--{boundary}--').encode()
    response = requests.post(upload_url(emu), params={"uploadType": "multipart"}, data=body,
                             headers={"Content-Type": f"multipart/related; boundary={boundary}"})
    assert_gcs_error(response, 400, "invalid")
    assert stored(emu, "mp").status_code == 404


def test_multipart_with_bad_metadata_is_a_400(emu):
    body = (b'--s\r\nContent-Type: application/json\r\n\r\n{"name": \r\n--s\r\nContent-Type: text/plain\r\n\r\n'
            b"data\r\n--s--")
    response = requests.post(upload_url(emu), params={"uploadType": "multipart"}, data=body,
                             headers={"Content-Type": "multipart/related; boundary=s"})
    assert_gcs_error(response, 400, "invalid")


def test_huge_request_headers_are_refused_before_routing(emu):
    """aiohttp refuses header fields over 8 KiB itself, before any handler (and its GCS error
    shape) runs: a 431 with the emulator's JSON error, with nothing stored."""
    response = requests.post(upload_url(emu), params={"uploadType": "media", "name": "h"}, data=b"x",
                             headers={"X-Huge": "h" * 20_000})
    assert response.status_code == 431 and response.json()["error"]["code"] == 431
    assert stored(emu, "h").status_code == 404


def test_bad_patch_values_change_nothing(emu):
    resource = requests.post(upload_url(emu), params={"uploadType": "media", "name": "v"}, data=b"x").json()
    for body in ({"contentType": 5}, {"metadata": "not a map"}, {"metadata": {"firebaseStorageDownloadTokens": 3}}):
        assert_gcs_error(requests.patch(emu.url(f"/storage/v1/b/{BUCKET}/o/v"), data=json.dumps(body)), 400, "invalid")
    assert stored(emu, "v").json()["metageneration"] == resource["metageneration"]


def test_gcs_uploads_and_copies_stream_without_growing_memory(start_emulator):
    """128 MiB in two resumable chunks, then a copy, a two-step rewrite and a compose of it: the
    bytes stream through files, so the emulator's peak RSS barely moves."""
    emu = start_emulator(f"--bucket={BUCKET}")
    size, piece = 128 << 20, bytes(range(256)) * 4096  # 1 MiB pieces, sent as they are made
    baseline = emu.rss_bytes()
    session = start(emu, name="huge", size=size)
    for first in (0, size // 2):
        body = (piece for _ in range(size // 2 // len(piece)))  # sent chunked
        reply = requests.put(session, data=body, headers={"Content-Range": f"bytes {first}-{first + size // 2 - 1}/{size}"})
        assert reply.status_code == (308 if first == 0 else 200), reply.text
    base = emu.url(f"/storage/v1/b/{BUCKET}/o/huge")
    assert requests.post(f"{base}/copyTo/b/{BUCKET}/o/copied", json={}).status_code == 200
    step = requests.post(f"{base}/rewriteTo/b/{BUCKET}/o/rewritten",
                         params={"maxBytesRewrittenPerCall": str(size // 2)}, json={}).json()
    done = requests.post(f"{base}/rewriteTo/b/{BUCKET}/o/rewritten", json={},
                         params={"maxBytesRewrittenPerCall": str(size // 2), "rewriteToken": step["rewriteToken"]})
    assert done.json()["done"] is True
    composed = requests.post(emu.url(f"/storage/v1/b/{BUCKET}/o/composed/compose"),
                             json={"sourceObjects": [{"name": "copied"}, {"name": "rewritten"}]})
    assert composed.json()["size"] == str(2 * size)
    growth_mib = (emu.rss_bytes("VmHWM") - baseline) / (1 << 20)
    assert growth_mib < 64, f"peak RSS grew by {growth_mib:.1f} MiB"
