"""PNG charts, when matplotlib is installed (it is optional)."""

from __future__ import annotations

from pathlib import Path

from .report import label

CHARTS = [  # (section, metric, title, file)
    ("large_upload", "mibps", "Large upload, MiB/s", "large_upload.png"),
    ("small_objects", "ops", "Small objects, objects/s", "small_objects.png"),
    ("download", "mibps", "Download, MiB/s", "download.png"),
    ("list_all", "s", "list_all, seconds", "list_all.png"),
    ("chunk_sweep", "mibps", "C put_file by chunk size, MiB/s", "chunk_sweep.png"),
]


def write(results: dict, directory: Path) -> list[Path]:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    written = []
    for section, metric, title, name in CHARTS:
        if section not in results:
            continue
        stats = results[section]["stats"]
        peers = list(stats)
        medians = [stats[p][metric]["median"] for p in peers]
        # Error bars span min..max over the repeats.
        spread = [[m - stats[p][metric]["min"] for p, m in zip(peers, medians)],
                  [stats[p][metric]["max"] - m for p, m in zip(peers, medians)]]
        figure, axes = plt.subplots(figsize=(7, 0.6 * len(peers) + 1.2))
        axes.barh([label(section, p) for p in peers], medians, xerr=spread, capsize=4)
        axes.invert_yaxis()
        axes.set_title(f"{title} (median, min–max)")
        figure.tight_layout()
        figure.savefig(directory / name, dpi=100)
        plt.close(figure)
        written.append(directory / name)
    if "wan" in results:
        written.append(wan_chart(results["wan"], directory / "wan_small_objects.png", plt))
    return written


def wan_chart(wan: dict, path: Path, plt) -> Path:
    """Small objects over the WAN link: each tool's objects/s up and down at each concurrency."""
    from .wan_report import KNOBLESS, LABELS
    bars = [(f"{LABELS.get(tool, tool)} · {way} · {'its own' if tool in KNOBLESS else n}", rate)
            for way in ("up", "down") for n, by_tool in wan[f"small_{way}_per_s_at"].items()
            for tool, rate in by_tool.items()]
    figure, axes = plt.subplots(figsize=(9, 0.3 * len(bars) + 1.5))
    axes.barh([name for name, _ in bars], [rate for _, rate in bars])
    axes.invert_yaxis()
    axes.set_title(f"WAN ({wan['rtt_ms']} ms RTT, {wan['link_mibps']} MiB/s): {wan['small_objects']} × 4 KiB,\n"
                   "objects/s (tool · way · in flight)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
