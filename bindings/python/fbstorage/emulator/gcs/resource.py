"""The GCS object and bucket resources over the store's ObjectMetadata, and metadata writes.

One record serves both APIs. GCS has no `downloadTokens` field: the Firebase download tokens are
the custom metadata key `firebaseStorageDownloadTokens`, as in production, so they are shown
there and writing that key (PATCH, PUT, an upload's resource) sets or removes them.
"""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import quote

from aiohttp import web

from ..errors import bad_request
from ..flavor import PRODUCTION
from ..state import STATE
from ..metadata import TOKENS_KEY, WRITABLE_FIELDS, ObjectMetadata, _split_tokens, rfc3339


REQUESTER_ENTITY = "user-owner"  # the admin credential (`Bearer owner`) as an ACL entity


def base_url(request: web.Request) -> str:
    return f"{request.scheme}://{request.host}"


def object_path(bucket: str, name: str) -> str:
    return f"/b/{_quoted_bucket(bucket)}/o/{quote(name, safe='')}"


@functools.lru_cache(maxsize=64)
def _quoted_bucket(bucket: str) -> str:
    """Quoted once per bucket, not once per item of a list page."""
    return quote(bucket, safe="")


def object_resource(metadata: ObjectMetadata, base: str) -> dict[str, Any]:
    """`storage#object`: the v0 fields (crc32c always base64, as GCS sends it), tokens as metadata."""
    resource = metadata.to_resource(PRODUCTION)
    resource.pop("downloadTokens", None)
    if metadata.content_encoding is None:
        resource.pop("contentEncoding", None)
    custom = dict(metadata.custom)
    if metadata.download_tokens:
        custom[TOKENS_KEY] = ",".join(metadata.download_tokens)
    if custom:
        resource["metadata"] = custom
    path = object_path(metadata.bucket, metadata.name)
    resource = {
        "kind": "storage#object",
        "id": f"{metadata.bucket}/{metadata.name}/{metadata.generation}",
        "selfLink": f"{base}/storage/v1{path}",
        "mediaLink": f"{base}/download/storage/v1{path}?generation={metadata.generation}&alt=media",
        **resource,
        "timeFinalized": rfc3339(metadata.time_created_us),  # a generation is final when created
        "timeStorageClassUpdated": rfc3339(metadata.time_created_us),
    }
    if metadata.time_deleted_us is not None:  # a noncurrent generation
        resource["timeDeleted"] = rfc3339(metadata.time_deleted_us)
    return resource


def object_response(request: web.Request, metadata: ObjectMetadata,
                    resource: dict[str, Any] | None = None) -> web.Response:
    """An object resource (`resource`, else the plain one) as the answer; production names its etag
    in an ETag header too."""
    headers = {"ETag": metadata.etag} if request.app[STATE].flavor.production_headers else None
    return web.json_response(resource or object_resource(metadata, base_url(request)), headers=headers)


def copied_resource(request: web.Request, metadata: ObjectMetadata) -> dict[str, Any]:
    """A copy's or rewrite's new object as their answers show it (Flavor.copies_show_owner)."""
    resource = object_resource(metadata, base_url(request))
    if request.app[STATE].flavor.copies_show_owner:
        resource["owner"] = {"entity": REQUESTER_ENTITY}
    return resource


def upload_resource(source: ObjectMetadata, changes: dict[str, Any]) -> dict[str, Any]:
    """The resource a copy or compose gives its new object: `source`'s writable fields and
    metadata (tokens included), with the request body's fields over them."""
    resource: dict[str, Any] = {key: getattr(source, attribute) for key, attribute in WRITABLE_FIELDS.items()}
    custom = dict(source.custom)
    if source.download_tokens:
        custom[TOKENS_KEY] = ",".join(source.download_tokens)
    resource["metadata"] = custom
    resource.update({key: value for key, value in changes.items() if key in WRITABLE_FIELDS or key == "metadata"})
    return resource


def apply_changes(metadata: ObjectMetadata, changes: Any, *, replace: bool) -> None:
    """PATCH (`replace=False`: omitted fields kept, null deletes, metadata merged key by key) or
    PUT update (`replace=True`: the body is the whole writable state). Metageneration +1."""
    if not isinstance(changes, dict):
        raise bad_request("The object resource must be a JSON object.")
    changes = dict(changes)
    custom = changes.get("metadata")
    tokens: list[str] | None = None  # None: tokens unchanged
    if replace:
        for key in WRITABLE_FIELDS:
            changes.setdefault(key, None)
        if custom is not None and not isinstance(custom, dict):
            raise bad_request("Metadata field 'metadata' must be an object.")
        custom = dict(custom or {})
        tokens = _split_tokens(custom.pop(TOKENS_KEY, None) or "")
        changes["metadata"] = {**{key: None for key in metadata.custom}, **custom}
    elif "metadata" in changes and custom is None:
        tokens = []
    elif isinstance(custom, dict) and TOKENS_KEY in custom:
        custom = dict(custom)
        value = custom.pop(TOKENS_KEY)
        if value is not None and not isinstance(value, str):
            raise bad_request(f"Metadata key {TOKENS_KEY!r} must be a string or null.")
        tokens = _split_tokens(value or "")
        changes["metadata"] = custom
    metadata.patch(changes)
    if tokens is not None:
        metadata.download_tokens = tokens
