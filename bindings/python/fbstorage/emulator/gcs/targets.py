"""Decoding a GCS JSON API request target into what it names.

Object names are one path segment with `/` sent as %2F, as the client libraries send them, so
the target is decoded from the raw path exactly once per component (as the v0 API does).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..names import check_bucket_name, check_object_name, decode_component, parse_query

# Path prefix -> API. Node's @google-cloud/storage drops `/storage/v1` when STORAGE_EMULATOR_HOST
# is set, so `/b/...` is the JSON API too.
PREFIXES = {"/storage/v1": "json", "/upload/storage/v1": "upload", "/download/storage/v1": "download", "": "json"}
ACTIONS = ("copyTo", "rewriteTo", "compose")


@dataclass(frozen=True)
class Target:
    api: str  # "json", "upload" or "download"
    bucket: str | None  # None: the bucket collection `/b`
    objects: bool  # the path goes on to `/o`
    name: str | None  # None: the bucket's object collection
    action: str | None  # copyTo, rewriteTo, compose
    destination: tuple[str, str] | None  # copyTo/rewriteTo: (bucket, name)
    query: dict[str, str]


class UnknownTarget(Exception):
    """The path is none of the GCS JSON API shapes the emulator serves."""


def parse_target(raw_target: str, *, check_names: bool = True) -> Target:
    """`check_names`: refuse a name no object can have (else reading it finds nothing); a copy's
    destination is always checked, being created."""
    raw_path, _, raw_query = raw_target.partition("?")
    for prefix, api in PREFIXES.items():
        if raw_path.startswith(prefix + "/b"):
            segments = raw_path[len(prefix) + 1:].split("/")  # "b"[, bucket[, "o"[, name[, action…]]]]
            break
    else:
        raise UnknownTarget(raw_path)
    if segments[0] != "b" or len(segments) > 10 or (len(segments) > 2 and segments[2] != "o"):
        raise UnknownTarget(raw_path)
    bucket = decode_component(segments[1]) if len(segments) > 1 else None
    name = decode_component(segments[3]) if len(segments) > 3 else None
    if name is not None and check_names:
        check_object_name(name)
    action, destination = None, None
    if len(segments) > 4:
        action = segments[4]
        shape = ["b", segments[6] if len(segments) > 6 else "", "o"]
        if action not in ACTIONS or (action == "compose") != (len(segments) == 5) or (
                action != "compose" and (len(segments) != 9 or segments[5:8] != shape)):
            raise UnknownTarget(raw_path)
        if action != "compose":
            destination = (decode_component(segments[6]), check_object_name(decode_component(segments[8])))
    if bucket == "" or (destination and not destination[0]):
        raise UnknownTarget(raw_path)
    for named in (bucket, destination and destination[0]):
        if named:
            check_bucket_name(named)
    return Target(api, bucket, len(segments) > 2, name, action, destination, parse_query(raw_query))
