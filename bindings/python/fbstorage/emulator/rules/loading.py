"""Loading rules: `--rules storage.rules`, or `--config firebase.json` (its "storage" key, a single
{"rules": FILE} or a list of {"target"|"bucket", "rules"} resolved through .firebaserc), and
reloading a file when it changes (a bad reload keeps the previous rules)."""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from ..json_input import load_json_file
from .errors import RulesSyntaxError
from .registry import BucketRules
from .ruleset import Ruleset

log = logging.getLogger("fbstorage.emulator.rules")
POLL_SECONDS = 0.2


@dataclass(frozen=True)
class RulesSource:
    path: Path
    buckets: tuple[str, ...] | None  # None: every bucket


def read_ruleset(path: Path) -> Ruleset:
    """The compiled file; OSError or RulesSyntaxError (with file:line:column) when it cannot load."""
    ruleset = Ruleset(path.read_text(encoding="utf-8"), str(path))
    for warning in ruleset.warnings:
        log.warning("%s", warning)
    return ruleset


def is_demo_project(project: str | None) -> bool:
    """A `demo-*` project id: firebase-tools then allows everything where rules are missing."""
    return bool(project) and project.startswith("demo-")


def sources_from_config(config_path: Path, project: str | None = None) -> list[RulesSource]:
    """The rules files of firebase.json; [] (everything allowed) for a demo project without them.
    Targets are resolved for `project`, else .firebaserc's default project."""
    config = load_json_file(config_path)
    storage = config.get("storage") if isinstance(config, dict) else None
    base = config_path.parent
    if isinstance(storage, dict) and isinstance(storage.get("rules"), str):
        return [RulesSource(base / storage["rules"], None)]
    if storage is None and is_demo_project(project):
        log.info('demo project %s and no "storage" in %s: everything allowed', project, config_path)
        return []
    if not isinstance(storage, list) or not storage:
        raise ValueError(f'{config_path}: expected "storage": {{"rules": FILE}} or a list of '
                         '{"target": NAME, "rules": FILE}')
    targets = None
    sources = []
    for entry in storage:
        if not isinstance(entry, dict) or not isinstance(entry.get("rules"), str):
            raise ValueError(f'{config_path}: every "storage" entry needs a "rules" file: {entry!r}')
        if isinstance(entry.get("bucket"), str):
            buckets = [entry["bucket"]]
        elif isinstance(entry.get("target"), str):
            targets = targets if targets is not None else _storage_targets(base / ".firebaserc", project)
            if entry["target"] not in targets:
                if is_demo_project(project):
                    log.info("demo project %s has no storage target %r: everything allowed", project, entry["target"])
                    return []
                raise ValueError(f'{base / ".firebaserc"}: no storage target {entry["target"]!r}')
            buckets = targets[entry["target"]]
        else:
            raise ValueError(f'{config_path}: every "storage" entry needs a "target" or a "bucket": {entry!r}')
        sources.append(RulesSource(base / entry["rules"], tuple(buckets)))
    return sources


def _storage_targets(firebaserc: Path, project: str | None) -> dict[str, list[str]]:
    """Target name → buckets, for `project` (an id or a .firebaserc alias), else the default project
    (or the only project with targets)."""
    if is_demo_project(project) and not firebaserc.exists():
        return {}
    document = load_json_file(firebaserc)
    projects = document.get("targets", {}) if isinstance(document, dict) else {}
    aliases = document.get("projects", {}) if isinstance(document, dict) else {}
    if project is not None:
        project = aliases.get(project, project)
        if project not in projects:
            return {}
    else:
        default = aliases.get("default")
        project = default if default in projects else next(iter(projects), None) if len(projects) == 1 else None
    if project is None:
        raise ValueError(f"{firebaserc}: cannot tell which project's storage targets to use")
    return projects[project].get("storage", {})




def load(sources: list[RulesSource]) -> BucketRules:
    """Every source compiled; the first error raises (OSError, ValueError or RulesSyntaxError)."""
    rules = BucketRules()
    for source in sources:
        ruleset = read_ruleset(source.path)
        for bucket in source.buckets or (None,):
            rules.replace(bucket, ruleset)
    return rules


async def watch(sources: list[RulesSource], rules: BucketRules) -> None:
    """Reload a source whenever its file changes (polled); runs until cancelled."""
    seen = {source: _stamp(source.path) for source in sources}
    while True:
        await asyncio.sleep(POLL_SECONDS)
        for source in sources:
            stamp = _stamp(source.path)
            if stamp == seen[source] or stamp is None:
                continue
            seen[source] = stamp
            try:
                ruleset = read_ruleset(source.path)
            except (OSError, UnicodeDecodeError, RulesSyntaxError) as error:
                log.error("rules not reloaded, the previous rules stay in force: %s", error)
                rules.reload_error = error
                continue
            for bucket in source.buckets or (None,):
                rules.replace(bucket, ruleset)
            rules.reload_error = None
            log.info("reloaded rules from %s", source.path)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size, status.st_ino
