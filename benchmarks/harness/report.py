"""latest.json and latest.md."""

from __future__ import annotations

import json
from pathlib import Path

PEER_LABELS = {
    "fbstorage_c": "fbstorage put_file (C)", "fbstorage_py": "fbstorage put_file (Python)",
    "curl": "curl -T", "pyrebase4": "pyrebase4", "fbstorage_seq": "fbstorage put_data, sequential",
    "fbstorage_concurrent": "fbstorage put_data, 16 in flight",
    "requests_session": "requests.Session loop", "fbstorage": "fbstorage list_all",
}


def write_json(results: dict, path: Path) -> None:
    path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")


def cell(values: dict, digits: int) -> str:
    """median (min–max)"""
    return f"{values['median']:.{digits}f} ({values['min']:.{digits}f}–{values['max']:.{digits}f})"


def table(stats: dict, columns: list[tuple[str, str, int]], reference: str | None = None,
          ratio_metric: str | None = None, higher_is_better: bool = True) -> list[str]:
    header = ["client"] + [title for _, title, _ in columns]
    if reference:
        header.append(f"× {PEER_LABELS.get(reference, reference)}")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for peer, metrics in stats.items():
        row = [PEER_LABELS.get(peer, peer)] + [cell(metrics[m], d) for m, _, d in columns]
        if reference:
            ours, theirs = metrics[ratio_metric]["median"], stats[reference][ratio_metric]["median"]
            row.append(f"{(ours / theirs if higher_is_better else theirs / ours):.2f}")
        lines.append("| " + " | ".join(row) + " |")
    return lines


def markdown(results: dict) -> str:
    machine = results["machine"]
    out = [f"# Benchmark results ({results['mode']} mode)", "",
           f"{machine['date']} · {machine['cores']} cores ({machine['cpu']}) · Linux "
           f"{machine['kernel']} · load average at start {machine['load_average_at_start'][0]:.2f}",
           "", "Cells: median (min–max) over the repeats; ratios compare medians. "
           "`emulator busy` is the emulator's CPU time over the client's transfer time "
           "(≈1.0: the single-threaded emulator is saturated).", ""]
    out += ["## Targets", "", "| target | figure | bound | |", "|---|---|---|---|"]
    out += [f"| {t['target']} | {t['value']} | {t['bound']} | {'met' if t['met'] else '**missed**'} |"
            for t in results["targets"]]
    upload_columns = [("mibps", "MiB/s", 0), ("cpu_s_per_gib", "CPU s/GiB", 2),
                      ("peak_rss_mib", "peak RSS MiB", 1), ("emulator_busy", "emulator busy", 2)]
    if "large_upload" in results:
        section = results["large_upload"]
        out += ["", f"## Large upload ({section['bytes'] >> 20} MiB, {section['repeats']} repeats)", ""]
        out += table(section["stats"], upload_columns, "curl", "mibps")
    if "small_objects" in results:
        section = results["small_objects"]
        out += ["", f"## Small objects ({section['objects']} × {section['object_bytes']} B)", ""]
        out += table(section["stats"], [("ops", "objects/s", 0), ("emulator_busy", "emulator busy", 2)],
                     "pyrebase4", "ops")
    if "list_all" in results:
        section = results["list_all"]
        out += ["", f"## list_all ({section['objects']} objects)", ""]
        out += table(section["stats"], [("s", "seconds", 3), ("emulator_busy", "emulator busy", 2)],
                     "requests_session", "s", higher_is_better=False)
    if "progress_overhead" in results:
        section = results["progress_overhead"]
        out += ["", "## Python PROGRESS observer", "",
                f"Overhead: {results['python_progress_overhead_pct']:.1f}% of put_file throughput "
                f"(events per upload: {section['progress_events']}).", ""]
        out += table(section["stats"], upload_columns, "without_observer", "mibps")
    if "chunk_sweep" in results:
        out += ["", "## Upload chunk size sweep (C put_file)", ""]
        out += table(results["chunk_sweep"]["stats"], upload_columns, "chunk_8mib", "mibps")
    if "call_overhead" in results:
        section = results["call_overhead"]
        instructions = section["instructions_per_call"]
        out += ["", "## C call overhead", "", "| call | ns per call | instructions per call (callgrind) |",
                "|---|---|---|"]
        for op, ns in section["ns_per_call"].items():
            count = instructions.get(op) if isinstance(instructions, dict) else None
            out.append(f"| {op} | {cell(ns, 0)} | {f'{count:,.0f}' if count else instructions} |")
    return "\n".join(out) + "\n"
