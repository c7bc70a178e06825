"""What production checks of a GCS upload besides its preconditions, in production's words: the
number of parts of a multipart body, and the md5Hash / crc32c its resource declares (a malformed
value is refused before the bytes are read, one the bytes do not match once they are; either way
nothing is stored).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ..errors import ApiError, bad_request
from ..metadata import ObjectMetadata
from ..multipart import PartCountError


def payload_size_error(error: PartCountError) -> ApiError:
    return ApiError(400, f"Payload size invalid. Expected 2-3 payloads. Actual size: {error.parts}",
                    reason="invalidPayloadSize")


def _decoded(value: Any, size: int) -> bytes | None:
    if not isinstance(value, str):
        return None
    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None
    return decoded if len(decoded) == size else None


def check_declared_digests(resource: dict[str, Any]) -> None:
    md5, crc32c = resource.get("md5Hash"), resource.get("crc32c")
    if md5 is not None and _decoded(md5, 16) is None:
        raise bad_request(f"Provided value ({md5}) is not a base64-encoded 128-bit MD5 hash.")
    if crc32c is not None and _decoded(crc32c, 4) is None:
        raise bad_request("Invalid argument.")


def verify_declared_digests(resource: dict[str, Any], metadata: ObjectMetadata) -> None:
    md5, crc32c = resource.get("md5Hash"), resource.get("crc32c")
    if md5 is not None and md5 != metadata.md5_hash:
        raise bad_request(f'Provided MD5 hash "{md5}" doesn\'t match calculated MD5 hash "{metadata.md5_hash}".')
    calculated = base64.b64encode(metadata.crc32c.to_bytes(4, "big")).decode("ascii")
    if crc32c is not None and crc32c != calculated:
        raise bad_request(f'Provided CRC32C "{crc32c}" doesn\'t match calculated CRC32C "{calculated}".')
