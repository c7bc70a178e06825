"""storage.rules over HTTP, both flavors: the method each request is evaluated as, the variables it
sees, the answers per flavor, and loading (--rules, --config, hot reload, PUT /_emulator/rules)."""

import json

import pytest

from conftest import ADMIN, assert_error, assert_json_error, crc32c_field, wait_until

RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    function signedIn() {
      return request.auth != null;
    }
    match /images/{name} {
      allow read;
      allow create: if request.resource.size < 1024 && request.resource.contentType.matches('image/.*');
    }
    match /users/{uid}/{rest=**} {
      allow read, write: if signedIn() && request.auth.uid == uid;
    }
    match /admin/{name} {
      allow create: if request.auth.token.admin == true;
    }
    match /once/{name} {
      allow get;
      allow create: if resource == null;
    }
    match /docs/{name} {
      allow get, create;
      allow update: if request.resource.metadata.keys().hasOnly(['color'])
                    && request.resource.metadata.color in ['red', 'blue']
                    && resource.metageneration + 1 == request.resource.metageneration;
      allow delete: if resource.contentType != 'text/plain';
    }
    match /listable/{rest=**} {
      allow list;
    }
    match /paths/{name} {
      allow get: if request.path == /b/$(bucket)/o/paths/$(name) && request.path[2] == 'o';
    }
    match /fields/{name} {
      allow create;
      allow get: if resource.cacheControl == null;
    }
    match /crc/{name} {
      allow create;
      allow get: if resource.crc32c == resource.metadata.expected && resource.name == 'crc/' + name;
    }
    match /firestore/{name} {
      allow get: if firestore.exists(/databases/(default)/documents/users/$(name));
    }
  }
}
"""

V1_RULES = """service firebase.storage {
  match /b/{bucket}/o {
    match /{all=**} {
      allow read, write;
    }
  }
}
"""


def as_user(emu, uid: str, scheme: str = "Firebase", **claims) -> dict:
    return {"Authorization": f"{scheme} {emu.id_token(uid, **claims)}"}


def put_rules(emu, source: str) -> None:
    response = emu.http.put(emu.url("/_emulator/rules"), data=source.encode())
    assert response.status_code == 204, response.text


@pytest.fixture
def ruled(emu):
    put_rules(emu, RULES)
    return emu


def assert_denied(emu, response, permission: str) -> None:
    """403: the official emulator names the permission; production says less."""
    error = assert_json_error(response, 403)
    expected = f"Permission denied. No {permission} permission." if not emu.production else "Permission denied."
    assert error["message"] == expected


def test_upload_is_create_decided_by_size_and_content_type(ruled):
    assert ruled.upload("images/a.png", b"x" * 100, "image/png").status_code == 200
    too_big = ruled.upload("images/b.png", b"x" * 2000, "image/png")
    assert_denied(ruled, too_big, "WRITE")
    assert too_big.headers["X-Goog-Upload-Status"] == "final"
    assert_denied(ruled, ruled.upload("images/c.txt", b"x", "text/plain"), "WRITE")
    assert_denied(ruled, ruled.upload("images/d", b"x"), "WRITE")  # no type: application/octet-stream
    assert ruled.download("images/a.png").content == b"x" * 100
    assert_error(ruled, ruled.download("images/b.png", headers=ADMIN), 404, "Not Found")  # nothing kept


def test_auth_uid_comes_from_user_id_of_the_token(ruled):
    assert ruled.upload("users/alice/a", b"a", headers=as_user(ruled, "alice")).status_code == 200
    assert ruled.upload("users/alice/deep/er/b", b"b", headers=as_user(ruled, "alice", scheme="Bearer")).status_code == 200
    assert_denied(ruled, ruled.upload("users/alice/c", b"c", headers=as_user(ruled, "bob")), "WRITE")
    assert_denied(ruled, ruled.upload("users/alice/c", b"c"), "WRITE")  # request.auth == null
    only_sub = as_user(ruled, "alice", user_id=None)  # uid is user_id, not sub
    assert_denied(ruled, ruled.download("users/alice/a", headers=only_sub), "READ")
    assert ruled.download("users/alice/a", headers=as_user(ruled, "alice")).content == b"a"
    assert_denied(ruled, ruled.download("users/alice/a", headers=as_user(ruled, "bob")), "READ")


def test_undecodable_token_is_no_user(ruled):
    """Production too (errors--authorization.json, a malformed token's read and write: 403)."""
    garbage = {"Authorization": "Firebase not-a-jwt"}
    assert_denied(ruled, ruled.upload("users/alice/a", b"a", headers=garbage), "WRITE")
    assert ruled.download("images/none.png", headers=garbage).status_code == 404


def test_custom_claims(ruled):
    assert ruled.upload("admin/a", b"a", headers=as_user(ruled, "x", admin=True)).status_code == 200
    assert_denied(ruled, ruled.upload("admin/b", b"b", headers=as_user(ruled, "x", admin="yes")), "WRITE")
    assert_denied(ruled, ruled.upload("admin/c", b"c", headers=as_user(ruled, "x")), "WRITE")  # missing claim: error


def test_overwrite_is_a_create_that_sees_the_existing_resource(ruled):
    assert ruled.upload("once/a", b"first").status_code == 200
    assert_denied(ruled, ruled.upload("once/a", b"second"), "WRITE")
    assert ruled.download("once/a").content == b"first"
    assert ruled.upload("docs/a", b"1").status_code == 200  # `allow create` without `update` overwrites
    assert ruled.upload("docs/a", b"2").status_code == 200
    assert ruled.download("docs/a").content == b"2"


def test_metadata_change_is_update_with_the_patched_resource(ruled):
    ruled.upload_ok("docs/m", b"m", content_type="text/plain")
    url = ruled.object_url("docs/m")
    assert ruled.http.patch(url, json={"metadata": {"color": "red"}}).json()["metadata"] == {"color": "red"}
    assert_denied(ruled, ruled.http.patch(url, json={"metadata": {"color": "green"}}), "WRITE")
    assert_denied(ruled, ruled.http.patch(url, json={"metadata": {"size": "L"}}), "WRITE")
    assert ruled.get_metadata("docs/m").json()["metadata"] == {"color": "red"}
    # Missing object: resource and request.resource are null, so the rule errors and denies.
    assert_denied(ruled, ruled.http.patch(ruled.object_url("docs/none"), json={}), "WRITE")


def test_delete_sees_the_stored_resource(ruled):
    ruled.upload_ok("docs/text", b"t", content_type="text/plain")
    ruled.upload_ok("docs/data", b"d", content_type="application/json")
    assert_denied(ruled, ruled.http.delete(ruled.object_url("docs/text")), "WRITE")
    assert ruled.http.delete(ruled.object_url("docs/data")).status_code == 204
    assert_denied(ruled, ruled.http.delete(ruled.object_url("docs/gone")), "WRITE")  # resource null: error


def test_rules_run_before_existence(ruled):
    assert_denied(ruled, ruled.get_metadata("secret/none"), "READ")
    assert_error(ruled, ruled.get_metadata("images/none"), 404, "Not Found")


def test_list_is_evaluated_on_the_prefix(ruled):
    ruled.upload_ok("listable/a/x", b"x", headers=ADMIN)
    assert ruled.list(prefix="listable/", delimiter="/").json()["prefixes"] == ["listable/a/"]
    assert ruled.list(prefix="listable/a/").status_code == 200
    assert_denied(ruled, ruled.list(prefix="images/"), "LIST")
    assert_denied(ruled, ruled.list(), "LIST")


def test_list_under_rules_version_1(emu):
    put_rules(emu, V1_RULES)
    emu.upload_ok("a/b", b"x")
    assert emu.download("a/b").content == b"x"
    response = emu.list(prefix="a/")
    if emu.production:
        error = assert_json_error(response, 400)
        assert error["message"] == ('Listing objects in a bucket is disallowed for rules_version = "1". '
                                    'Please update storage security rules to rules_version = "2" to use list.')
    else:
        assert_denied(emu, response, "LIST")
    assert emu.http.get(emu.bucket_url(), params={"prefix": "a/"}, headers=ADMIN).status_code == 200


APPLE_SDK_INTEGRATION_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{directChild=*} {
      allow read: if request.auth != null;
    }
    match /ios {
      match /public/{allPaths=**} {
        allow write: if request.auth != null;
        allow read: if true;
      }
      match /private/{allPaths=**} {
        allow read, write: if false;
      }
    }
  }
}
"""


def test_apple_sdk_integration_rules_with_a_name_equals_star_wildcard(emu):
    """FirebaseStorage/Tests/Integration documents these rules; `{directChild=*}` is one segment."""
    put_rules(emu, APPLE_SDK_INTEGRATION_RULES)
    emu.upload_ok("1mb", b"top", headers=ADMIN)
    emu.upload_ok("deeper/1mb", b"deep", headers=ADMIN)
    assert emu.download("1mb", headers=as_user(emu, "ada")).content == b"top"
    assert_denied(emu, emu.download("1mb"), "READ")  # signed out
    assert_denied(emu, emu.download("deeper/1mb", headers=as_user(emu, "ada")), "READ")  # two segments
    assert emu.upload("ios/public/a", b"a", headers=as_user(emu, "ada")).status_code == 200
    assert emu.download("ios/public/a").content == b"a"
    assert_denied(emu, emu.upload("ios/private/a", b"a", headers=as_user(emu, "ada")), "WRITE")


def test_request_path_is_the_service_path(ruled):
    ruled.upload_ok("paths/p", b"p", headers=ADMIN)
    assert ruled.download("paths/p").content == b"p"


def test_resource_fields_per_flavor(ruled):
    ruled.upload_ok("fields/f", b"f")
    response = ruled.get_metadata("fields/f")
    if ruled.production:  # cacheControl exists (null); the official emulator has no such field
        assert response.status_code == 200
    else:
        assert_denied(ruled, response, "READ")
    data = b"checksum me"
    url = ruled.session_url("crc/c", {"name": "crc/c", "metadata": {"expected": crc32c_field(data, ruled.production)}})
    assert ruled.chunk(url, "upload, finalize", data, offset=0).status_code == 200
    assert ruled.download("crc/c").content == data


def test_firestore_calls_deny_and_are_logged(start_emulator, tmp_path):
    rules = tmp_path / "storage.rules"
    rules.write_text(RULES)
    emulator = start_emulator("--rules", str(rules), flavor="firebase-tools")
    emulator.upload_ok("firestore/x", b"x", headers=ADMIN)
    assert_denied(emulator, emulator.get_metadata("firestore/x"), "READ")
    wait_until(lambda: "firestore.exists()" in emulator.stderr())


def test_resumable_upload_is_decided_at_finalize_with_the_starters_credentials(ruled):
    start = ruled.start_resumable("users/alice/r", headers=as_user(ruled, "bob"))
    assert start.status_code == 200  # start evaluates nothing
    denied = ruled.chunk(start.headers["X-Goog-Upload-URL"], "upload, finalize", b"r", offset=0)
    assert_denied(ruled, denied, "WRITE")
    assert denied.headers["X-Goog-Upload-Status"] == "final"
    assert_error(ruled, ruled.get_metadata("users/alice/r", headers=ADMIN), 404, "Not Found")
    url = ruled.start_resumable("users/alice/r", headers=as_user(ruled, "alice")).headers["X-Goog-Upload-URL"]
    assert ruled.chunk(url, "upload, finalize", b"r", offset=0).status_code == 200  # no credentials needed now


def test_admin_credentials_skip_the_rules(ruled):
    assert ruled.upload("nowhere/x", b"x", headers=ADMIN).status_code == 200
    assert ruled.download("nowhere/x", headers={"Authorization": "Firebase owner"}).content == b"x"
    assert_denied(ruled, ruled.download("nowhere/x"), "READ")


def test_put_rules_errors_keep_the_rules_and_reset_restores_startup(emu):
    put_rules(emu, V1_RULES.replace("allow read, write;", "allow read;"))
    bad = emu.http.put(emu.url("/_emulator/rules"), data=b"service firebase.storage {\n  match /b/{bucket}/o {\n    allow\n")
    error = assert_json_error(bad, 400)
    assert error["message"].startswith("Invalid rules: rules:4:1: expected a method")
    assert_denied(emu, emu.upload("x", b"x"), "WRITE")  # the previous rules are still in force
    put_rules(emu, "")  # no rules: everything allowed
    assert emu.upload("x", b"x").status_code == 200
    put_rules(emu, V1_RULES.replace("allow read, write;", "allow read;"))
    emu.reset()
    assert emu.upload("x", b"x").status_code == 200


@pytest.mark.parametrize("flavor", ["production", "firebase-tools"])
def test_rules_file_loads_and_reloads(start_emulator, tmp_path, flavor):
    rules = tmp_path / "storage.rules"
    rules.write_text(V1_RULES.replace("allow read, write;", "allow read;"))
    emulator = start_emulator("--rules", str(rules), flavor=flavor)
    assert_denied(emulator, emulator.upload("a", b"a"), "WRITE")
    rules.write_text(V1_RULES)
    wait_until(lambda: emulator.upload("a", b"a").status_code == 200)
    rules.write_text("service firebase.storage {\n  match /b/{bucket}/o {\n    allow write: if ;\n  }\n}\n")
    wait_until(lambda: "rules not reloaded" in emulator.stderr())
    assert f"{rules}:3:21: expected an expression, found ';'" in emulator.stderr()
    assert emulator.upload("b", b"b").status_code == 200  # the previous rules stay


def test_bad_rules_file_fails_startup_with_its_position(start_emulator, tmp_path):
    rules = tmp_path / "storage.rules"
    rules.write_text("rules_version = '2';\nservice firebase.storage {{\n}\n")
    with pytest.raises(RuntimeError, match=r"storage.rules:2:27: expected 'match', 'function' or '}', found '\{'"):
        start_emulator("--rules", str(rules))


def test_config_with_one_rules_file(start_emulator, tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "storage.rules").write_text(V1_RULES.replace("allow read, write;", "allow read;"))
    (tmp_path / "firebase.json").write_text(json.dumps({"storage": {"rules": "rules/storage.rules"}}))
    emulator = start_emulator("--config", str(tmp_path / "firebase.json"), flavor="firebase-tools")
    assert_denied(emulator, emulator.upload("a", b"a"), "WRITE")
    assert emulator.upload("a", b"a", headers=ADMIN).status_code == 200
    assert emulator.download("a").content == b"a"


def test_config_with_targets_gives_each_bucket_its_rules(start_emulator, tmp_path):
    (tmp_path / "open.rules").write_text(V1_RULES)
    (tmp_path / "closed.rules").write_text(V1_RULES.replace("allow read, write;", "allow read;"))
    (tmp_path / "firebase.json").write_text(json.dumps({"storage": [
        {"target": "main", "rules": "open.rules"}, {"bucket": "locked", "rules": "closed.rules"}]}))
    (tmp_path / ".firebaserc").write_text(json.dumps({
        "projects": {"default": "demo"}, "targets": {"demo": {"storage": {"main": ["b", "b2"]}}}}))
    emulator = start_emulator("--config", str(tmp_path / "firebase.json"), flavor="firebase-tools")
    assert emulator.upload("a", b"a").status_code == 200
    assert emulator.upload("a", b"a", bucket="b2").status_code == 200
    assert_denied(emulator, emulator.upload("a", b"a", bucket="locked"), "WRITE")
    unknown = assert_json_error(emulator.upload("a", b"a", bucket="other"), 403)
    assert unknown["message"] == "Permission denied. Storage Emulator has no loaded ruleset."


def test_config_errors_are_clear(start_emulator, tmp_path):
    config = tmp_path / "firebase.json"
    config.write_text(json.dumps({"hosting": {}}))
    with pytest.raises(RuntimeError, match='expected "storage"'):
        start_emulator("--config", str(config))
    config.write_text(json.dumps({"storage": [{"target": "t", "rules": "x.rules"}]}))
    (tmp_path / ".firebaserc").write_text(json.dumps({"projects": {"default": "p"}, "targets": {"p": {}}}))
    with pytest.raises(RuntimeError, match="no storage target 't'"):
        start_emulator("--config", str(config))
