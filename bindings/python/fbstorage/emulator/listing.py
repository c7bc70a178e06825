"""Listing a bucket: prefix and delimiter grouping, hidden names and paging (wire-protocol.md §3)."""

from __future__ import annotations

import base64
import binascii
import bisect
import json
from typing import Any, Callable

from .errors import ApiError, bad_request
from .flavor import Flavor
from .store import utf8_order

DEFAULT_MAX_RESULTS = 1000
#: Listings (prefix, delimiter) kept per bucket before the memo starts over.
_MEMO_LISTINGS = 64


def list_objects(sorted_names: list[str], bucket: str, params: dict[str, str], flavor: Flavor,
                 memo: dict[Any, Any]) -> str:
    """The list response's JSON text for `sorted_names` (ordered by UTF-8 bytes) and the request's query.

    `memo` keeps what every page of one listing shares (the names under the prefix, grouped and
    ordered) until the bucket changes, so a page costs its own size, not the bucket's.
    """
    prefix = params.get("prefix", "")
    if prefix and not prefix.endswith("/"):
        raise ApiError(400, "The prefix parameter is required to be empty or ends with a single / character.")
    delimiter = params.get("delimiter", "")
    max_results = _max_results(params.get("maxResults"), flavor)
    def build() -> _OpaqueListing | _NameTokenListing:
        items, prefixes = group_names(names_under_prefix(sorted_names, prefix), prefix, delimiter)
        return (_OpaqueListing(bucket, items, prefixes) if flavor.paginates_prefixes
                else _NameTokenListing(bucket, items, prefixes))
    # The flavor is fixed for the emulator's lifetime, and the memo is the bucket's: neither is
    # part of the key.
    listing = memoized(memo, (prefix, delimiter), build)
    return listing.page(params.get("pageToken"), max_results)


def memoized(memo: dict[Any, Any], key: Any, build: Callable[[], Any]) -> Any:
    """`memo[key]`, built on first use; the memo starts over beyond _MEMO_LISTINGS listings."""
    listing = memo.get(key)
    if listing is None:
        if len(memo) > _MEMO_LISTINGS:
            memo.clear()
        listing = memo[key] = build()
    return listing


def is_hidden_item(name: str) -> bool:
    """Names the v0 list never shows: empty segments, i.e. `//` inside or a trailing `/`."""
    relative = name[1:] if name.startswith("/") else name
    return "" in relative.split("/")


def is_hidden_prefix(prefix: str) -> bool:
    return is_hidden_item(prefix[:-1] if prefix.endswith("/") else prefix)


def _max_results(raw: str | None, flavor: Flavor) -> int | None:
    """The page size; None means unlimited (only the firebase-tools flavor, for a non-number)."""
    if raw is None:
        return DEFAULT_MAX_RESULTS
    if flavor.bounds_max_results:
        if not raw.isdigit() or not 1 <= int(raw) <= DEFAULT_MAX_RESULTS:
            raise bad_request(f"maxResults must be an integer from 1 to {DEFAULT_MAX_RESULTS}, not {raw!r}.")
        return int(raw)
    try:
        return max(0, int(raw))
    except ValueError:
        return None  # the official emulator parses with `+x`; NaN disables paging


def names_under_prefix(sorted_names: list[str], prefix: str) -> list[str]:
    if not prefix:
        return sorted_names
    key = utf8_order(prefix)
    start = bisect.bisect_left(sorted_names, key, key=utf8_order)
    end = start
    while end < len(sorted_names) and sorted_names[end].startswith(prefix):
        end += 1
    return sorted_names[start:end]


def group_names(names: list[str], prefix: str, delimiter: str) -> tuple[list[str], list[str]]:
    """Split names into items and (deduplicated, ordered) prefixes ending with the delimiter."""
    items: list[str] = []
    prefixes: list[str] = []
    for name in names:
        cut = name.find(delimiter, len(prefix)) if delimiter else -1
        if cut < 0:
            items.append(name)
        else:
            folded = name[:cut + len(delimiter)]
            if not prefixes or prefixes[-1] != folded:  # names sharing a prefix are adjacent
                prefixes.append(folded)
    return items, prefixes


ITEM, PREFIX, HIDDEN = 0, 1, 2  # kinds of listing entries; a hidden item takes a place on its page


class _EncodedPages:
    """A listing's entries, in page order, encoded as JSON once, so that a page is a join of
    slices and costs no Python work per entry. A page's text is what `json.dumps` makes of
    `{"prefixes": [...], "items": [{"name": ..., "bucket": ...}, ...][, "nextPageToken": ...]}`."""

    def __init__(self, bucket: str, entries: list[tuple[int, str]]) -> None:
        bucket_json = json.dumps(bucket)
        self._encoded: tuple[list[str], list[str]] = ([], [])
        # _before[kind][i]: how many of the first i entries are of that kind.
        self._before: tuple[list[int], list[int]] = ([0], [0])
        for kind, name in entries:
            if kind == ITEM:
                self._encoded[ITEM].append(f'{{"name": {json.dumps(name)}, "bucket": {bucket_json}}}')
            elif kind == PREFIX:
                self._encoded[PREFIX].append(json.dumps(name))
            for counted in (ITEM, PREFIX):
                self._before[counted].append(len(self._encoded[counted]))

    def page(self, start: int, end: int, token: str | None, every_prefix: bool = False) -> str:
        """The page of entries [start, end); with `every_prefix`, all prefixes, wherever they are."""
        def chosen(kind: int) -> list[str]:
            return self._encoded[kind][self._before[kind][start]:self._before[kind][end]]
        prefixes = self._encoded[PREFIX] if every_prefix else chosen(PREFIX)
        tail = "" if token is None else f', "nextPageToken": {json.dumps(token)}'
        return f'{{"prefixes": [{", ".join(prefixes)}], "items": [{", ".join(chosen(ITEM))}]{tail}}}'


class _OpaqueListing:
    """Production: hidden names removed first, then items and prefixes paged together in name
    order; the token is the base64 of the last entry returned."""

    def __init__(self, bucket: str, items: list[str], prefixes: list[str]) -> None:
        entries = sorted([(utf8_order(name), False, name) for name in items if not is_hidden_item(name)]
                         + [(utf8_order(p), True, p) for p in prefixes if not is_hidden_prefix(p)])
        self._keys = [entry[0] for entry in entries]
        self._pages = _EncodedPages(bucket, [(PREFIX if is_prefix else ITEM, name) for _, is_prefix, name in entries])

    def page(self, page_token: str | None, max_results: int) -> str:
        start = 0
        if page_token:
            try:
                after = base64.urlsafe_b64decode(page_token.encode("ascii"))
            except (binascii.Error, ValueError, UnicodeEncodeError):
                raise bad_request("Invalid pageToken.") from None
            start = bisect.bisect_right(self._keys, after)
        end = min(start + max_results, len(self._keys))
        token = None
        if start + max_results < len(self._keys):
            token = base64.urlsafe_b64encode(self._keys[end - 1]).decode("ascii")
        return self._pages.page(start, end, token)


class _NameTokenListing:
    """firebase-tools: only items are paged, the token is the next page's first name (an unknown
    token restarts from the beginning), every page repeats all prefixes, hidden names are removed
    after paging."""

    def __init__(self, bucket: str, items: list[str], prefixes: list[str]) -> None:
        self._items = items
        self._positions = {name: index for index, name in enumerate(items)}
        self._pages = _EncodedPages(bucket, [(HIDDEN if is_hidden_item(name) else ITEM, name) for name in items]
                                    + [(PREFIX, p) for p in prefixes if not is_hidden_prefix(p)])

    def page(self, page_token: str | None, max_results: int | None) -> str:
        items = self._items
        start = self._positions.get(page_token, 0) if page_token is not None else 0
        end = len(items) if max_results is None else min(start + max_results, len(items))
        token = items[end] if end < len(items) else None
        return self._pages.page(start, end, token, every_prefix=True)
