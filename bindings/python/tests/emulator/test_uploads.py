"""Media, multipart and resumable uploads: stored bytes, hashes and the metadata resource."""

import os
import re

from conftest import crc32c_field, md5_b64

RFC3339_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def multipart_body(metadata: str, data: bytes, boundary: str = "B0undary", data_type: str = "text/plain") -> bytes:
    """Exactly what the JS SDK sends (no trailing CRLF after the close delimiter)."""
    return (f"--{boundary}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{metadata}\r\n"
            f"--{boundary}\r\nContent-Type: {data_type}\r\n\r\n").encode() + data + f"\r\n--{boundary}--".encode()


def multipart_upload(emu, name, body, boundary="B0undary"):
    return emu.http.post(emu.bucket_url(), params={"name": name}, data=body, headers={
        "X-Goog-Upload-Protocol": "multipart", "Content-Type": f"multipart/related; boundary={boundary}"})


def test_media_upload_metadata_resource(emu):
    meta = emu.upload_ok("dir/someFile", b"hello world", content_type="text/plain")
    assert meta["name"] == "dir/someFile" and meta["bucket"] == "b"
    assert meta["size"] == "11"
    assert meta["md5Hash"] == "XrY7u+Ae7tCTyyK7j1rNww=="
    assert meta["crc32c"] == ("yZRlqg==" if emu.production else "3381945770")
    assert meta["contentType"] == "text/plain"
    assert meta["contentEncoding"] == "identity"
    assert meta["contentDisposition"] == ("inline; filename*=utf-8''someFile" if emu.production else "inline")
    assert meta["storageClass"] == "STANDARD"
    assert meta["metageneration"] == "1"
    assert meta["generation"].isdigit()
    assert RFC3339_MS.match(meta["timeCreated"]) and meta["updated"] == meta["timeCreated"]
    assert UUID.match(meta["downloadTokens"])
    assert isinstance(meta["etag"], str) and meta["etag"]
    assert all(isinstance(value, str) for value in meta.values())
    assert emu.get_metadata("dir/someFile").json() == meta


def test_default_content_type_and_empty_object(emu):
    meta = emu.upload_ok("empty", b"")
    assert meta["contentType"] == "application/octet-stream"
    assert meta["size"] == "0"
    assert meta["md5Hash"] == "1B2M2Y8AsgTpgAmY7PhCfg=="
    assert meta["crc32c"] == ("AAAAAA==" if emu.production else "0")
    assert emu.download("empty").content == b""


def test_put_media_upload_and_upload_to_path_name(emu):
    data = os.urandom(3 * 1024 * 1024 + 7)  # spans several body pieces and spills to a blob file
    response = emu.http.put(emu.bucket_url(), params={"name": "big"}, data=data)
    assert response.status_code == 200
    assert response.json()["md5Hash"] == md5_b64(data)
    assert emu.download("big").content == data
    response = emu.http.post(emu.object_url("a/b c"), data=b"x")
    assert response.status_code == 200 and response.json()["name"] == "a/b c"


def test_chunked_request_body(emu):
    def pieces():
        yield b"abc"
        yield b"def" * 1000

    response = emu.http.post(emu.bucket_url(), params={"name": "chunked"}, data=pieces())
    assert response.status_code == 200
    assert emu.download("chunked").content == b"abc" + b"def" * 1000


def test_names_are_stored_exactly(emu):
    names = ["a/../b", "a//b", "a/./b", "a/b", "%41", "a+b", "ü/日本"]
    if not emu.production:  # production refuses the names GCS reserves (test_token_claims.py)
        names.append("..")
    for name in names:
        emu.upload_ok(name, name.encode())
    for name in names:
        assert emu.download(name).content == name.encode()
        assert emu.get_metadata(name).json()["name"] == name


def test_multipart_upload(emu):
    data = b"\r\n--B0undar\r\n" + os.urandom(70000) + b"\r\n"  # boundary-like bytes inside the data
    body = multipart_body('{"name":"m","contentType":"application/jason","metadata":{"foo":"bar"}}', data)
    response = multipart_upload(emu, "m", body)
    assert response.status_code == 200, response.text
    meta = response.json()
    assert meta["contentType"] == "application/jason"
    assert meta["metadata"] == {"foo": "bar"}
    assert meta["size"] == str(len(data)) and meta["md5Hash"] == md5_b64(data)
    assert meta["crc32c"] == crc32c_field(data, emu.production)
    assert emu.download("m").content == data


def test_large_multipart_upload_streams(emu):
    boundary = "b" * 60
    # Near-delimiters across pieces. The byte after each is never "b": that would complete the
    # real delimiter, which a sender must keep out of the data (RFC 2046), failing 1 run in 256.
    data = (b"\r\n--" + boundary[:-1].encode() + b"x" + os.urandom(999)) * 3000
    response = multipart_upload(emu, "large-mp", multipart_body("{}", data, boundary=boundary), boundary=boundary)
    assert response.status_code == 200, response.text
    assert response.json()["md5Hash"] == md5_b64(data)
    assert emu.download("large-mp").content == data


def test_multipart_content_type_from_data_part_and_quoted_boundary(emu):
    body = multipart_body("{}", b"a", boundary="q:x", data_type="image/png")
    response = multipart_upload(emu, "p", body, boundary='"q:x"')
    assert response.status_code == 200, response.text
    assert response.json()["contentType"] == "image/png"


def test_multipart_with_bare_lf_line_breaks_on_both_apis(emu):
    """The body gcsfs builds: LF line breaks, no preamble, no line break after the close delimiter."""
    data = b"a\r\nb\n" + os.urandom(1000)

    def body(name: str) -> bytes:
        return (f'--==0==\nContent-Type: application/json; charset=UTF-8\n\n{{"name": "{name}"}}\n'
                f"--==0==\nContent-Type: application/x-lf\n\n").encode() + data + b"\n--==0==--"
    v0 = multipart_upload(emu, "lf-v0", body("lf-v0"), boundary='"==0=="')
    gcs = emu.http.post(emu.url("/upload/storage/v1/b/b/o"), params={"uploadType": "multipart"},
                        data=body("lf-gcs"), headers={"Content-Type": 'multipart/related; boundary="==0=="'})
    for response, name in ((v0, "lf-v0"), (gcs, "lf-gcs")):
        assert response.status_code == 200, response.text
        assert response.json()["contentType"] == "application/x-lf"
        assert emu.download(name).content == data
    mixed = body("mixed").replace(b"\n", b"\r\n", 3)  # CRLF first, then bare LF: never closed
    assert multipart_upload(emu, "mixed", mixed, boundary='"==0=="').status_code == 400
    assert emu.get_metadata("mixed").status_code == 404


def test_upload_metadata_fields_and_tokens(emu):
    body = multipart_body('{"cacheControl":"no-cache","contentLanguage":"fr","contentDisposition":"attachment",'
                          '"contentEncoding":"gzip","metadata":{"n":1,"firebaseStorageDownloadTokens":"t1,t2"}}', b"z")
    meta = multipart_upload(emu, "f", body).json()
    assert meta["cacheControl"] == "no-cache" and meta["contentLanguage"] == "fr"
    assert meta["contentDisposition"] == "attachment" and meta["contentEncoding"] == "gzip"
    assert meta["metadata"] == {"n": "1"}
    assert meta["downloadTokens"] == "t1,t2"


def test_resumable_upload(emu):
    granularity = 262144 if emu.production else 10000
    data = os.urandom(2 * granularity + 123)
    start = emu.start_resumable("r/file", {"name": "r/file", "contentType": "text/x", "metadata": {"k": "v"}},
                                size=len(data))
    assert start.status_code == 200
    assert start.headers["X-Goog-Upload-Status"] == "active"
    assert start.headers["X-Goog-Upload-Chunk-Granularity"] == str(granularity)
    url = start.headers["X-Goog-Upload-URL"]
    assert url.startswith(f"{emu.base}/v0/b/b/o?name=r%2Ffile&upload_id=") and url.endswith("&upload_protocol=resumable")
    first = emu.chunk(url, "upload", data[:granularity], offset=0)
    assert first.status_code == 200 and first.headers["X-Goog-Upload-Status"] == "active"
    if emu.production:
        assert first.headers["X-Goog-Upload-Size-Received"] == str(granularity)
    else:
        assert "X-Goog-Upload-Size-Received" not in first.headers and first.text == "OK"
    second = emu.chunk(url, "upload", data[granularity:2 * granularity], offset=granularity, method="PUT")
    assert second.status_code == 200
    query = emu.chunk(url, "query")
    assert query.headers["X-Goog-Upload-Size-Received"] == str(2 * granularity)
    assert query.headers["X-Goog-Upload-Status"] == "active"
    final = emu.chunk(url, "upload, finalize", data[2 * granularity:], offset=2 * granularity)
    assert final.status_code == 200, final.text
    assert final.headers["X-Goog-Upload-Status"] == "final"
    meta = final.json()
    assert meta["size"] == str(len(data)) and meta["md5Hash"] == md5_b64(data)
    assert meta["crc32c"] == crc32c_field(data, emu.production)
    assert meta["contentType"] == "text/x" and meta["metadata"] == {"k": "v"}
    assert emu.download("r/file").content == data
    assert emu.chunk(url, "query").headers["X-Goog-Upload-Status"] == "final"


def test_resumable_separate_finalize_and_zero_bytes(emu):
    url = emu.session_url("zero")
    final = emu.chunk(url, "finalize", offset=0)
    assert final.status_code == 200 and final.json()["size"] == "0"
    again = emu.chunk(url, "finalize", offset=0)
    assert again.status_code == 200 and again.headers["X-Goog-Upload-Status"] == "final"


def test_resumable_content_type_from_declared_header(emu):
    start = emu.start_resumable("ct", {}, headers={"X-Goog-Upload-Header-Content-Type": "image/gif"})
    meta = emu.chunk(start.headers["X-Goog-Upload-URL"], "upload, finalize", b"GIF").json()
    assert meta["contentType"] == "image/gif"


def test_overwrite_replaces_object_and_generation(emu):
    first = emu.upload_ok("same", b"one")
    second = emu.upload_ok("same", b"two!")
    assert int(second["generation"]) > int(first["generation"])
    assert emu.download("same").content == b"two!"
