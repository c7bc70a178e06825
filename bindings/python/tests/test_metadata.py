"""Metadata: round trip through uploads, update semantics, the StorageMetadata value."""

from __future__ import annotations

import datetime

import pytest

import fbstorage
from fbstorage import StorageError, StorageErrorCode, StorageMetadata

FULL = dict(
    cache_control="max-age=60",
    content_disposition="attachment",
    content_encoding="identity",
    content_language="fr",
    content_type="text/csv",
)


@pytest.fixture
def uploaded(storage: fbstorage.Storage) -> fbstorage.StorageReference:
    ref = storage.reference("meta/data.csv")
    ref.put_data(b"a,b\n1,2\n", StorageMetadata(**FULL, custom_metadata={"a": "1", "b": "2"})).wait()
    return ref


def test_round_trip(uploaded: fbstorage.StorageReference) -> None:
    metadata = uploaded.get_metadata()
    for field, value in FULL.items():
        assert getattr(metadata, field) == value, field
    assert metadata.custom_metadata == {"a": "1", "b": "2"}
    assert metadata.bucket == "test-bucket"
    assert metadata.full_path == "meta/data.csv"
    assert metadata.name == "data.csv"
    assert metadata.size == 8
    assert isinstance(metadata.generation, int) and metadata.generation > 0
    assert metadata.metageneration == 1
    now = datetime.datetime.now(datetime.timezone.utc)
    for moment in (metadata.time_created, metadata.updated):
        assert moment is not None and moment.tzinfo == datetime.timezone.utc
        assert abs((now - moment).total_seconds()) < 300
    assert metadata.md5_hash


def test_update_sets_only_the_fields_given(uploaded: fbstorage.StorageReference) -> None:
    before = uploaded.get_metadata()
    after = uploaded.update_metadata(content_language="de")
    assert after.content_language == "de"
    for field in ("cache_control", "content_disposition", "content_encoding", "content_type", "custom_metadata"):
        assert getattr(after, field) == getattr(before, field), field
    assert after.metageneration == before.metageneration + 1
    assert uploaded.get_metadata() == after


def test_update_with_none_deletes_a_field(uploaded: fbstorage.StorageReference) -> None:
    after = uploaded.update_metadata(cache_control=None, content_language=None)
    assert after.cache_control is None and after.content_language is None
    assert after.content_type == "text/csv"
    assert uploaded.get_metadata().cache_control is None


def test_custom_metadata_is_merged_key_by_key(uploaded: fbstorage.StorageReference) -> None:
    after = uploaded.update_metadata(custom_metadata={"a": "changed", "b": None, "c": "3"})
    assert after.custom_metadata == {"a": "changed", "c": "3"}
    assert after.content_type == "text/csv"


def test_custom_metadata_none_deletes_every_key(uploaded: fbstorage.StorageReference) -> None:
    after = uploaded.update_metadata(custom_metadata=None)
    assert after.custom_metadata == {}
    assert after.cache_control == "max-age=60"


def test_update_with_nothing_changes_nothing(uploaded: fbstorage.StorageReference) -> None:
    before = uploaded.get_metadata()
    after = uploaded.update_metadata()
    for field in ("content_type", "cache_control", "custom_metadata", "size", "md5_hash"):
        assert getattr(after, field) == getattr(before, field)


def test_update_of_a_missing_object(emulator, storage: fbstorage.Storage) -> None:
    with pytest.raises(StorageError) as raised:
        storage.reference("meta/missing").update_metadata(content_type="text/plain")
    if emulator.flavor == "production":  # production refuses to update what is not there
        assert raised.value.code == StorageErrorCode.UNAUTHORIZED and raised.value.http_status == 403
    else:
        assert raised.value.code == StorageErrorCode.OBJECT_NOT_FOUND and raised.value.http_status == 404


def test_update_refuses_read_only_and_unknown_fields(offline_storage: fbstorage.Storage) -> None:
    ref = offline_storage.reference("x")
    with pytest.raises(TypeError, match="read-only"):
        ref.update_metadata(size=3)
    with pytest.raises(TypeError, match="unknown"):
        ref.update_metadata(colour="blue")
    with pytest.raises(TypeError):
        ref.update_metadata(content_type=3)
    with pytest.raises(TypeError):
        ref.update_metadata(custom_metadata={"a": 1})
    with pytest.raises(TypeError):
        ref.update_metadata(custom_metadata={1: "a"})
    with pytest.raises(TypeError):
        ref.update_metadata(custom_metadata=["a"])


def test_server_metadata_can_be_reused_for_another_upload(
    storage: fbstorage.Storage, uploaded: fbstorage.StorageReference
) -> None:
    copy = storage.reference("meta/copy.bin")
    metadata = copy.put_data(b"other", uploaded.get_metadata()).wait()
    assert metadata is not None
    assert metadata.content_type == "text/csv"
    assert metadata.custom_metadata == {"a": "1", "b": "2"}
    assert metadata.full_path == "meta/copy.bin" and metadata.size == 5


def test_invalid_utf8_in_a_field_is_an_invalid_argument(storage: fbstorage.Storage) -> None:
    with pytest.raises(StorageError) as raised:
        storage.reference("meta/bad").put_data(b"x", StorageMetadata(content_type="text/\udc80"))
    assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT
    with pytest.raises(StorageError) as raised:
        storage.reference("meta/bad").update_metadata(custom_metadata={"k\udc80": "v"})
    assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT


def test_value_semantics() -> None:
    first = StorageMetadata(content_type="a/b", custom_metadata={"k": "v"})
    assert first == StorageMetadata(content_type="a/b", custom_metadata={"k": "v"})
    assert first != StorageMetadata(content_type="a/c")
    assert repr(first) == "StorageMetadata(content_type='a/b', custom_metadata={'k': 'v'})"
    empty = StorageMetadata()
    assert empty.content_type is None and empty.custom_metadata == {} and empty.size is None
    first.cache_control = "no-cache"
    assert first.cache_control == "no-cache"
    with pytest.raises(TypeError):
        first.content_type = 5  # type: ignore[assignment]
    with pytest.raises(AttributeError):
        first.colour = "blue"  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        hash(first)


def test_fields_assigned_after_construction_are_sent(storage: fbstorage.Storage) -> None:
    metadata = StorageMetadata()
    metadata.content_type = "text/x-assigned"
    metadata.custom_metadata["added"] = "yes"
    uploaded = storage.reference("meta/assigned").put_data(b"x", metadata).wait()
    assert uploaded is not None
    assert uploaded.content_type == "text/x-assigned"
    assert uploaded.custom_metadata == {"added": "yes"}
