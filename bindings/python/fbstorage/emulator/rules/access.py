"""Enforcing the rules on a v0 request: the decision, and the answer per flavor (reference §7.9)."""

from __future__ import annotations

import logging
from contextvars import ContextVar
from typing import Mapping

from ..auth import Principal
from ..errors import ApiError
from ..flavor import Flavor
from ..metadata import ObjectMetadata
from . import firestore
from .explain import Decision
from .limits import RulesLimitExceeded
from .registry import BucketRules
from .request_model import auth_value, now, resource_from_metadata, rules_path, variables

log = logging.getLogger("fbstorage.emulator.rules")
PERMISSIONS = {"get": "READ", "list": "LIST", "create": "WRITE", "update": "WRITE", "delete": "WRITE"}
V1_LIST_MESSAGE = ('Listing objects in a bucket is disallowed for rules_version = "1". '
                   'Please update storage security rules to rules_version = "2" to use list.')
#: A list while a caller wants this request's decisions kept (the web UI's request log); None
#: otherwise, so that a request pays one lookup and nothing is kept.
DECISIONS: ContextVar[list[Decision] | None] = ContextVar("rules_decisions", default=None)


def authorize(rules: BucketRules, flavor: Flavor, method: str, bucket: str, name: str, principal: Principal, *,
              resource: ObjectMetadata | None = None, request_resource: ObjectMetadata | None = None,
              deny_headers: Mapping[str, str] | None = None) -> None:
    """Return if the rules grant `method` (get, list, create, update, delete) on the object or
    list prefix `name`; else raise the flavor's ApiError. Admin credentials skip the rules."""
    if principal.is_admin or not rules.configured:
        return
    ruleset = rules.for_bucket(bucket)
    decisions = DECISIONS.get()
    if ruleset is None:
        if decisions is not None:
            decisions.append(Decision(method, rules_path(bucket, name), False, reason="no ruleset is loaded"))
        raise ApiError(403, "Permission denied. Storage Emulator has no loaded ruleset.", headers=deny_headers)
    if method == "list" and ruleset.version < 2:
        if flavor.rejects_v1_list:
            raise ApiError(400, V1_LIST_MESSAGE)
        log.warning("Permission denied. List operations are only allowed for rules_version='2'.")
        if decisions is not None:
            decisions.append(Decision(method, rules_path(bucket, name), False, reason='list needs rules_version = "2"'))
        raise _denied(flavor, method, deny_headers)
    path = rules_path(bucket, name)
    values = variables(path, now(), auth_value(principal.claims), resource_from_metadata(resource, flavor),
                       resource_from_metadata(request_resource, flavor))
    try:
        allowed = ruleset.allows(method, path, values)
    except RulesLimitExceeded as error:
        log.warning("Permission denied: %s.", error)
        if decisions is not None:
            decisions.append(Decision(method, path, False, reason=f"denied: {error}"))
        raise _denied(flavor, method, deny_headers) from None
    if decisions is not None:
        decisions.append(Decision(method, path, allowed, ruleset, values))
    if not allowed:
        raise _denied(flavor, method, deny_headers)


async def authorize_async(rules: BucketRules, flavor: Flavor, method: str, bucket: str, name: str,
                          principal: Principal, **objects) -> None:
    """`authorize`, with the Firestore documents its rules read fetched first without blocking."""
    if needs_documents(rules, bucket, principal):
        await prefetch_documents(rules, flavor, method, bucket, name, principal, **objects)
    authorize(rules, flavor, method, bucket, name, principal, **objects)


def needs_documents(rules: BucketRules, bucket: str, principal: Principal) -> bool:
    """Whether deciding for `principal` on `bucket` may read Firestore documents."""
    ruleset = rules.for_bucket(bucket)
    return ruleset is not None and ruleset.uses_firestore and not principal.is_admin


async def prefetch_documents(rules: BucketRules, flavor: Flavor, method: str, bucket: str, name: str,
                             principal: Principal, **objects) -> None:
    """Fetch the Firestore documents that deciding this request reads (see rules/firestore.py)."""
    await firestore.prefetch(lambda: _decision(rules, flavor, method, bucket, name, principal, **objects))


def _decision(*arguments, **keywords) -> bool:
    trial = DECISIONS.set(None)  # a prefetch's trial runs are not the request's decisions
    try:
        authorize(*arguments, **keywords)
    except ApiError:
        return False
    finally:
        DECISIONS.reset(trial)
    return True


def _denied(flavor: Flavor, method: str, headers: Mapping[str, str] | None) -> ApiError:
    message = f"Permission denied. No {PERMISSIONS[method]} permission." if flavor.names_denied_permission \
        else "Permission denied."
    return ApiError(403, message, headers=headers)
