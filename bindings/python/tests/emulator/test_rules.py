"""--rules: public, signed_in, owner and denied; 401 versus 403; admin bypass; resumable start."""

import base64
import json

import pytest

from conftest import ADMIN, assert_json_error

RULES = [
    {"match": "users/{uid}/**", "read": "owner", "write": "owner", "list": "owner", "delete": "owner"},
    {"match": "public/**", "read": "public", "list": "public", "write": "signed_in"},
    {"match": "locked/**", "read": "denied", "write": "denied"},
]


def jwt(claims: dict) -> str:
    """An unsigned token like the Firebase SDKs' mockUserToken."""
    def part(value):
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")
    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."


def as_user(uid: str, claim: str = "user_id", scheme: str = "Firebase") -> dict:
    return {"Authorization": f"{scheme} {jwt({claim: uid})}"}


@pytest.fixture
def ruled(start_emulator, tmp_path):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(RULES))
    return start_emulator("--rules", str(path))


def test_owner_rules(ruled):
    alice, bob = as_user("alice"), as_user("bob", claim="sub", scheme="Bearer")
    assert ruled.upload("users/alice/a.txt", b"a", headers=alice).status_code == 200
    assert_json_error(ruled.upload("users/alice/b.txt", b"b", headers=bob), 403)
    error = assert_json_error(ruled.upload("users/alice/c.txt", b"c"), 401)
    assert "token" in error["message"]
    assert_json_error(ruled.upload("users/alice/c.txt", b"c", headers={"Authorization": "Firebase garbage"}), 401)
    assert ruled.download("users/alice/a.txt", headers=alice).content == b"a"
    message = assert_json_error(ruled.download("users/alice/a.txt", headers=bob), 403)["message"]
    assert message.startswith("Permission denied.")
    assert ruled.http.get(ruled.bucket_url(), params={"prefix": "users/alice/"}, headers=alice).status_code == 200
    assert_json_error(ruled.http.get(ruled.bucket_url(), params={"prefix": "users/alice/"}, headers=bob), 403)
    assert_json_error(ruled.http.patch(ruled.object_url("users/alice/a.txt"), json={}, headers=bob), 403)
    assert_json_error(ruled.http.delete(ruled.object_url("users/alice/a.txt"), headers=bob), 403)
    assert ruled.http.delete(ruled.object_url("users/alice/a.txt"), headers=alice).status_code == 204


def test_public_signed_in_denied_and_no_match(ruled):
    assert_json_error(ruled.upload("public/p", b"p"), 401)
    assert ruled.upload("public/p", b"p", headers=as_user("x")).status_code == 200
    assert ruled.download("public/p").content == b"p"
    assert ruled.download("public/p", headers={"Authorization": "Firebase garbage"}).content == b"p"
    assert_json_error(ruled.upload("locked/l", b"l", headers=as_user("x")), 403)
    assert_json_error(ruled.upload("elsewhere", b"e", headers=as_user("x")), 403)
    assert_json_error(ruled.http.delete(ruled.object_url("public/p"), headers=as_user("x")), 403)  # not granted
    assert_json_error(ruled.download("nothing/here"), 403)  # rules before existence


def test_admin_bypasses_rules(ruled):
    assert ruled.upload("locked/l", b"l", headers=ADMIN).status_code == 200
    assert ruled.download("locked/l", headers={"Authorization": "Firebase owner"}).content == b"l"


def test_resumable_checks_rules_at_start_only(ruled):
    assert_json_error(ruled.start_resumable("users/alice/r"), 401)
    assert_json_error(ruled.start_resumable("users/alice/r", headers=as_user("bob")), 403)
    start = ruled.start_resumable("users/alice/r", headers=as_user("alice"))
    assert start.status_code == 200
    final = ruled.chunk(start.headers["X-Goog-Upload-URL"], "upload, finalize", b"r", offset=0)  # no credentials
    assert final.status_code == 200


def test_rules_replaced_at_runtime_and_restored_by_reset(ruled):
    assert ruled.http.put(ruled.url("/_emulator/rules"), data="null").status_code == 204
    assert ruled.upload("elsewhere", b"e").status_code == 200
    assert_json_error(ruled.http.put(ruled.url("/_emulator/rules"), json=[{"match": "x", "read": "sometimes"}]), 400)
    ruled.reset()
    assert_json_error(ruled.upload("elsewhere", b"e", headers=as_user("x")), 403)


def test_bad_rules_file_fails_startup(start_emulator, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"not": "a list"}')
    with pytest.raises(RuntimeError, match="list of rules"):
        start_emulator("--rules", str(path))
