#!/usr/bin/env python3
"""Nsight Compute's shared-memory counters against the trace model for the matrix families.

For each transpose and tiled-matmul case (sizes that are multiples of the tile, so every block
has the same pattern): the model's shared load/store wavefronts and bank conflicts of block 0
(`reducelab trace --format json --compare`: the GPU's trace, checked equal to the CPU model's),
scaled to the grid, against ncu's l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st.sum and
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st.sum for one launch of the same run
(`reducelab bench ... --reps 1 --warmup 0`). The matmul's trace holds the first K-tile and, in the
multiply loop, the first of its `tile` iterations (every iteration has the same pattern), so its
loop step counts tile x K-tiles times and its tile-load step K-tiles times.
Stores must match exactly; ncu's loads may exceed the model by at most LOAD_EXCESS (env
NCU_CHECK_LOAD_EXCESS, default 2 %: docs/bank-conflicts.md). Writes a Markdown table (--out FILE).
Exits 1 on a difference.
"""
import csv
import io
import json
import os
import subprocess
import sys

STEP_TILE_LOAD, STEP_DOT = 11, 13
CASES = [  # key, ncu kernel regex, tile, rows = cols (= inner)
    ("tr-tile", "transposeTiled", 32, 1024), ("tr-padded", "transposeTiled", 32, 1024),
    ("tr-swizzle", "transposeTiled", 32, 1024), ("tr-diagonal", "transposeTiled", 32, 1024),
    ("tr-tile", "transposeTiled", 16, 1024), ("tr-padded", "transposeTiled", 16, 1024),
    ("mm-tiled", "matmulTiled", 16, 1024), ("mm-tiled", "matmulTiled", 32, 1024),
    ("mm-tiled", "matmulTiled", 29, 29 * 32),
]
TYPES = ["float32", "float64"]
M = {
    "ld": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "st": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "ldc": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "stc": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    # Instruction-level (SASS-patched): what the executed loads need, without other warps' timing
    # (docs/bank-conflicts.md, "Two kinds of counters"). The model is compared with this one.
    "ld_sass": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
}
LOAD_EXCESS = float(os.environ.get("NCU_CHECK_LOAD_EXCESS", "0.02"))


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-400:]}")
    return p.stdout


def args(key, tile, side, elem):
    return ["--kernel", key, "--rows", str(side), "--cols", str(side), "--inner", str(side), "--tile", str(tile),
            "--type", elem]


def model(key, tile, side, elem):
    t = json.loads(run(["reducelab", "trace"] + args(key, tile, side, elem) + ["--format", "json", "--compare"]))
    grid = int(t["grid"])
    k_tiles = next((s["param"] for s in t["steps"] if s["kind"] == STEP_TILE_LOAD and key.startswith("mm")), 1)
    tot = {"ld": 0, "st": 0, "ldc": 0, "stc": 0}
    for s in t["steps"]:
        times = 1
        if key.startswith("mm") and s["kind"] == STEP_DOT:
            times = s["param"] * k_tiles  # the loop's `tile` iterations, every K-tile
        elif key.startswith("mm") and s["kind"] == STEP_TILE_LOAD:
            times = k_tiles
        tot["ld"] += s["load_wavefronts"] * times
        tot["st"] += s["store_wavefronts"] * times
        tot["ldc"] += (s["load_wavefronts"] - s["ideal_load_wavefronts"]) * times
        tot["stc"] += (s["store_wavefronts"] - s["ideal_store_wavefronts"]) * times
    return {k: v * grid for k, v in tot.items()}, grid


def ncu(key, regex, tile, side, elem):
    out = run(["ncu", "--clock-control", "none", "--metrics", ",".join(M.values()), "-k", f"regex:{regex}",
               "--launch-count", "1", "--csv", "reducelab", "bench"] + args(key, tile, side, elem) +
              ["--reps", "1", "--warmup", "0", "--warm-l2", "--format", "csv"])
    rows = list(csv.reader(io.StringIO("\n".join(l for l in out.splitlines() if l.startswith('"')))))
    header = next((r for r in rows if "Metric Name" in r and "Metric Value" in r), None)
    if header is None:
        raise RuntimeError(f"no ncu metrics for {key} {elem}:\n{out[-800:]}")
    n, v = header.index("Metric Name"), header.index("Metric Value")
    values = {}
    for r in rows:
        if r is not header and len(r) > v:
            for short, metric in M.items():
                if r[n] == metric:
                    values[short] = int(float(r[v].replace(",", "")))
    if len(values) != len(M):
        raise RuntimeError(f"ncu did not report every metric for {key} {elem}: {values}")
    return values


def main():
    lines = ["| kernel | type | tile | size | grid | shared ld wavefronts model / ncu instr. (L1) | ld conflicts model / ncu L1 | "
             "st wavefronts model / ncu L1 | st conflicts model / ncu L1 | |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    failures = 0
    for key, regex, tile, side in CASES:
        for elem in TYPES:
            try:
                mo, grid = model(key, tile, side, elem)
                nc = ncu(key, regex, tile, side, elem)
            except RuntimeError as e:
                lines.append(f"| {key} | {elem} | {tile} | {side} | | FAIL: {str(e)[:200]} | | | | FAIL |")
                failures += 1
                continue
            # Loads: exactly the instruction-level count. Stores: the L1 counter, never below the model
            # and within the timing excess (no instruction-level store-wavefront counter exists).
            ok = mo["ld"] == nc["ld_sass"] and mo["st"] <= nc["st"] <= mo["st"] * (1 + LOAD_EXCESS)
            failures += not ok
            lines.append(f"| {key} | {elem} | {tile} | {side} | {grid} | {mo['ld']} / {nc['ld_sass']} ({nc['ld']}) | {mo['ldc']} / "
                         f"{nc['ldc']} | {mo['st']} / {nc['st']} | {mo['stc']} / {nc['stc']} | "
                         f"{'ok' if ok else 'FAIL'} |")
    report = "\n".join(lines) + "\n"
    sys.stdout.write(report)
    if "--out" in sys.argv:
        with open(sys.argv[sys.argv.index("--out") + 1], "w") as f:
            f.write(report)
    if failures:
        sys.stderr.write(f"ncu-matrix: {failures} case(s) where the model differs from Nsight Compute\n")
        return 1
    print("ncu-matrix: the model's shared-memory wavefronts equal Nsight Compute's in every case")
    return 0


if __name__ == "__main__":
    sys.exit(main())
