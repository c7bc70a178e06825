"""Listing a bucket: prefix and delimiter grouping, hidden names and paging (wire-protocol.md §3)."""

from __future__ import annotations

import base64
import binascii
import bisect
import itertools
import json
import json.encoder
from typing import Any, Callable, Sequence

from .errors import ApiError, bad_request
from .flavor import Flavor
from .store import utf8_order

DEFAULT_MAX_RESULTS = 1000
#: Listings (prefix, delimiter) kept per bucket before the memo starts over.
_MEMO_LISTINGS = 64


def list_objects(sorted_names: list[str], bucket: str, params: dict[str, str], flavor: Flavor,
                 memo: dict[Any, Any]) -> bytes:
    """The list response's JSON (UTF-8) for `sorted_names` (ordered by UTF-8 bytes) and the request's query.

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
        if not raw.isdigit() or int(raw) < 1:
            raise bad_request("Expect maxResults to be a positive number.")  # production's words
        if int(raw) > DEFAULT_MAX_RESULTS:
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


_BLOCK = 256  # names encoded together the first time a page shows one of them


def _encode(text: str) -> bytes:
    """json.dumps of a str, without its overhead."""
    return json.encoder.encode_basestring_ascii(text).encode("ascii")


class _EncodedNames:
    """Names encoded as JSON, a block at a time when a page first shows one of its names, so
    that a page shown again is a join of slices: no Python work per name. Items are
    `{"name": ..., "bucket": ...}`; a hidden one (only in the firebase-tools flavor, which hides
    them after paging) encodes as b""."""

    def __init__(self, names: list[str], bucket: str | None = None, hides: bool = False) -> None:
        self._names = names
        self._blocks: list[list[bytes] | None] = [None] * -(-len(names) // _BLOCK)
        self._item_head = None if bucket is None else b'{"name": '
        self._item_tail = None if bucket is None else b', "bucket": ' + _encode(bucket) + b"}"
        self._hides = hides

    def __len__(self) -> int:
        return len(self._names)

    def slice(self, first: int, last: int) -> list[bytes]:
        last = min(last, len(self._names))
        if first >= last:
            return []
        blocks = range(first // _BLOCK, (last - 1) // _BLOCK + 1)
        for block in blocks:
            if self._blocks[block] is None:
                self._blocks[block] = [self._encode(name) for name in self._names[block * _BLOCK:(block + 1) * _BLOCK]]
        offset = blocks.start * _BLOCK
        return list(itertools.chain.from_iterable(self._blocks[b] for b in blocks))[first - offset:last - offset]

    def _encode(self, name: str) -> bytes:
        if self._item_head is None:
            return _encode(name)
        if self._hides and is_hidden_item(name):
            return b""
        return self._item_head + _encode(name) + self._item_tail


def _page_json(prefixes: list[bytes], items: list[bytes], token: str | None) -> bytes:
    """What json.dumps makes of `{"prefixes": [...], "items": [...][, "nextPageToken": ...]}`."""
    tail = b"]}" if token is None else b'], "nextPageToken": ' + _encode(token) + b"}"
    return b"".join((b'{"prefixes": [', b", ".join(prefixes), b'], "items": [',
                     b", ".join(filter(None, items)), tail))


class _OpaqueListing:
    """Production: hidden names removed first, then items and prefixes paged together in name
    order; the token is the base64 of the last entry returned."""

    def __init__(self, bucket: str, items: list[str], prefixes: list[str]) -> None:
        entries = sorted([(utf8_order(name), False, name) for name in items if not is_hidden_item(name)]
                         + [(utf8_order(p), True, p) for p in prefixes if not is_hidden_prefix(p)])
        self._keys = [entry[0] for entry in entries]
        self._items = _EncodedNames([name for _, is_prefix, name in entries if not is_prefix], bucket)
        self._prefixes = _EncodedNames([name for _, is_prefix, name in entries if is_prefix])
        # Where each kind sits among the entries (bisected to cut a page into items and prefixes).
        self._item_positions: Sequence[int] = \
            [index for index, entry in enumerate(entries) if not entry[1]] if len(self._prefixes) else range(len(entries))
        self._prefix_positions = [index for index, entry in enumerate(entries) if entry[1]]

    def page(self, page_token: str | None, max_results: int) -> bytes:
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

        def chosen(names: _EncodedNames, positions: Sequence[int]) -> list[bytes]:
            return names.slice(bisect.bisect_left(positions, start), bisect.bisect_left(positions, end))
        return _page_json(chosen(self._prefixes, self._prefix_positions),
                          chosen(self._items, self._item_positions), token)


class _NameTokenListing:
    """firebase-tools: only items are paged, the token is the next page's first name (an unknown
    token restarts from the beginning), every page repeats all prefixes, hidden names are removed
    after paging."""

    def __init__(self, bucket: str, items: list[str], prefixes: list[str]) -> None:
        self._names = items
        self._positions = {name: index for index, name in enumerate(items)}
        self._items = _EncodedNames(items, bucket, hides=True)
        self._prefixes = _EncodedNames([p for p in prefixes if not is_hidden_prefix(p)])

    def page(self, page_token: str | None, max_results: int | None) -> bytes:
        items = self._names
        start = self._positions.get(page_token, 0) if page_token is not None else 0
        end = len(items) if max_results is None else start + max_results
        token = items[end] if end < len(items) else None
        return _page_json(self._prefixes.slice(0, len(self._prefixes)), self._items.slice(start, end), token)
