"""latest.json and latest.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .wan_report import markdown as wan_markdown

README_BLOCK = re.compile(r"(<!-- latest results -->\n).*?(<!-- end of latest results -->)", re.S)

LABELS = {  # section: {peer: label}; peers without one show their key
    "large_upload": {"fbstorage_c": "fbstorage put_file (C)",
                     "fbstorage_py": "fbstorage put_file (Python)", "curl": "curl -T"},
    "small_objects": {"fbstorage_seq": "fbstorage put_data (Python), sequential",
                      "fbstorage_concurrent": "fbstorage put_data (Python), 16 in flight",
                      "fbstorage_c_seq": "fbstorage put_data (C), sequential",
                      "fbstorage_c_concurrent": "fbstorage put_data (C), 16 in flight",
                      "raw_libcurl": "raw libcurl (C, curl multi), 16 in flight",
                      "requests_session": "requests.Session loop"},
    "download": {"fbstorage_c": "fbstorage write_to_file (C)", "fbstorage_c_get_data": "fbstorage get_data (C)",
                 "fbstorage_py": "fbstorage write_to_file (Python)",
                 "fbstorage_py_get_data": "fbstorage get_data (Python)", "curl": "curl -o"},
    "scale": {"fbstorage_c": "fbstorage put_file × 8, one storage (C)", "curl": "8 × curl -T"},
    "list_all": {"fbstorage": "fbstorage list_all (Python)",
                 "fbstorage_c": "fbstorage list_all (C), a handle per item",
                 "fbstorage_c_paths": "fbstorage list_all (C), one string of paths",
                 "requests_session": "requests.Session loop"},
    "chunk_sweep": {"curl": "curl -T"},
    "gcs": {"resumable_1gib": "google-cloud-storage (GCS JSON API, resumable)",
            "v0_1gib": "requests loop (v0 resumable)"},
    "aio": {"aio": "fbstorage.aio, one loop, 1000 at once",
            "sync_threads": "fbstorage, 16 threads", "sync_in_flight": "fbstorage, 16 in flight"},
    "peer_emulator": {"ours": "the emulator (GCS JSON API)", "fake_gcs": "fake-gcs-server (memory backend)"},
    "emulator": {"emulator": "the emulator (uvloop)", "emulator_asyncio": "the emulator, --loop asyncio",
                 "emulator_rules": "the emulator (uvloop), storage.rules on",
                 "floor": "bare aiohttp app (asyncio's loop)"},
}


def label(section: str, peer: str) -> str:
    if peer.startswith("chunk_"):
        return f"{peer.removeprefix('chunk_').removesuffix('mib')} MiB chunks"
    return LABELS.get(section, {}).get(peer, peer)


def write_json(results: dict, path: Path) -> None:
    path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")


def cell(values: dict, digits: int) -> str:
    """median (min–max)"""
    return f"{values['median']:.{digits}f} ({values['min']:.{digits}f}–{values['max']:.{digits}f})"


def table(section: str, stats: dict, columns: list[tuple[str, str, int]],
          ratios: list[tuple[str, str, str, bool]] = ()) -> list[str]:
    """columns: (metric, title, digits). ratios: (title, reference peer, metric, inverse):
    our median over the reference's, or theirs over ours when `inverse` (times)."""
    header = ["client"] + [title for _, title, _ in columns] + [title for title, *_ in ratios]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for peer, metrics in stats.items():
        row = [label(section, peer)] + [cell(metrics[m], d) for m, _, d in columns]
        for _, reference, metric, inverse in ratios:
            ours, theirs = metrics[metric]["median"], stats[reference][metric]["median"]
            row.append(f"{(theirs / ours if inverse else ours / theirs):.2f}")
        lines.append("| " + " | ".join(row) + " |")
    return lines


def emulator_ceiling(small_objects: dict) -> str:
    """The most objects/s the single-threaded emulator could serve at its cheapest measured cost
    per object."""
    cheapest = min(peer["emulator_cpu_ms"]["median"] for peer in small_objects["stats"].values())
    return (f"Emulator ceiling: at {cheapest:.3f} ms of emulator CPU per object (its cheapest, "
            f"under concurrent uploads), one full core serves at most {1000 / cheapest:.0f} objects/s.")


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
    against_curl = [("MiB/s × curl", "curl", "mibps", False), ("CPU/GiB ÷ curl", "curl", "cpu_s_per_gib", False)]
    upload_columns = [("mibps", "MiB/s", 0), ("cpu_s_per_gib", "CPU s/GiB", 2),
                      ("peak_rss_mib", "peak RSS MiB", 1), ("emulator_busy", "emulator busy", 2)]

    def transfer(name: str, title: str) -> list[str]:
        """One large object's table: fbstorage and its peers against curl."""
        section = results[name]
        return (["", f"## {title} ({section['bytes'] >> 20} MiB, {section['repeats']} repeats)", ""]
                + table(name, section["stats"], upload_columns, against_curl))

    if "large_upload" in results:
        out += transfer("large_upload", "Large upload")
    if "small_objects" in results:
        section = results["small_objects"]
        out += ["", f"## Small objects ({section['objects']} × {section['object_bytes']} B)", ""]
        out += table("small_objects", section["stats"],
                     [("ops", "objects/s", 0), ("work_cpu_ms", "upload CPU ms/object", 3),
                      ("client_cpu_ms", "process CPU ms/object", 3),
                      ("emulator_cpu_ms", "emulator CPU ms/object", 3),
                      ("emulator_busy", "emulator busy", 2)],
                     [("× pyrebase4", "pyrebase4", "ops", False),
                      ("× requests.Session", "requests_session", "ops", False),
                      ("upload CPU ÷ raw libcurl", "raw_libcurl", "work_cpu_ms", False)])
        out += ["", emulator_ceiling(section)]
    if "download" in results:
        out += transfer("download", "Download")
    if "scale" in results:
        section = results["scale"]
        out += ["", "## Scale", "",
                f"put_file of {section['put_bytes'] >> 20} MiB from a sparse file (C, once): "
                f"{section['put_10gib_mibps']} MiB/s, {section['put_10gib_cpu_s_per_gib']} CPU s/GiB, "
                f"client peak RSS {section['put_10gib_peak_rss_mib']} MiB; emulator RSS "
                f"{section['emulator_idle_rss_mib']} MiB before, {section['emulator_peak_rss_mib']} MiB at most "
                "during the upload.", "",
                f"8 uploads at once ({section['parallel_bytes_each'] >> 20} MiB each, "
                f"{section['parallel_repeats']} repeats; MiB/s is the aggregate):", ""]
        out += table("scale", section["parallel_stats"], upload_columns, against_curl)
    if "list_all" in results:
        section = results["list_all"]
        out += ["", f"## list_all ({section['objects']} objects)", ""]
        out += table("list_all", section["stats"], [("s", "seconds", 3), ("emulator_busy", "emulator busy", 2)],
                     [("speed × raw loop", "requests_session", "s", True)])
    if "progress_overhead" in results:
        section = results["progress_overhead"]
        out += ["", "## Python PROGRESS observer", "",
                f"Overhead: {results['python_progress_overhead_pct']:.1f}% of put_file throughput "
                f"(events per upload: {section['progress_events']}).", ""]
        out += table("progress_overhead", section["stats"], upload_columns,
                     [("MiB/s × without", "without_observer", "mibps", False)])
    if "aio" in results:
        section = results["aio"]
        out += ["", f"## asyncio ({section['objects']} × {section['object_bytes']} B, all started at once)", ""]
        out += table("aio", section["stats"], [("small_uploads_per_s", "objects/s", 0),
                                               ("client_cpu_ms", "client CPU ms/object", 3)],
                     [("× sync threads", "sync_threads", "small_uploads_per_s", False)])
    if "emulator" in results:
        section = results["emulator"]
        out += ["", f"## Emulator CPU per request ({section['uploads']} uploads of {section['object_bytes']} B, "
                    f"{section['list_pages']} list pages of 1000; {section['connections']} connections)", ""]
        out += table("emulator", section["stats"], [("cpu_ms_per_small_upload", "server CPU ms/upload", 3),
                                                    ("cpu_ms_per_list_page", "server CPU ms/list page", 3)],
                     [("upload ÷ floor", "floor", "cpu_ms_per_small_upload", False),
                      ("list page ÷ floor", "floor", "cpu_ms_per_list_page", False)])
    if "peer_emulator" in results:
        section = results["peer_emulator"]
        out += ["", f"## The emulator against fake-gcs-server (google-cloud-storage; {section['small_uploads']} uploads "
                    f"of {section['small_bytes']} B, {section['bytes'] >> 20} MiB resumable in "
                    f"{section['chunk_bytes'] >> 20} MiB chunks, pages of 1000 of {section['listed_objects']})", ""]
        out += table("peer_emulator", section["stats"],
                     [("cpu_ms_per_small_upload", "server CPU ms/upload", 3), ("resumable_mibps", "resumable MiB/s", 0),
                      ("download_mibps", "download MiB/s", 0), ("list_page_ms", "ms/list page", 1)],
                     [("CPU/upload ÷ fake", "fake_gcs", "cpu_ms_per_small_upload", False),
                      ("resumable × fake", "fake_gcs", "resumable_mibps", False),
                      ("download × fake", "fake_gcs", "download_mibps", False),
                      ("list page ÷ fake", "fake_gcs", "list_page_ms", False)])
    if "emulator_scale" in results:
        section = results["emulator_scale"]
        sizes = section["sizes"]
        out += ["", f"## A list page of 1000 against the bucket's size (median of {section['rounds']}, each after a write)",
                "", "| API | " + " | ".join(f"{n:,} more objects" for n in sizes) + " | largest ÷ smallest |",
                "|---|" + "---|" * (len(sizes) + 1)]
        for api, prefix, growth in (("v0, rules on", "", "list_page_growth"), ("GCS JSON", "gcs_", "gcs_list_page_growth")):
            out.append(f"| {api} | " + " | ".join(f"{section[f'{prefix}list_page_ms_{n}']:.2f} ms" for n in sizes)
                       + f" | {section[growth]:.2f} |")
        out += ["", f"Emulator RSS: {section['idle_rss_mib']} MiB idle, {section['rss_mib']} MiB with "
                    f"{section['objects']:,} objects of {section['object_bytes']} B ({section['metadata_bytes']} B of "
                    "metadata each as JSON)."]
    if "chunk_sweep" in results:
        out += ["", "## Upload chunk size sweep (C put_file)", ""]
        out += table("chunk_sweep", results["chunk_sweep"]["stats"], upload_columns, against_curl)
    if "gcs" in results:
        section = results["gcs"]
        out += ["", f"## Emulator: GCS JSON API against v0 ({section['bytes'] >> 20} MiB, {section['repeats']} repeats)", ""]
        out += table("gcs", section["stats"], [("mibps", "MiB/s", 0)], [("× v0", "v0_1gib", "mibps", False)])
        out += ["", f"Emulator RSS: {section['emulator_idle_rss_mib']} MiB idle, "
                    f"{section['emulator_peak_rss_mib']} MiB at most during the uploads."]
    if "call_overhead" in results:
        section = results["call_overhead"]
        instructions = section["instructions_per_call"]
        out += ["", "## C call overhead", "", "| call | ns per call | instructions per call (callgrind) |",
                "|---|---|---|"]
        for op, ns in section["ns_per_call"].items():
            count = instructions.get(op) if isinstance(instructions, dict) else None
            out.append(f"| {op} | {cell(ns, 0)} | {f'{count:,.0f}' if count else instructions} |")
    out += wan_markdown(results)
    return "\n".join(out) + "\n"


def update_readme(readme: Path, results_markdown: str) -> None:
    """Puts the tables (without their title) between the README's latest-results markers."""
    tables = results_markdown.split("\n", 2)[2]
    text = readme.read_text()
    readme.write_text(README_BLOCK.sub(lambda m: m.group(1) + tables + m.group(2), text))
