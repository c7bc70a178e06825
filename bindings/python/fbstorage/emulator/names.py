"""Strict decoding of the raw request target into bucket, object name and query parameters.

aiohttp's decoded `path` turns `%2F` into `/` and normalises `..`, which would merge distinct
object names, so the v0 API works on `request.raw_path` and decodes each component exactly once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

from .buckets import bucket_name_characters_allowed
from .errors import bad_request, not_found

MAX_NAME_BYTES = 1024
# Names GCS reserves (cloud.google.com/storage/docs/objects#naming): no object has them.
RESERVED_NAMES = (".", "..")
RESERVED_PREFIX = ".well-known/acme-challenge/"
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def decode_component(raw: str, *, plus_is_space: bool = False) -> str:
    """Percent-decode one URL component into text; malformed escapes or UTF-8 are a 400."""
    if raw.isascii() and "%" not in raw:  # most components: nothing to decode
        return raw.replace("+", " ") if plus_is_space else raw
    if _BAD_ESCAPE.search(raw):
        raise bad_request(f"Invalid percent-encoding in {raw!r}.")
    if plus_is_space:
        raw = raw.replace("+", " ")
    try:
        return unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise bad_request(f"Invalid UTF-8 in {raw!r}.") from None


def parse_query(raw_query: str) -> dict[str, str]:
    """Form-decode a query string; the first occurrence of a repeated key wins."""
    params: dict[str, str] = {}
    for pair in raw_query.split("&"):
        if not pair:
            continue
        key, _, value = pair.partition("=")
        params.setdefault(decode_component(key, plus_is_space=True),
                          decode_component(value, plus_is_space=True))
    return params


def check_object_name(name: str) -> str:
    """Names are stored exactly as given; only what production rejects is refused (in the
    firebase-tools flavor wherever a name appears: Flavor.refuses_names_on_create_only)."""
    if not name:
        raise bad_request("Object name is empty.")
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise bad_request(f"Object name is longer than {MAX_NAME_BYTES} bytes.")
    if "\r" in name or "\n" in name:
        raise bad_request("Object name contains a carriage return or line feed.")
    if "\0" in name:
        raise bad_request("Object name contains a NUL character.")
    return name


def check_bucket_name(bucket: str) -> str:
    """A bucket name from a request path: characters GCS never allows in one (a NUL, a capital,
    a space) are a 400 on every API, as production answers an invalid bucket name."""
    if not bucket_name_characters_allowed(bucket):
        raise bad_request(f"Invalid bucket name: '{bucket}'")
    return bucket


def production_name_refusal(name: str) -> str | None:
    """Why GCS refuses to create an object of this name, in its words (a long name shown cut to
    77 characters and "..."), or None."""
    size = len(name.encode("utf-8"))
    if size > MAX_NAME_BYTES:
        shown = name if len(name) <= 80 else name[:77] + "..."
        return (f"The maximum object length is {MAX_NAME_BYTES} characters, but got a name with {size} characters:"
                f" '{shown}'")
    if any(character in name for character in "\0\r\n"):
        return f"Disallowed unicode characters present in object name '{name}'"
    if name in RESERVED_NAMES or name.startswith(RESERVED_PREFIX):
        return f"Object name '{name}' is reserved: '.', '..' and names under '{RESERVED_PREFIX}' are not allowed"
    return None


@dataclass(frozen=True)
class Target:
    """A v0 request target: `/v0/b/{bucket}/o[/{name}]?{query}`."""

    bucket: str
    name: str | None  # from the path segment; None for the bucket's `/o` collection
    query: dict[str, str]


def parse_v0_target(raw_target: str, *, check_names: bool = True) -> Target:
    raw_path, _, raw_query = raw_target.partition("?")
    segments = raw_path.split("/")  # "", "v0", "b", bucket, "o"[, name]
    if len(segments) not in (5, 6) or segments[:3] != ["", "v0", "b"] or segments[4] != "o":
        raise not_found("Not Found. Object names must be one path segment with '/' sent as %2F.")
    bucket = decode_component(segments[3])
    if not bucket:
        raise bad_request("Bucket name is empty.")
    check_bucket_name(bucket)
    name = decode_component(segments[5]) if len(segments) == 6 else None
    if name is not None and check_names:
        check_object_name(name)
    return Target(bucket, name, parse_query(raw_query))
