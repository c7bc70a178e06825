"""References: paths, normalisation, navigation, URLs, equality; bad paths and URLs."""

from __future__ import annotations

import pytest

import fbstorage
from fbstorage import StorageError, StorageErrorCode


def test_bucket_accepts_a_name_or_a_gs_url() -> None:
    for bucket in ("test-bucket", "gs://test-bucket"):
        with fbstorage.Storage(bucket) as storage:
            assert storage.bucket == "test-bucket"
            assert storage.reference().bucket == "test-bucket"


@pytest.mark.parametrize("bucket", ["", "gs://", "gs://test-bucket/a/path"])
def test_malformed_buckets_are_path_errors(bucket: str) -> None:
    with pytest.raises(StorageError) as raised:
        fbstorage.Storage(bucket)
    assert raised.value.code == StorageErrorCode.PATH_ERROR
    assert raised.value.message


def test_paths_are_normalised(offline_storage: fbstorage.Storage) -> None:
    ref = offline_storage.reference("/images//space.jpg/")
    assert ref.full_path == "images/space.jpg"
    assert ref.name == "space.jpg"
    assert ref.bucket == "test-bucket"
    assert str(ref) == "gs://test-bucket/images/space.jpg"
    assert repr(ref) == "<StorageReference gs://test-bucket/images/space.jpg>"
    dots = offline_storage.reference("a/./b/../c")
    assert dots.full_path == "a/./b/../c"  # "." and ".." are ordinary characters


@pytest.mark.parametrize("path", [None, "", "/", "//"])
def test_root(offline_storage: fbstorage.Storage, path: str | None) -> None:
    root = offline_storage.reference(path)
    assert root.full_path == "" and root.name == ""
    assert root.parent is None
    assert root.root == root
    assert str(root) == "gs://test-bucket/"


def test_navigation(offline_storage: fbstorage.Storage) -> None:
    ref = offline_storage.reference("a/b")
    child = ref.child("c//d/")
    assert child.full_path == "a/b/c/d"
    assert child.name == "d"
    assert child.parent is not None and child.parent.full_path == "a/b/c"
    assert child.root.full_path == ""
    assert ref.child("") == ref
    assert child.parent.parent == ref
    assert child.storage is offline_storage
    top = offline_storage.reference("a")
    assert top.parent == offline_storage.reference()


def test_equality_and_hash_by_bucket_and_path(offline_storage: fbstorage.Storage) -> None:
    with fbstorage.Storage("test-bucket") as other_storage, fbstorage.Storage("other") as other_bucket:
        a = offline_storage.reference("x/y")
        same = other_storage.reference("x//y")
        assert a == same and hash(a) == hash(same)
        assert a != other_bucket.reference("x/y")
        assert a != offline_storage.reference("x/z")
        assert len({a, same, offline_storage.reference("x").child("y")}) == 1
        assert a != "gs://test-bucket/x/y"


@pytest.mark.parametrize(
    "url",
    [
        "gs://test-bucket/images/space%20x.jpg",
        "https://firebasestorage.googleapis.com/v0/b/test-bucket/o/images%2Fspace%2520x.jpg",
        "http://127.0.0.1:9199/v0/b/test-bucket/o/images%2Fspace%2520x.jpg?alt=media&token=t",
    ],
)
def test_reference_for_url(offline_storage: fbstorage.Storage, url: str) -> None:
    ref = offline_storage.reference_for_url(url)
    assert ref.bucket == "test-bucket"
    assert ref.full_path == "images/space%20x.jpg"


def test_reference_for_gs_url_at_the_root(offline_storage: fbstorage.Storage) -> None:
    assert offline_storage.reference_for_url("gs://test-bucket") == offline_storage.reference()


@pytest.mark.parametrize("url", ["gs://another-bucket/a", "https://firebasestorage.googleapis.com/v0/b/another-bucket/o/a"])
def test_url_of_another_bucket_is_a_bucket_mismatch(offline_storage: fbstorage.Storage, url: str) -> None:
    with pytest.raises(StorageError) as raised:
        offline_storage.reference_for_url(url)
    assert raised.value.code == StorageErrorCode.BUCKET_MISMATCH


@pytest.mark.parametrize("url", ["", "images/space.jpg", "ftp://test-bucket/a", "https://example.com/no/v0/here"])
def test_unparsable_urls_are_path_errors(offline_storage: fbstorage.Storage, url: str) -> None:
    with pytest.raises(StorageError) as raised:
        offline_storage.reference_for_url(url)
    assert raised.value.code == StorageErrorCode.PATH_ERROR


@pytest.mark.parametrize("path", ["a\nb", "a\rb", "x" * 1025, "é" * 513, "bad\udc80surrogate"])
def test_bad_paths_are_path_errors(offline_storage: fbstorage.Storage, path: str) -> None:
    with pytest.raises(StorageError) as raised:
        offline_storage.reference(path)
    assert raised.value.code == StorageErrorCode.PATH_ERROR
    with pytest.raises(StorageError) as raised:
        offline_storage.reference().child(path)
    assert raised.value.code == StorageErrorCode.PATH_ERROR


def test_longest_path_is_accepted(offline_storage: fbstorage.Storage) -> None:
    assert offline_storage.reference("x" * 1024).full_path == "x" * 1024
    assert offline_storage.reference("é" * 512).name == "é" * 512


def test_upload_to_the_root_is_a_path_error(offline_storage: fbstorage.Storage) -> None:
    with pytest.raises(StorageError) as raised:
        offline_storage.reference().put_data(b"x")
    assert raised.value.code == StorageErrorCode.PATH_ERROR


def test_unicode_paths(offline_storage: fbstorage.Storage) -> None:
    ref = offline_storage.reference("фото/日本 語.png")
    assert ref.name == "日本 語.png"
    assert str(ref) == "gs://test-bucket/фото/日本 語.png"
