"""The Auth routes, production-shaped with the production host as a path prefix (as firebase-tools
serves them), on the Auth port and on the storage port."""

from __future__ import annotations

from typing import Any, Callable

from aiohttp import web

from ..state import STATE
from . import email_actions, federated, operations
from .calls import Fields, is_admin, read_body, require_api_key
from .errors import AuthError, login_required
from .action_links import open_action_link
from .operations import Call
from .paths import EMULATOR_ACTION, EMULATOR_PROJECT, IDENTITY_TOOLKIT, LEGACY_RELYING_PARTY, SECURE_TOKEN

Operation = Callable[[Call], dict[str, Any]]
# `accounts:<name>` for a user (API key) or an admin (Bearer owner) ...
ACCOUNT_OPERATIONS: dict[str, Operation] = {
    "signUp": operations.sign_up, "signInWithPassword": operations.sign_in_with_password,
    "signInWithCustomToken": operations.sign_in_with_custom_token, "lookup": operations.lookup,
    "update": email_actions.update_or_apply, "delete": operations.delete,
    "sendOobCode": email_actions.send_oob_code, "resetPassword": email_actions.reset_password,
    "signInWithEmailLink": email_actions.sign_in_with_email_link, "createAuthUri": email_actions.create_auth_uri,
    "signInWithIdp": federated.sign_in_with_idp}
# ... and `projects/<id>/accounts:<name>` for an admin (firebase-admin's user management).
PROJECT_OPERATIONS: dict[str, Operation] = {
    "lookup": operations.lookup, "update": email_actions.update_or_apply, "delete": operations.delete,
    "batchDelete": operations.batch_delete, "sendOobCode": email_actions.send_oob_code}
# The legacy v3 names of the user operations (embedded clients still call them), served as v1.
LEGACY_NAMES = {"signupNewUser": "signUp", "verifyPassword": "signInWithPassword",
                "verifyCustomToken": "signInWithCustomToken", "getAccountInfo": "lookup",
                "setAccountInfo": "update", "deleteAccount": "delete", "getOobConfirmationCode": "sendOobCode",
                "resetPassword": "resetPassword", "verifyAssertion": "signInWithIdp",
                "emailLinkSignin": "signInWithEmailLink", "createAuthUri": "createAuthUri"}


def add_identity_routes(app: web.Application) -> None:
    app.router.add_post(IDENTITY_TOOLKIT + "/accounts:{operation}", _account_operation)
    app.router.add_post(LEGACY_RELYING_PARTY + "/{operation}", _legacy_operation)
    app.router.add_post(IDENTITY_TOOLKIT + "/projects/{project}/accounts", _create_account)
    app.router.add_post(IDENTITY_TOOLKIT + "/projects/{project}/accounts:{operation}", _project_operation)
    app.router.add_get(IDENTITY_TOOLKIT + "/projects/{project}/accounts:batchGet", _list_accounts)
    app.router.add_post(SECURE_TOKEN, _refresh)
    app.router.add_delete(EMULATOR_PROJECT + "/accounts", _reset_accounts)
    app.router.add_get(EMULATOR_PROJECT + "/oobCodes", _pending_oob_codes)
    app.router.add_get(EMULATOR_ACTION, open_action_link)
    app.router.add_get(EMULATOR_PROJECT + "/config", _sign_in_config)
    app.router.add_patch(EMULATOR_PROJECT + "/config", _change_sign_in_config)


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


async def _pending_oob_codes(request: web.Request) -> web.Response:
    """Every code an email would carry, as firebase-tools lists them ({"oobCodes": [...]})."""
    store = request.app[STATE].accounts
    codes = store.project(request.match_info["project"]).oob_codes.pending(store.oob_code_lifetime)
    return web.json_response({"oobCodes": [code.to_api() for code in codes]})


async def _sign_in_config(request: web.Request) -> web.Response:
    return web.json_response(request.app[STATE].accounts.project(request.match_info["project"]).sign_in.to_api())


async def _change_sign_in_config(request: web.Request) -> web.Response:
    store = request.app[STATE].accounts
    settings = store.project(request.match_info["project"]).sign_in
    try:
        settings.update(await read_body(request))
    except AuthError as error:
        return error.response()
    store.save()
    return web.json_response(settings.to_api())


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
        call = Call(store, project, Fields(body), admin, f"{request.scheme}://{request.host}")
        return _compressed(request, web.json_response(operation(call)))
    except AuthError as error:
        return _compressed(request, error.response())


def _compressed(request: web.Request, response: web.Response) -> web.Response:
    """Production's Identity Toolkit gzips its answers for a client that accepts gzip."""
    if (request.app[STATE].flavor.production_headers and request.path.startswith(IDENTITY_TOOLKIT)
            and "gzip" in request.headers.get("Accept-Encoding", "")):
        response.enable_compression(web.ContentCoding.gzip)
    return response
