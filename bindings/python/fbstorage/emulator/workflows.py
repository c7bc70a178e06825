"""The official emulator's workflows around a running emulator: seed data (`--import`), saving it
(`--export-on-exit`), storage triggers (`--trigger`, firebase.json), Firestore documents for the
rules, and the storage address firebase.json gives (`emulators.storage`)."""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path
from typing import Any

from .exports import export_all, import_all, refuse_unless_export_target
from .json_input import load_json_file
from .rules import firestore
from .store import ObjectStore
from .triggers import Trigger, TriggerDispatcher

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 9199
log = logging.getLogger("fbstorage.emulator")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--import", dest="import_dir", metavar="DIR",
                        help="load a firebase-tools export directory (firebase-export-metadata.json) at start")
    parser.add_argument("--export-on-exit", nargs="?", const=True, metavar="DIR",
                        help="export there (default: the --import directory) when stopping")
    parser.add_argument("--trigger", action="append", default=[], metavar="[BUCKET:]EVENT=URL",
                        help="POST a CloudEvent to URL on finalized, deleted or metadataUpdated (repeatable)")
    parser.add_argument("--firestore-documents", metavar="FILE",
                        help="JSON documents for firestore.get()/exists() in rules "
                             "(default: the Firestore emulator at $FIRESTORE_EMULATOR_HOST)")


class Workflows:
    """What the options above ask for, checked before the emulator starts."""

    def __init__(self, args: argparse.Namespace):
        config = _emulators_config(args.config)
        storage = config.get("storage") or {}
        if args.host is None:
            args.host = storage.get("host", DEFAULT_HOST)
        if args.port is None:
            args.port = storage.get("port", DEFAULT_PORT)
        if not isinstance(args.host, str) or not isinstance(args.port, int):
            raise ValueError(f"{args.config}: emulators.storage needs a string host and a number port")
        self.import_dir: str | None = args.import_dir
        self.export_dir: str | None = None
        if args.export_on_exit is not None:
            self.export_dir = args.import_dir if args.export_on_exit is True else args.export_on_exit
            if not self.export_dir:
                raise ValueError("--export-on-exit needs a directory (or --import DIR to export back to)")
            if self.import_dir == self.export_dir and not Path(self.import_dir).exists():
                self.import_dir = None  # as firebase-tools: the first run creates the directory
            refuse_unless_export_target(Path(self.export_dir).resolve())  # now, not after a session's work
        self.triggers = [Trigger.parse(text) for text in args.trigger]
        configured = storage.get("triggers", [])
        if not isinstance(configured, list):
            raise ValueError(f"{args.config}: emulators.storage.triggers must be a list")
        self.triggers += [Trigger.from_config(entry, f"{args.config}: emulators.storage.triggers")
                          for entry in configured]
        self.dispatcher: TriggerDispatcher | None = None
        self.serving = False
        self.documents_fixture: str | None = args.firestore_documents
        self.documents: firestore.DocumentSource | None = None

    async def load(self, store: ObjectStore, project: str) -> None:
        """Before the emulator serves: the import, and where rules read Firestore documents."""
        self.documents = _document_source(self.documents_fixture, project)
        firestore.use_source(self.documents)
        if self.import_dir is not None:
            count = await import_all(store, self.import_dir)
            log.info("imported %d objects from %s", count, self.import_dir)

    def start(self, store: ObjectStore, base_url: str) -> None:
        self.serving = True
        if self.triggers:
            self.dispatcher = TriggerDispatcher(self.triggers, base_url)
            self.dispatcher.start()
            store.observers.append(self.dispatcher.observe)

    async def stop(self, store: ObjectStore) -> None:
        if isinstance(self.documents, firestore.EmulatorDocuments):
            await self.documents.close()
        if self.dispatcher is not None:
            store.observers.remove(self.dispatcher.observe)
            await self.dispatcher.stop()
        if self.export_dir is not None and self.serving:  # a failed start exports nothing
            try:
                await export_all(store, self.export_dir)
                log.info("exported to %s", self.export_dir)
            except (OSError, ValueError) as error:
                log.error("export to %s failed, the directory is unchanged: %s", self.export_dir, error)


def _document_source(fixture: str | None, project: str) -> firestore.DocumentSource | None:
    if fixture:
        return firestore.FixtureDocuments.from_file(fixture)
    host = os.environ.get("FIRESTORE_EMULATOR_HOST")
    if host:
        log.info("firestore.get()/exists() in rules read the Firestore emulator at %s", host)
        return firestore.EmulatorDocuments(host, project)
    return None


def _emulators_config(config_path: str | None) -> dict[str, Any]:
    """firebase.json's "emulators" object ({} without --config)."""
    if not config_path:
        return {}
    config = load_json_file(config_path)
    emulators = config.get("emulators", {}) if isinstance(config, dict) else {}
    if not isinstance(emulators, dict) or not all(isinstance(emulators.get(key, {}), dict) for key in ("storage", "auth")):
        raise ValueError(f'{config_path}: "emulators", "emulators.storage" and "emulators.auth" must be objects')
    return emulators
