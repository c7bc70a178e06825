"""ls, stat, cat, rm and url: commands on objects that print what they find."""

from __future__ import annotations

import sys

from .. import aio
from ..errors import StorageError, StorageErrorCode
from ..metadata import StorageMetadata
from .context import CommandContext, walk
from .locations import RemotePath, UsageError


def _time(metadata: StorageMetadata) -> str:
    when = metadata.updated or metadata.time_created
    return when.strftime("%Y-%m-%dT%H:%M:%SZ") if when else "-"


async def ls(ctx: CommandContext, targets: list[RemotePath], long: bool, recursive: bool) -> None:
    await ctx.each(targets, lambda target: _list_one(ctx, target, long, recursive), jobs=1)


async def _list_one(ctx: CommandContext, target: RemotePath, long: bool, recursive: bool) -> None:
    reference = ctx.reference(target)
    listed_metadata: list[StorageMetadata] | None = None
    if recursive:
        objects, prefixes = await walk(reference), []
    elif long and ctx.service_account is not None:
        objects, prefixes, listed_metadata = await _pages_with_metadata(reference)
    else:
        listing = await reference.list_all()
        objects, prefixes = listing.items, listing.prefixes
    if not objects and not prefixes:
        if not target.path:
            return  # an empty bucket
        objects = [reference]  # one object, or nothing: get_metadata says which
        long = True
    if not long:
        for prefix in prefixes:
            print(f"{prefix}/")
        for item in objects:
            print(item)
        return
    all_metadata = listed_metadata if listed_metadata is not None and objects else \
        await ctx.gather_limited(item.get_metadata() for item in objects)
    for prefix in prefixes:
        print(f"{'':>12}  {'':20}  {'':24}  {prefix}/")
    for item, metadata in zip(objects, all_metadata):
        print(f"{metadata.size or 0:>12}  {_time(metadata):20}  "
              f"{metadata.content_type or '-':24}  {item}")
    total = sum(metadata.size or 0 for metadata in all_metadata)
    print(f"TOTAL: {len(objects)} objects, {total} bytes")


async def _pages_with_metadata(reference: aio.StorageReference
                               ) -> tuple[list[aio.StorageReference], list[aio.StorageReference], list[StorageMetadata]]:
    """Every page below ``reference`` with its items' metadata: one request per page."""
    objects, prefixes, metadata, token = [], [], [], None
    while True:
        page = await reference.list_with_metadata(page_token=token)
        objects += page.items
        prefixes += [prefix for prefix in page.prefixes if prefix not in prefixes]
        metadata += page.item_metadata or []
        token = page.page_token
        if token is None:
            return objects, prefixes, metadata


#: stat's lines: (label, metadata field).
_STAT_FIELDS = (
    ("Size", "size"),
    ("Content-Type", "content_type"),
    ("Content-Encoding", "content_encoding"),
    ("Content-Disposition", "content_disposition"),
    ("Content-Language", "content_language"),
    ("Cache-Control", "cache_control"),
    ("Created", "time_created"),
    ("Updated", "updated"),
    ("Generation", "generation"),
    ("Metageneration", "metageneration"),
    ("MD5 hash", "md5_hash"),
)


async def stat(ctx: CommandContext, targets: list[RemotePath]) -> None:
    async def show(target: RemotePath) -> None:
        metadata = await ctx.reference(target).get_metadata()
        lines = [str(target)]
        for label, field in _STAT_FIELDS:
            value = getattr(metadata, field)
            if value is not None:
                lines.append(f"    {label + ':':21}{value}")
        if metadata.custom_metadata:
            lines.append("    Metadata:")
            lines += [f"        {key}: {value}" for key, value in metadata.custom_metadata.items()]
        print("\n".join(lines), flush=True)

    await ctx.each(targets, show, jobs=1)


def parse_range(text: str) -> tuple[int | None, int | None]:
    """``--range`` as gsutil's ``cat -r``: "START-END" (inclusive), "START-", or "-N" (the last
    N bytes); as get_data's (start, end)."""
    first, dash, last = text.partition("-")
    if not dash or not (first or last) or not (first.isdigit() or not first) or not (last.isdigit() or not last):
        raise UsageError(f"--range {text!r}: expected START-END, START- or -N (bytes, END inclusive)")
    if not first:
        return -int(last), None
    if not last:
        return int(first), None
    if int(last) < int(first):
        raise UsageError(f"--range {text!r}: END is before START")
    return int(first), int(last) + 1


def _within(start: int, end: int | None, size: int) -> tuple[int | None, int | None] | None:
    """The part of get_data's (start, end) an object of ``size`` bytes has, as a server answers
    an HTTP Range: the end and a suffix longer than the object are cut to it; None when the
    range starts at or past the end."""
    if start < 0:
        return (max(start, -size) or None), None
    if start >= size:
        return None
    return start, None if end is None else min(end, size)


async def cat(ctx: CommandContext, targets: list[RemotePath], byte_range: str | None = None) -> None:
    """Streams each object (or its --range) to stdout. As gsutil's ``cat -r``, which hands the
    range to the server: a range running past the end gives the bytes that exist (the size is
    asked for only then); one starting past the end fails."""
    start, end = parse_range(byte_range) if byte_range else (None, None)

    async def stream(reference: aio.StorageReference, first: int | None, stop: int | None) -> None:
        async for block in reference.iter_bytes(start=first, end=stop):
            sys.stdout.buffer.write(block)
        sys.stdout.buffer.flush()

    async def write(target: RemotePath) -> None:
        reference = ctx.reference(target)
        try:
            await stream(reference, start, end)
        except StorageError as error:  # raised before any byte: the range is checked first
            if error.code != StorageErrorCode.RANGE_NOT_SATISFIABLE or start is None:
                raise
            existing = _within(start, end, (await reference.get_metadata()).size or 0)
            if existing is None:
                raise
            await stream(reference, *existing)

    await ctx.each(targets, write, jobs=1)


async def url(ctx: CommandContext, targets: list[RemotePath]) -> None:
    async def show(target: RemotePath) -> None:
        print(await ctx.reference(target).download_url(), flush=True)

    await ctx.each(targets, show, jobs=1)


async def rm(ctx: CommandContext, targets: list[RemotePath], recursive: bool) -> None:
    objects: list[aio.StorageReference] = []
    for target in targets:
        reference = ctx.reference(target)
        try:
            below = await walk(reference) if recursive else []
        except StorageError as error:
            ctx.fail(target, error)
            continue
        objects += below or [reference]
    await ctx.each(objects, lambda reference: reference.delete())


async def signurl(ctx: CommandContext, targets: list[RemotePath], method: str, duration: int) -> None:
    """V4 signed URLs, for the emulator in use (its URL as the endpoint) or production."""
    if ctx.service_account is None:
        raise UsageError("signurl signs with a service-account key: give --service-account KEY_JSON")
    for target in targets:
        if not target.path:
            raise UsageError(f"signurl needs an object path, not the bucket {target}")
        print(ctx.service_account.signed_url(target.bucket, target.path, expiration=duration, method=method,
                                             api_access_endpoint=ctx.emulator_url))
