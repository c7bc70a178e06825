"""The rules playground: a request described in JSON, judged by the same `authorize_async()` as a real
request (with the bucket's stored object as `resource`), and explained as in the request log."""

from __future__ import annotations

import copy
from typing import Any

from ..auth import ANONYMOUS, Principal
from ..errors import ApiError
from ..metadata import Digest, ObjectMetadata
from ..rules.access import DECISIONS, authorize_async
from ..rules.explain import Decision
from ..rules.request_model import rules_path
from ..state import EmulatorState

METHODS = ("get", "list", "create", "update", "delete")


async def judge(state: EmulatorState, body: Any) -> dict[str, Any]:
    """`body`: {"bucket", "method", "path", "auth": null | {"uid", "email", "claims": {…}},
    "resource": null | {"size", "contentType", "metadata": {…}}} (the request's resource, for
    create and update). ValueError names the first bad field."""
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object")
    bucket, method, name = _text(body, "bucket"), _text(body, "method"), _text(body, "path", allow_empty=True)
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    principal = _principal(body.get("auth"))
    stored = state.store.get(bucket, name) if method != "list" else None
    resource = stored.metadata if stored else None
    try:
        request_resource = _request_resource(bucket, name, method, resource, body.get("resource"))
    except ApiError as error:  # metadata that no upload could carry
        raise ValueError(error.message) from None
    decisions: list[Decision] = []
    context = DECISIONS.set(decisions)
    try:
        await authorize_async(state.rules, state.flavor, method, bucket, name, principal,
                              resource=resource, request_resource=request_resource)
        status, message = 200, None
    except ApiError as error:
        status, message = error.status, error.message
    finally:
        DECISIONS.reset(context)
    if decisions:
        return {"status": status, "message": message, **decisions[-1].explain()}
    reason = "no rules are loaded: everything is allowed" if status == 200 else message
    return {"status": status, "message": message, "method": method, "path": "/" + "/".join(rules_path(bucket, name)),
            "verdict": "allowed" if status == 200 else "denied", "reason": reason, "statements": []}


def _text(body: dict, key: str, allow_empty: bool = False) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not (value or allow_empty):
        raise ValueError(f"{key} must be a{'' if allow_empty else ' non-empty'} string")
    return value


def _string_map(value: Any, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a JSON object")
    return value


def _principal(auth: Any) -> Principal:
    if auth is None:
        return ANONYMOUS
    auth = _string_map(auth, "auth")
    uid = _text(auth, "uid")
    claims: dict[str, Any] = {"sub": uid, "user_id": uid}
    if auth.get("email"):
        claims["email"] = _text(auth, "email")
    claims.update(_string_map(auth.get("claims"), "auth.claims"))
    return Principal(claims=claims)


def _request_resource(bucket: str, name: str, method: str, existing: ObjectMetadata | None,
                      described: Any) -> ObjectMetadata | None:
    """The object as it would be after the write: an update patches the stored object."""
    if method not in ("create", "update"):
        return None
    described = _string_map(described, "resource")
    size = described.get("size", 0)
    if type(size) is not int or size < 0:
        raise ValueError("resource.size must be a non-negative integer")
    content_type = described.get("contentType") or None
    if content_type is not None and not isinstance(content_type, str):
        raise ValueError("resource.contentType must be a string")
    custom = _string_map(described.get("metadata"), "resource.metadata")
    if not all(isinstance(value, str) for value in custom.values()):
        raise ValueError("resource.metadata values must be strings")
    if method == "update":
        if existing is None:
            return None
        patched = copy.deepcopy(existing)
        patched.patch({"contentType": content_type, "metadata": custom} if content_type else {"metadata": custom})
        return patched
    return ObjectMetadata.for_upload(bucket, name, {"contentType": content_type, "metadata": custom},
                                     Digest(size, "", 0), content_type)
