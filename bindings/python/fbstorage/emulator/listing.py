"""Listing a bucket: prefix and delimiter grouping, hidden names and paging (wire-protocol.md §3)."""

from __future__ import annotations

import base64
import binascii
import bisect
from typing import Any, Callable

from .errors import ApiError, bad_request
from .flavor import Flavor
from .store import utf8_order

DEFAULT_MAX_RESULTS = 1000
#: Listings (prefix, delimiter) kept per bucket before the memo starts over.
_MEMO_LISTINGS = 64


def list_objects(sorted_names: list[str], bucket: str, params: dict[str, str], flavor: Flavor,
                 memo: dict[Any, Any]) -> dict[str, Any]:
    """The list response for `sorted_names` (ordered by UTF-8 bytes) and the request's query.

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
        return (_OpaqueListing(items, prefixes) if flavor.paginates_prefixes
                else _NameTokenListing(items, prefixes))
    # The flavor is fixed for the emulator's lifetime, so it is not part of the key.
    listing = memoized(memo, (prefix, delimiter), build)
    return listing.page(bucket, params.get("pageToken"), max_results)


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


def _page(items: list[str], prefixes: list[str], bucket: str, token: str | None) -> dict[str, Any]:
    page: dict[str, Any] = {"prefixes": prefixes, "items": [{"name": name, "bucket": bucket} for name in items]}
    if token is not None:
        page["nextPageToken"] = token
    return page


class _OpaqueListing:
    """Production: hidden names removed first, then items and prefixes paged together in name
    order; the token is the base64 of the last entry returned."""

    def __init__(self, items: list[str], prefixes: list[str]) -> None:
        entries = sorted([(utf8_order(name), False, name) for name in items if not is_hidden_item(name)]
                         + [(utf8_order(p), True, p) for p in prefixes if not is_hidden_prefix(p)])
        self._keys = [entry[0] for entry in entries]
        self._entries = entries

    def page(self, bucket: str, page_token: str | None, max_results: int) -> dict[str, Any]:
        start = 0
        if page_token:
            try:
                after = base64.urlsafe_b64decode(page_token.encode("ascii"))
            except (binascii.Error, ValueError, UnicodeEncodeError):
                raise bad_request("Invalid pageToken.") from None
            start = bisect.bisect_right(self._keys, after)
        chosen = self._entries[start:start + max_results]
        token = None
        if start + max_results < len(self._entries):
            token = base64.urlsafe_b64encode(chosen[-1][0]).decode("ascii")
        return _page([e[2] for e in chosen if not e[1]], [e[2] for e in chosen if e[1]], bucket, token)


class _NameTokenListing:
    """firebase-tools: only items are paged, the token is the next page's first name (an unknown
    token restarts from the beginning), every page repeats all prefixes, hidden names are removed
    after paging."""

    def __init__(self, items: list[str], prefixes: list[str]) -> None:
        self._items = items
        self._positions = {name: index for index, name in enumerate(items)}
        self._prefixes = [p for p in prefixes if not is_hidden_prefix(p)]

    def page(self, bucket: str, page_token: str | None, max_results: int | None) -> dict[str, Any]:
        items = self._items
        start = self._positions.get(page_token, 0) if page_token is not None else 0
        end = len(items) if max_results is None else start + max_results
        token = items[end] if end < len(items) else None
        return _page([name for name in items[start:end] if not is_hidden_item(name)],
                     self._prefixes, bucket, token)
