"""The test-harness routes of firebase-tools' Storage emulator, with its paths, bodies and answers
(firebase/firebase-tools src/emulator/storage/server.ts and src/emulator/hub.ts, read at commit
a786bda73b48196fce1df22fe2b1cbc9e463b2d0), as `@firebase/rules-unit-testing` and the
firebase CLI call them:

    PUT  /internal/setRules  {"rules": {"files": [{"name", "content", "resource"?}]}}
    POST /internal/reset     every object of every bucket and every upload session gone
    POST /internal/export    {"path", "initiatedBy"?}: the storage export folder, written to path
    POST /_admin/export      {"path"}: a whole export directory (the hub's route)

One file sets the rules of every bucket; several each need a `resource` (a bucket name). Rules
that do not compile answer firebase-tools' 400 and, unlike firebase-tools (which is then left with
no rules), the previous rules stay in force.
"""

from __future__ import annotations

import logging
from typing import Any

from aiohttp import web

from .bodies import read_small_body
from .exports import ExportRefused, export_all, export_storage
from .json_input import load_json
from .rules import Ruleset, RulesSyntaxError
from .rules.registry import BucketRules
from .state import STATE

routes = web.RouteTableDef()
log = logging.getLogger("fbstorage.emulator")


def _message(status: int, message: str) -> web.Response:
    return web.json_response({"message": message}, status=status)


async def _json_object(request: web.Request) -> dict[str, Any] | None:
    try:
        body = load_json(await read_small_body(request) or b"{}")
    except (ValueError, UnicodeDecodeError):
        return None
    return body if isinstance(body, dict) else None


@routes.put("/internal/setRules")
async def set_rules(request: web.Request) -> web.Response:
    body = await _json_object(request)
    rules = body.get("rules") if body else None
    files = rules.get("files") if isinstance(rules, dict) else None
    if not isinstance(files, list) or not files:
        return _message(400, "Request body must include 'rules.files' array")
    several = len(files) > 1
    for file in files:
        if not (isinstance(file, dict) and isinstance(file.get("name"), str) and isinstance(file.get("content"), str)
                and (not several or isinstance(file.get("resource"), str) and file["resource"])):
            return _message(400, "Each member of 'rules.files' array must contain 'name', 'content', and 'resource'"
                            if several else "Each member of 'rules.files' array must contain 'name' and 'content'")
    try:
        compiled = [(file.get("resource") if several else None, Ruleset(file["content"], file["name"]))
                    for file in files]
    except RulesSyntaxError as error:
        log.warning("rules not updated, the previous rules stay in force: %s", error)
        return _message(400, "There was an error updating rules, see logs for more details")
    replacement = BucketRules()
    for bucket, ruleset in compiled:
        replacement.replace(bucket, ruleset)
    request.app[STATE].rules = replacement
    return _message(200, "Rules updated successfully")


@routes.post("/internal/reset")
async def reset(request: web.Request) -> web.Response:
    state = request.app[STATE]
    state.sessions.clear()
    await state.store.reset()
    return web.Response(text="OK")


@routes.post("/internal/export")
async def export_storage_folder(request: web.Request) -> web.Response:
    body = await _json_object(request)
    path = body.get("path") if body else None
    if not isinstance(path, str) or not path:
        return web.Response(status=400, text="Export request body must include 'path'.")
    try:
        await export_storage(request.app[STATE].store, path)
    except ExportRefused as error:
        log.warning("storage export to %s refused: %s", path, error)
        return web.Response(status=400, text=f"Export refused: {error}")
    except OSError as error:
        log.warning("storage export to %s failed: %s", path, error)
        return web.Response(status=500, text=f"Export failed: {error}")
    return web.Response(text="OK")


@routes.post("/_admin/export")
async def export_directory(request: web.Request) -> web.Response:
    if "Origin" in request.headers:
        return _message(403, "Export cannot be triggered by external callers.")
    body = await _json_object(request)
    path = body.get("path") if body else None
    if not isinstance(path, str) or not path:
        return _message(400, "Export request body must include 'path'.")
    try:
        await export_all(request.app[STATE].store, path)
    except ExportRefused as error:
        log.warning("export to %s refused: %s", path, error)
        return _message(400, f"Export refused: {error}")
    except (OSError, ValueError) as error:  # ValueError: the directory holds a malformed export
        log.warning("export to %s failed: %s", path, error)
        return _message(500, f"Export failed: {error}")
    log.info("exported to %s", path)
    return _message(200, "OK")
