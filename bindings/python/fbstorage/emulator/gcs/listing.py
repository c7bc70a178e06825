"""`GET /storage/v1/b/{bucket}/o`: GCS listing over the same sorted names as the v0 list.

Unlike v0, GCS hides no name, takes any prefix, bounds the names by startOffset/endOffset, keeps
those matchGlob matches and, with includeTrailingDelimiter, lists a name that ends in the delimiter
both as an item and as a prefix. Items and prefixes share the pages in name order (an item before the equal prefix); the
token is the base64 of the last entry returned. With versions=true every generation of a name is
an item (noncurrent ones included), oldest first.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import re
from typing import Any

from ..errors import bad_request
from ..listing import DEFAULT_MAX_RESULTS, group_names, memoized, names_under_prefix
from ..state import EmulatorState
from ..store import StoredObject, utf8_order
from .resource import object_resource

ITEM, PREFIX = 0, 1
Entry = tuple[bytes, int, int, str]  # (UTF-8 name, ITEM or PREFIX, generation (0: a prefix), name)


def list_page(state: EmulatorState, base: str, bucket: str, query: dict[str, str]) -> dict[str, Any]:
    page: dict[str, Any] = {"kind": "storage#objects"}
    production = state.flavor.gcs_list_options
    if query.get("maxResults") == "0" and production:
        return page
    entries = listing_entries(state, bucket, query.get("prefix", ""), query.get("delimiter", ""),
                              start=query.get("startOffset", ""), end=query.get("endOffset", ""),
                              trailing=query.get("includeTrailingDelimiter", "false").lower() == "true",
                              versions=query.get("versions", "false").lower() == "true",
                              glob=query.get("matchGlob", "") if production else "")
    chosen, next_token = page_of(entries, query.get("pageToken"), max_results(query.get("maxResults")))
    prefixes = [name for _, kind, _, name in chosen if kind == PREFIX]
    items = [object_resource(state.store.get(bucket, name, generation).metadata, base)
             for _, kind, generation, name in chosen if kind == ITEM]
    if prefixes:
        page["prefixes"] = prefixes
    if items:
        page["items"] = items
    if next_token:
        page["nextPageToken"] = next_token
    return page


def listing_entries(state: EmulatorState, bucket: str, prefix: str, delimiter: str, *, start: str = "",
                    end: str = "", trailing: bool = False, versions: bool = False, glob: str = "") -> list[Entry]:
    """The listing's entries in order, computed once per bucket state (the store's memo)."""
    key = ("gcs", prefix, delimiter, start, end, trailing, versions, glob)
    return memoized(state.store.memo(bucket), key, lambda: _entries(
        state, bucket, prefix, delimiter, start, end, trailing, versions, glob))


def page_of(entries: list[Entry], token: str | None, size: int) -> tuple[list[Entry], str | None]:
    """The page after the entry `token` names (from the start without one), and the next page's token."""
    first = _after(entries, token) if token else 0
    chosen = entries[first:first + size]
    if first + size >= len(entries):
        return chosen, None
    name_bytes, kind, generation, _ = chosen[-1]
    return chosen, base64.urlsafe_b64encode(bytes([kind]) + generation.to_bytes(8, "big") + name_bytes).decode("ascii")


def max_results(raw: str | None) -> int:
    """GCS returns at most 1000 entries a page, whatever is asked."""
    if raw is None:
        return DEFAULT_MAX_RESULTS
    if not raw.strip().isdigit() or int(raw) < 1:
        raise bad_request(f"Invalid value for maxResults: {raw!r}.")
    return min(int(raw), DEFAULT_MAX_RESULTS)


@functools.lru_cache(maxsize=64)
def glob_pattern(glob: str) -> re.Pattern:
    """matchGlob as a regular expression: `**` any characters, `*` and `?` any but `/`, `[...]` a
    character class, `{a,b}` alternatives."""
    parts, index = [], 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**", index):
            parts.append(".*")
            index += 2
            continue
        if char == "*":
            parts.append("[^/]*")
        elif char == "?":
            parts.append("[^/]")
        elif char == "[" and "]" in glob[index + 2:]:
            end = glob.index("]", index + 2)
            body = glob[index + 1:end]
            negated = body.startswith("!")
            body = (body[1:] if negated else body).replace("\\", "\\\\").replace("^", "\\^")
            parts.append("[" + ("^" if negated else "") + body + "]")  # ranges (a-z) kept
            index = end
        elif char == "{" and "}" in glob[index:]:
            end = glob.index("}", index)
            parts.append("(?:" + "|".join(re.escape(choice) for choice in glob[index + 1:end].split(",")) + ")")
            index = end
        else:
            parts.append(re.escape(char))
        index += 1
    try:
        return re.compile("".join(parts), re.DOTALL)
    except re.error:
        raise bad_request(f"Invalid matchGlob {glob!r}.") from None


def _entries(state: EmulatorState, bucket: str, prefix: str, delimiter: str, start: str, end: str,
             trailing: bool, versions: bool, glob: str) -> list[Entry]:
    names = names_under_prefix(state.store.sorted_names(bucket, noncurrent=versions), prefix)
    if start:
        names = names[bisect.bisect_left(names, utf8_order(start), key=utf8_order):]
    if end:
        names = names[:bisect.bisect_left(names, utf8_order(end), key=utf8_order)]
    if glob:
        names = [name for name in names if glob_pattern(glob).fullmatch(name)]
    items, prefixes = group_names(names, prefix, delimiter)
    def listed(name: str) -> list[StoredObject]:
        if versions:
            return state.store.generations(bucket, name)
        live = state.store.get(bucket, name)
        return [live] if live else []
    if trailing:
        items += [name for name in prefixes if listed(name)]
    entries = [(utf8_order(name), PREFIX, 0, name) for name in prefixes]
    for name in items:
        entries += [(utf8_order(name), ITEM, stored.metadata.generation, name) for stored in listed(name)]
    return sorted(entries)


def _after(entries: list[Entry], token: str) -> int:
    """The index of the first entry after the one the token names."""
    try:
        raw = base64.urlsafe_b64decode(token.encode("ascii"))
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise bad_request("Invalid pageToken.") from None
    if len(raw) < 9 or raw[0] not in (ITEM, PREFIX):
        raise bad_request("Invalid pageToken.")
    last = (raw[9:], raw[0], int.from_bytes(raw[1:9], "big"))
    return bisect.bisect_right(entries, last, key=lambda entry: entry[:3])
