"""GET metadata, downloads with Range, PATCH semantics, DELETE and download tokens."""

import pytest

from conftest import ADMIN, assert_error, assert_json_error, crc32c_field


def test_download_headers(emu):
    meta = emu.upload_ok("dir/pic.png", b"0123456789", content_type="image/png")
    response = emu.download("dir/pic.png")
    assert response.status_code == 200 and response.content == b"0123456789"
    headers = response.headers
    assert headers["Content-Type"] == "image/png"
    assert headers["Accept-Ranges"] == "bytes"
    expected_filename = "filename*=utf-8''pic.png" if emu.production else "filename*=pic.png"
    assert headers["Content-Disposition"] == f"inline; {expected_filename}"
    assert headers["x-goog-generation"] == meta["generation"]
    assert headers["x-goog-metageneration"] == "1"
    assert headers["x-goog-storage-class"] == "STANDARD"
    crc = crc32c_field(b'0123456789', True)
    if emu.production:  # production's: the quoted MD5, the stored object's own headers
        assert headers["ETag"] == '"781e5e245d69b566979b86e28d23f2c7"'
        assert headers["x-goog-hash"] == f"crc32c={crc}, md5={meta['md5Hash']}"
        assert headers["x-goog-stored-content-length"] == "10" and headers["Last-Modified"].endswith(" GMT")
        assert headers["x-goog-meta-firebasestoragedownloadtokens"] == meta["downloadTokens"]
    else:
        assert headers["ETag"] == meta["etag"]
        assert headers["x-goog-hash"] == f"crc32c={crc},md5={meta['md5Hash']}"


@pytest.mark.parametrize("header, status, body, content_range", [
    ("bytes=2-4", 206, b"234", "bytes 2-4/10"),
    ("bytes=7-", 206, b"789", "bytes 7-9/10"),
    ("bytes=-2", 206, b"89", "bytes 8-9/10"),
    ("bytes=5-100", 206, b"56789", "bytes 5-9/10"),
    ("bytes=0-0,4-5", 206, b"0", "bytes 0-0/10"),
    ("bytes=x-y", 200, b"0123456789", None),
])
def test_range(emu, header, status, body, content_range):
    emu.upload_ok("r", b"0123456789")
    response = emu.download("r", headers={"Range": header})
    assert response.status_code == status and response.content == body
    assert response.headers.get("Content-Range") == content_range


def test_unsatisfiable_range(emu):
    emu.upload_ok("r", b"0123456789")
    response = emu.download("r", headers={"Range": "bytes=10-"})
    if emu.production:  # production's XML error, with the object's headers
        assert response.status_code == 416 and response.headers["Content-Type"] == "application/xml; charset=UTF-8"
        assert "<Code>InvalidRange</Code>" in response.text and "<Details>bytes=10-</Details>" in response.text
        assert response.headers["x-goog-stored-content-length"] == "10"
    else:
        assert response.status_code == 200 and response.content == b"0123456789"


def test_large_download_with_range(emu):
    data = bytes(range(256)) * 8192  # 2 MiB: stored in a blob file, sent in pieces
    emu.upload_ok("large", data)
    assert emu.download("large").content == data
    middle = emu.download("large", headers={"Range": "bytes=1000000-1500000"})
    assert middle.status_code == 206 and middle.content == data[1000000:1500001]


def test_missing_object(emu):
    assert_error(emu, emu.get_metadata("nope"), 404, "Not Found")
    assert_error(emu, emu.download("nope"), 404, "Not Found")
    assert_error(emu, emu.http.delete(emu.object_url("nope")), 404, "Not Found")
    if emu.production:  # production refuses to update what is not there, even to its owner
        assert_json_error(emu.http.patch(emu.object_url("nope"), json={}), 403)
    else:
        assert_error(emu, emu.http.patch(emu.object_url("nope"), json={}), 404, "Not Found")


def test_patch_semantics(emu):
    emu.upload_ok("p", b"x", content_type="text/plain", headers={})
    first = emu.http.patch(emu.object_url("p"), json={"cacheControl": "max-age=60", "metadata": {"a": "1", "b": "2"}})
    assert first.status_code == 200
    meta = first.json()
    assert meta["cacheControl"] == "max-age=60" and meta["metadata"] == {"a": "1", "b": "2"}
    assert meta["contentType"] == "text/plain" and meta["metageneration"] == "2"
    assert meta["updated"] >= meta["timeCreated"]
    assert first.headers["Cache-Control"] == "max-age=60"
    second = emu.http.patch(emu.object_url("p"), json={"contentType": None, "metadata": {"a": None, "c": 3}}).json()
    assert "contentType" not in second and second["cacheControl"] == "max-age=60"
    assert second["metadata"] == {"b": "2", "c": "3"} and second["metageneration"] == "3"
    third = emu.http.patch(emu.object_url("p"), json={"metadata": None, "cacheControl": None,
                                                      "name": "ignored", "size": "99"}).json()
    assert "metadata" not in third and "cacheControl" not in third
    assert third["name"] == "p" and third["size"] == "1" and third["metageneration"] == "4"
    assert emu.http.patch(emu.object_url("p"), json={}).json()["metageneration"] == "5"
    assert emu.get_metadata("p").json()["metageneration"] == "5"


def test_patch_via_method_override(emu):
    emu.upload_ok("o", b"x")
    response = emu.http.put(emu.object_url("o"), json={"contentLanguage": "de"},
                            headers={"X-HTTP-Method-Override": "PATCH"})
    assert response.status_code == 200 and response.json()["contentLanguage"] == "de"


def test_patch_bad_bodies(emu):
    emu.upload_ok("o", b"x")
    for body in (b"{oops", b"[1,2]", b'{"contentType": 5}', b'{"metadata": "x"}'):
        response = emu.http.patch(emu.object_url("o"), data=body, headers={"Content-Type": "application/json"})
        assert_error(emu, response, 400, "Bad Request")
    assert emu.get_metadata("o").json()["metageneration"] == "1"


def test_delete(emu):
    emu.upload_ok("d", b"x")
    response = emu.http.delete(emu.object_url("d"))
    assert response.status_code == 204 and response.content == b""
    assert_error(emu, emu.get_metadata("d"), 404, "Not Found")


def test_download_token_bypasses_rules_and_token_admin_endpoints(emu):
    token = emu.upload_ok("t", b"x")["downloadTokens"]
    url = emu.object_url("t")
    assert_json_error(emu.http.post(url, params={"create_token": "true"}), 403)
    assert_json_error(emu.http.post(url, params={"create_token": "true"}, headers={"Authorization": "Bearer other"}), 401)
    assert_error(emu, emu.http.post(url, params={"create_token": "yes"}, headers=ADMIN), 400, "Bad Request")
    created = emu.http.post(url, params={"create_token": "true"}, headers=ADMIN).json()
    tokens = created["downloadTokens"].split(",")
    # Production lists the new token first (production-replay/firebase--download-tokens.json).
    new = tokens[0] if emu.production else tokens[1]
    assert token in tokens and new != token and len(tokens) == 2 and created["metageneration"] == "2"
    deleted = emu.http.post(url, params={"delete_token": token}, headers={"Authorization": "Firebase owner"}).json()
    assert deleted["downloadTokens"] == new and deleted["metageneration"] == "3"
    regenerated = emu.http.put(url, params={"delete_token": new}, headers=ADMIN).json()
    assert regenerated["downloadTokens"] not in ("", new) and regenerated["metageneration"] == "5"
    assert_error(emu, emu.http.post(emu.object_url("none"), params={"create_token": "true"}, headers=ADMIN),
                 404, "Not Found")


def test_token_query_on_get(start_emulator, tmp_path):
    rules = tmp_path / "storage.rules"
    rules.write_text("rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o/{all=**} {\n"
                     "    allow write;\n  }\n}\n")
    emu = start_emulator("--rules", str(rules))
    token = emu.upload_ok("secret", b"s")["downloadTokens"]
    assert_json_error(emu.download("secret"), 403)
    assert_json_error(emu.download("secret", params={"token": "wrong"}), 403)
    assert emu.download("secret", params={"token": token}).content == b"s"
    assert emu.get_metadata("secret", params={"token": token}).status_code == 200


def test_cors_reflects_origin(emu):
    emu.upload_ok("c", b"x")
    response = emu.get_metadata("c", headers={"Origin": "http://app.test"})
    assert response.headers["Access-Control-Allow-Origin"] == "http://app.test"
    assert "X-Goog-Upload-URL" in response.headers["Access-Control-Expose-Headers"]
    preflight = emu.http.options(emu.bucket_url(), headers={
        "Origin": "http://app.test", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "x-goog-upload-protocol"})
    assert preflight.status_code == 204
    assert preflight.headers["Access-Control-Allow-Headers"] == "x-goog-upload-protocol"


def test_download_caching_by_caller(emu):
    """Production: the owner's download is never stored, a Firebase user's (an ID token, or none) is
    private (errors--authorization.json #93 beside firebase--download.json #6); the firebase-tools
    flavor sends the object's Cache-Control only."""
    emu.upload_ok("cached", b"x", headers={})
    owner = emu.download("cached", headers=ADMIN).headers
    user = emu.download("cached").headers
    if emu.production:
        assert owner["Cache-Control"] == "no-cache, no-store, max-age=0, must-revalidate"
        assert user["Cache-Control"] == "private, max-age=0" and "Pragma" not in user
    else:
        assert "Cache-Control" not in owner and "Cache-Control" not in user
    assert emu.http.patch(emu.object_url("cached"), json={"cacheControl": "max-age=60"}).status_code == 200
    assert emu.download("cached").headers["Cache-Control"] == "max-age=60"  # the object's own (not recorded)
    if emu.production:
        assert emu.download("cached", headers=ADMIN).headers["Cache-Control"].startswith("no-cache, no-store")
