"""Decisions for test vectors in the shared conformance format (storage-rules-vectors.json)."""

from __future__ import annotations

from typing import Any

from .errors import RulesSyntaxError
from .firestore import FixtureDocuments, documents_of_one_decision
from .limits import RulesLimitExceeded
from .request_model import auth_value, now, resource_from_json, rules_path, variables
from .ruleset import Ruleset
from .values import Timestamp


def decide(vector: dict[str, Any], compiled: dict[str, Ruleset | RulesSyntaxError]) -> str:
    """`allow`, `deny` or `compile-error`; `compiled` caches rulesets by source across vectors."""
    source = vector["rules"]
    if source not in compiled:
        try:
            compiled[source] = Ruleset(source)
        except RulesSyntaxError as error:
            compiled[source] = error
    ruleset = compiled[source]
    if isinstance(ruleset, RulesSyntaxError):
        return "compile-error"
    request = vector["request"]
    method = request["method"]
    if method == "list" and ruleset.version < 2:
        return "deny"  # refused before evaluation (reference §8)
    auth = request.get("auth")
    moment = Timestamp.parse(request["time"]) if request.get("time") else now()
    values = variables(rules_path(request["bucket"], request["path"]), moment,
                       auth_value(auth["token"]) if auth else None,
                       resource_from_json(request.get("resource")), resource_from_json(request.get("request_resource")))
    documents = request.get("firestore_documents")
    source = None if documents is None else FixtureDocuments(documents, f"{vector['id']}: firestore_documents")
    with documents_of_one_decision(source):
        try:
            allowed = ruleset.allows(method, values["request"]["path"].segments, values)
        except RulesLimitExceeded:
            allowed = False
    return "allow" if allowed else "deny"
