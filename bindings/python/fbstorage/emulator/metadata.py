"""The object metadata resource (wire-protocol.md §2): creation, PATCH semantics, JSON forms."""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
import time
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

from .errors import bad_request
from .flavor import Flavor, UploadDefaults

DEFAULT_CONTENT_TYPE = "application/octet-stream"
TOKENS_KEY = "firebaseStorageDownloadTokens"  # custom-metadata key the SDKs use to set tokens
# Writable top-level string fields: JSON key -> attribute.
#: The writable fields, all served as response headers on download (so none may hold a control
#: character: stored, it would make every download of the object fail).
WRITABLE_FIELDS = {
    "contentType": "content_type",
    "contentEncoding": "content_encoding",
    "contentDisposition": "content_disposition",
    "contentLanguage": "content_language",
    "cacheControl": "cache_control",
}

_last_generation = 0
_CONTROL_CHARACTER = re.compile("[\x00-\x1f\x7f]")


def now_us() -> int:
    return time.time_ns() // 1000


def new_generation() -> int:
    """Microseconds since the epoch, as production; strictly increasing within the process."""
    global _last_generation
    _last_generation = max(now_us(), _last_generation + 1)
    return _last_generation


def new_token() -> str:
    return str(uuid.uuid4())


@functools.lru_cache(maxsize=64)
def rfc3339(timestamp_us: int) -> str:
    """Cached: a resource shows one object's times up to four times (created, updated, finalized…)."""
    return f"{_utc_second(timestamp_us // 1_000_000)}.{timestamp_us // 1000 % 1000:03d}Z"


@functools.lru_cache(maxsize=16)
def _utc_second(seconds: int) -> str:
    """`YYYY-MM-DDTHH:MM:SS`: formatted once per second, not per reply."""
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")


@dataclass(frozen=True)
class Digest:
    """What streaming the bytes of an object produced."""

    size: int
    md5_base64: str
    crc32c: int


@dataclass(slots=True)  # no __dict__: ~100 B less per stored object
class ObjectMetadata:
    bucket: str
    name: str
    size: int
    md5_hash: str
    crc32c: int
    generation: int
    metageneration: int
    time_created_us: int
    updated_us: int
    download_tokens: list[str] = field(default_factory=list)
    content_type: str | None = DEFAULT_CONTENT_TYPE
    content_encoding: str | None = None
    content_disposition: str | None = "inline"
    content_language: str | None = None
    cache_control: str | None = None
    custom: dict[str, str] = field(default_factory=dict)
    time_deleted_us: int | None = None  # set once a versioned bucket keeps it as a noncurrent generation

    @classmethod
    def for_upload(cls, bucket: str, name: str, resource: dict[str, Any], digest: Digest,
                   default_content_type: str | None, defaults: UploadDefaults = UploadDefaults()) -> "ObjectMetadata":
        """A new object's metadata from the upload's JSON resource (fields not listed are ignored),
        with `defaults` for what it does not say."""
        fields = _writable_values(resource)
        custom = {key: _custom_value(value)
                  for key, value in _custom_map(resource.get("metadata")).items() if value is not None}
        tokens = _split_tokens(custom.pop(TOKENS_KEY, "")) or ([new_token()] if defaults.mints_token else [])
        created = now_us()
        metadata = cls(bucket=bucket, name=name, size=digest.size, md5_hash=digest.md5_base64,
                       crc32c=digest.crc32c, generation=new_generation(), metageneration=1,
                       time_created_us=created, updated_us=created, download_tokens=tokens, custom=custom,
                       content_type=None, content_disposition=defaults.disposition)
        for attribute, value in fields.items():
            if value is not None:
                setattr(metadata, attribute, value)
        if not metadata.content_type:
            if default_content_type in (None, DEFAULT_CONTENT_TYPE) and defaults.content_type:
                default_content_type = defaults.content_type  # a type that says nothing
            if default_content_type:
                check_header_value("contentType", default_content_type)
            metadata.content_type = default_content_type or DEFAULT_CONTENT_TYPE
        return metadata

    def patch(self, changes: Any) -> None:
        """Apply a PATCH body: omitted = unchanged, null = delete, `metadata` merged key by key."""
        if not isinstance(changes, dict):
            raise bad_request("The metadata update must be a JSON object.")
        for attribute, value in _writable_values(changes).items():
            setattr(self, attribute, value)
        if "metadata" in changes:
            if changes["metadata"] is None:
                self.custom = {}
            else:
                for key, value in _custom_map(changes["metadata"]).items():
                    if value is None:
                        self.custom.pop(key, None)
                    else:
                        self.custom[key] = _custom_value(value)
                for token in _split_tokens(self.custom.pop(TOKENS_KEY, "")):
                    if token not in self.download_tokens:
                        self.download_tokens.append(token)
        self.touch()

    def touch(self) -> None:
        """Record a metadata change: metageneration +1 and `updated` = now."""
        self.metageneration += 1
        self.updated_us = now_us()

    @property
    def etag(self) -> str:
        digest = hashlib.sha1(f"{self.generation}/{self.metageneration}".encode()).digest()
        return base64.b64encode(digest).decode("ascii").rstrip("=")

    def to_resource(self, flavor: Flavor) -> dict[str, Any]:
        """The JSON resource the v0 API returns."""
        resource: dict[str, Any] = {
            "name": self.name,
            "bucket": self.bucket,
            "generation": str(self.generation),
            "metageneration": str(self.metageneration),
            "timeCreated": rfc3339(self.time_created_us),
            "updated": rfc3339(self.updated_us),
            "storageClass": "STANDARD",
            "size": str(self.size),
            "md5Hash": self.md5_hash,
            "crc32c": flavor.format_crc32c(self.crc32c),
            "etag": self.etag,
            "downloadTokens": ",".join(self.download_tokens),
            "contentEncoding": self.content_encoding or "identity",
        }
        for key, attribute in WRITABLE_FIELDS.items():
            value = getattr(self, attribute)
            if value is not None and key != "contentEncoding":
                resource[key] = value
        if self.custom:
            resource["metadata"] = dict(self.custom)
        return resource

    def to_record(self) -> dict[str, Any]:
        """A plain dict for persistence."""
        return asdict(self)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> "ObjectMetadata":
        return cls(**record)


def check_upload_resource(resource: dict[str, Any]) -> None:
    """400 for an upload's metadata that `ObjectMetadata.for_upload` would refuse, checked when a
    resumable upload starts rather than after its bytes arrived."""
    _writable_values(resource)
    _custom_map(resource.get("metadata"))


def _writable_values(resource: dict[str, Any]) -> dict[str, str | None]:
    values = {}
    for key, attribute in WRITABLE_FIELDS.items():
        if key in resource:
            value = resource[key]
            if value is not None and not isinstance(value, str):
                raise bad_request(f"Metadata field {key!r} must be a string or null.")
            if value is not None:
                check_header_value(key, value)
            values[attribute] = value
    return values


def check_header_value(what: str, value: str) -> None:
    """400 for a value that cannot be sent as an HTTP header: a C0 control character or DEL."""
    bad = _CONTROL_CHARACTER.search(value)
    if bad is not None:
        raise bad_request(f"Metadata field {what!r} contains the control character {ord(bad.group()):#04x}; "
                          "it is served as an HTTP header.")


def _custom_map(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise bad_request("Metadata field 'metadata' must be an object.")
    return value


def _custom_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _split_tokens(joined: str) -> list[str]:
    return [token for token in joined.split(",") if token]
