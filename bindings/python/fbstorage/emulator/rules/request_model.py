"""The `request` and `resource` variables, built as the official Storage emulator builds them
(reference §7): the rules path is /b/<bucket>/o/<name>, `request.auth` is the unverified token's
payload with `uid` from its `user_id` claim, and an object has exactly the fields listed below."""

from __future__ import annotations

import time
from typing import Any

from ..flavor import Flavor
from ..metadata import ObjectMetadata
from .values import Path, Timestamp, from_json


def rules_path(bucket: str, name: str) -> tuple[str, ...]:
    """The path the runtime matches: empty segments dropped, so a list prefix `a/` is `a`."""
    return ("b", bucket, "o", *(segment for segment in name.split("/") if segment))


def now() -> Timestamp:
    """The emulator's request.time: millisecond precision."""
    return Timestamp(time.time_ns() // 1_000_000 * 1_000_000)


def auth_value(claims: dict[str, Any] | None) -> dict[str, Any] | None:
    if claims is None:
        return None
    token = from_json(claims)
    return {"uid": token.get("user_id"), "token": token}


def variables(path: tuple[str, ...], moment: Timestamp, auth: dict[str, Any] | None,
              resource: dict[str, Any] | None, request_resource: dict[str, Any] | None) -> dict[str, Any]:
    return {"request": {"path": Path(path), "time": moment, "resource": request_resource, "auth": auth},
            "resource": resource}


def resource_from_json(resource: dict[str, Any] | None) -> dict[str, Any] | None:
    """A resource written as JSON (test vectors): times are RFC 3339 strings."""
    if resource is None:
        return None
    value = from_json(resource)
    for key in ("timeCreated", "updated"):
        if isinstance(value.get(key), str):
            value[key] = Timestamp.parse(value[key])
    return value


def resource_from_metadata(metadata: ObjectMetadata | None, flavor: Flavor) -> dict[str, Any] | None:
    if metadata is None:
        return None
    resource = {
        "name": metadata.name,
        "bucket": metadata.bucket,
        "generation": metadata.generation,
        "metageneration": metadata.metageneration,
        "size": metadata.size,
        "timeCreated": Timestamp(metadata.time_created_us // 1000 * 1_000_000),
        "updated": Timestamp(metadata.updated_us // 1000 * 1_000_000),
        "md5Hash": metadata.md5_hash,
        "crc32c": flavor.format_crc32c(metadata.crc32c),
        "etag": metadata.etag,
        "contentType": metadata.content_type,
        "contentDisposition": metadata.content_disposition,
        "contentEncoding": metadata.content_encoding,
        "metadata": dict(metadata.custom),
    }
    if flavor.rules_see_all_fields:  # the official emulator leaves these two out
        resource["cacheControl"] = metadata.cache_control
        resource["contentLanguage"] = metadata.content_language
    return resource
