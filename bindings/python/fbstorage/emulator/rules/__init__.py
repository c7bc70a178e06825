"""Firebase Security Rules for Cloud Storage (`storage.rules`), evaluated as the official emulator does."""

from .errors import EvaluationError, RulesSyntaxError
from .ruleset import Ruleset

__all__ = ["EvaluationError", "Ruleset", "RulesSyntaxError"]
