"""Repeats, alternation and min/median/max summaries."""

from __future__ import annotations

import statistics
from typing import Callable, TypeVar

T = TypeVar("T")


def summary(values: list[float]) -> dict[str, float | list[float]]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values),
            "runs": values}


def alternate(peers: dict[str, Callable[[], T]], repeats: int,
              before_each: Callable[[], None] = lambda: None) -> dict[str, list[T]]:
    """Runs every peer once per round, rotating the order each round, so that drift in the
    machine's load (other jobs, page cache, thermal) spreads over all peers alike."""
    names = list(peers)
    results: dict[str, list[T]] = {name: [] for name in names}
    for round_index in range(repeats):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            before_each()
            results[name].append(peers[name]())
    return results


def ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else float("inf")


def summarize(runs: dict[str, list[T]], metrics: dict[str, Callable[[T], float]]) -> dict[str, dict]:
    """{peer: {metric: summary}} for every peer and metric."""
    return {peer: {metric: summary([measure(run) for run in peer_runs])
                   for metric, measure in metrics.items()}
            for peer, peer_runs in runs.items()}


def medians(stats: dict[str, dict]) -> dict[str, float]:
    """The flat keys of latest.json: {"<peer>_<metric>": median}."""
    return {f"{peer}_{metric}": values["median"]
            for peer, by_metric in stats.items() for metric, values in by_metric.items()}
