"""The issue's targets, checked against a results dict."""

from __future__ import annotations

from .stats import ratio

# (what, how the figure is computed from results, the bound, "min" or "max")
TARGETS = [
    ("large upload MiB/s vs curl", lambda r: ratio(r["large_upload"]["fbstorage_c_mibps"],
                                                   r["large_upload"]["curl_mibps"]), 0.90, "min"),
    ("large upload client CPU/GiB vs curl",
     lambda r: ratio(r["large_upload"]["fbstorage_c_cpu_s_per_gib"],
                     r["large_upload"]["curl_cpu_s_per_gib"]), 1.25, "max"),
    ("large upload peak RSS (MiB)", lambda r: r["large_upload"]["fbstorage_c_peak_rss_mib"], 32, "max"),
    ("small objects vs pyrebase4", lambda r: ratio(best_small(r), r["small_objects"]["pyrebase4_ops"]),
     10, "min"),
    ("small objects vs requests.Session",
     lambda r: ratio(best_small(r), r["small_objects"]["requests_session_ops"]), 2, "min"),
    ("list_all speed vs raw page loop", lambda r: ratio(r["list_all"]["requests_session_s"],
                                                        r["list_all"]["fbstorage_s"]), 1.0, "min"),
    ("Python PROGRESS observer cost (%)", lambda r: r["python_progress_overhead_pct"], 5, "max"),
]


def best_small(results: dict) -> float:
    """fbstorage's small-object rate: its better mode (the targets count concurrency)."""
    small = results["small_objects"]
    return max(small["fbstorage_seq_ops"], small["fbstorage_concurrent_ops"])


def check(results: dict) -> list[dict]:
    checked = []
    for what, figure, bound, kind in TARGETS:
        try:
            value = figure(results)
        except KeyError:   # that workload did not run
            continue
        met = value >= bound if kind == "min" else value <= bound
        checked.append({"target": what, "value": round(value, 3),
                        "bound": f"{'≥' if kind == 'min' else '≤'} {bound}", "met": met})
    return checked
