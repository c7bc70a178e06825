#!/usr/bin/env python3
"""Metadata: upload a small object, read its metadata, update it with custom metadata, then
delete one field and one custom key.

    python examples/python/metadata.py --emulator 127.0.0.1:9199
    FIREBASE_STORAGE_EMULATOR_HOST=127.0.0.1:9199 python examples/python/metadata.py

Exits with status 1 when a step fails.
"""

from __future__ import annotations

import argparse
import os
import sys

import fbstorage

WATCHED_FIELDS = ("content_type", "cache_control", "content_language", "custom_metadata", "metageneration")


def show(title: str, metadata: fbstorage.StorageMetadata) -> None:
    print(f"\n{title}")
    for field in WATCHED_FIELDS:
        print(f"  {field:<17} {getattr(metadata, field)!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--emulator", metavar="HOST:PORT",
                        help="emulator address (default: $FIREBASE_STORAGE_EMULATOR_HOST)")
    parser.add_argument("--bucket", default="demo-bucket")
    arguments = parser.parse_args()
    if not arguments.emulator and not os.environ.get("FIREBASE_STORAGE_EMULATOR_HOST"):
        parser.error("give --emulator HOST:PORT or set FIREBASE_STORAGE_EMULATOR_HOST")

    try:
        with fbstorage.Storage(arguments.bucket) as storage:
            if arguments.emulator:
                host, _, port = arguments.emulator.rpartition(":")
                storage.use_emulator(host.strip("[]"), int(port))
            ref = storage.reference("examples/notes.txt")
            ref.put_data(
                "Remember the milk.\n".encode(),
                fbstorage.StorageMetadata(content_type="text/plain", cache_control="no-cache"),
            ).wait()
            show(f"Uploaded {ref}:", ref.get_metadata())

            # Only the keywords given are sent; custom metadata is merged key by key.
            updated = ref.update_metadata(
                content_language="en",
                custom_metadata={"author": "ada", "reviewed": "no"},
            )
            show("After update_metadata(content_language='en', custom_metadata={author, reviewed}):", updated)

            # None deletes: a field, or one custom key.
            trimmed = ref.update_metadata(cache_control=None, custom_metadata={"reviewed": None})
            show("After update_metadata(cache_control=None, custom_metadata={'reviewed': None}):", trimmed)
        return 0
    except fbstorage.StorageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
