"""The Auth routes, production-shaped with the production host as a path prefix (as firebase-tools
serves them), on the Auth port and on the storage port."""

from __future__ import annotations

from typing import Any, Callable

from aiohttp import web

from ..state import STATE
from . import operations
from .calls import Fields, is_admin, read_body, require_api_key
from .errors import AuthError, login_required
from .operations import Call
from .paths import IDENTITY_TOOLKIT, LEGACY_RELYING_PARTY, SECURE_TOKEN

Operation = Callable[[Call], dict[str, Any]]
# `accounts:<name>` for a user (API key) or an admin (Bearer owner) ...
ACCOUNT_OPERATIONS: dict[str, Operation] = {
    "signUp": operations.sign_up, "signInWithPassword": operations.sign_in_with_password,
    "signInWithCustomToken": operations.sign_in_with_custom_token, "lookup": operations.lookup,
    "update": operations.update, "delete": operations.delete}
# ... and `projects/<id>/accounts:<name>` for an admin (firebase-admin's user management).
PROJECT_OPERATIONS: dict[str, Operation] = {
    "lookup": operations.lookup, "update": operations.update, "delete": operations.delete,
    "batchDelete": operations.batch_delete}
# The legacy v3 names of the user operations (embedded clients still call them), served as v1.
LEGACY_NAMES = {"signupNewUser": "signUp", "verifyPassword": "signInWithPassword",
                "verifyCustomToken": "signInWithCustomToken", "getAccountInfo": "lookup",
                "setAccountInfo": "update", "deleteAccount": "delete"}


def add_identity_routes(app: web.Application) -> None:
    app.router.add_post(IDENTITY_TOOLKIT + "/accounts:{operation}", _account_operation)
    app.router.add_post(LEGACY_RELYING_PARTY + "/{operation}", _legacy_operation)
    app.router.add_post(IDENTITY_TOOLKIT + "/projects/{project}/accounts", _create_account)
    app.router.add_post(IDENTITY_TOOLKIT + "/projects/{project}/accounts:{operation}", _project_operation)
    app.router.add_get(IDENTITY_TOOLKIT + "/projects/{project}/accounts:batchGet", _list_accounts)
    app.router.add_post(SECURE_TOKEN, _refresh)
    app.router.add_delete("/emulator/v1/projects/{project}/accounts", _reset_accounts)


async def ready(request: web.Request) -> web.Response:
    """`GET /` on the Auth port, as firebase-tools answers it."""
    return web.json_response({"authEmulator": {"ready": True}})


async def _account_operation(request: web.Request) -> web.Response:
    return await _answer(request, _named(ACCOUNT_OPERATIONS, request), admin_only=False)


async def _legacy_operation(request: web.Request) -> web.Response:
    name = LEGACY_NAMES.get(request.match_info["operation"])
    return await _answer(request, ACCOUNT_OPERATIONS.get(name), admin_only=False)


async def _project_operation(request: web.Request) -> web.Response:
    return await _answer(request, _named(PROJECT_OPERATIONS, request), admin_only=True)


async def _create_account(request: web.Request) -> web.Response:
    return await _answer(request, operations.sign_up, admin_only=True)


async def _list_accounts(request: web.Request) -> web.Response:
    return await _answer(request, operations.batch_get, admin_only=True, fields_from_query=True)


async def _refresh(request: web.Request) -> web.Response:
    return await _answer(request, operations.grant_token, admin_only=False)


async def _reset_accounts(request: web.Request) -> web.Response:
    request.app[STATE].accounts.reset(request.match_info["project"])
    return web.json_response({})


def _named(table: dict[str, Operation], request: web.Request) -> Operation | None:
    return table.get(request.match_info["operation"])


async def _answer(request: web.Request, operation: Operation | None, *, admin_only: bool,
                  fields_from_query: bool = False) -> web.Response:
    store = request.app[STATE].accounts
    try:
        if operation is None:
            raise AuthError("Not Found", 404, "NOT_FOUND", "notFound")
        admin = is_admin(request)
        if admin_only and not admin:
            raise login_required()
        if not admin:
            require_api_key(request)
        if fields_from_query:
            body = {name: value for name, value in request.query.items() if name != "key"}
        else:
            body = await read_body(request)
        project = request.match_info.get("project") or store.default_project
        if admin and isinstance(body.get("targetProjectId"), str):
            project = body["targetProjectId"]
        return _compressed(request, web.json_response(operation(Call(store, project, Fields(body), admin))))
    except AuthError as error:
        return _compressed(request, error.response())


def _compressed(request: web.Request, response: web.Response) -> web.Response:
    """Production's Identity Toolkit gzips its answers for a client that accepts gzip."""
    if (request.app[STATE].flavor.production_headers and request.path.startswith(IDENTITY_TOOLKIT)
            and "gzip" in request.headers.get("Accept-Encoding", "")):
        response.enable_compression(web.ContentCoding.gzip)
    return response
