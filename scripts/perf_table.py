#!/usr/bin/env python3
"""auto against CUB from one run of `scripts/perf-table.sh run DIR` (issue 24).

Reads DIR/auto-<pass>-<type>-<op>/sweep-n.json (auto and CUB, passes a and b) and DIR/all-<type>/sweep-n.json
(every catalogue reduction, sum) and writes:
  - the table between <!-- perf-table:begin --> and <!-- perf-table:end --> of --markdown (docs/performance.md);
  - the README's short table between the same markers of --readme;
  - --svg: auto / CUB speed by N, one line per type (sum), with the noise band.
Speed = CUB's median kernel time / auto's (above 1: auto faster). The noise of a cell is what the same
kernel measured in pass a and pass b differ by (|a - b| / mean); a cell counts as "at least CUB" when
speed >= 1 - noise, where noise is that cell's auto and CUB noise combined.
Usage: perf_table.py DIR [--markdown FILE] [--readme FILE] [--svg FILE]   (no file: the table on stdout)
"""
import argparse, glob, json, math, os, re, statistics, sys

TYPES = ["int32", "int64", "float32", "float64"]
OPS = ["sum", "min", "max"]


def states(path):
    j = json.load(open(path))
    meta = j.get("meta", {})
    for b in j.get("benchmarks", []):
        for st in b.get("states", []):
            if st.get("is_skipped"):
                continue
            ax = {a["name"]: str(a["value"]) for a in st["axis_values"]}
            sm = {s["tag"]: s["data"][0]["value"] for s in st.get("summaries", [])}
            if "nv/cold/time/gpu/median" not in sm:
                continue
            yield ax, sm, meta


def load(d):
    cells = {}  # (pass, type, op, log2n, kernel) -> dict
    catalogue = {}  # (type, log2n, kernel) -> median us
    ceiling = 0.0
    meta = {}
    for path in glob.glob(os.path.join(d, "auto-*", "*.json")):
        m = re.search(r"auto-([ab])-(\w+?)-(sum|min|max)", path)
        if not m:
            continue
        for ax, sm, mt in states(path):
            meta = meta or mt
            n = int(ax["Elements"])
            lg = n.bit_length() - 1
            ceiling = max(ceiling, float(mt.get("peaks", {}).get("measured_read_gbs", 0) or 0))
            cells[(m.group(1), ax["T"], ax["Op"], lg, ax["Kernel"])] = {
                "us": float(sm["nv/cold/time/gpu/median"]) * 1e6,
                "e2e": float(sm.get("reducelab/time/end_to_end/median", 0)) * 1e6,
                "gbs": float(sm["nv/cold/bw/global/bytes_per_second"]) / 1e9,
                "ok": sm.get("reducelab/check", "pass") == "pass",
                "block": ax.get("Block", ""),
                "policy": sm.get("reducelab/launch/policy", ""),
            }
    for path in glob.glob(os.path.join(d, "all-*", "*.json")):
        for ax, sm, mt in states(path):
            n = int(ax["Elements"])
            catalogue[(ax["T"], n.bit_length() - 1, ax["Kernel"])] = (
                float(sm["nv/cold/time/gpu/median"]) * 1e6, sm.get("reducelab/check", "pass") == "pass")
    return cells, catalogue, ceiling, meta


def noise(cells, t, op, lg, k):
    a, b = cells.get(("a", t, op, lg, k)), cells.get(("b", t, op, lg, k))
    if not a or not b:
        return None
    return abs(a["us"] - b["us"]) / ((a["us"] + b["us"]) / 2)


def speed(cells, t, op, lg):
    """CUB / auto over both passes' medians (the mean of the two), and the cell's noise."""
    au = [cells[(p, t, op, lg, "auto")]["us"] for p in "ab" if (p, t, op, lg, "auto") in cells]
    cu = [cells[(p, t, op, lg, "cub")]["us"] for p in "ab" if (p, t, op, lg, "cub") in cells]
    if not au or not cu:
        return None
    na, nc = noise(cells, t, op, lg, "auto") or 0, noise(cells, t, op, lg, "cub") or 0
    return statistics.mean(cu) / statistics.mean(au), math.hypot(na, nc), statistics.mean(au), statistics.mean(cu)


def target(lg):
    if 14 <= lg <= 20:
        return 1.3
    if 22 <= lg <= 24:
        return 1.1
    return 1.0


def build(cells, catalogue, ceiling, meta, d):
    sizes = sorted({k[3] for k in cells})
    out = []
    gpu = open(os.path.join(d, "gpu.txt")).read().strip() if os.path.exists(os.path.join(d, "gpu.txt")) else "?"
    ver = open(os.path.join(d, "version.txt")).read().strip() if os.path.exists(os.path.join(d, "version.txt")) else "?"
    date = open(os.path.join(d, "date.txt")).read().strip() if os.path.exists(os.path.join(d, "date.txt")) else "?"
    out.append(f"Measured {date} on GPU: {gpu} (name, driver, memory). Build: {ver}. Measured read ceiling: {ceiling:.1f} GB/s. "
               "Kernel time, cold L2, blocked timing, median of the repetitions, mean of passes a and b.\n")
    # Noise over every cell of both kernels.
    ns = [noise(cells, t, op, lg, k) for t in TYPES for op in OPS for lg in sizes for k in ("auto", "cub")]
    ns = sorted(x for x in ns if x is not None)
    if ns:
        out.append(f"Run-to-run noise (|pass a - pass b| / mean, every cell of auto and CUB): median "
                   f"{100 * statistics.median(ns):.2f} %, 90th percentile {100 * ns[int(0.9 * (len(ns) - 1))]:.2f} %, "
                   f"largest {100 * ns[-1]:.2f} %.\n")
    # Speed table: rows N, columns type x op.
    out.append("CUB time / auto time (above 1.00: auto faster). A cell in **bold** misses its goal "
               "(>= 1.3 at 2^14-2^20, >= 1.1 at 2^22-2^24, >= 1.00 elsewhere, each less the cell's noise); "
               "`-` not measured (does not fit).\n")
    head = "| N | " + " | ".join(f"{t} {op}" for t in TYPES for op in OPS) + " |"
    out.append(head)
    out.append("|" + " --- |" * (1 + len(TYPES) * len(OPS)))
    misses = []
    speed_lines = out[-2:]
    for lg in sizes:
        row = [f"2^{lg}"]
        for t in TYPES:
            for op in OPS:
                s = speed(cells, t, op, lg)
                if not s:
                    row.append("-")
                    continue
                sp, nz, au, cu = s
                ok_result = all(cells[(p, t, op, lg, k)]["ok"] for p in "ab" for k in ("auto", "cub")
                                if (p, t, op, lg, k) in cells)
                miss = sp < target(lg) - nz or not ok_result
                if miss:
                    misses.append(f"{t} {op} 2^{lg}: {sp:.2f} (goal {target(lg):.2f}, noise {100 * nz:.1f} %)"
                                  + ("" if ok_result else ", WRONG RESULT"))
                row.append(("**%.2f**" if miss else "%.2f") % sp)
        out.append("| " + " | ".join(row) + " |")
        if lg in (4, 8, 12, 14, 16, 18, 20, 22, 24, 28, 30, 32, 34):
            speed_lines.append(out[-1])
    out.append("")
    # Large N: auto's share of the read ceiling.
    if ceiling > 0:
        out.append("Large N, sum: auto's bandwidth as a share of the measured read ceiling (goal >= 99.5 %).\n")
        out.append("| N | " + " | ".join(TYPES) + " |")
        out.append("|" + " --- |" * (1 + len(TYPES)))
        for lg in [x for x in sizes if x >= 28]:
            row = [f"2^{lg}"]
            for t in TYPES:
                g = [cells[(p, t, "sum", lg, "auto")]["gbs"] for p in "ab" if (p, t, "sum", lg, "auto") in cells]
                row.append(f"{100 * statistics.mean(g) / ceiling:.2f} %" if g else "-")
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    # Small N: kernel and end to end (the mapped result).
    out.append("Small N, sum, float32: auto's kernel time, its end to end (result in host memory), CUB's kernel time, in us.\n")
    out.append("| N | auto kernel | auto end to end | end to end - kernel | CUB kernel |")
    out.append("| --- | --- | --- | --- | --- |")
    for lg in [x for x in sizes if x <= 16]:
        a = cells.get(("a", "float32", "sum", lg, "auto"))
        c = cells.get(("a", "float32", "sum", lg, "cub"))
        if a and c:
            out.append(f"| 2^{lg} | {a['us']:.2f} | {a['e2e']:.2f} | {a['e2e'] - a['us']:.2f} | {c['us']:.2f} |")
    out.append("")
    # What auto picked (pass a, sum).
    out.append("What auto picked (pass a, sum): block, and the policy's source.\n")
    out.append("| type | N | block | policy |")
    out.append("| --- | --- | --- | --- |")
    for t in TYPES:
        for lg in sizes:
            a = cells.get(("a", t, "sum", lg, "auto"))
            if a and lg % 4 == 0:
                out.append(f"| {t} | 2^{lg} | {a['block']} | {a['policy']} |")
    out.append("")
    # The catalogue: the fastest other kernel against auto, sum.
    if catalogue:
        out.append("Every catalogue reduction (sum, one sweep per type up to 2^30): the fastest kernel other than "
                   "auto and its time against auto's in the same sweep.\n")
        out.append("| type | N | auto us | fastest other | its us | CUB us |")
        out.append("| --- | --- | --- | --- | --- | --- |")
        for t in TYPES:
            for lg in sorted({k[1] for k in catalogue if k[0] == t}):
                rows = {k: v for (tt, ll, k), v in catalogue.items() if tt == t and ll == lg and v[1]}
                if "auto" not in rows:
                    continue
                others = {k: v for k, v in rows.items() if k != "auto"}
                if not others:
                    continue
                best = min(others, key=lambda k: others[k][0])
                cub = rows.get("cub", (float("nan"),))[0]
                out.append(f"| {t} | 2^{lg} | {rows['auto'][0]:.2f} | {best} | {others[best][0]:.2f} | {cub:.2f} |")
        out.append("")
    det = {}
    for path in glob.glob(os.path.join(d, "det-*.json")):
        m = re.search(r"det-(default|fixed)-(\w+)-(\d+)\.json", path)
        for ax, sm, _ in states(path):
            det[(m.group(2), int(m.group(3)), m.group(1))] = (float(sm["nv/cold/time/gpu/median"]) * 1e6,
                                                              sm.get("reducelab/result", ""))
    if det:
        out.append("What `--deterministic` costs (float sums): auto's default plan against the fixed-order plan "
                   "(k10, block 256, one block per tile, GPU passes), kernel time in us.\n")
        out.append("| type | N | default us | deterministic us | deterministic / default |")
        out.append("| --- | --- | --- | --- | --- |")
        for (t, lg, kind) in sorted(det):
            if kind != "default" or (t, lg, "fixed") not in det:
                continue
            a, b = det[(t, lg, "default")][0], det[(t, lg, "fixed")][0]
            out.append(f"| {t} | 2^{lg} | {a:.2f} | {b:.2f} | {b / a:.2f} |")
        out.append("")
    out.append(f"Cells below their goal: {len(misses)}" + (":" if misses else "."))
    for m in misses:
        out.append(f"- {m}")
    return "\n".join(out) + "\n", misses, sizes, speed_lines


def svg(cells, sizes, path):
    W, H, L, R, T, B = 900, 420, 70, 150, 30, 50
    pts = {}
    for t in TYPES:
        pts[t] = [(lg, speed(cells, t, "sum", lg)) for lg in sizes]
        pts[t] = [(lg, s[0], s[1]) for lg, s in pts[t] if s]
    ys = [p[1] for v in pts.values() for p in v] + [1.0, 1.3]
    lo, hi = min(0.8, min(ys)), max(ys) * 1.05
    x = lambda lg: L + (lg - sizes[0]) / max(1, sizes[-1] - sizes[0]) * (W - L - R)
    y = lambda v: T + (hi - v) / (hi - lo) * (H - T - B)
    colors = {"int32": "#1f77b4", "int64": "#9467bd", "float32": "#2ca02c", "float64": "#d62728"}
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="DejaVu Sans" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>']
    for v in [lo + i * (hi - lo) / 8 for i in range(9)]:
        s.append(f'<line x1="{L}" x2="{W - R}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#eee"/>')
        s.append(f'<text x="{L - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.2f}</text>')
    for lg in sizes:
        if lg % 2 == 0:
            s.append(f'<text x="{x(lg):.1f}" y="{H - B + 18}" text-anchor="middle">2^{lg}</text>')
    for v, label in ((1.0, "CUB"), (1.3, "goal 2^14-2^20")):
        s.append(f'<line x1="{L}" x2="{W - R}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#888" stroke-dasharray="4 3"/>')
        s.append(f'<text x="{W - R + 4}" y="{y(v) + 4:.1f}" fill="#555">{label}</text>')
    for i, t in enumerate(TYPES):
        p = pts[t]
        if not p:
            continue
        band = " ".join(f"{x(lg):.1f},{y(sp * (1 + nz)):.1f}" for lg, sp, nz in p) + " " + \
               " ".join(f"{x(lg):.1f},{y(sp * (1 - nz)):.1f}" for lg, sp, nz in reversed(p))
        s.append(f'<polygon points="{band}" fill="{colors[t]}" opacity="0.12"/>')
        s.append(f'<polyline fill="none" stroke="{colors[t]}" stroke-width="2" points="' +
                 " ".join(f"{x(lg):.1f},{y(sp):.1f}" for lg, sp, _ in p) + '"/>')
        s.append(f'<text x="{W - R + 4}" y="{T + 40 + 18 * i}" fill="{colors[t]}">{t} sum</text>')
    s.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">N (elements)</text>')
    s.append(f'<text x="16" y="{(T + H - B) / 2}" transform="rotate(-90 16 {(T + H - B) / 2})" '
             f'text-anchor="middle">CUB time / auto time</text>')
    s.append(f'<text x="{L}" y="18" font-weight="bold">auto against CUB on the H200, sum (band: run-to-run noise)</text>')
    s.append("</svg>")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    open(path, "w").write("\n".join(s) + "\n")


def splice(path, text):
    doc = open(path).read()
    begin, end = "<!-- perf-table:begin -->", "<!-- perf-table:end -->"
    if begin not in doc or end not in doc:
        sys.exit(f"{path} has no {begin} ... {end} markers")
    i, j = doc.index(begin) + len(begin), doc.index(end)
    open(path, "w").write(doc[:i] + "\n" + text + doc[j:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--markdown")
    ap.add_argument("--readme")
    ap.add_argument("--svg")
    a = ap.parse_args()
    cells, catalogue, ceiling, meta = load(a.dir)
    if not cells:
        sys.exit(f"no auto/CUB sweeps under {a.dir}")
    text, misses, sizes, speed_lines = build(cells, catalogue, ceiling, meta, a.dir)
    if a.markdown:
        splice(a.markdown, text)
    else:
        sys.stdout.write(text)
    if a.svg:
        svg(cells, sizes, a.svg)
    if a.readme:
        splice(a.readme, text.splitlines()[0] + "\n\n" + "\n".join(speed_lines) + "\n\n" +
               f"{len(misses)} cells below their goal; the whole table, the noise and the figure: docs/performance.md.\n")
    print(f"{len(misses)} cells below their goal", file=sys.stderr)


if __name__ == "__main__":
    main()
