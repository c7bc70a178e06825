"""Storage triggers: each committed change is POSTed to the configured URLs as a CloudEvent.

HTTP binary content mode, as Eventarc delivers Cloud Storage events to Cloud Functions: `ce-*`
headers, and the body is the object resource as the GCS JSON API shows it. Delivery never holds
up or fails the storage request: events wait in a bounded queue (an event that finds it full is
dropped and logged), a few workers send them, and a failed delivery is retried with backoff,
then logged and dropped.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from .gcs.resource import object_resource
from .metadata import now_us, rfc3339
from .store import StoredObject

EVENT_PREFIX = "google.cloud.storage.object.v1."
EVENTS = ("finalized", "deleted", "metadataUpdated")
QUEUE_LIMIT = 10_000
WORKERS = 8
ATTEMPTS = 6
FIRST_BACKOFF_SECONDS = 0.1
REQUEST_TIMEOUT_SECONDS = 30
log = logging.getLogger("fbstorage.emulator.triggers")


@dataclass(frozen=True)
class Trigger:
    event: str  # one of EVENTS
    url: str
    bucket: str | None = None  # None: every bucket

    @classmethod
    def parse(cls, text: str) -> "Trigger":
        """`[BUCKET:]EVENT=URL`, the --trigger syntax."""
        selector, equals, url = text.partition("=")
        bucket, _, event = selector.rpartition(":")
        if not equals:
            raise ValueError(f"--trigger {text!r}: expected [BUCKET:]EVENT=URL")
        return cls.checked(event, url, bucket or None, f"--trigger {text!r}")

    @classmethod
    def from_config(cls, entry: Any, where: str) -> "Trigger":
        """A `{"event", "url", "bucket"?}` entry of a config file's "triggers" list."""
        if not isinstance(entry, dict) or not all(isinstance(entry.get(key), str) for key in ("event", "url")):
            raise ValueError(f'{where}: every trigger needs "event" and "url" strings: {entry!r}')
        bucket = entry.get("bucket")
        if bucket is not None and not isinstance(bucket, str):
            raise ValueError(f'{where}: a trigger\'s "bucket" must be a string: {entry!r}')
        return cls.checked(entry["event"], entry["url"], bucket, where)

    @classmethod
    def checked(cls, event: str, url: str, bucket: str | None, where: str) -> "Trigger":
        event = event.removeprefix(EVENT_PREFIX)
        if event not in EVENTS:
            raise ValueError(f"{where}: the event must be one of {', '.join(EVENTS)}, not {event!r}")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"{where}: {url!r} is not an http(s) URL")
        return cls(event, url, bucket)


@dataclass(frozen=True)
class _Delivery:
    url: str
    headers: dict[str, str]
    body: bytes


class TriggerDispatcher:
    """Queues an event per matching trigger for each store change, and delivers them."""

    def __init__(self, triggers: list[Trigger], base_url: str):
        self.triggers = triggers
        self.base_url = base_url  # for the resource's selfLink and mediaLink
        self._queue: asyncio.Queue[_Delivery] = asyncio.Queue(QUEUE_LIMIT)
        self._workers: list[asyncio.Task] = []
        self._session: aiohttp.ClientSession | None = None

    def start(self) -> None:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_SECONDS))
        self._workers = [asyncio.create_task(self._work()) for _ in range(WORKERS)]

    async def stop(self, drain_seconds: float = 5) -> None:
        """Deliver what is queued (for up to `drain_seconds`), then stop."""
        try:
            await asyncio.wait_for(self._queue.join(), drain_seconds)
        except asyncio.TimeoutError:
            log.warning("stopping with %d storage events undelivered", self._queue.qsize())
        for worker in self._workers:
            worker.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)
        if self._session is not None:
            await self._session.close()

    def observe(self, change: str, stored: StoredObject) -> None:
        """The store's change observer: never raises, never waits."""
        metadata = stored.metadata
        matching = [trigger for trigger in self.triggers
                    if trigger.event == change and trigger.bucket in (None, metadata.bucket)]
        if not matching:
            return
        body = json.dumps(object_resource(metadata, self.base_url)).encode("utf-8")
        time_us = now_us() if change == "deleted" else metadata.updated_us
        for trigger in matching:
            headers = {
                "Content-Type": "application/json",
                "ce-specversion": "1.0",
                "ce-id": str(uuid.uuid4()),
                "ce-type": EVENT_PREFIX + change,
                "ce-source": f"//storage.googleapis.com/projects/_/buckets/{metadata.bucket}",
                "ce-subject": f"objects/{metadata.name}",
                "ce-time": rfc3339(time_us),
            }
            try:
                self._queue.put_nowait(_Delivery(trigger.url, headers, body))
            except asyncio.QueueFull:
                log.warning("storage event queue full (%d): dropped %s for %s/%s",
                            QUEUE_LIMIT, headers["ce-type"], metadata.bucket, metadata.name)

    async def _work(self) -> None:
        while True:
            delivery = await self._queue.get()
            try:
                await self._deliver(delivery)
            finally:
                self._queue.task_done()

    async def _deliver(self, delivery: _Delivery) -> None:
        assert self._session is not None
        backoff = FIRST_BACKOFF_SECONDS
        for attempt in range(1, ATTEMPTS + 1):
            try:
                async with self._session.post(delivery.url, data=delivery.body, headers=delivery.headers) as response:
                    await response.read()
                    if response.status < 300:
                        log.info("delivered %s (%s) to %s", delivery.headers["ce-type"],
                                 delivery.headers["ce-subject"], delivery.url)
                        return
                    problem = f"HTTP {response.status}"
            except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as error:
                problem = f"{type(error).__name__}: {error}"
            if attempt < ATTEMPTS:
                log.info("delivery of %s to %s failed (%s); retrying in %.1f s",
                         delivery.headers["ce-type"], delivery.url, problem, backoff)
                await asyncio.sleep(backoff)
                backoff *= 2
        log.warning("gave up delivering %s (%s) to %s after %d attempts: %s", delivery.headers["ce-type"],
                    delivery.headers["ce-subject"], delivery.url, ATTEMPTS, problem)
