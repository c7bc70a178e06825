"""Where the Auth emulator listens and which project it serves, from the command line and
firebase.json (`emulators.auth.host` / `.port`) with its .firebaserc (`projects.default`)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..json_input import load_json_file

DEFAULT_PORT = 9099  # firebase-tools' Auth emulator port
DEFAULT_PROJECT = "demo-project"


@dataclass(frozen=True)
class AuthSettings:
    host: str | None  # None: the storage host
    port: int | None  # None: no Auth port
    project: str


def auth_settings(args: argparse.Namespace) -> AuthSettings:
    config = _json_object(Path(args.config)) if args.config else {}
    emulators = config.get("emulators")
    section = emulators.get("auth") if isinstance(emulators, dict) else None
    section = section if isinstance(section, dict) else {}
    if args.no_auth:
        port = None
    elif args.auth_port is not None:
        port = args.auth_port
    elif isinstance(section.get("port"), int):
        port = section["port"]
    else:
        port = 0 if args.port == 0 else DEFAULT_PORT  # a harness asking for a free port wants free ones
    host = section.get("host") if isinstance(section.get("host"), str) else None
    project = args.project or (_default_project(Path(args.config).parent) if args.config else None)
    return AuthSettings(host, port, project or DEFAULT_PROJECT)


def _default_project(directory: Path) -> str | None:
    firebaserc = directory / ".firebaserc"
    if not firebaserc.exists():
        return None
    projects = _json_object(firebaserc).get("projects")
    default = projects.get("default") if isinstance(projects, dict) else None
    return default if isinstance(default, str) else None


def _json_object(path: Path) -> dict[str, Any]:
    document = load_json_file(path)
    return document if isinstance(document, dict) else {}
