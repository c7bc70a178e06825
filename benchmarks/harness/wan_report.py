"""The WAN section's targets (issue 43) and its table: tool × workload over the link."""

from __future__ import annotations

FBSTORAGE = ("fbstorage_c", "fbstorage_cli")
FLOOR = "curl_parallel"  # the path's floor, not a peer
KNOBLESS = ("gsutil", "gcsfs")  # their own concurrency (wan/small.py)
LABELS = {FLOOR: "floor: curl --parallel-max N (HTTP/2), the same requests",
          "fbstorage_c": "fbstorage (C API, N tasks)", "fbstorage_cli": "fbstorage cp -r -j N / ls -r (CLI)",
          "rclone": "rclone --transfers N", "gsutil": "gsutil -m", "gcsfs": "gcsfs (its asyncio batches)",
          "transfer_manager": "google-cloud-storage transfer_manager (N threads)",
          "google_cloud_storage": "google-cloud-storage list_blobs", "fbstorage": "fbstorage.fsspec"}


def _best(rates: dict, tools, fastest=max) -> float:
    values = [rates[tool] for tool in tools if tool in rates]
    if not values:
        raise KeyError("no tool measured")
    return fastest(values)


def _peers(rates: dict) -> list[str]:
    return [tool for tool in rates if tool not in FBSTORAGE and tool != FLOOR]


def _against_bound(wan: dict, way: str) -> float:
    """fbstorage's best rate over the bound at the concurrency it was reached with."""
    rate, in_flight = max((by_tool[tool], n) for n, by_tool in wan[f"small_{way}_per_s_at"].items()
                          for tool in FBSTORAGE if tool in by_tool)
    return rate / wan["small_bound_per_s"][in_flight]


def _list_key(wan: dict) -> str:
    return f"list_{wan['list_objects']}_s"


def targets():
    """(what, figure, bound, "min"/"max") as harness/targets.py lists them."""
    for way in ("upload", "download"):
        yield (f"WAN bulk {way} MiB/s vs the link's (fbstorage C)",
               lambda r, way=way: r["wan"][f"fbstorage_{way}_mibps"] / r["wan"]["link_mibps"], 0.9, "min")
    for way in ("up", "down"):
        key = f"small_{way}_per_s"
        yield (f"WAN small objects {way}: fbstorage over the best peer",
               lambda r, key=key: _best(r["wan"][key], FBSTORAGE) / _best(r["wan"][key], _peers(r["wan"][key])),
               1.5, "min")
        yield (f"WAN small objects {way}: fbstorage over the link's bound for its concurrency",
               lambda r, way=way: _against_bound(r["wan"], way), 0.5, "min")
    yield "WAN cold start (sign-in + first 4 KiB upload), round trips", lambda r: r["wan"]["cold_start_rtts"], 5, "max"
    yield ("WAN listing: fbstorage's time over the best peer's",
           lambda r: _best(r["wan"][_list_key(r["wan"])], FBSTORAGE, min)
           / _best(r["wan"][_list_key(r["wan"])], _peers(r["wan"][_list_key(r["wan"])]), min), 1.0, "max")
    yield ("ranged read: bytes fbstorage fetched over what pyarrow asked for (loopback)",
           lambda r: r["ranged_read"]["fbstorage_bytes_fetched"] / r["ranged_read"]["pyarrow_bytes_requested"],
           1.2, "max")
    yield ("ranged read: fbstorage.fsspec time over gcsfs's (loopback)",
           lambda r: r["ranged_read"]["fbstorage_s"] / r["ranged_read"]["gcsfs_s"], 1.0, "max")
    yield ("ranged read: fbstorage.fsspec time over gcsfs's (WAN)",
           lambda r: r["wan"]["ranged_read_s"]["fbstorage"] / r["wan"]["ranged_read_s"]["gcsfs"], 1.0, "max")


def _tool(run: str) -> str:
    """"rclone_up_16" -> "rclone", "gcsfs_down" -> "gcsfs"."""
    return run.split("_up")[0].split("_down")[0]


def _protocols(wan: dict) -> str:
    """"HTTP/2.0: tool, tool; HTTP/1.1: tool" from the small-object runs' request counts."""
    by_protocol: dict[str, list[str]] = {}
    for run, counts in wan.get("small_protocols", {}).items():
        tool = _tool(run)
        for protocol in counts:
            if tool not in by_protocol.setdefault(protocol, []):
                by_protocol[protocol].append(tool)
    return "; ".join(f"{protocol}: {', '.join(tools)}" for protocol, tools in sorted(by_protocol.items()))


def markdown(results: dict) -> list[str]:
    wan = results.get("wan")
    if not wan:
        return []
    sizes = wan["sizes"]
    list_key = _list_key(wan)
    in_flights = " / ".join(wan["small_bound_per_s"])
    columns = [("small_up_per_s", f"{wan['small_objects']} × 4 KiB up, /s at {in_flights} in flight"),
               ("small_down_per_s", f"{wan['small_objects']} × 4 KiB down, /s at {in_flights} in flight"),
               (list_key, f"list {wan['list_objects']:,}, s"), ("ranged_read_s", "Parquet column, s")]
    tools = list(dict.fromkeys(tool for key, _ in columns for tool in wan.get(key, {}))
                 | dict.fromkeys(_tool(run) for run in wan.get("small_failed", {}))
                 | dict.fromkeys(wan.get("list_failed", {})))
    out = ["", f"## WAN ({wan['link_nominal']}; measured: RTT {wan['rtt_ms']} ms, link {wan['link_mibps']} MiB/s)", "",
           f"Bulk {sizes['bulk_bytes'] >> 20} MiB: fbstorage (C) up {wan['fbstorage_upload_mibps']} MiB/s, down "
           f"{wan['fbstorage_download_mibps']} MiB/s; curl up {wan['curl_upload_mibps']}, down "
           f"{wan['curl_download_mibps']} MiB/s. Cold start (sign-in + first 4 KiB upload): "
           f"{wan['cold_start_rtts']} round trips ({wan['cold_start_sign_in_rtts']} of them the sign-in). "
           f"Bound for the small objects: {' / '.join(map(str, wan['small_bound_per_s'].values()))}/s "
           f"({wan['small_bound']}); the path's "
           f"measured floor is the curl --parallel row. Protocols seen by the front: {_protocols(wan)}.",
           *([f"", f"Ranged read, fbstorage over the link: {wan['ranged_read_fbstorage_gets']} GETs one after another, "
              f"{wan['ranged_read_fbstorage_bytes_fetched']:,} bytes fetched for "
              f"{wan['ranged_read_pyarrow_bytes']['fbstorage']:,} pyarrow asked for; bound "
              f"{wan['ranged_read_fbstorage_bound_s']} s (a round trip each plus the bytes at the link's rate)."]
             if "ranged_read_fbstorage_gets" in wan else []), "",
           "| tool | " + " | ".join(title for _, title in columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for tool in tools:
        cells = []
        for key, _ in columns:
            way = "up" if key == "small_up_per_s" else "down"
            value = wan.get(key, {}).get(tool)
            if key.startswith("small") and value is not None:
                at = [by_tool.get(tool) for by_tool in wan[f"{key}_at"].values()]
                cells.append(" / ".join(f"{rate:g}" for rate in at if rate is not None) + ("" if None not in at else " (its own)"))
                continue
            failed = any(run.startswith(f"{tool}_{way}") for run in wan.get("small_failed", {})) \
                if key.startswith("small") else False
            cells.append(f"{value:g}" if value is not None else "fails (see below)" if failed else "–")
        out.append(f"| {LABELS.get(tool, tool)} | " + " | ".join(cells) + " |")
    failures = {**wan.get("small_failed", {}), **wan.get("list_failed", {}), **wan.get("ranged_read_failed", {})}
    for what, error in failures.items():
        lines = error.strip().splitlines()
        cause = next((line for line in lines if "400" in line or "Error" in line), lines[-1])
        out.append(f"\n`{what}`: {cause.strip()[:300]}")
    return out
