"""Listing: prefixes and delimiter, hidden names, UTF-8 order, page tokens and maxResults."""

import json

import pytest

from conftest import assert_error, assert_json_error


def list_all_pages(emu, **params):
    pages, token = [], None
    while True:
        query = dict(params, **({"pageToken": token} if token else {}))
        response = emu.list(**query)
        assert response.status_code == 200, response.text
        page = response.json()
        pages.append(page)
        token = page.get("nextPageToken")
        if not token:
            return pages


def test_prefix_and_delimiter(emu):
    for name in ("a/1", "a/2", "a/sub/x", "a/sub/y", "b/1", "top"):
        emu.upload_ok(name)
    root = emu.list(delimiter="/").json()
    assert root == {"prefixes": ["a/", "b/"], "items": [{"name": "top", "bucket": "b"}]}
    under_a = emu.list(prefix="a/", delimiter="/").json()
    assert under_a["prefixes"] == ["a/sub/"]
    assert [item["name"] for item in under_a["items"]] == ["a/1", "a/2"]
    flat = emu.list(prefix="a/").json()
    assert flat["prefixes"] == [] and len(flat["items"]) == 4
    assert emu.list(prefix="zzz/").json() == {"prefixes": [], "items": []}


def test_other_buckets_are_separate(emu):
    emu.upload_ok("x", bucket="other")
    assert emu.list().json()["items"] == []
    assert emu.http.get(emu.bucket_url("other")).json()["items"] == [{"name": "x", "bucket": "other"}]


def test_hidden_names(emu):
    for name in ("listAll//foo", "listAll/bar//", "listAll/baz//qux", "listAll/abc/", "listAll/ok"):
        emu.upload_ok(name)
    page = emu.list(prefix="listAll/", delimiter="/").json()
    assert page["prefixes"] == ["listAll/abc/", "listAll/bar/", "listAll/baz/"]
    assert [item["name"] for item in page["items"]] == ["listAll/ok"]
    flat = emu.list(prefix="listAll/").json()
    assert [item["name"] for item in flat["items"]] == ["listAll/ok"]


def test_utf8_byte_order(emu):
    names = ["z", "\uff5e", "\U0001f600", "a", "\u00e9"]  # UTF-16 order would put the emoji before U+FF5E
    for name in names:
        emu.upload_ok(name)
    listed = [item["name"] for item in emu.list().json()["items"]]
    assert listed == sorted(names, key=lambda n: n.encode("utf-8"))


def test_paging_items(emu):
    names = [f"f{i:02d}" for i in range(10)]
    for name in names:
        emu.upload_ok(name)
    pages = list_all_pages(emu, maxResults="4")
    assert len(pages) == 3
    assert [item["name"] for page in pages for item in page["items"]] == names
    if not emu.production:
        assert pages[0]["nextPageToken"] == "f04"  # the raw next name


def test_paging_prefixes(emu):
    for name in ("a/x", "b/x", "c/x", "d", "e", "f/x"):
        emu.upload_ok(name)
    pages = list_all_pages(emu, delimiter="/", maxResults="2")
    if emu.production:  # items and prefixes share the pages, each appears once
        entries = [(p, "prefix") for page in pages for p in page["prefixes"]] + \
                  [(i["name"], "item") for page in pages for i in page["items"]]
        assert sorted(entries) == [("a/", "prefix"), ("b/", "prefix"), ("c/", "prefix"), ("d", "item"), ("e", "item"),
                                   ("f/", "prefix")]
        assert len(pages) == 3 and all(len(page["prefixes"]) + len(page["items"]) == 2 for page in pages)
    else:  # the official emulator repeats every prefix on every page
        assert len(pages) == 1
        assert pages[0]["prefixes"] == ["a/", "b/", "c/", "f/"]
    many = [f"g{i}" for i in range(3)]
    for name in many:
        emu.upload_ok(name)
    pages = list_all_pages(emu, delimiter="/", maxResults="2")
    prefixes = [p for page in pages for p in page["prefixes"]]
    if emu.production:
        assert prefixes == ["a/", "b/", "c/", "f/"]
    else:
        assert all(page["prefixes"] == ["a/", "b/", "c/", "f/"] for page in pages) and len(pages) == 3


def test_bad_prefix(emu):
    error = assert_json_error(emu.list(prefix="a"), 400)
    assert "prefix" in error["message"]


@pytest.mark.parametrize("value", ["0", "1001", "abc", "-1", "1.5"])
def test_max_results_bounds(emu, value):
    emu.upload_ok("x")
    response = emu.list(maxResults=value)
    if emu.production:
        assert_json_error(response, 400)
    else:
        assert response.status_code == 200


def test_max_results_edges(emu):
    for i in range(3):
        emu.upload_ok(f"n{i}")
    assert len(emu.list(maxResults="1000").json()["items"]) == 3
    one = emu.list(maxResults="1").json()
    assert len(one["items"]) == 1 and "nextPageToken" in one
    if not emu.production:
        assert len(emu.list(maxResults="5000").json()["items"]) == 3
        zero = emu.list(maxResults="0").json()
        assert zero["items"] == [] and zero["nextPageToken"] == "n0"


def test_invalid_page_token(emu):
    emu.upload_ok("x")
    response = emu.list(pageToken="%%%not-base64")
    if emu.production:
        assert_error(emu, response, 400, "Bad Request")
    else:
        assert response.json()["items"] == [{"name": "x", "bucket": "b"}]  # unknown token: from the start


def test_listings_follow_changes(emu):
    """A listing's pages are computed once per bucket state: every change shows in the next list."""
    for name in ("p/1", "p/2", "p/3"):
        emu.upload_ok(name)
    names = lambda: [item["name"] for page in list_all_pages(emu, prefix="p/", maxResults="2") for item in page["items"]]
    assert names() == ["p/1", "p/2", "p/3"]
    assert emu.http.delete(emu.object_url("p/2")).status_code == 204
    assert names() == ["p/1", "p/3"]
    emu.upload_ok("p/0")
    assert names() == ["p/0", "p/1", "p/3"]
    for i in range(80):  # more distinct listings than the emulator keeps
        assert emu.list(prefix=f"q{i}/").json() == {"prefixes": [], "items": []}
    assert names() == ["p/0", "p/1", "p/3"]


def test_pages_are_the_json_of_their_content(emu):
    """Pages are assembled from JSON encoded once per listing: byte for byte what json.dumps makes
    of the page, whatever the names hold (quotes, backslashes, non-ASCII, hidden names; a bucket
    name holds none of these: a quote in one is a 400, test_bad_input.py)."""
    names = ['q"uote', "back\\slash", "ü/日本", "tab\there", "a//hidden", "dir/", "dir/x", "e\u2028", "z"]
    for name in names:
        emu.upload_ok(name)
    pages = [emu.list(maxResults="3", **params) for params in ({}, {"delimiter": "/"})]
    pages.append(emu.list(maxResults="2", pageToken=pages[0].json()["nextPageToken"]))
    for page in pages:
        charset = "UTF-8" if emu.production else "utf-8"  # as each spells it
        assert page.status_code == 200 and page.headers["Content-Type"] == f"application/json; charset={charset}"
        assert page.text == json.dumps(page.json())
    listed = [item["name"] for page in list_all_pages(emu, maxResults="2") for item in page["items"]]
    assert listed == sorted((n for n in names if n not in ("a//hidden", "dir/")), key=lambda n: n.encode())


@pytest.mark.parametrize("page_size", [7, 300])
def test_many_pages_over_items_and_prefixes(emu, page_size):
    """Pages cut anywhere in a listing of 600 entries, items and prefixes interleaved (names are
    encoded in blocks of 256; pages straddle them), each name exactly once and in order."""
    items = [f"m/{index:03d}a" for index in range(300)]
    prefixes = [f"m/{index:03d}b/" for index in range(300)]
    for name in items + [prefix + "x" for prefix in prefixes]:
        assert emu.http.post(emu.bucket_url(), params={"name": name}, data=b"x").status_code == 200
    pages = list_all_pages(emu, prefix="m/", delimiter="/", maxResults=str(page_size))
    assert [item["name"] for page in pages for item in page["items"]] == items
    if emu.production:  # items and prefixes share the pages, in name order
        assert [prefix for page in pages for prefix in page["prefixes"]] == prefixes
        assert all(len(page["items"]) + len(page["prefixes"]) <= page_size for page in pages)
        entries = [sorted(page["prefixes"] + [item["name"] for item in page["items"]]) for page in pages]
        assert sum(entries, []) == sorted(items + prefixes)
    else:  # only items are paged; every page repeats every prefix
        assert all(page["prefixes"] == prefixes and len(page["items"]) <= page_size for page in pages)
