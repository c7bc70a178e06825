"""A CloudEvent function (Google's functions-framework) that records the storage events it gets.

Each event is one JSON line in $RECORDER_FILE. An object whose name starts with `flaky/` fails its
first delivery (functions-framework answers 500), to exercise the emulator's retries.
"""

import json
import os
import threading

import functions_framework

_lock = threading.Lock()
_failed_once: set[str] = set()


def _append(entry: dict) -> None:
    with _lock, open(os.environ["RECORDER_FILE"], "a", encoding="utf-8") as file:
        file.write(json.dumps(entry) + "\n")


@functions_framework.cloud_event
def record(event):
    entry = {"id": event["id"], "type": event["type"], "source": event["source"],
             "subject": event["subject"], "specversion": event["specversion"], "time": event["time"],
             "data": event.data}
    if event.data["name"].startswith("flaky/"):
        with _lock:
            first = event["id"] not in _failed_once
            _failed_once.add(event["id"])
        if first:
            _append({**entry, "failed": True})
            raise RuntimeError("failing the first delivery on purpose")
    _append(entry)
