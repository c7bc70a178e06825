"""`POST /batch/storage/v1`: google-cloud-storage's `with client.batch():` against both flavors."""

from email.parser import BytesParser

import pytest
from google.api_core import exceptions

from conftest import assert_json_error

BUCKET = "demo-project.appspot.com"


def test_a_batch_deletes_many_objects_each_call_as_if_sent_alone(emu, gcs):
    bucket = gcs.bucket(BUCKET)
    names = [f"many/{index:02d}.txt" for index in range(40)]
    for name in names:
        emu.upload_ok(name, name.encode(), bucket=BUCKET)
    before = len(emu.recorded())
    with gcs.batch():
        for name in names:
            bucket.blob(name).delete()
    # The 40 calls, in order, each logged with its own answer; the batch is logged when it is done.
    # (The client looks the bucket up once on its own: GET.)
    *calls, batch = [entry for entry in emu.recorded()[before:] if entry["method"] != "GET"]
    assert (batch["method"], batch["path"], batch["status"]) == ("POST", "/batch/storage/v1", 200)
    assert [(call["method"], call["status"]) for call in calls] == [("DELETE", 204)] * 40
    assert [call["path"].rsplit("/", 1)[1] for call in calls] == [name.replace("/", "%2F") for name in names]
    assert list(gcs.list_blobs(BUCKET)) == []


def test_calls_run_in_order_and_failures_are_answered_per_call(emu, gcs):
    bucket = gcs.bucket(BUCKET)
    emu.upload_ok("kept.txt", b"k", bucket=BUCKET)
    first_patch, second_patch = bucket.blob("kept.txt"), bucket.blob("kept.txt")
    with gcs.batch(raise_exception=False) as batch:
        first_patch.metadata = {"step": "1"}
        first_patch.patch()
        bucket.blob("missing.txt").delete()
        second_patch.metadata = {"step": "2"}
        second_patch.patch()
    statuses = [response.status_code for response in batch._responses]
    assert statuses == [200, 404, 200]
    first, missing, last = (response.json() for response in batch._responses)
    assert (first["metageneration"], first["metadata"]["step"]) == ("2", "1")
    assert (last["metageneration"], last["metadata"]["step"]) == ("3", "2")
    assert missing["error"]["code"] == 404 and "missing.txt" in missing["error"]["message"]
    assert bucket.get_blob("kept.txt").metadata["step"] == "2"


def test_a_failing_call_raises_after_the_whole_batch_ran(emu, gcs):
    bucket = gcs.bucket(BUCKET)
    emu.upload_ok("a.txt", bucket=BUCKET)
    emu.upload_ok("b.txt", bucket=BUCKET)
    with pytest.raises(exceptions.NotFound):
        with gcs.batch():
            bucket.blob("a.txt").delete()
            bucket.blob("nothing-here.txt").delete()
            bucket.blob("b.txt").delete()
    assert list(gcs.list_blobs(BUCKET)) == []


def test_more_than_100_calls_are_refused_whole(emu, gcs):
    bucket = gcs.bucket(BUCKET)
    emu.upload_ok("stays.txt", bucket=BUCKET)
    with pytest.raises(exceptions.BadRequest, match="more than 100"):
        with gcs.batch():
            for _ in range(101):
                bucket.blob("stays.txt").delete()
    assert [blob.name for blob in gcs.list_blobs(BUCKET)] == ["stays.txt"]


def post_batch(emu, parts: list[bytes], content_type: str = "multipart/mixed; boundary=xyz"):
    body = b"".join(b"--xyz\r\nContent-Type: application/http\r\nContent-ID: <call+%d>\r\n\r\n" % index + part
                    + b"\r\n" for index, part in enumerate(parts, 1)) + b"--xyz--\r\n"
    return emu.http.post(emu.url("/batch/storage/v1"), data=body, headers={"Content-Type": content_type})


def sub_responses(response) -> list:
    message = BytesParser().parsebytes(b"Content-Type: " + response.headers["Content-Type"].encode()
                                       + b"\r\n\r\n" + response.content)
    return message.get_payload()


def test_raw_batch_parts_keep_their_content_ids_and_unsupported_calls_answer_501(emu):
    emu.upload_ok("raw.txt", b"raw bytes", bucket=BUCKET)
    response = post_batch(emu, [
        f"GET /storage/v1/b/{BUCKET}/o/raw.txt HTTP/1.1\r\nAccept: application/json\r\n\r\n".encode(),
        f"GET /download/storage/v1/b/{BUCKET}/o/raw.txt?alt=media HTTP/1.1\r\n\r\n".encode()])
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("multipart/mixed; boundary=")
    found, refused = sub_responses(response)
    assert found["Content-ID"] == "<response-call+1>" and refused["Content-ID"] == "<response-call+2>"
    status_line, rest = found.get_payload().split("\r\n", 1)
    assert status_line == "HTTP/1.1 200 OK" and '"name": "raw.txt"' in rest.replace('":"', '": "')
    assert refused.get_payload().startswith("HTTP/1.1 501 ")
    assert "notImplemented" in refused.get_payload()


@pytest.mark.parametrize("content_type, parts, status", [
    ("application/json", [b"GET /storage/v1/b/x HTTP/1.1\r\n\r\n"], 400),
    ("multipart/mixed; boundary=xyz", [], 400),
    ("multipart/mixed; boundary=xyz", [b"not a request line at all\r\n\r\n"], 400),
    ("multipart/mixed; boundary=xyz", [b"GET /storage/v1/b/x HTTP/1.1\r\nno colon here\r\n\r\n"], 400),
])
def test_a_malformed_batch_is_a_json_error_at_once(emu, content_type, parts, status):
    before = len(emu.recorded())
    assert_json_error(post_batch(emu, parts, content_type), status)
    assert len(emu.recorded()) == before + 1  # nothing of it ran
