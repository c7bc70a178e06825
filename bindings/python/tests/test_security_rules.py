"""storage.rules end to end through the binding, both emulator flavors: uploads allowed or denied by
size, content type and custom claims, overwrites evaluated as `create`, list refused under v1."""

from __future__ import annotations


import pytest

import fbstorage
from fbstorage import StorageError, StorageErrorCode, StorageMetadata

RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /photos/{uid}/{name} {
      allow read: if request.auth != null;
      allow create: if request.auth.uid == uid
                    && request.resource.size < 64 * 1024
                    && request.resource.contentType.matches('image/.*');
    }
    match /reports/{path=**} {
      allow read, list;
      allow create: if request.auth.token.role == 'editor' && resource == null;
      allow update: if request.auth.token.role == 'editor';
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


def denied(action) -> StorageError:
    with pytest.raises(StorageError) as raised:
        action()
    assert (raised.value.code, raised.value.http_status) == (StorageErrorCode.UNAUTHORIZED, 403)
    return raised.value


def test_uploads_by_size_content_type_and_owner(storage: fbstorage.Storage, emulator) -> None:
    emulator.set_rules(RULES)
    photo = storage.reference("photos/alice/cat.png")
    png = StorageMetadata(content_type="image/png")
    denied(lambda: photo.put_data(b"p", png).wait())  # no user
    storage.set_auth_token(emulator.id_token("alice"))
    photo.put_data(b"p" * 1000, png).wait()
    assert photo.get_data() == b"p" * 1000
    denied(lambda: photo.put_data(b"p" * (64 * 1024), png).wait())  # too large: a resumable upload
    denied(lambda: photo.put_data(b"text", StorageMetadata(content_type="text/plain")).wait())
    denied(lambda: storage.reference("photos/bob/cat.png").put_data(b"p", png).wait())
    assert photo.get_data() == b"p" * 1000


def test_custom_claims_and_overwrite_as_create(storage: fbstorage.Storage, emulator) -> None:
    emulator.set_rules(RULES)
    report = storage.reference("reports/q1.txt")
    storage.set_auth_token(emulator.id_token("carol", role="viewer"))
    denied(lambda: report.put_data(b"draft").wait())
    storage.set_auth_token(emulator.id_token("carol", role="editor"))
    report.put_data(b"draft").wait()
    denied(lambda: report.put_data(b"final").wait())  # an overwrite is a create, and resource != null
    assert report.update_metadata(custom_metadata={"state": "final"}).custom_metadata == {"state": "final"}
    storage.set_auth_token(None)
    assert report.get_data() == b"draft"
    assert [item.name for item in storage.reference("reports").list_all().items] == ["q1.txt"]


def test_list_refused_under_rules_version_1(storage: fbstorage.Storage, emulator) -> None:
    emulator.set_rules(V1_RULES)
    storage.reference("a/b").put_data(b"x").wait()
    assert storage.reference("a/b").get_data() == b"x"
    with pytest.raises(StorageError) as raised:
        storage.reference("a").list_all()
    if emulator.flavor == "production":
        assert raised.value.http_status == 400
        assert "Listing objects in a bucket is disallowed" in str(raised.value)
    else:
        assert (raised.value.code, raised.value.http_status) == (StorageErrorCode.UNAUTHORIZED, 403)
