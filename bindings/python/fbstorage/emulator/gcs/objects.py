"""Object routes other than uploads and listing: get, download, PATCH, PUT update, delete."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from ..bodies import read_json_object
from ..downloads import download_response
from ..errors import ApiError, html_page
from ..state import EmulatorState
from ..store import StoredObject
from .preconditions import Preconditions, int_parameter
from .errors import GCS_PRECONDITION_FAILED, PreconditionFailed, no_such_object
from .resource import apply_changes, object_response


async def read_json(request: web.Request) -> dict[str, Any]:
    """The request's JSON object (an empty body is `{}`)."""
    return await read_json_object(request, "The request body")


def resource_response(request: web.Request, stored: StoredObject) -> web.Response:
    return object_response(request, stored.metadata)


def checked(stored: StoredObject | None, bucket: str, name: str, query: dict[str, str]) -> StoredObject:
    """`stored`, the object the request names (a 404 if None), if it meets the `if…` conditions."""
    if stored is None:
        raise no_such_object(bucket, name)
    Preconditions.from_query(query).check(stored)
    return stored


def checked_object(state: EmulatorState, bucket: str, name: str, query: dict[str, str]) -> StoredObject:
    """The object of the request's `generation` (default: the live one), checked."""
    return checked(state.store.get(bucket, name, int_parameter(query, "generation")), bucket, name, query)


async def get_object(request: web.Request, state: EmulatorState, bucket: str, name: str,
                     query: dict[str, str]) -> web.StreamResponse:
    media = query.get("alt") == "media"
    try:
        stored = checked_object(state, bucket, name, query)
    except PreconditionFailed as error:
        if media and state.flavor.words_preconditions_as_gcs:  # a page, not JSON; a 304 of the object's type
            if error.not_modified:
                content_type = state.store.get(bucket, name, int_parameter(query, "generation")).metadata.content_type
                return web.Response(status=304, headers={"Content-Type": content_type})
            return html_page(412, GCS_PRECONDITION_FAILED)
        raise
    except ApiError as error:
        if media and error.status == 404 and state.flavor.text_media_not_found:  # a page, not JSON
            return html_page(404, error.message)
        raise
    if media:
        return await download_response(request, stored, state.flavor)
    return resource_response(request, stored)


async def update_object(request: web.Request, state: EmulatorState, bucket: str, name: str,
                        query: dict[str, str], *, replace: bool) -> web.Response:
    """PATCH merges the body into the metadata; PUT replaces every writable field."""
    changes = await read_json(request)
    stored = checked_object(state, bucket, name, query)  # after the body: nothing awaited in between
    apply_changes(stored.metadata, changes, replace=replace)
    await state.store.save_metadata(stored)
    return resource_response(request, stored)


async def delete_object(state: EmulatorState, bucket: str, name: str, query: dict[str, str]) -> web.Response:
    """The conditions are checked again under the commit lock, with the delete."""
    checked_object(state, bucket, name, query)
    await state.store.delete(bucket, name, lambda current: checked(current, bucket, name, query),
                             int_parameter(query, "generation"))
    return web.Response(status=204)
