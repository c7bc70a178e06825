"""Behaviour policies: production Firebase Storage versus the official (firebase-tools) emulator.

Every difference between the two servers the emulator can imitate lives in one `Flavor` value, so
handlers ask a question ("are offsets checked?") instead of testing a flavor name.
"""

from __future__ import annotations

import base64
import mimetypes
import posixpath
from dataclasses import dataclass
from urllib.parse import quote


@dataclass(frozen=True)
class UploadDefaults:
    """What a new object gets when its upload does not say."""
    disposition: str | None = "inline"  # contentDisposition
    mints_token: bool = False  # a download token: through the Firebase API only, as in production
    content_type: str | None = None  # when the upload's Content-Type is none or application/octet-stream


@dataclass(frozen=True)
class Flavor:
    name: str
    # Resumable uploads.
    chunk_granularity: int
    checks_upload_offsets: bool  # offset, granularity, declared length and final size are verified
    reports_size_on_chunks: bool  # X-Goog-Upload-Size-Received on every chunk reply, not only on query
    refuses_gcs_resumable_start: bool  # v0 `?uploadType=resumable` without v0 headers is 400; else a media upload
    # Errors: False means 404 and generic 400 bodies are the plain-text status phrase.
    json_errors: bool
    # Listing.
    paginates_prefixes: bool  # prefixes share the pages with items; else every page repeats them all
    opaque_page_tokens: bool  # else the token is the raw name of the next page's first item
    bounds_max_results: bool  # maxResults must be 1..1000; else any number, junk means "no paging"
    # Objects.
    crc32c_as_base64: bool  # else the decimal string of the unsigned value
    rejects_unsatisfiable_range: bool  # 416; else 200 with the full body
    rfc5987_filename: bool  # `filename*=utf-8''<escaped>`; else the bare name, as firebase-tools sends
    # Buckets (GCS API).
    creates_buckets_on_use: bool  # a path naming `/b/{bucket}/…` creates it; else a bucket never created is 404
    # Security rules.
    names_denied_permission: bool  # 403 "Permission denied. No READ permission."; else "Permission denied."
    rejects_v1_list: bool  # 400 for a list under rules_version 1; else the 403 of any denial
    rules_see_all_fields: bool  # resource.cacheControl and contentLanguage exist; the official emulator lacks them
    # The Auth emulator signs ID tokens (RS256, identity/signing.py), and a token not signed by it,
    # missing a claim, expired, for another project or of a disabled, deleted or revoked user is
    # 401 (GCS: one not signed by it); else tokens are unsigned and any token it can decode is
    # accepted. In both, an unreadable one just means request.auth == null.
    verifies_id_tokens: bool
    # Production's own headers (production_headers.py, downloads.py): caching per route, the Firebase
    # API's CORS and nosniff, the stored object's headers on downloads; else only the object's.
    production_headers: bool
    text_media_not_found: bool  # a GCS media download of a missing object is a text page; else JSON
    # The contentDisposition an upload that names none gets: `inline; filename*=…` through the
    # Firebase API and none through the GCS APIs; else "inline" through both.
    stores_file_disposition: bool
    # The download token the Firebase API mints when it reads an object that has none (one uploaded
    # through GCS) is a metadata change: metageneration +1.
    counts_token_mint: bool
    forbids_missing_update: bool  # a Firebase API metadata update of a missing object is 403; else 404
    # A GCS upload's declared md5Hash/crc32c are verified and a multipart body's part count is
    # refused in production's words (gcs/upload_checks.py); else neither.
    checks_gcs_uploads: bool
    # A failed precondition (412) says production's one sentence and points at the If-Match header;
    # else its message names the condition that failed.
    words_preconditions_as_gcs: bool
    # A query parameter that must be an integer and is not (`ifMetagenerationMatch=1.5`) is refused as
    # production's parser does: "Invalid long value: '1.5'.", reason invalidParameter, the parameter
    # as location; else the message names the parameter.
    words_invalid_longs_as_gcs: bool
    # A copy or rewrite answers with projection full: the new object's owner (the requester) shows;
    # production's buckets have uniform access, so no acl does.
    copies_show_owner: bool
    new_token_first: bool  # `?create_token=true` puts the new download token first; else last
    # A Firebase API upload whose Content-Type says nothing (none, or application/octet-stream)
    # gets the type its name's extension implies.
    types_uploads_by_name: bool
    # A name no object can have (a line break, over 1024 bytes) is refused only when an upload
    # would create it (v0: 400 "Bad Request."; GCS: the upload server's page); reading, updating
    # or deleting it is the 404 of a missing object. Else it is a 400 wherever it appears.
    refuses_names_on_create_only: bool
    # The upload server answers as production's: resumable session answers are empty text/plain
    # ones with none of the APIs' headers (production_headers.py), a start names its control URL,
    # a query of an active session its chunk granularity, and refusals (a chunk at the wrong
    # offset, a multipart body without its parts) are its text pages; else JSON errors. A Firebase
    # API multipart body whose metadata is no JSON object is "Invalid metadata input.".
    upload_server_answers: bool
    # GCS listing honours matchGlob and answers maxResults=0 with an empty page; else matchGlob is
    # ignored and 0 is a 400.
    gcs_list_options: bool
    # Auth: changing a user's email or password, or deleting the user, with an ID token from a
    # sign-in older than this many seconds is CREDENTIAL_TOO_OLD_LOGIN_AGAIN; None: never.
    recent_login_seconds: int | None

    def format_crc32c(self, value: int) -> str:
        if self.crc32c_as_base64:
            return base64.b64encode(value.to_bytes(4, "big")).decode("ascii")
        return str(value)

    def filename_parameter(self, basename: str) -> str:
        if self.rfc5987_filename:
            return "filename*=utf-8''" + quote(basename, safe="")
        return "filename*=" + basename

    def upload_defaults(self, name: str, *, firebase: bool) -> UploadDefaults:
        if not self.stores_file_disposition:
            return UploadDefaults("inline", mints_token=firebase)
        if firebase:
            return UploadDefaults(f"inline; {self.filename_parameter(name.rsplit('/', 1)[-1])}", mints_token=True,
                                  content_type=type_by_name(name) if self.types_uploads_by_name else None)
        return UploadDefaults(disposition=None)


# Python's own table, not the machine's /etc/mime.types: the same answer everywhere.
_TYPES = mimetypes.MimeTypes()


def type_by_name(name: str) -> str | None:
    """The content type a name's extension implies (`.txt`: text/plain), if any."""
    return _TYPES.types_map[True].get(posixpath.splitext(name)[1].lower())


PRODUCTION = Flavor(
    name="production",
    chunk_granularity=256 * 1024,
    checks_upload_offsets=True,
    reports_size_on_chunks=True,
    refuses_gcs_resumable_start=True,
    json_errors=True,
    paginates_prefixes=True,
    opaque_page_tokens=True,
    bounds_max_results=True,
    crc32c_as_base64=True,
    rejects_unsatisfiable_range=True,
    rfc5987_filename=True,
    creates_buckets_on_use=False,
    names_denied_permission=False,
    rejects_v1_list=True,
    rules_see_all_fields=True,
    verifies_id_tokens=True,
    production_headers=True,
    text_media_not_found=True,
    stores_file_disposition=True,
    counts_token_mint=True,
    forbids_missing_update=True,
    checks_gcs_uploads=True,
    words_preconditions_as_gcs=True,
    words_invalid_longs_as_gcs=True,
    copies_show_owner=True,
    new_token_first=True,
    types_uploads_by_name=True,
    refuses_names_on_create_only=True,
    upload_server_answers=True,
    gcs_list_options=True,
    recent_login_seconds=300,  # not documented; what production is commonly observed to allow
)

FIREBASE_TOOLS = Flavor(
    name="firebase-tools",
    chunk_granularity=10000,
    checks_upload_offsets=False,
    reports_size_on_chunks=False,
    refuses_gcs_resumable_start=False,
    json_errors=False,
    paginates_prefixes=False,
    opaque_page_tokens=False,
    bounds_max_results=False,
    crc32c_as_base64=False,
    rejects_unsatisfiable_range=False,
    rfc5987_filename=False,
    creates_buckets_on_use=True,
    names_denied_permission=True,
    rejects_v1_list=False,
    rules_see_all_fields=False,
    verifies_id_tokens=False,
    production_headers=False,
    text_media_not_found=False,
    stores_file_disposition=False,
    counts_token_mint=False,
    forbids_missing_update=False,
    checks_gcs_uploads=False,
    words_preconditions_as_gcs=False,
    words_invalid_longs_as_gcs=False,
    copies_show_owner=False,
    new_token_first=False,
    types_uploads_by_name=False,
    refuses_names_on_create_only=False,
    upload_server_answers=False,
    gcs_list_options=False,
    recent_login_seconds=None,  # firebase-tools' Auth emulator never asks to sign in again
)

FLAVORS = {flavor.name: flavor for flavor in (PRODUCTION, FIREBASE_TOOLS)}
