"""Dispatch of the GCS JSON API paths, and their registration on the emulator's app.

GCS requests are admin requests: security rules are never consulted, as in the official emulator.
"""

from __future__ import annotations

from aiohttp import web

from ..auth import check_gcs_authorization
from ..signed_urls import handle_signed
from ..state import STATE, EmulatorState
from .buckets import create_bucket, delete_bucket, get_bucket, list_buckets, require_bucket, update_bucket
from .copies import compose_object, copy_object, rewrite_object
from .errors import not_implemented, renders_gcs_errors
from .listing import list_page
from .objects import delete_object, get_object, update_object
from .resource import base_url
from .targets import Target, UnknownTarget, parse_target
from .uploads import cancel_resumable, continue_resumable, insert_object

# aiohttp route patterns: any character after the prefix, names are decoded by parse_target.
PATTERNS = (r"/storage/v1/b{tail:[\s\S]*}", r"/upload/storage/v1/b{tail:[\s\S]*}",
            r"/download/storage/v1/b{tail:[\s\S]*}", r"/b{tail:(/[\s\S]*)?}")


@renders_gcs_errors
async def handle_gcs(request: web.Request) -> web.StreamResponse:
    if "X-Goog-Algorithm" in request.query:  # a signed URL of a bucket named like a route ("b")
        return await handle_signed(request)
    method = "GET" if request.method == "HEAD" else request.method
    state = request.app[STATE]
    check_gcs_authorization(request.headers.get("Authorization"), state.service_accounts,
                            state.accounts.id_token_keys)
    try:
        target = parse_target(request.raw_path,
                              check_names=not request.app[STATE].flavor.refuses_names_on_create_only)
    except UnknownTarget:
        raise not_implemented(request.method, request.path) from None
    response = await _dispatch(request, method, target)
    if response is None:
        raise not_implemented(request.method, request.path)
    return response


def _check_buckets(state: EmulatorState, target: Target) -> None:
    """404 for a bucket that does not exist, unless the flavor creates it on use, as firebase-tools
    does for any path naming `/b/{bucket}/…` (the upload session URLs included)."""
    buckets = [target.bucket] + ([target.destination[0]] if target.destination else [])
    for bucket in buckets:
        if state.flavor.creates_buckets_on_use and (target.objects or target.api != "json"):
            state.store.add_bucket(bucket)
        require_bucket(state, bucket)


async def _dispatch(request: web.Request, method: str, target: Target) -> web.StreamResponse | None:
    state, query = request.app[STATE], target.query
    bucket, name = target.bucket, target.name
    if target.api == "json" and bucket is None:  # the bucket collection
        if method == "GET":
            return list_buckets(request, state, query)
        return await create_bucket(request, state) if method == "POST" else None
    if bucket is None:
        return None
    if target.api == "json" and not target.objects:
        if method == "GET":
            return get_bucket(request, state, bucket)
        if method in ("PATCH", "PUT"):
            return await update_bucket(request, state, bucket, replace=method == "PUT")
        return delete_bucket(state, bucket) if method == "DELETE" else None
    _check_buckets(state, target)
    if target.api == "upload":
        if not target.objects or name is not None:
            return None
        if "upload_id" in query and method in ("PUT", "POST"):
            return await continue_resumable(request, state, query["upload_id"])
        if "upload_id" in query and method == "DELETE":
            return await cancel_resumable(state, query["upload_id"])
        return await insert_object(request, state, bucket, query) if method == "POST" else None
    if target.api == "download":
        if name is None or method != "GET" or target.action:
            return None
        return await get_object(request, state, bucket, name, {**query, "alt": "media"})
    if name is None:
        return web.json_response(list_page(state, base_url(request), bucket, query)) if method == "GET" else None
    if target.action == "compose":
        return await compose_object(request, state, bucket, name, query) if method == "POST" else None
    if target.action:
        copy = copy_object if target.action == "copyTo" else rewrite_object
        return await copy(request, state, (bucket, name), target.destination, query) if method == "POST" else None
    if method == "GET":
        return await get_object(request, state, bucket, name, query)
    if method in ("PATCH", "PUT"):
        return await update_object(request, state, bucket, name, query, replace=method == "PUT")
    if method == "DELETE":
        return await delete_object(state, bucket, name, query)
    return None


def add_gcs_routes(app: web.Application) -> None:
    for pattern in PATTERNS:
        app.router.add_route("*", pattern, handle_gcs)
