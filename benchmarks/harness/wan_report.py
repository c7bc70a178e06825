"""The WAN section's targets (issue 43) and its table: tool × workload over the link."""

from __future__ import annotations

FBSTORAGE = ("fbstorage_c", "fbstorage_cli")
FLOOR = "curl_parallel"  # the path's floor, not a peer
LABELS = {FLOOR: "floor: curl --parallel (16, HTTP/2), the same requests","fbstorage_c": "fbstorage (C API, 16 tasks)", "fbstorage_cli": "fbstorage cp -r / ls -r (CLI, -j 16)",
          "rclone": "rclone (--transfers 16)", "gsutil": "gsutil -m", "gcsfs": "gcsfs",
          "transfer_manager": "google-cloud-storage transfer_manager (16 threads)",
          "google_cloud_storage": "google-cloud-storage list_blobs", "fbstorage": "fbstorage.fsspec"}


def _best(rates: dict, tools, fastest=max) -> float:
    values = [rates[tool] for tool in tools if tool in rates]
    if not values:
        raise KeyError("no tool measured")
    return fastest(values)


def _peers(rates: dict) -> list[str]:
    return [tool for tool in rates if tool not in FBSTORAGE and tool != FLOOR]


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
        yield (f"WAN small objects {way}: fbstorage over the link's bound for 16 in flight",
               lambda r, key=key: _best(r["wan"][key], FBSTORAGE) / r["wan"]["small_bound_per_s"], 0.5, "min")
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


def _protocols(wan: dict) -> str:
    """"HTTP/2.0: tool, tool; HTTP/1.1: tool" from the small-object runs' request counts."""
    by_protocol: dict[str, list[str]] = {}
    for run, counts in wan.get("small_protocols", {}).items():
        tool = run.rsplit("_", 1)[0]
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
    columns = [("small_up_per_s", f"{wan['small_objects']} × 4 KiB up, /s"),
               ("small_down_per_s", f"{wan['small_objects']} × 4 KiB down, /s"),
               (list_key, f"list {wan['list_objects']:,}, s"), ("ranged_read_s", "Parquet column, s")]
    tools = list(dict.fromkeys(tool for key, _ in columns for tool in wan.get(key, {}))
                 | dict.fromkeys(tool for key in ("small_failed", "list_failed")
                                 for tool in (t.rsplit("_", 1)[0] if key == "small_failed" else t
                                              for t in wan.get(key, {}))))
    out = ["", f"## WAN ({wan['link_nominal']}; measured: RTT {wan['rtt_ms']} ms, link {wan['link_mibps']} MiB/s)", "",
           f"Bulk {sizes['bulk_bytes'] >> 20} MiB: fbstorage (C) up {wan['fbstorage_upload_mibps']} MiB/s, down "
           f"{wan['fbstorage_download_mibps']} MiB/s; curl up {wan['curl_upload_mibps']}, down "
           f"{wan['curl_download_mibps']} MiB/s. Cold start (sign-in + first 4 KiB upload): "
           f"{wan['cold_start_rtts']} round trips ({wan['cold_start_sign_in_rtts']} of them the sign-in). "
           f"Bound for the small objects: {wan['small_bound_per_s']}/s ({wan['small_bound']}); the path's "
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
            failed = wan.get("small_failed", {}).get(f"{tool}_{way}") if key.startswith("small") else None
            cells.append(f"{value:g}" if value is not None else "fails (see below)" if failed else "–")
        out.append(f"| {LABELS.get(tool, tool)} | " + " | ".join(cells) + " |")
    failures = {**wan.get("small_failed", {}), **wan.get("list_failed", {}), **wan.get("ranged_read_failed", {})}
    for what, error in failures.items():
        lines = error.strip().splitlines()
        cause = next((line for line in lines if "400" in line or "Error" in line), lines[-1])
        out.append(f"\n`{what}`: {cause.strip()[:300]}")
    return out
