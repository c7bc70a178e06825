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

#: Cloud Storage's bounds on custom metadata (google.storage.v1 ServiceConstants), in UTF-8 bytes.
MAX_CUSTOM_KEY_BYTES = 1024
MAX_CUSTOM_VALUE_BYTES = 4096
MAX_CUSTOM_TOTAL_BYTES = 8192  # keys and values together
#: Each writable field, served as a response header: kept well under the header line most HTTP
#: clients accept (8 KiB), with room for the custom metadata headers beside it.
MAX_FIELD_BYTES = 1024

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
        custom = _custom_values(resource.get("metadata"))
        tokens = _split_tokens(custom.pop(TOKENS_KEY, "")) or ([new_token()] if defaults.mints_token else [])
        _check_custom_total(custom)
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
        """Apply a PATCH body: omitted = unchanged, null = delete, `metadata` merged key by key.
        A refused body changes nothing."""
        if not isinstance(changes, dict):
            raise bad_request("The metadata update must be a JSON object.")
        fields = _writable_values(changes)
        custom, tokens = self.custom, []
        if "metadata" in changes:
            custom = {}
            if changes["metadata"] is not None:
                custom = dict(self.custom)
                for key, value in _custom_values(changes["metadata"], keep_nulls=True).items():
                    if value is None:
                        custom.pop(key, None)
                    else:
                        custom[key] = value
                tokens = _split_tokens(custom.pop(TOKENS_KEY, None) or "")
        _check_custom_total(custom)
        for attribute, value in fields.items():
            setattr(self, attribute, value)
        self.custom = custom
        self.download_tokens += [token for token in dict.fromkeys(tokens) if token not in self.download_tokens]
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
    custom = _custom_values(resource.get("metadata"))
    custom.pop(TOKENS_KEY, None)
    _check_custom_total(custom)


def check_bounds(metadata: ObjectMetadata) -> None:
    """400 for metadata read from elsewhere (an import) that an upload could not have set."""
    _writable_values({key: getattr(metadata, attribute) for key, attribute in WRITABLE_FIELDS.items()})
    _check_custom_total(_custom_values(metadata.custom))


def _writable_values(resource: dict[str, Any]) -> dict[str, str | None]:
    values = {}
    for key, attribute in WRITABLE_FIELDS.items():
        if key in resource:
            value = resource[key]
            if value is not None and not isinstance(value, str):
                raise bad_request(f"Metadata field {key!r} must be a string or null.")
            if value is not None:
                check_header_value(key, value)
                if len(value.encode("utf-8", "surrogatepass")) > MAX_FIELD_BYTES:
                    raise bad_request(f"Metadata field {key!r} is longer than {MAX_FIELD_BYTES} bytes.")
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


def _custom_values(value: Any, *, keep_nulls: bool = False) -> dict[str, str | None]:
    """The custom metadata of a request, values as strings (null kept only for a PATCH, where it
    deletes), each key and value within Cloud Storage's bounds."""
    custom: dict[str, str | None] = {}
    for key, item in _custom_map(value).items():
        if item is None and not keep_nulls:
            continue
        if _utf8_size(key) > MAX_CUSTOM_KEY_BYTES:
            raise bad_request(f"Custom metadata key {key[:40]!r}… is longer than {MAX_CUSTOM_KEY_BYTES} bytes.")
        check_header_value("metadata key", key)
        text = None if item is None else item if isinstance(item, str) else json.dumps(item)
        if text is not None:
            check_header_value(f"metadata.{key}", text)
        if text is not None and _utf8_size(text) > MAX_CUSTOM_VALUE_BYTES and key != TOKENS_KEY:
            raise bad_request(f"Custom metadata value of {key!r} is longer than {MAX_CUSTOM_VALUE_BYTES} bytes.")
        custom[key] = text
    return custom


def _check_custom_total(custom: dict[str, str]) -> None:
    total = sum(_utf8_size(key) + _utf8_size(value) for key, value in custom.items())
    if total > MAX_CUSTOM_TOTAL_BYTES:
        raise bad_request(f"Custom metadata is {total} bytes (keys and values); the limit is {MAX_CUSTOM_TOTAL_BYTES}.")


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _split_tokens(joined: str) -> list[str]:
    return [token for token in joined.split(",") if token]
