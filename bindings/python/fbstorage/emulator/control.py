"""The test control API under /_emulator/ (documented in docs/emulator.md)."""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web

from .bodies import read_small_body
from .json_input import load_json
from .downloads import object_headers, stream_bytes
from .errors import ApiError, json_error
from .identity.tokens import encode_id_token, standard_claims
from .names import decode_component
from .rules import Ruleset, RulesSyntaxError
from .rules.registry import BucketRules
from .state import STATE

routes = web.RouteTableDef()


async def _json_body(request: web.Request) -> Any:
    try:
        return load_json(await read_small_body(request))
    except (ValueError, UnicodeDecodeError) as error:
        raise ApiError(400, f"Invalid JSON: {error}") from None


@routes.post("/_emulator/reset")
async def reset(request: web.Request) -> web.Response:
    await request.app[STATE].reset()
    return web.json_response({"reset": True})


@routes.get("/_emulator/requests")
async def list_requests(request: web.Request) -> web.Response:
    log = request.app[STATE].requests
    return web.json_response({"requests": log.entries(), "in_flight": log.in_flight})


@routes.delete("/_emulator/requests")
async def clear_requests(request: web.Request) -> web.Response:
    request.app[STATE].requests.clear()
    return web.Response(status=204)


@routes.post("/_emulator/faults")
async def add_fault(request: web.Request) -> web.Response:
    try:
        fault = request.app[STATE].faults.add(await _json_body(request))
    except ValueError as error:
        return json_error(400, f"Invalid fault: {error}")
    return web.json_response(fault.describe(), status=201)


@routes.get("/_emulator/faults")
async def list_faults(request: web.Request) -> web.Response:
    return web.json_response({"faults": request.app[STATE].faults.describe()})


@routes.delete("/_emulator/faults")
async def clear_faults(request: web.Request) -> web.Response:
    request.app[STATE].faults.clear()
    return web.Response(status=204)


@routes.put("/_emulator/rules")
async def set_rules(request: web.Request) -> web.Response:
    """Replace the rules of every bucket until the next reset with the storage.rules text of the
    body; an empty body allows everything. Rules that do not compile answer 400 and change nothing."""
    state = request.app[STATE]
    try:
        source = (await read_small_body(request)).decode("utf-8")
    except UnicodeDecodeError:
        return json_error(400, "Invalid rules: the body must be UTF-8 text.")
    if not source.strip():
        state.rules = BucketRules.allow_all()
        return web.Response(status=204)
    try:
        state.rules = BucketRules(Ruleset(source, "rules"))
    except RulesSyntaxError as error:
        return json_error(400, f"Invalid rules: {error}")
    return web.Response(status=204)


@routes.post("/_emulator/tokens")
async def mint_token(request: web.Request) -> web.Response:
    """An ID token for the body's claims (a JSON object naming its uid as `user_id` or `sub`),
    signed as the Auth emulator signs its own (unsigned in the firebase-tools flavor). The standard
    claims (this project's, valid for the token lifetime) are added unless the body gives them;
    a claim given as null is left out."""
    claims = await _json_body(request)
    if not isinstance(claims, dict):
        raise ApiError(400, "The body must be a JSON object of claims.")
    uid = next((claims[name] for name in ("user_id", "sub") if isinstance(claims.get(name), str)), None)
    if not uid:
        raise ApiError(400, "Name the token's uid: a non-empty string as user_id or sub.")
    accounts = request.app[STATE].accounts
    payload = {**standard_claims(accounts.default_project, uid, int(time.time()), accounts.token_lifetime),
               "user_id": uid, **claims}
    payload = {name: value for name, value in payload.items() if value is not None}
    return web.json_response({"idToken": encode_id_token(payload, accounts.id_token_keys)})


@routes.post("/_emulator/app-check/tokens")
async def mint_app_check_token(request: web.Request) -> web.Response:
    """An App Check token signed with the emulator's key, as the exchange answers it, for what an
    exchange never issues: `{"appId", "ttlSeconds" (0 or less: already expired), "project" (another
    project's audience), "limitedUse"}`."""
    fields = await _json_body(request)
    app_id, ttl = (fields.get(name) if isinstance(fields, dict) else None for name in ("appId", "ttlSeconds"))
    project = fields.get("project") if isinstance(fields, dict) else None
    if not (isinstance(app_id, str) and app_id and (ttl is None or type(ttl) is int)
            and (project is None or isinstance(project, str) and project)):
        raise ApiError(400, 'The body must be {"appId": "…", "ttlSeconds": int, "project": "…", "limitedUse": bool}.')
    return web.json_response(request.app[STATE].app_check.issue(
        app_id, limited_use=fields.get("limitedUse") is True, ttl_seconds=ttl, project=project))


@routes.get("/_emulator/objects/{bucket}/{name}")
async def raw_object(request: web.Request) -> web.StreamResponse:
    """An object's bytes, with no rules, Range or side effects; `x-goog-hash` carries its MD5."""
    state = request.app[STATE]
    segments = request.raw_path.partition("?")[0].split("/")  # "", "_emulator", "objects", bucket, name
    stored = state.store.get(decode_component(segments[3]), decode_component(segments[4]))
    if stored is None:
        return json_error(404, "No such object.")
    return await stream_bytes(request, stored, 0, stored.blob.size, 200, object_headers(stored, state.flavor))
