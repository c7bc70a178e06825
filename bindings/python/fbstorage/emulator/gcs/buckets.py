"""The bucket routes of the GCS JSON API: list, create, get, patch/update (versioning) and delete.

Production answers a bucket that does not exist with 404 "The specified bucket does not exist.",
on the bucket and on every object route under it; `require_bucket` is that check.
"""

from __future__ import annotations

import base64
import binascii
import bisect
from typing import Any
from urllib.parse import quote

from aiohttp import web

from ..buckets import Bucket, valid_bucket_name
from ..errors import ApiError, bad_request
from ..metadata import rfc3339
from ..state import EmulatorState
from ..store import utf8_order
from .listing import max_results
from .objects import read_json
from .resource import base_url


NO_SUCH_BUCKET = "The specified bucket does not exist."


def no_such_bucket() -> ApiError:
    return ApiError(404, NO_SUCH_BUCKET)


def require_bucket(state: EmulatorState, name: str) -> Bucket:
    bucket = state.store.buckets.get(name)
    if bucket is None:
        raise no_such_bucket()
    return bucket


def bucket_resource(bucket: Bucket, base: str) -> dict[str, Any]:
    resource = {"kind": "storage#bucket", "id": bucket.name, "name": bucket.name,
                "selfLink": f"{base}/storage/v1/b/{quote(bucket.name, safe='')}",
                "projectNumber": "0", "metageneration": str(bucket.metageneration), "location": "US-CENTRAL1",
                "storageClass": "STANDARD", "locationType": "region",
                "timeCreated": rfc3339(bucket.time_created_us), "updated": rfc3339(bucket.updated_us),
                "etag": base64.b64encode(f"{bucket.metageneration}".encode()).decode("ascii")}
    if bucket.versioning:
        resource["versioning"] = {"enabled": True}
    return resource


def _versioning(body: dict[str, Any]) -> bool | None:
    """The body's `versioning.enabled` (None: not set)."""
    versioning = body.get("versioning")
    if versioning is None:
        return None
    if not isinstance(versioning, dict) or not isinstance(versioning.get("enabled", False), bool):
        raise bad_request("Invalid value for versioning: it must be {\"enabled\": true|false}.")
    return versioning.get("enabled", False)


def list_buckets(request: web.Request, state: EmulatorState, query: dict[str, str]) -> web.Response:
    """Every bucket belongs to the one project, so `project` is not checked (GCS requires it; gcsfs
    lists without one when it has none); paged by name with an opaque token."""
    prefix = query.get("prefix", "")
    names = sorted((name for name in state.store.buckets if name.startswith(prefix)), key=utf8_order)
    first = 0
    if query.get("pageToken"):
        try:
            after = base64.b64decode(query["pageToken"].encode("ascii"), altchars=b"-_", validate=True)
        except (binascii.Error, ValueError, UnicodeEncodeError):
            raise bad_request("Invalid pageToken.") from None
        first = bisect.bisect_right(names, after, key=utf8_order)
    page_size = max_results(query.get("maxResults"))
    chosen = names[first:first + page_size]
    reply: dict[str, Any] = {"kind": "storage#buckets"}
    if chosen:
        reply["items"] = [bucket_resource(state.store.buckets[name], base_url(request)) for name in chosen]
    if first + page_size < len(names):
        reply["nextPageToken"] = base64.urlsafe_b64encode(utf8_order(chosen[-1])).decode("ascii")
    return web.json_response(reply)


async def create_bucket(request: web.Request, state: EmulatorState) -> web.Response:
    body = await read_json(request)
    name = body.get("name")
    if not isinstance(name, str) or not name:
        raise bad_request("Required: the bucket's name.")
    if not valid_bucket_name(name):
        raise bad_request(f"Invalid bucket name: '{name}'")
    if name in state.store.buckets:
        raise ApiError(409, "Your previous request to create the named bucket succeeded and you already own it.")
    bucket = state.store.add_bucket(name, versioning=bool(_versioning(body)))
    return web.json_response(bucket_resource(bucket, base_url(request)))


def get_bucket(request: web.Request, state: EmulatorState, name: str) -> web.Response:
    return web.json_response(bucket_resource(require_bucket(state, name), base_url(request)))


async def update_bucket(request: web.Request, state: EmulatorState, name: str, *, replace: bool) -> web.Response:
    """PATCH changes the fields given; PUT sets every one (only versioning is kept)."""
    body = await read_json(request)
    bucket = require_bucket(state, name)
    versioning = _versioning(body)
    if versioning is not None or replace:
        bucket.versioning = bool(versioning)
    bucket.touch()
    state.store.save_buckets()
    return web.json_response(bucket_resource(bucket, base_url(request)))


def delete_bucket(state: EmulatorState, name: str) -> web.Response:
    require_bucket(state, name)
    if not state.store.is_empty(name):
        raise ApiError(409, "The bucket you tried to delete is not empty.")
    state.store.delete_bucket(name)
    return web.Response(status=204)
