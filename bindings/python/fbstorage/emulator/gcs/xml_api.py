"""The GCS XML API, as the tools built on Rust's object_store use it (obstore, Polars, DataFusion,
delta-rs), on the same store: `PUT|GET|HEAD|DELETE /{bucket}/{object}`, copies with
`x-goog-copy-source`, `GET /{bucket}?list-type=2` and XML multipart uploads (`POST …?uploads`,
`PUT …?partNumber=&uploadId=`, `POST …?uploadId=`, `DELETE …?uploadId=`).

Its paths are any `/{bucket}[/{object}]`, so it answers only requests no other route takes
(`serve_xml_api`, a middleware): the v0, JSON API and control routes, and any a later feature
adds, always come first. Errors are XML (`<Error><Code>…`), as the XML API sends them.
"""

from __future__ import annotations

import base64
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any
from urllib.parse import unquote
from xml.sax.saxutils import escape

from aiohttp import web

from ..auth import ADMIN
from ..blobs import BlobWriter, FileBlob
from ..bodies import iter_body, read_small_body
from ..downloads import download_response
from ..errors import ApiError, bad_request
from ..metadata import ObjectMetadata, rfc3339
from ..names import check_object_name, decode_component, parse_query
from ..signed_urls import handle_signed, is_signed_url
from ..state import STATE, EmulatorState
from ..uploads import ACTIVE, CANCELLED, UploadSession, commit_upload
from ..buckets import valid_bucket_name
from .buckets import NO_SUCH_BUCKET, require_bucket
from .copies import write_object, write_pieces
from .listing import ITEM, listing_entries, page_of
from .preconditions import Preconditions
from .resource import upload_resource

XML_HEADER = "<?xml version='1.0' encoding='UTF-8'?>"
NAMESPACE = "http://doc.s3.amazonaws.com/2006-03-01"
ERROR_CODES = {400: "InvalidArgument", 404: "NoSuchKey", 409: "Conflict", 412: "PreconditionFailed",
               413: "EntityTooLarge", 416: "InvalidRange", 501: "NotImplemented"}
MAX_KEYS = 1000
# Request header -> writable resource field.
HEADER_FIELDS = {"Content-Type": "contentType", "Cache-Control": "cacheControl",
                 "Content-Disposition": "contentDisposition", "Content-Encoding": "contentEncoding",
                 "Content-Language": "contentLanguage"}
META_PREFIX = "x-goog-meta-"


class XmlError(ApiError):
    """An ApiError with the XML API's error code (`NoSuchBucket`, `NoSuchUpload`, …)."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(status, message)
        self.code = code


def xml_response(body: str, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(status=status, text=XML_HEADER + body, content_type="application/xml", headers=headers)


def _error_response(error: ApiError) -> web.Response:
    code = getattr(error, "code", None) or ERROR_CODES.get(error.status, "InternalError")
    if error.message == NO_SUCH_BUCKET:
        code = "NoSuchBucket"
    return xml_response(f"<Error><Code>{code}</Code><Message>{escape(error.message)}</Message></Error>",
                        error.status, error.headers)


@web.middleware
async def serve_xml_api(request: web.Request, handler) -> web.StreamResponse:
    """Requests that match no route and name `/{bucket}[/{object}]`, the bucket a name GCS allows
    or one that exists, are XML API requests; any other path stays the plain 404."""
    no_route = getattr(request.match_info, "http_exception", None)
    raw_path = request.raw_path.partition("?")[0]
    raw_bucket, _, raw_name = raw_path[1:].partition("/")
    if no_route is None or no_route.status != 404:
        return await handler(request)
    if is_signed_url(request.query):  # a V4 signed URL: verified, then served as admin
        return await handle_signed(request)
    state = request.app[STATE]
    bucket = unquote(raw_bucket)
    if not (valid_bucket_name(bucket) or bucket in state.store.buckets):
        return await handler(request)
    try:
        return await _dispatch(request, state, bucket, raw_name)
    except ApiError as error:
        return _error_response(error)


async def _dispatch(request: web.Request, state: EmulatorState, bucket: str, raw_name: str) -> web.StreamResponse:
    require_bucket(state, bucket)
    query = parse_query(request.raw_path.partition("?")[2])
    method = request.method
    if not raw_name:
        if method == "GET":
            return _list(state, bucket, query)
        raise ApiError(501, f"{method} on a bucket is not part of the emulator's XML API.")
    name = check_object_name(decode_component(raw_name))
    if "uploadId" in query:
        upload = _multipart_upload(state, bucket, name, query["uploadId"])
        if method == "PUT" and "partNumber" in query:
            return await _put_part(request, state, upload, query["partNumber"])
        if method == "POST":
            return await _complete(request, state, upload)
        if method == "DELETE":
            await _abort(upload)
            return web.Response(status=204)
    elif method == "POST" and "uploads" in query:
        return await _initiate(request, state, bucket, name)
    elif method == "PUT" and "x-goog-copy-source" in request.headers:
        return await _copy(request, state, bucket, name)
    elif method == "PUT":
        return await _put(request, state, bucket, name)
    elif method in ("GET", "HEAD"):
        return await _get(request, state, bucket, name, query)
    elif method == "DELETE":
        if not await state.store.delete(bucket, name, generation=_generation(query.get("generation"))):
            raise _no_such_key()
        return web.Response(status=204)
    raise ApiError(501, f"{method} {request.path} is not part of the emulator's XML API.")


def _no_such_key() -> XmlError:
    return XmlError(404, "NoSuchKey", "The specified key does not exist.")


def _generation(raw: str | None) -> int | None:
    if raw is None:
        return None
    if not raw.isdigit():
        raise bad_request(f"Invalid generation {raw!r}.")
    return int(raw)


def _conditions(request: web.Request) -> Preconditions:
    """`x-goog-if-generation-match` and `x-goog-if-metageneration-match`, the XML API's preconditions."""
    headers = {"ifGenerationMatch": "x-goog-if-generation-match", "ifMetagenerationMatch": "x-goog-if-metageneration-match"}
    return Preconditions.from_query({key: request.headers[header] for key, header in headers.items()
                                     if header in request.headers})


def _resource(request: web.Request) -> dict[str, Any]:
    """The new object's metadata from the request headers, as the XML API takes it."""
    resource: dict[str, Any] = {key: request.headers[header] for header, key in HEADER_FIELDS.items()
                                if header in request.headers}
    resource["metadata"] = {name[len(META_PREFIX):]: value for name, value in request.headers.items()
                            if name.lower().startswith(META_PREFIX)}
    return resource


def _md5_hex(metadata: ObjectMetadata) -> str:
    return base64.b64decode(metadata.md5_hash).hex()


def _object_headers(metadata: ObjectMetadata) -> dict[str, str]:
    """What the XML API adds to an object's headers: its ETag (the quoted MD5), Last-Modified and
    custom metadata."""
    headers = {"ETag": f'"{_md5_hex(metadata)}"', "Last-Modified": formatdate(metadata.updated_us / 1e6, usegmt=True),
               "x-goog-generation": str(metadata.generation), "x-goog-metageneration": str(metadata.metageneration)}
    headers.update({META_PREFIX + key: value for key, value in metadata.custom.items()})
    return headers


async def _get(request: web.Request, state: EmulatorState, bucket: str, name: str,
               query: dict[str, str]) -> web.StreamResponse:
    stored = state.store.get(bucket, name, _generation(query.get("generation")))
    if stored is None:
        raise _no_such_key()
    return await download_response(request, stored, state.flavor, _object_headers(stored.metadata))


async def _receive(request: web.Request, writer: BlobWriter) -> None:
    async for piece in iter_body(request):
        await writer.write(piece)


async def _put(request: web.Request, state: EmulatorState, bucket: str, name: str) -> web.Response:
    writer = state.store.new_writer(one_shot=True)
    try:
        await _receive(request, writer)
        metadata = await commit_upload(state.store, bucket, name, writer, _resource(request), None,
                                       _conditions(request).check)
    except BaseException:
        await writer.discard()
        raise
    return web.Response(headers=_object_headers(metadata))


async def _copy(request: web.Request, state: EmulatorState, bucket: str, name: str) -> web.Response:
    """`x-goog-copy-source: {bucket}/{object}` (percent-encoded, `/` first or not); the source's
    metadata is copied unless `x-goog-metadata-directive: REPLACE` takes the request's."""
    source_bucket, _, source_name = request.headers["x-goog-copy-source"].lstrip("/").partition("/")
    source_bucket, source_name = decode_component(source_bucket), decode_component(source_name)
    require_bucket(state, source_bucket)
    source = state.store.get(source_bucket, source_name,
                             _generation(request.headers.get("x-goog-copy-source-generation")))
    if source is None:
        raise _no_such_key()
    conditions = _conditions(request)
    conditions.check(state.store.get(bucket, name))
    replace = request.headers.get("x-goog-metadata-directive", "COPY").upper() == "REPLACE"
    resource = _resource(request) if replace else upload_resource(source.metadata, {})
    metadata = await write_object(state, bucket, name, resource, [source.blob.pieces(0, source.metadata.size)],
                                  conditions)
    body = (f"<CopyObjectResult><LastModified>{rfc3339(metadata.updated_us)}</LastModified>"
            f'<ETag>"{_md5_hex(metadata)}"</ETag></CopyObjectResult>')
    return xml_response(body, headers={"x-goog-generation": str(metadata.generation)})


def _list(state: EmulatorState, bucket: str, query: dict[str, str]) -> web.Response:
    """`list-type=2`: `prefix`, `delimiter`, `max-keys` (≤ 1000), `continuation-token`, `start-after`."""
    prefix, delimiter = query.get("prefix", ""), query.get("delimiter", "")
    raw_max = query.get("max-keys", str(MAX_KEYS))
    if not raw_max.isdigit():
        raise bad_request(f"Invalid max-keys {raw_max!r}.")
    max_keys = min(int(raw_max), MAX_KEYS)
    entries = listing_entries(state, bucket, prefix, delimiter)
    start_after = query.get("start-after", "").encode("utf-8")
    if start_after:
        entries = [entry for entry in entries if entry[0] > start_after]
    chosen, token = page_of(entries, query.get("continuation-token"), max_keys) if max_keys else ([], None)
    parts = [f'<ListBucketResult xmlns="{NAMESPACE}"><Name>{escape(bucket)}</Name><Prefix>{escape(prefix)}</Prefix>',
             f"<KeyCount>{len(chosen)}</KeyCount><MaxKeys>{max_keys}</MaxKeys>",
             f"<IsTruncated>{'true' if token else 'false'}</IsTruncated>"]
    if delimiter:
        parts.append(f"<Delimiter>{escape(delimiter)}</Delimiter>")
    for _, kind, generation, name in chosen:
        if kind == ITEM:
            metadata = state.store.get(bucket, name, generation).metadata
            parts.append(f"<Contents><Key>{escape(name)}</Key><Generation>{metadata.generation}</Generation>"
                         f"<MetaGeneration>{metadata.metageneration}</MetaGeneration>"
                         f"<LastModified>{rfc3339(metadata.updated_us)}</LastModified>"
                         f'<ETag>"{_md5_hex(metadata)}"</ETag><Size>{metadata.size}</Size></Contents>')
        else:
            parts.append(f"<CommonPrefixes><Prefix>{escape(name)}</Prefix></CommonPrefixes>")
    if token:
        parts.append(f"<NextContinuationToken>{token}</NextContinuationToken>")
    parts.append("</ListBucketResult>")
    return xml_response("".join(parts))


# Multipart uploads: an upload session whose parts are separate staged files until completed.

@dataclass
class MultipartParts:
    parts: dict[int, tuple[BlobWriter, str]] = field(default_factory=dict)  # number -> (finished writer, MD5 hex)


async def _initiate(request: web.Request, state: EmulatorState, bucket: str, name: str) -> web.Response:
    resource = _resource(request)
    session = await state.sessions.start(bucket=bucket, name=name, resource=resource, declared_size=None,
                                         declared_content_type=None, writer=state.store.new_writer(),
                                         principal=ADMIN, protocol_state=MultipartParts())
    return xml_response(f"<InitiateMultipartUploadResult><Bucket>{escape(bucket)}</Bucket><Key>{escape(name)}</Key>"
                        f"<UploadId>{session.id}</UploadId></InitiateMultipartUploadResult>")


def _multipart_upload(state: EmulatorState, bucket: str, name: str, upload_id: str) -> UploadSession:
    session = state.sessions.get(upload_id)
    if (session is None or not isinstance(session.protocol_state, MultipartParts) or session.state != ACTIVE
            or (session.bucket, session.name) != (bucket, name)):
        raise XmlError(404, "NoSuchUpload", "The requested upload was not found.")
    return session


async def _put_part(request: web.Request, state: EmulatorState, session: UploadSession, raw_number: str) -> web.Response:
    if not raw_number.isdigit() or not 1 <= int(raw_number) <= 10000:
        raise bad_request(f"Invalid partNumber {raw_number!r}: 1 to 10000.")
    writer = state.store.new_writer()
    try:
        await _receive(request, writer)
        digest = await writer.finish()
    except BaseException:
        await writer.discard()
        raise
    etag = base64.b64decode(digest.md5_base64).hex()
    replaced = session.protocol_state.parts.get(int(raw_number))
    session.protocol_state.parts[int(raw_number)] = (writer, etag)
    if replaced is not None:
        await replaced[0].discard()
    if session.state != ACTIVE:  # aborted or reset while the part arrived
        await _abort(session)
    return web.Response(headers={"ETag": f'"{etag}"'})


async def _complete(request: web.Request, state: EmulatorState, session: UploadSession) -> web.Response:
    """The body lists the parts to join, in ascending order, each with the ETag its upload returned."""
    try:
        document = ElementTree.fromstring(await read_small_body(request))
    except ElementTree.ParseError:
        raise XmlError(400, "MalformedXML", "The XML you provided was not well-formed.") from None
    listed = [(part.findtext("{*}PartNumber"), part.findtext("{*}ETag")) for part in document.iterfind("{*}Part")]
    parts = session.protocol_state.parts
    numbers = []
    for number, etag in listed:
        if not (number or "").strip().isdigit() or int(number) not in parts \
                or (etag or "").strip().strip('"') != parts[int(number)][1]:
            raise XmlError(400, "InvalidPart", f"Part {number} was not uploaded, or its ETag is not {etag}.")
        numbers.append(int(number))
    if not numbers or numbers != sorted(set(numbers)):
        raise XmlError(400, "InvalidPartOrder", "The parts must be listed once each, in ascending order.")
    async with session.lock:
        if session.state != ACTIVE:
            raise XmlError(404, "NoSuchUpload", "The requested upload was not found.")
        sources = [FileBlob(parts[number][0].path, parts[number][0].size).pieces(0, parts[number][0].size)
                   for number in numbers]
        try:
            for pieces in sources:
                await write_pieces(session.writer, pieces)
            metadata = await commit_upload(state.store, session.bucket, session.name, session.writer,
                                           session.resource, None)
        finally:
            await _abort(session)
    body = (f"<CompleteMultipartUploadResult><Location>/{escape(session.bucket)}/{escape(session.name)}</Location>"
            f"<Bucket>{escape(session.bucket)}</Bucket><Key>{escape(session.name)}</Key>"
            f'<ETag>"{_md5_hex(metadata)}"</ETag></CompleteMultipartUploadResult>')
    return xml_response(body, headers={"x-goog-generation": str(metadata.generation)})


async def _abort(session: UploadSession) -> None:
    """End the upload: its parts and unfinished bytes are deleted (a committed object stays)."""
    session.state = CANCELLED
    parts, session.protocol_state.parts = session.protocol_state.parts, {}
    for writer, _ in parts.values():
        await writer.discard()
    await session.writer.discard()

