"""StorageMetadata: an object's metadata, and its conversion to and from ``fbs_metadata``."""

from __future__ import annotations

import contextlib
import datetime
from typing import Any, Iterator, Mapping

from ._conversion import decode, encode_optional_text, encode_text
from ._native import TIME_ABSENT, MetadataHandle, call_for_out, library

#: Fields the server fills in; they are never sent.
READ_ONLY_FIELDS = (
    "bucket",
    "generation",
    "metageneration",
    "full_path",
    "name",
    "size",
    "time_created",
    "updated",
    "md5_hash",
)
#: String fields an upload or an update may set (None deletes the field on update).
WRITABLE_TEXT_FIELDS = (
    "cache_control",
    "content_disposition",
    "content_encoding",
    "content_language",
    "content_type",
)
WRITABLE_FIELDS = WRITABLE_TEXT_FIELDS + ("custom_metadata",)
ALL_FIELDS = READ_ONLY_FIELDS + WRITABLE_FIELDS

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


class _Unset:
    """Default of constructor arguments that were not given."""

    def __repr__(self) -> str:
        return "<unset>"


_UNSET: Any = _Unset()


class StorageMetadata:
    """The metadata of a stored object.

    Read-only fields (``bucket, generation, metageneration, full_path, name, size,
    time_created, updated, md5_hash``) come from the server; ``time_created`` and ``updated``
    are timezone-aware UTC datetimes. Writable fields (``cache_control, content_disposition,
    content_encoding, content_language, content_type, custom_metadata``) are sent with an
    upload when they were given to the constructor or assigned; ``custom_metadata`` is also
    sent when it is not empty. Fields not set are absent (None; ``custom_metadata`` ``{}``).

    Metadata compares equal when every field is equal.
    """

    bucket: str | None
    generation: int | None
    metageneration: int | None
    full_path: str | None
    name: str | None
    size: int | None
    time_created: datetime.datetime | None
    updated: datetime.datetime | None
    md5_hash: str | None
    cache_control: str | None
    content_disposition: str | None
    content_encoding: str | None
    content_language: str | None
    content_type: str | None
    custom_metadata: dict[str, str | None] | None
    _explicit_fields: set[str]  # writable fields given or assigned: sent with an upload

    def __init__(
        self,
        *,
        bucket: str | None = None,
        generation: int | None = None,
        metageneration: int | None = None,
        full_path: str | None = None,
        name: str | None = None,
        size: int | None = None,
        time_created: datetime.datetime | None = None,
        updated: datetime.datetime | None = None,
        md5_hash: str | None = None,
        cache_control: str | None = _UNSET,
        content_disposition: str | None = _UNSET,
        content_encoding: str | None = _UNSET,
        content_language: str | None = _UNSET,
        content_type: str | None = _UNSET,
        custom_metadata: Mapping[str, str | None] | None = _UNSET,
    ) -> None:
        object.__setattr__(self, "_explicit_fields", set())
        given = dict(locals())
        for field in READ_ONLY_FIELDS:
            object.__setattr__(self, field, given[field])
        for field in WRITABLE_FIELDS:
            if given[field] is _UNSET:
                object.__setattr__(self, field, {} if field == "custom_metadata" else None)
            else:
                setattr(self, field, given[field])

    def __setattr__(self, field: str, value: Any) -> None:
        if field in WRITABLE_TEXT_FIELDS:
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{field} must be a str or None, not {type(value).__name__}")
            self._explicit_fields.add(field)
        elif field == "custom_metadata":
            value = _checked_custom_metadata(value)
            self._explicit_fields.add(field)
        elif field not in READ_ONLY_FIELDS:
            raise AttributeError(f"StorageMetadata has no field {field!r}")
        object.__setattr__(self, field, value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StorageMetadata):
            return NotImplemented
        return all(getattr(self, field) == getattr(other, field) for field in ALL_FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        shown = (
            f"{field}={getattr(self, field)!r}"
            for field in ALL_FIELDS
            if getattr(self, field) not in (None, {})
        )
        return f"StorageMetadata({', '.join(shown)})"

    @classmethod
    def changes(cls, **fields: Any) -> StorageMetadata:
        """Metadata carrying only the writable ``fields`` given, for an update.

        Raises TypeError for a field that is unknown or read-only.
        """
        for field in fields:
            if field not in WRITABLE_FIELDS:
                kind = "read-only" if field in READ_ONLY_FIELDS else "unknown"
                raise TypeError(
                    f"{field!r} is a {kind} metadata field; "
                    f"the writable fields are {', '.join(WRITABLE_FIELDS)}"
                )
        return cls(**fields)

    def _is_sent(self, field: str) -> bool:
        if field == "custom_metadata" and self.custom_metadata:
            return True
        return field in self._explicit_fields

    @classmethod
    def _from_native(cls, handle: Any) -> StorageMetadata:
        """A copy of an ``fbs_metadata`` handle's fields; the writable ones that have a value
        count as set, so this metadata can be given to another upload as it is."""
        lib = library()

        def text(field: str) -> str | None:
            return decode(getattr(lib, f"fbs_metadata_{field}")(handle))

        def number(field: str) -> int | None:
            value = getattr(lib, f"fbs_metadata_{field}")(handle)
            return None if value < 0 else int(value)

        def time(field: str) -> datetime.datetime | None:
            value = getattr(lib, f"fbs_metadata_{field}_ms")(handle)
            return None if value == TIME_ABSENT else _EPOCH + datetime.timedelta(milliseconds=value)

        custom: dict[str, str | None] = {}
        for index in range(lib.fbs_metadata_custom_count(handle)):
            key = lib.fbs_metadata_custom_key_at(handle, index)
            value = lib.fbs_metadata_custom(handle, key)
            if value is not None:
                custom[decode(key) or ""] = decode(value)

        writable: dict[str, Any] = {
            field: value
            for field in WRITABLE_TEXT_FIELDS
            if (value := text(field)) is not None
        }
        return cls(
            bucket=text("bucket"),
            generation=number("generation"),
            metageneration=number("metageneration"),
            full_path=text("full_path"),
            name=text("name"),
            size=number("size"),
            time_created=time("time_created"),
            updated=time("updated"),
            md5_hash=text("md5_hash"),
            custom_metadata=custom,
            **writable,
        )


def _checked_custom_metadata(value: Any) -> dict[str, str | None] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"custom_metadata must be a mapping or None, not {type(value).__name__}")
    for key, item in value.items():
        if not isinstance(key, str):
            raise TypeError(f"custom_metadata keys must be str, not {type(key).__name__}")
        if item is not None and not isinstance(item, str):
            raise TypeError(
                f"custom_metadata[{key!r}] must be a str or None, not {type(item).__name__}"
            )
    return dict(value)


@contextlib.contextmanager
def native_metadata(metadata: StorageMetadata | None) -> Iterator[Any]:
    """An ``fbs_metadata`` handle with the fields ``metadata`` sends, for one call.

    Yields None (NULL) for no metadata. A field set to None is marked for deletion; in
    ``custom_metadata`` a key set to None is deleted, and ``custom_metadata=None`` deletes
    every key.
    """
    if metadata is None:
        yield None
        return
    if not isinstance(metadata, StorageMetadata):
        raise TypeError(f"metadata must be a StorageMetadata, not {type(metadata).__name__}")
    lib = library()
    handle = call_for_out(lib.fbs_metadata_new, out_type=MetadataHandle)
    try:
        for field in WRITABLE_TEXT_FIELDS:
            if metadata._is_sent(field):
                value = getattr(metadata, field)
                getattr(lib, f"fbs_metadata_set_{field}")(
                    handle, encode_optional_text(value, field)
                )
        if metadata._is_sent("custom_metadata"):
            if metadata.custom_metadata is None:
                lib.fbs_metadata_clear_custom(handle)
            else:
                for key, value in metadata.custom_metadata.items():
                    lib.fbs_metadata_set_custom(
                        handle,
                        encode_text(key, "custom_metadata key"),
                        encode_optional_text(value, f"custom_metadata[{key!r}]"),
                    )
        yield handle
    finally:
        lib.fbs_metadata_free(handle)
