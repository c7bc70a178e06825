"""Which ruleset applies to which bucket."""

from __future__ import annotations

from .ruleset import Ruleset


class BucketRules:
    """One ruleset for every bucket (`default`), or one per bucket from firebase.json targets.
    A registry that was never configured allows everything; a configured bucket with no
    ruleset (its file failed to load, or no target names it) denies everything."""

    def __init__(self, default: Ruleset | None = None, buckets: dict[str, Ruleset] | None = None,
                 configured: bool = True):
        self.default = default
        self.buckets = dict(buckets or {})
        self.configured = configured
        #: Why the last reload of a rules file failed (the previous rules stay); None after a good one.
        self.reload_error: Exception | None = None

    @classmethod
    def allow_all(cls) -> "BucketRules":
        return cls(configured=False)

    def for_bucket(self, bucket: str) -> Ruleset | None:
        return self.buckets.get(bucket, self.default)

    def replace(self, bucket: str | None, ruleset: Ruleset) -> None:
        """Install a reloaded ruleset for one bucket, or for every bucket when `bucket` is None."""
        if bucket is None:
            self.default = ruleset
        else:
            self.buckets[bucket] = ruleset
