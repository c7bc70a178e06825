"""V4 signed URLs (GCS's XML API): `<endpoint>/<bucket>/<object>?X-Goog-Algorithm=GOOG4-RSA-SHA256&…`.

The emulator rebuilds the canonical request as Google does (the path as sent, the query but the
signature sorted and re-escaped, the signed headers folded, the payload hash or UNSIGNED-PAYLOAD),
verifies the RS256 signature with the public half of the service account's key, then the expiry,
and serves GET, HEAD, PUT and DELETE as admin. Refusals are GCS's XML errors (400 ExpiredToken,
403 SignatureDoesNotMatch, …)."""

from __future__ import annotations

import binascii
import hashlib
import time
from datetime import datetime, timezone
from urllib.parse import parse_qsl, quote, unquote
from xml.sax.saxutils import escape

from aiohttp import web

from .bodies import iter_body
from .downloads import download_response
from .names import check_object_name
from .state import STATE
from .uploads import commit_upload

ALGORITHM = "GOOG4-RSA-SHA256"
MAX_EXPIRES = 604800
METHODS = ("GET", "HEAD", "PUT", "DELETE")


class XmlError(Exception):
    def __init__(self, status: int, code: str, message: str, details: str = "", **extra: str):
        super().__init__(message)
        self.status, self.code, self.message, self.details, self.extra = status, code, message, details, extra

    def response(self) -> web.Response:
        parts = [f"<Code>{self.code}</Code>", f"<Message>{escape(self.message)}</Message>"]
        if self.details:
            parts.append(f"<Details>{escape(self.details)}</Details>")
        parts += [f"<{name}>{escape(value)}</{name}>" for name, value in self.extra.items()]
        body = "<?xml version='1.0' encoding='UTF-8'?><Error>" + "".join(parts) + "</Error>"
        return web.Response(status=self.status, text=body, content_type="application/xml")


def _parameter_error(details: str) -> XmlError:
    return XmlError(400, "AuthorizationQueryParametersError", "Error parsing the X-Goog-* query parameters.", details)


def is_signed_url(query) -> bool:
    """Whether a request's query makes it a V4 signed URL's (its signature is its credential)."""
    return "X-Goog-Algorithm" in query


async def handle_signed(request: web.Request) -> web.StreamResponse:
    """`/{bucket}/{object}` with a V4 signature; anything else there is not served."""
    query = parse_qsl(request.rel_url.raw_query_string, keep_blank_values=True)
    if not any(name == "X-Goog-Algorithm" for name, _ in query):
        raise web.HTTPNotFound()
    try:
        bucket, name = _target(request.raw_path)
        _verify(request, query)
        return await _serve(request, bucket, name)
    except XmlError as error:
        return error.response()


def _target(raw_path: str) -> tuple[str, str]:
    path = raw_path.split("?", 1)[0]
    bucket, _, name = path[1:].partition("/")
    if not name:
        raise XmlError(400, "InvalidArgument", "Invalid argument.", "A signed URL of the emulator names an object.")
    return unquote(bucket), unquote(name)


def _verify(request: web.Request, query: list[tuple[str, str]]) -> None:
    parameters = dict(query)
    if request.method not in METHODS:
        raise XmlError(405, "MethodNotAllowed", "The specified method is not allowed against this resource.")
    missing = [name for name in ("X-Goog-Algorithm", "X-Goog-Credential", "X-Goog-Date", "X-Goog-Expires",
                                 "X-Goog-SignedHeaders", "X-Goog-Signature") if name not in parameters]
    if missing:
        raise _parameter_error(f"Missing {', '.join(missing)}.")
    if parameters["X-Goog-Algorithm"] != ALGORITHM:
        raise _parameter_error(f"X-Goog-Algorithm must be {ALGORITHM}.")
    email, _, scope = parameters["X-Goog-Credential"].partition("/")
    stamp = parameters["X-Goog-Date"]
    try:
        signed_at = datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc).timestamp()
        expires = int(parameters["X-Goog-Expires"])
        signature = binascii.unhexlify(parameters["X-Goog-Signature"])
    except ValueError:
        raise _parameter_error("X-Goog-Date, X-Goog-Expires or X-Goog-Signature is malformed.") from None
    if not 1 <= expires <= MAX_EXPIRES:
        raise _parameter_error(f"X-Goog-Expires must be between 1 and {MAX_EXPIRES} seconds.")
    canonical = _canonical_request(request, query, parameters["X-Goog-SignedHeaders"])
    string_to_sign = "\n".join([ALGORITHM, stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    if not request.app[STATE].service_accounts.verify(email, string_to_sign.encode(), signature):
        raise XmlError(403, "SignatureDoesNotMatch", "Access denied.",
                       "The request signature we calculated does not match the signature you provided. "
                       "Check your Google secret key and signing method.",
                       StringToSign=string_to_sign, CanonicalRequest=canonical)
    if time.time() > signed_at + expires:
        raise XmlError(400, "ExpiredToken", "Invalid argument.", f"Request has expired: {int(signed_at + expires)}")


def _canonical_request(request: web.Request, query: list[tuple[str, str]], signed_headers: str) -> str:
    resource = request.raw_path.split("?", 1)[0]
    canonical_query = "&".join(sorted(f"{quote(name, safe='~')}={quote(value, safe='~')}"
                                      for name, value in query if name != "X-Goog-Signature"))
    headers = []
    for name in signed_headers.split(";"):
        values = request.headers.getall(name, [])
        headers.append(f"{name}:{','.join(' '.join(value.split()) for value in values)}")
    payload = request.headers.get("x-goog-content-sha256", "UNSIGNED-PAYLOAD") \
        if "x-goog-content-sha256" in signed_headers.split(";") else "UNSIGNED-PAYLOAD"
    return "\n".join([request.method, resource, canonical_query, "\n".join(headers) + "\n", signed_headers, payload])


async def _serve(request: web.Request, bucket: str, name: str) -> web.StreamResponse:
    state = request.app[STATE]
    if request.method == "PUT":
        writer = state.store.new_writer(one_shot=True)
        try:
            async for piece in iter_body(request):
                await writer.write(piece)
            await commit_upload(state.store, bucket, check_object_name(name), writer, {},
                                request.headers.get("Content-Type"))
        except BaseException:
            await writer.discard()
            raise
        return web.Response(status=200)
    stored = state.store.get(bucket, name)
    if stored is None:
        raise XmlError(404, "NoSuchKey", "The specified key does not exist.", f"No such object: {bucket}/{name}")
    if request.method == "DELETE":
        await state.store.delete(bucket, name)
        return web.Response(status=204)
    return await download_response(request, stored, state.flavor)
