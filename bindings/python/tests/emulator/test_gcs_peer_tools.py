"""What rclone and gsutil send reaches the GCS JSON API as GCS takes it: rclone (Debian's, Go's
google-api client) sends a multipart upload's data part with no header at all, and gsutil's
apitools writes the multipart body with Python's email package and quotes the boundary with '
(`boundary=%r`). Both were refused with a 400 while GCS accepts them."""

import email.generator
import email.mime.multipart
import email.mime.nonmultipart
import io
import json
import os
import shutil
import subprocess

import pytest
import requests

BUCKET = "b"


def rclone(emu, *arguments: str) -> subprocess.CompletedProcess:
    assert shutil.which("rclone"), "rclone is missing: make test-emulator installs it (apt)"
    return subprocess.run(["rclone", "--config", "/dev/null", "--gcs-endpoint", emu.url("/storage/v1/"),
                           "--gcs-anonymous", "--gcs-no-check-bucket", "--low-level-retries", "1", "--retries", "1",
                           *arguments], capture_output=True, text=True, timeout=120)


def test_rclone_uploads_lists_and_reads_back(emu, tmp_path):
    (tmp_path / "tree" / "sub").mkdir(parents=True)
    files = {"a.txt": b"alpha\n", "sub/b.bin": os.urandom(300 * 1024)}
    for name, data in files.items():
        (tmp_path / "tree" / name).write_bytes(data)
    copied = rclone(emu, "copy", str(tmp_path / "tree"), f":gcs:{BUCKET}/rclone")
    assert copied.returncode == 0, copied.stderr
    listed = rclone(emu, "lsf", "-R", "--files-only", f":gcs:{BUCKET}/rclone")
    assert sorted(listed.stdout.split()) == sorted(files)
    for name, data in files.items():
        assert emu.http.get(emu.url(f"/download/storage/v1/b/{BUCKET}/o/rclone%2F{name.replace('/', '%2F')}"),
                            params={"alt": "media"}).content == data
    resource = emu.http.get(emu.url(f"/storage/v1/b/{BUCKET}/o/rclone%2Fa.txt")).json()
    assert resource["contentType"] == "text/plain; charset=utf-8"  # from its metadata part: the data part has none
    back = rclone(emu, "cat", f":gcs:{BUCKET}/rclone/a.txt")
    assert back.returncode == 0 and back.stdout == "alpha\n"


class MultipartBytesGenerator(email.generator.BytesGenerator):
    """apitools' own generator (base/py/transfer.py): the payload's bytes written as they are."""

    def _handle_text(self, msg):
        if msg._payload is not None:
            self.write(msg._payload)

    def _encode(self, s):
        return s.encode("ascii", "surrogateescape")

    _writeBody = _handle_text


def test_a_multipart_body_as_apitools_writes_it(emu):
    """gsutil's upload path (apitools transfer.py, __ConfigureMultipartRequest): parts built with
    the email package, flattened with LF line breaks, the header's boundary written with %r."""
    data = os.urandom(70 * 1024) + b"\n--not a boundary\n"
    root = email.mime.multipart.MIMEMultipart("related")
    setattr(root, "_write_headers", lambda self: None)
    metadata = email.mime.nonmultipart.MIMENonMultipart("application", "json")
    metadata.set_payload(json.dumps({"name": "gsutil/object.bin", "contentType": "application/x-gsutil"}))
    root.attach(metadata)
    media = email.mime.nonmultipart.MIMENonMultipart("application", "x-gsutil")
    media["Content-Transfer-Encoding"] = "binary"
    media.set_payload(data)
    root.attach(media)
    body = io.BytesIO()
    MultipartBytesGenerator(body, mangle_from_=False).flatten(root, unixfrom=False)
    content_type = "multipart/related; boundary=%r" % root.get_boundary()
    assert "boundary='" in content_type
    response = requests.post(emu.url(f"/upload/storage/v1/b/{BUCKET}/o"), params={"uploadType": "multipart"},
                             data=body.getvalue(), headers={"Content-Type": content_type})
    assert response.status_code == 200, response.text
    assert response.json()["contentType"] == "application/x-gsutil"
    stored = requests.get(emu.url(f"/download/storage/v1/b/{BUCKET}/o/gsutil%2Fobject.bin"), params={"alt": "media"})
    assert stored.content == data


def test_the_v0_api_still_requires_each_parts_content_type(emu):
    body = (b"--xyz\r\nContent-Type: application/json\r\n\r\n{\"name\": \"v0\"}\r\n"
            b"--xyz\r\n\r\ndata\r\n--xyz--\r\n")
    response = emu.http.post(emu.bucket_url(), params={"name": "v0"}, data=body,
                             headers={"Content-Type": "multipart/related; boundary=xyz",
                                      "X-Goog-Upload-Protocol": "multipart"})
    assert response.status_code == 400 and "Missing content type" in response.text
