"""StorageListResult: one page (or all pages) of a listing."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .metadata import StorageMetadata
    from .reference import StorageReference


@dataclasses.dataclass(frozen=True)
class StorageListResult:
    """The objects and folders directly below a reference.

    Attributes:
        items: references to the objects, in the server's order.
        prefixes: references to the folders ("directories"), in the server's order.
        page_token: pass it to ``list(page_token=…)`` for the next page; None on the last
            page and for ``list_all()``.
        item_metadata: each item's metadata, in the same order, for ``list_with_metadata()``
            (the GCS JSON API's listing); None for the other listings.
    """

    items: list[StorageReference]
    prefixes: list[StorageReference]
    page_token: str | None
    item_metadata: list[StorageMetadata] | None = None
