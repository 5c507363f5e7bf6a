#!/usr/bin/env python3
"""Summarizes the issue-13 bench JSONs (scripts/fastest-h200.sh bench) into Markdown tables:
the best hand-written kernel against CUB per type and N, and the timing modes at small N.
Usage: summarize-fastest.py DIR   (the unpacked bench.tgz)"""
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

def main(d):
    rows = {}   # (type, log2n) -> {label: (median_us, gbs)}
    read = 0
    for f in sorted(glob.glob(os.path.join(d, "bench-*.json"))):
        for ax, sm, r in states(f):
            read = r or read
            n = int(ax["Elements"]); lg = n.bit_length() - 1
            label = ax["Kernel"] + ("" if ax["Block"] == "512" else "@" + ax["Block"])
            med = float(sm["nv/cold/time/gpu/median"]) * 1e6
            gbs = float(sm["nv/cold/bw/global/bytes_per_second"]) / 1e9
            ok = sm.get("reducelab/check", "pass") == "pass"
            rows.setdefault((ax["T"], lg), {})[label] = (med, gbs, ok)
    print(f"Measured read ceiling: {read:.1f} GB/s\n")
    print("| type | N | best hand-written | its median us | CUB us | best / CUB speed | GB/s | % of read ceiling | k12 us | k13@512 us |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for (t, lg) in sorted(rows, key=lambda k: (k[0], k[1])):
        r = rows[(t, lg)]
        hand = {k: v for k, v in r.items() if k != "cub" and v[2]}
        if not hand or "cub" not in r:
            continue
        best = min(hand, key=lambda k: hand[k][0])
        b, c = hand[best], r["cub"]
        pct = 100 * b[1] / read if read else 0
        k12 = r.get("k12", (0,))[0]; k13 = r.get("k13", (0,))[0]
        print(f"| {t} | 2^{lg} | {best} | {b[0]:.2f} | {c[0]:.2f} | {c[0]/b[0]:.3f}x | {b[1]:.1f} | {pct:.2f} | {k12:.2f} | {k13:.2f} |")
    modes = {}
    for f in sorted(glob.glob(os.path.join(d, "timing-*.json"))) + sorted(glob.glob(os.path.join(d, "bench-*.json"))):
        for ax, sm, _ in states(f):
            n = int(ax["Elements"]); lg = n.bit_length() - 1
            if lg not in (12, 16, 20) or ax["Block"] != "512" or ax["Kernel"] not in ("k10", "k12", "k13", "cub"):
                continue
            floor = float(sm.get("reducelab/time/launch_floor", 0)) * 1e6
            modes.setdefault((ax["T"], lg, ax["Kernel"]), {})[ax.get("Timing", "blocked")] = (float(sm["nv/cold/time/gpu/median"]) * 1e6, floor)
    print("\n| type | N | kernel | blocked us (floor) | events us (floor) | graph us (floor) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for key in sorted(modes):
        m = modes[key]
        cell = lambda k: f"{m[k][0]:.2f} ({m[k][1]:.2f})" if k in m else "-"
        print(f"| {key[0]} | 2^{key[1]} | {key[2]} | {cell('blocked')} | {cell('events')} | {cell('graph')} |")

if __name__ == "__main__":
    main(sys.argv[1])
