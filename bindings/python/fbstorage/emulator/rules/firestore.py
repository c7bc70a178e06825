"""`firestore.get()` and `firestore.exists()` in storage rules: documents from a Firestore emulator
(FIRESTORE_EMULATOR_HOST, its REST API) or from a JSON fixture (`--firestore-documents FILE`).

The rules runtime evaluates synchronously, so documents are fetched before it runs: `prefetch`
evaluates the ruleset with a recorder that notes which documents it asks for, fetches them
asynchronously, and repeats until it asks for no new one. The real evaluation then reads them from
the request's cache (a context variable, so concurrent requests never see each other's). A document
the prefetch could not foresee (one the lock-time state of an overwrite asks for) is fetched
there and then, blocking, and logged. Rulesets that never call `firestore` skip all of this.

A missing document is `null` for `get` and `false` for `exists`, as the official emulator answers;
an evaluation may read at most MAX_DOCUMENT_READS distinct documents, as in production.
"""

from __future__ import annotations

import abc

import asyncio
import base64
import contextlib
import contextvars
import logging
import re
import urllib.error
import urllib.request
from typing import Any, Callable, Iterator
from urllib.parse import quote

import aiohttp

from ..json_input import load_json, load_json_file
from .errors import EvaluationError
from .values import LatLng, Path, Timestamp

MAX_DOCUMENT_READS = 2
MAX_PREFETCH_ROUNDS = 4
FETCH_TIMEOUT_SECONDS = 5
_DOCUMENTS_PREFIX = ("databases", "(default)", "documents")
_TIMESTAMP = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)")
log = logging.getLogger("fbstorage.emulator.rules")

Document = dict[str, Any] | None  # the REST shape {"name", "fields"}, None when it does not exist


class _Missing(Exception):
    """Raised by the prefetch recorder for a document it has not fetched yet."""


class _Evaluation:
    """The documents of one request: fetched ones, and those read by the current evaluation."""

    def __init__(self, fetched: dict[str, Document] | None = None, recording: bool = False):
        self.fetched = fetched if fetched is not None else {}
        self.recording = recording
        self.wanted: list[str] = []
        self.read: set[str] = set()


_current: contextvars.ContextVar[_Evaluation | None] = contextvars.ContextVar("firestore_documents", default=None)


class DocumentSource(abc.ABC):
    """Where documents come from; `fetch` and `fetch_blocking` return None for a missing one."""

    async def fetch(self, path: str) -> Document:
        return self.fetch_blocking(path)

    @abc.abstractmethod
    def fetch_blocking(self, path: str) -> Document:
        """The document at `path` (each source reads its own: a fixture, Firestore's REST API)."""


class FixtureDocuments(DocumentSource):
    """`{"users/ada": {"role": "admin"}, …}`: plain JSON values, or Firestore REST documents
    (`{"fields": {…}}`) for typed values (timestamps, references, doubles)."""

    def __init__(self, documents: Any, origin: str):
        if not isinstance(documents, dict) or not all(isinstance(value, dict) for value in documents.values()):
            raise ValueError(f"{origin}: expected an object of documents: {{\"collection/id\": {{…}}, …}}")
        self.documents = {key.strip("/"): value for key, value in documents.items()}

    @classmethod
    def from_file(cls, file: str) -> "FixtureDocuments":
        return cls(load_json_file(file), file)

    def fetch_blocking(self, path: str) -> Document:
        document = self.documents.get(path)
        if document is None:
            return None
        if isinstance(document.get("fields"), dict):
            return {"name": path, **document}
        return {"name": path, "fields": {key: _typed(value) for key, value in document.items()}}


class EmulatorDocuments(DocumentSource):
    """The Firestore emulator's REST API, as firebase-tools reads it (GET
    /v1/projects/P/databases/(default)/documents/PATH as the owner); any failure is a missing document."""

    def __init__(self, host: str, project: str):
        self.base = f"http://{host}/v1/projects/{quote(project, safe='')}/databases/(default)/documents/"
        self._session: aiohttp.ClientSession | None = None

    def _url(self, path: str) -> str:
        return self.base + "/".join(quote(segment, safe="") for segment in path.split("/"))

    async def fetch(self, path: str) -> Document:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=FETCH_TIMEOUT_SECONDS))
        try:
            async with self._session.get(self._url(path), headers={"Authorization": "Bearer owner"}) as response:
                if response.status != 200:
                    return None
                return load_json(await response.read())
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as error:
            log.warning("firestore document %s not read (%s): treated as missing", path, error)
            return None

    def fetch_blocking(self, path: str) -> Document:
        request = urllib.request.Request(self._url(path), headers={"Authorization": "Bearer owner"})
        try:
            with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT_SECONDS) as response:
                return load_json(response.read())
        except (urllib.error.URLError, OSError, ValueError):
            return None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


_source: DocumentSource | None = None


def use_source(source: DocumentSource | None) -> None:
    global _source
    _source = source


def current_source() -> DocumentSource | None:
    return _source


@contextlib.contextmanager
def documents_of_one_decision(source: DocumentSource | None) -> Iterator[None]:
    """`source` for the evaluations inside (a test vector's documents), with a fresh read count."""
    previous = _source
    use_source(source)
    token = _current.set(_Evaluation())
    try:
        yield
    finally:
        _current.reset(token)
        use_source(previous)


async def prefetch(evaluate: Callable[[], Any]) -> None:
    """Fetch what `evaluate` (a rules decision) will read, for the real evaluation of this request."""
    if _source is None:
        return
    fetched: dict[str, Document] = {}
    for _ in range(MAX_PREFETCH_ROUNDS):
        recorder = _Evaluation(fetched, recording=True)
        token = _current.set(recorder)
        log.disabled = True  # a rehearsal: debug() and denials are logged by the real evaluation only
        try:
            evaluate()  # synchronous: no other request runs while the logger is off
        finally:
            log.disabled = False
            _current.reset(token)
        new = [path for path in dict.fromkeys(recorder.wanted) if path not in fetched]
        if not new:
            break
        for path, document in zip(new, await asyncio.gather(*(_source.fetch(path) for path in new))):
            fetched[path] = document
    _current.set(_Evaluation(fetched))


def _document(path_value: Any) -> Document:
    if _source is None:
        log.warning("firestore.get()/firestore.exists() in storage rules, and no Firestore to read "
                    "(set FIRESTORE_EMULATOR_HOST or --firestore-documents): the call is an error")
        raise EvaluationError("firestore: no Firestore here (set FIRESTORE_EMULATOR_HOST or --firestore-documents)")
    if not isinstance(path_value, Path):
        raise EvaluationError("firestore.get()/exists() take a path: /databases/(default)/documents/…")
    segments = path_value.segments
    if segments[:3] != _DOCUMENTS_PREFIX or len(segments) < 5 or len(segments) % 2 == 0:
        raise EvaluationError(f"firestore: {path_value} is not a document of /databases/(default)/documents")
    path = "/".join(segments[3:])
    evaluation = _current.get()
    if evaluation is None:
        evaluation = _Evaluation()
        _current.set(evaluation)
    if path not in evaluation.read:
        if len(evaluation.read) >= MAX_DOCUMENT_READS:
            raise EvaluationError(f"firestore: more than {MAX_DOCUMENT_READS} documents read in one evaluation")
        evaluation.read.add(path)
    if path not in evaluation.fetched:
        if evaluation.recording:
            evaluation.wanted.append(path)
            raise _Missing(path)
        log.info("firestore document %s was not prefetched: read while the request waits", path)
        evaluation.fetched[path] = _source.fetch_blocking(path)
    return evaluation.fetched[path]


def firestore_get(path_value: Any) -> Any:
    document = _document(path_value)
    if document is None:
        return None
    return {"data": {key: rules_value(value) for key, value in (document.get("fields") or {}).items()},
            "id": path_value.segments[-1], "__name__": path_value}


def firestore_exists(path_value: Any) -> bool:
    return _document(path_value) is not None


def rules_value(value: dict[str, Any]) -> Any:
    """A Firestore REST typed value (`{"integerValue": "1"}`, …) as a rules value."""
    if not isinstance(value, dict) or len(value) != 1:
        raise EvaluationError(f"firestore: malformed value {value!r}")
    [(kind, content)] = value.items()
    if kind == "nullValue":
        return None
    if kind == "booleanValue":
        return bool(content)
    if kind == "integerValue":
        return int(content)
    if kind == "doubleValue":
        return float(content)
    if kind == "stringValue":
        return content
    if kind == "bytesValue":
        return base64.b64decode(content)
    if kind == "timestampValue":
        return _timestamp(content)
    if kind == "geoPointValue":
        return LatLng(float(content.get("latitude", 0)), float(content.get("longitude", 0)))
    if kind == "referenceValue":
        segments = content.split("/")
        return Path(tuple(segments[segments.index("databases"):]))
    if kind == "arrayValue":
        return [rules_value(item) for item in content.get("values", [])]
    if kind == "mapValue":
        return {key: rules_value(item) for key, item in content.get("fields", {}).items()}
    raise EvaluationError(f"firestore: unknown value type {kind!r}")


def _timestamp(text: str) -> Timestamp:
    match = _TIMESTAMP.fullmatch(text)
    if match is None:
        raise EvaluationError(f"firestore: malformed timestamp {text!r}")
    seconds = Timestamp.parse(match.group(1) + match.group(3)).nanos
    return Timestamp(seconds + int((match.group(2) or "0").ljust(9, "0")))


def _typed(value: Any) -> dict[str, Any]:
    """A plain JSON value of a fixture as a Firestore REST typed value (ints stay integers)."""
    if value is None:
        return {"nullValue": None}
    if isinstance(value, bool):
        return {"booleanValue": value}
    if isinstance(value, int):
        return {"integerValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_typed(item) for item in value]}}
    return {"mapValue": {"fields": {key: _typed(item) for key, item in value.items()}}}

