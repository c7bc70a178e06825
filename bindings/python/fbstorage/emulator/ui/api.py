"""The UI's JSON endpoints under /ui/api/. Object reads and writes go through the storage APIs
themselves (from the page, as an admin client); these add what those APIs lack."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from ..bodies import read_small_body
from ..json_input import load_json
from ..errors import ApiError
from ..listing import group_names, memoized, names_under_prefix
from ..metadata import rfc3339
from ..rules import RulesSyntaxError
from ..state import STATE
from .activity import ActivityLog
from .playground import judge
from .settings import SETTINGS

routes = web.RouteTableDef()
VERDICTS = ("", "allowed", "denied", "none")
MAX_PAGE = 1000


async def json_body(request: web.Request) -> Any:
    try:
        return load_json(await read_small_body(request))
    except (ValueError, UnicodeDecodeError) as error:
        raise ApiError(400, f"The body must be JSON: {error}") from None


def _log(request: web.Request) -> ActivityLog:
    return request.app[SETTINGS].activity


@routes.get("/api/config")
async def config(request: web.Request) -> web.Response:
    settings, state = request.app[SETTINGS], request.app[STATE]
    storage_url = settings.storage_url or f"{request.scheme}://{request.host}"
    return web.json_response({"storageUrl": storage_url, "flavor": state.flavor.name,
                              "identityUrl": storage_url if settings.serves_identity() else None,
                              "project": state.accounts.default_project})


@routes.get("/api/buckets")
async def buckets(request: web.Request) -> web.Response:
    store = request.app[STATE].store
    return web.json_response({"buckets": [{"name": bucket, "objects": len(store.sorted_names(bucket))}
                                          for bucket in sorted(store.buckets)]})   # every bucket the emulator knows


@routes.get("/api/list")
async def list_folder(request: web.Request) -> web.Response:
    """?bucket&prefix&start&limit: one page of a folder, its subfolders first, each object with
    its size, type and time (the v0 list gives names only). `next` is the next page's start."""
    query = request.query
    bucket, prefix = query.get("bucket", ""), query.get("prefix", "")
    if not bucket:
        raise ApiError(400, "bucket is required.")
    start, limit = _count(query, "start", 0), _count(query, "limit", 200)
    if not 1 <= limit <= MAX_PAGE:
        raise ApiError(400, f"limit must be from 1 to {MAX_PAGE}.")
    store = request.app[STATE].store

    def build() -> list[str]:
        items, prefixes = group_names(names_under_prefix(store.sorted_names(bucket), prefix), prefix, "/")
        return prefixes + items
    entries = memoized(store.memo(bucket), ("ui", prefix), build)
    page = []
    for name in entries[start:start + limit]:
        stored = None if name.endswith("/") else store.get(bucket, name)
        if stored is None:
            page.append({"name": name, "folder": True})
        else:
            metadata = stored.metadata
            page.append({"name": name, "size": metadata.size, "contentType": metadata.content_type,
                         "updated": rfc3339(metadata.updated_us)})
    following = start + limit
    return web.json_response({"entries": page, "total": len(entries),
                              "next": following if following < len(entries) else None})


def _count(query, key: str, default: int) -> int:
    raw = query.get(key)
    if raw is None:
        return default
    if not raw.isdigit():
        raise ApiError(400, f"{key} must be a non-negative integer, not {raw!r}.")
    return int(raw)


@routes.post("/api/delete-folder")
async def delete_folder(request: web.Request) -> web.Response:
    """{"bucket", "prefix"}: every object whose name starts with prefix (a folder ends with /)."""
    body = await json_body(request)
    bucket, prefix = body.get("bucket") if isinstance(body, dict) else None, body.get("prefix") if isinstance(body, dict) else None
    if not isinstance(bucket, str) or not bucket or not isinstance(prefix, str) or not prefix.endswith("/"):
        raise ApiError(400, 'Expected {"bucket": NAME, "prefix": "folder/"} (the prefix ends with "/").')
    store = request.app[STATE].store
    names = list(names_under_prefix(store.sorted_names(bucket), prefix))
    deleted = 0
    for name in names:
        deleted += await store.delete(bucket, name)
    return web.json_response({"deleted": deleted})


@routes.get("/api/requests")
async def requests(request: web.Request) -> web.Response:
    query = request.query
    try:
        after = int(query.get("after", "0"))
    except ValueError:
        raise ApiError(400, f"after must be an integer, not {query['after']!r}.") from None
    verdict = query.get("verdict", "")
    if verdict not in VERDICTS:
        raise ApiError(400, f"verdict must be allowed, denied or none, not {verdict!r}.")
    log = _log(request)
    entries = log.page(after, query.get("path", ""), query.get("user", ""), verdict)
    return web.json_response({"requests": [entry.to_json() for entry in entries], "kept": len(log),
                              "limit": log.limit})


@routes.delete("/api/requests")
async def clear_requests(request: web.Request) -> web.Response:
    _log(request).clear()
    return web.Response(status=204)


@routes.get("/api/rules")
async def rules(request: web.Request) -> web.Response:
    state = request.app[STATE]
    active = state.rules
    rulesets = []
    if active.default is not None:
        rulesets.append({"buckets": None, **_ruleset_json(active.default)})
    for bucket, ruleset in sorted(active.buckets.items()):
        rulesets.append({"buckets": [bucket], **_ruleset_json(ruleset)})
    error = state.startup_rules.reload_error
    return web.json_response({"configured": active.configured, "rulesets": rulesets,
                              "reloadError": None if error is None else _error_json(error)})


def _ruleset_json(ruleset) -> dict[str, Any]:
    return {"file": ruleset.file, "source": ruleset.source, "warnings": ruleset.warnings}


def _error_json(error: Exception) -> dict[str, Any]:
    if isinstance(error, RulesSyntaxError):
        return {"message": str(error), "file": error.file, "line": error.line, "column": error.column,
                "text": error.source_line}
    return {"message": str(error), "file": None, "line": None, "column": None, "text": None}


@routes.post("/api/playground")
async def playground(request: web.Request) -> web.Response:
    try:
        return web.json_response(await judge(request.app[STATE], await json_body(request)))
    except ValueError as error:
        raise ApiError(400, f"Invalid playground request: {error}") from None
