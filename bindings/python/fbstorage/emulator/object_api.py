"""The v0 API: routing of `/v0/b/{bucket}/o[/{name}]` and the non-upload object operations."""

from __future__ import annotations

import copy

from aiohttp import web

from .auth import Principal, principal_from_header
from .bodies import read_small_body
from .json_input import JsonTooDeep, load_json
from .downloads import download_response, object_headers
from .errors import ApiError, bad_request, not_found
from .identity.verification import refusal
from .listing import list_objects
from .metadata import new_token
from .names import parse_v0_target
from .rules.access import authorize_async
from .state import STATE, EmulatorState
from .store import StoredObject
from .upload_api import handle_upload, metadata_response


async def handle_v0(request: web.Request) -> web.StreamResponse:
    state = request.app[STATE]
    if request.raw_path in ("/v0", "/v0/"):
        return web.json_response({"emulator": "storage"})
    target = parse_v0_target(request.raw_path, check_names=not state.flavor.refuses_names_on_create_only)
    state.store.add_bucket(target.bucket)  # the app's buckets exist, as in a Firebase project
    principal = principal_from_header(request.headers.get("Authorization"), state.service_accounts)
    if state.flavor.verifies_id_tokens and principal.id_token is not None:
        refused = refusal(state.accounts, principal.id_token)
        if refused:  # the client refreshes its token on 401, and learns from Auth why it cannot
            raise ApiError(401, f"Invalid Credentials: {refused}.")
    method = request.method
    if method == "PUT" and request.headers.get("X-HTTP-Method-Override", "").upper() == "PATCH":
        method = "PATCH"
    name, query = target.name, target.query
    if name is None:
        if method == "GET":
            await authorize_async(state.rules, state.flavor, "list", target.bucket, query.get("prefix", ""), principal)
            names = state.store.sorted_names(target.bucket)
            return web.Response(body=list_objects(names, target.bucket, query, state.flavor,
                                                  state.store.memo(target.bucket)),
                                content_type="application/json", charset="utf-8")
    elif method in ("GET", "HEAD"):
        stored = await _readable_object(state, target.bucket, name, query.get("token"), principal)
        if query.get("alt") == "media":
            return await download_response(request, stored, state.flavor)
        if not stored.metadata.download_tokens:
            await _mint_first_token(state, stored)
        return metadata_response(stored.metadata, state)
    elif method == "PATCH":
        return await _update_metadata(request, state, target.bucket, name, principal)
    elif method == "DELETE":
        stored = state.store.get(target.bucket, name)
        await authorize_async(state.rules, state.flavor, "delete", target.bucket, name, principal,
                  resource=stored.metadata if stored else None)
        if not await state.store.delete(target.bucket, name):
            raise not_found()
        return web.Response(status=204)
    elif method in ("POST", "PUT") and (query.get("create_token") or query.get("delete_token")):
        return await _change_tokens(state, target.bucket, name, query, principal)
    if method in ("POST", "PUT"):
        return await handle_upload(request, state, target.bucket, name, query, principal)
    allowed = "GET, POST, PUT" if name is None else "DELETE, GET, HEAD, PATCH, POST, PUT"
    raise ApiError(405, f"Method {request.method} is not allowed here.", headers={"Allow": allowed})


async def _readable_object(state: EmulatorState, bucket: str, name: str, token: str | None,
                     principal: Principal) -> StoredObject:
    """Rules are checked before existence, unless `token` is one of the object's download tokens."""
    stored = state.store.get(bucket, name)
    if not (stored and token and token in stored.metadata.download_tokens):
        await authorize_async(state.rules, state.flavor, "get", bucket, name, principal,
                  resource=stored.metadata if stored else None)
    if stored is None:
        raise not_found()
    return stored


async def _mint_first_token(state: EmulatorState, stored: StoredObject) -> None:
    """An object uploaded through GCS has no download token until the Firebase API first reads its
    metadata: production mints one then."""
    stored.metadata.download_tokens.append(new_token())
    if state.flavor.counts_token_mint:
        stored.metadata.touch()
    await state.store.save_metadata(stored)


def _existing(state: EmulatorState, bucket: str, name: str) -> StoredObject:
    stored = state.store.get(bucket, name)
    if stored is None:
        raise not_found()
    return stored


async def _update_metadata(request: web.Request, state: EmulatorState, bucket: str, name: str,
                           principal: Principal) -> web.Response:
    body = await read_small_body(request)
    try:
        changes = load_json(body) if body.strip() else {}
    except JsonTooDeep as error:
        raise bad_request(f"The metadata update body: {error}.") from None
    except ValueError:
        raise bad_request("The metadata update body must be JSON.") from None
    stored = state.store.get(bucket, name)
    patched = None
    if stored is not None:
        patched = copy.deepcopy(stored.metadata)
        patched.patch(changes)
    await authorize_async(state.rules, state.flavor, "update", bucket, name, principal,
              resource=stored.metadata if stored else None, request_resource=patched)
    if stored is None and state.flavor.forbids_missing_update:
        raise ApiError(403, "Permission denied.")
    stored = _existing(state, bucket, name)
    stored.metadata.patch(changes)
    await state.store.save_metadata(stored)
    return metadata_response(stored.metadata, state, _patch_headers(stored, state))


def _patch_headers(stored: StoredObject, state: EmulatorState) -> dict[str, str]:
    """The object's own headers that v0 copies onto metadata replies (not the download ones)."""
    copied = ("Content-Disposition", "Content-Encoding", "Cache-Control", "Content-Language")
    return {name: value for name, value in object_headers(stored, state.flavor).items() if name in copied}


async def _change_tokens(state: EmulatorState, bucket: str, name: str, query: dict[str, str],
                         principal: Principal) -> web.Response:
    """`?create_token=true` adds a download token (production lists it first), `?delete_token=T`
    removes T (the last one is replaced by a new one). Admin only."""
    if not principal.is_admin:
        raise ApiError(403, "Missing admin credentials.")
    create = query.get("create_token")
    if create and create != "true":
        raise bad_request(f"create_token must be 'true', not {create!r}.")
    stored = _existing(state, bucket, name)
    metadata = stored.metadata
    if create:
        metadata.download_tokens.insert(0 if state.flavor.new_token_first else len(metadata.download_tokens),
                                        new_token())
        metadata.touch()
    elif metadata.download_tokens:
        token = query["delete_token"]
        if token in metadata.download_tokens:
            metadata.download_tokens.remove(token)
        metadata.touch()
        if not metadata.download_tokens:
            metadata.download_tokens.append(new_token())
            metadata.touch()
    await state.store.save_metadata(stored)
    return metadata_response(metadata, state, _patch_headers(stored, state))
