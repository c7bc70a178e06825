"""Listing a bucket: prefix and delimiter grouping, hidden names and paging (wire-protocol.md §3)."""

from __future__ import annotations

import base64
import binascii
import bisect
from typing import Any

from .errors import ApiError, bad_request
from .flavor import Flavor
from .store import utf8_order

DEFAULT_MAX_RESULTS = 1000


def list_objects(sorted_names: list[str], bucket: str, params: dict[str, str], flavor: Flavor) -> dict[str, Any]:
    """The list response for `sorted_names` (ordered by UTF-8 bytes) and the request's query."""
    prefix = params.get("prefix", "")
    if prefix and not prefix.endswith("/"):
        raise ApiError(400, "The prefix parameter is required to be empty or ends with a single / character.")
    delimiter = params.get("delimiter", "")
    max_results = _max_results(params.get("maxResults"), flavor)
    items, prefixes = _group(_under_prefix(sorted_names, prefix), prefix, delimiter)
    if flavor.paginates_prefixes:
        return _opaque_page(items, prefixes, bucket, params.get("pageToken"), max_results)
    return _name_token_page(items, prefixes, bucket, params.get("pageToken"), max_results)


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


def _under_prefix(sorted_names: list[str], prefix: str) -> list[str]:
    if not prefix:
        return sorted_names
    key = utf8_order(prefix)
    start = bisect.bisect_left(sorted_names, key, key=utf8_order)
    end = start
    while end < len(sorted_names) and sorted_names[end].startswith(prefix):
        end += 1
    return sorted_names[start:end]


def _group(names: list[str], prefix: str, delimiter: str) -> tuple[list[str], list[str]]:
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


def _opaque_page(items: list[str], prefixes: list[str], bucket: str, page_token: str | None,
                 max_results: int) -> dict[str, Any]:
    """Production: hidden names removed first, then items and prefixes paged together in name order;
    the token is the base64 of the last entry returned."""
    entries = sorted([(utf8_order(name), False, name) for name in items if not is_hidden_item(name)]
                     + [(utf8_order(p), True, p) for p in prefixes if not is_hidden_prefix(p)])
    start = 0
    if page_token:
        try:
            after = base64.urlsafe_b64decode(page_token.encode("ascii"))
        except (binascii.Error, ValueError, UnicodeEncodeError):
            raise bad_request("Invalid pageToken.") from None
        start = bisect.bisect_right(entries, after, key=lambda entry: entry[0])
    chosen = entries[start:start + max_results]
    token = None
    if start + max_results < len(entries):
        token = base64.urlsafe_b64encode(chosen[-1][0]).decode("ascii")
    return _page([e[2] for e in chosen if not e[1]], [e[2] for e in chosen if e[1]], bucket, token)


def _name_token_page(items: list[str], prefixes: list[str], bucket: str, page_token: str | None,
                     max_results: int | None) -> dict[str, Any]:
    """firebase-tools: only items are paged, the token is the next page's first name (an unknown
    token restarts from the beginning), every page repeats all prefixes, hidden names are removed
    after paging."""
    start = items.index(page_token) if page_token in items else 0
    end = len(items) if max_results is None else start + max_results
    token = items[end] if end < len(items) else None
    return _page([name for name in items[start:end] if not is_hidden_item(name)],
                 [p for p in prefixes if not is_hidden_prefix(p)], bucket, token)
