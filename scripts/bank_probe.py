#!/usr/bin/env python3
"""Which rule gives Hopper's shared-load wavefronts? Runs bank_probe (one LDS per launch, scripts/
bank_probe.cu) under Nsight Compute for a set of warp access patterns and prints, per pattern,
ncu's instruction-level wavefronts beside candidate models. Usage: bank_probe.py PROBE_BINARY OUT_DIR
"""
import csv
import io
import json
import os
import random
import subprocess
import sys
import time

METRIC = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
L1 = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"


def patterns():
    out = []
    add = lambda w, offs, tag: out.append((w, [o if o is None or o >= 0 else None for o in offs], tag))
    for w in (4, 8, 16):
        add(w, [l * w for l in range(32)], f"contiguous w{w}")
        add(w, [0] * 32, f"broadcast w{w}")
        add(w, [0] * 16 + [w] * 16, f"two addresses adjacent w{w}")
        add(w, [0] * 16 + [128] * 16, f"two addresses same bank w{w}")
        add(w, [0] * 16 + [64] * 16, f"two addresses 64B w{w}")
        add(w, [(l % 2) * 128 for l in range(32)], f"alternating same bank w{w}")
        add(w, [(l % 2) * 64 for l in range(32)], f"alternating 64B w{w}")
        add(w, [(l // 8) * 16 for l in range(32)], f"quarter groups w{w}")
        add(w, [(l // 8) * 128 for l in range(32)], f"quarter groups same bank w{w}")
        add(w, [(l // 4) * 16 for l in range(32)], f"eight groups 16B w{w}")
        for s in (2, 4, 8, 16, 32, 33):
            add(w, [l * w * s for l in range(32) if l * w * s < 16000] + [None] * 0, f"stride {s} w{w}")
        for active in (1, 8, 16, 17, 24):
            add(w, [l * w if l < active else None for l in range(32)], f"first {active} lanes contiguous w{w}")
            add(w, [0 if l < active else None for l in range(32)], f"first {active} lanes broadcast w{w}")
        add(w, [l * w if l >= 16 else None for l in range(32)], f"upper half contiguous w{w}")
        add(w, [(31 - l) * w for l in range(32)], f"reversed w{w}")
        add(w, [((l + 16) % 32) * w for l in range(32)], f"halves swapped w{w}")
        rnd = random.Random(w)
        for k in range(24):
            span = rnd.choice((256, 512, 1024, 4096))
            add(w, [rnd.randrange(0, span // w) * w for _ in range(32)], f"random span {span} #{k} w{w}")
    # Lane pairs with one lane inactive (does a pair whose partner is idle count as sharing an
    # address?): even or odd lanes only, consecutive or spread addresses, and mixtures.
    for w in (8, 16):
        add(w, [(l // 2) * w if l % 2 == 0 else None for l in range(32)], f"inactive even lanes consecutive w{w}")
        add(w, [(l // 2) * w if l % 2 == 1 else None for l in range(32)], f"inactive odd lanes consecutive w{w}")
        add(w, [l * w if l % 2 == 0 else None for l in range(32)], f"inactive even lanes stride 2 w{w}")
        add(w, [(l // 4) * w if l % 4 == 0 else None for l in range(32)], f"inactive every 4th lane consecutive w{w}")
        add(w, [(l // 2) * w if l % 2 == 0 or l < 8 else None for l in range(32)], f"inactive even lanes, 0-7 all w{w}")
        add(w, [0 if l % 2 == 0 else None for l in range(32)], f"inactive even lanes broadcast w{w}")
        add(w, [(l // 2) * w * 2 if l % 2 == 0 else None for l in range(32)], f"inactive even lanes 2 apart w{w}")
        rnd = random.Random(100 + w)
        for k in range(6):
            add(w, [rnd.randrange(0, 64) * w if l % 2 == 0 else None for l in range(32)], f"inactive odd random #{k} w{w}")
    # The tiled matmul's dot-loop loads, every warp and loop step: A row (broadcast per row), B column.
    for elem, tile in ((4, 8), (8, 8), (4, 16), (8, 16), (4, 32), (8, 32), (8, 29), (4, 29)):
        if True:
            threads = tile * tile
            for n in (range(tile) if elem == 8 or tile != 29 else range(0, tile, 7)):
                for w0 in range(0, threads, 32):
                    lanes = [w0 + l for l in range(32)]
                    a = [((t // tile) * tile + n) * elem if t < threads else None for t in lanes]
                    b = [(n * tile + t % tile) * elem if t < threads else None for t in lanes]
                    add(elem, a, f"mm A tile {tile} e{elem} n{n} warp {w0 // 32}")
                    add(elem, b, f"mm B tile {tile} e{elem} n{n} warp {w0 // 32}")
                    if (tile * elem) % 16 == 0 and (n * elem) % 16 == 0:
                        add(16, a, f"mm A16 tile {tile} e{elem} n{n} warp {w0 // 32}")
    seen, uniq = set(), []
    for w, offs, tag in out:
        offs = (offs + [None] * 32)[:32]
        base = min((o for o in offs if o is not None), default=0) // 128 * 128  # banks repeat every 128 bytes
        offs = [None if o is None else o - base for o in offs]
        key = (w, tuple(offs))
        if key not in seen:
            seen.add(key)
            uniq.append((w, offs, tag))
    return uniq


def measure(probe, pats):
    text = "\n".join(f"{w} " + " ".join(str(-1 if o is None else o) for o in offs) for w, offs, _ in pats) + "\n"
    p = subprocess.run(["ncu", "--clock-control", "none", "--metrics", f"{METRIC},{L1}", "--csv", probe],
                       input=text, capture_output=True, text=True)
    rows = list(csv.reader(io.StringIO("\n".join(l for l in p.stdout.splitlines() if l.startswith('"')))))
    header = next((r for r in rows if "Metric Name" in r), None)
    if header is None:
        raise RuntimeError(p.stdout[-500:] + p.stderr[-500:])
    iid, name, val = header.index("ID"), header.index("Metric Name"), header.index("Metric Value")
    got = {}
    for r in rows:
        if r is not header and len(r) > val:
            got.setdefault(int(r[iid]), {})[r[name]] = int(float(r[val].replace(",", "")))
    return [got.get(i, {}) for i in range(len(pats))]


def main():
    probe, outdir = sys.argv[1], sys.argv[2]
    budget = float(sys.argv[3]) if len(sys.argv) > 3 else 300
    pats = patterns()
    only = os.environ.get("BANK_PROBE_TAGS")  # e.g. "inactive": only the patterns whose tag has it
    if only:
        pats = [p for p in pats if only in p[2]]
    t0, res = time.time(), []
    for c in range(0, len(pats), 150):
        if time.time() - t0 > budget:
            break
        chunk = pats[c:c + 150]
        for (w, offs, tag), g in zip(chunk, measure(probe, chunk)):
            res.append({"width": w, "offsets": offs, "tag": tag, "sass": g.get(METRIC), "l1": g.get(L1)})
        json.dump(res, open(f"{outdir}/bank-probe.json", "w"))
        print(f"{len(res)} of {len(pats)} patterns measured, {time.time() - t0:.0f} s", flush=True)
    for r in res[:160]:
        print(r["width"], r["sass"], r["l1"], r["tag"])


if __name__ == "__main__":
    main()
