#!/usr/bin/env python3
"""Summarizes the bench JSONs of `gpu-run.sh pdl` and `gpu-run.sh bulk` into Markdown tables.
Usage: summarize-pdl-bulk.py pdl DIR   (pdl-{on,off}-TYPE-2pE.json: each kernel with PDL on and off)
       summarize-pdl-bulk.py bulk DIR  (bulk-TYPE-2pE.json: k13, k14 and CUB at large N)"""
import glob, json, os, sys

def states(path):
    j = json.load(open(path))
    read = j.get("meta", {}).get("peaks", {}).get("measured_read_gbs", 0)
    for st in j["benchmarks"][0]["states"]:
        if st.get("is_skipped"):
            continue
        ax = {a["name"]: str(a["value"]) for a in st["axis_values"]}
        sm = {s["tag"]: s["data"][0]["value"] for s in st["summaries"]}
        yield ax, sm, read

def log2(n):
    return int(n).bit_length() - 1

def pdl(d):
    rows = {}  # (type, log2n, kernel) -> {on/off: median us}
    for f in sorted(glob.glob(os.path.join(d, "pdl-*.json"))):
        for ax, sm, _ in states(f):
            ok = sm.get("reducelab/check", "pass") == "pass"
            key = (ax["T"], log2(ax["Elements"]), ax["Kernel"])
            rows.setdefault(key, {})[ax.get("PDL", "on")] = (float(sm["nv/cold/time/gpu/median"]) * 1e6, ok)
    print("| type | N | kernel | PDL on us | PDL off us | off - on us |")
    print("| --- | --- | --- | --- | --- | --- |")
    for key in sorted(rows, key=lambda k: (k[0], k[1], int(k[2][1:]))):
        r = rows[key]
        if "on" not in r or "off" not in r:
            continue
        bad = "" if r["on"][1] and r["off"][1] else " (check failed)"
        print(f"| {key[0]} | 2^{key[1]} | {key[2]} | {r['on'][0]:.2f} | {r['off'][0]:.2f} | {r['off'][0] - r['on'][0]:+.2f}{bad} |")

def bulk(d):
    rows = {}  # (type, log2n) -> {kernel: (us, GB/s, ok)}
    read = 0
    for f in sorted(glob.glob(os.path.join(d, "bulk-*.json"))):
        for ax, sm, r in states(f):
            read = r or read
            rows.setdefault((ax["T"], log2(ax["Elements"])), {})[ax["Kernel"]] = (
                float(sm["nv/cold/time/gpu/median"]) * 1e6, float(sm["nv/cold/bw/global/bytes_per_second"]) / 1e9,
                sm.get("reducelab/check", "pass") == "pass")
    print(f"Measured read ceiling: {read:.1f} GB/s\n")
    print("| type | N | k13 us | k14 us | CUB us | k14 / k13 time | k14 GB/s | k14 % of read ceiling |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for (t, lg) in sorted(rows):
        r = rows[(t, lg)]
        if "k13" not in r or "k14" not in r:
            continue
        cub = f"{r['cub'][0]:.2f}" if "cub" in r else "-"
        pct = 100 * r["k14"][1] / read if read else 0
        bad = "" if r["k14"][2] else " (check failed)"
        print(f"| {t} | 2^{lg} | {r['k13'][0]:.2f} | {r['k14'][0]:.2f}{bad} | {cub} | {r['k14'][0] / r['k13'][0]:.4f} | "
              f"{r['k14'][1]:.1f} | {pct:.2f} |")

if __name__ == "__main__":
    {"pdl": pdl, "bulk": bulk}[sys.argv[1]](sys.argv[2])
