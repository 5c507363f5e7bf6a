#!/usr/bin/env python3
"""Nsight Compute's shared-memory counters against the trace model for the matrix families.

For each transpose and tiled-matmul case (sizes that are multiples of the tile, so every block
has the same pattern): the model's shared load/store wavefronts and bank conflicts of block 0
(`reducelab trace --format json --compare`: the GPU's trace, checked equal to the CPU model's),
scaled to the grid, against Nsight Compute for one launch of the same run (`reducelab bench ...
--reps 1 --warmup 0`). The matmul's trace holds the first K-tile, term by term of its multiply
loop (later K-tiles repeat it), so its tile-load and loop steps count K-tiles times.
Compared, as scripts/ncu_check.py does (docs/bank-conflicts.md, "Two kinds of counters"), with
the instruction-level counters, which do not see other warps' timing: loads exactly
(smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld), stores as data bytes over average
bytes per wavefront, exact to the rounding of the printed ratio. The L1 counters are printed
beside them. Writes a Markdown table (--out FILE). Exits 1 on a difference.
"""
import csv
import io
import json
import subprocess
import sys

STEP_TILE_LOAD, STEP_DOT_TERM = 11, 15
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
    "st_bytes": "smsp__sass_data_bytes_mem_shared_op_st.sum",
    "st_per_wavefront": "smsp__sass_average_data_bytes_per_wavefront_mem_shared_op_st.ratio",
}


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
        times = k_tiles if key.startswith("mm") and s["kind"] in (STEP_TILE_LOAD, STEP_DOT_TERM) else 1
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
    values, decimals = {}, {}
    for r in rows:
        if r is not header and len(r) > v:
            for short, metric in M.items():
                if r[n] == metric or r[n] == metric.rsplit(".", 1)[0]:
                    text = r[v].replace(",", "")
                    values[short] = float(text)
                    decimals[short] = len(text.split(".")[1]) if "." in text else 0
    if len(values) != len(M):
        raise RuntimeError(f"ncu did not report every metric for {key} {elem}: {values}")
    per = values["st_per_wavefront"]
    values["st_sass"] = round(values["st_bytes"] / per) if per > 0 else 0
    half_unit = 0.5 * 10 ** -decimals["st_per_wavefront"]  # the printed ratio's rounding
    values["st_slack"] = values["st_bytes"] * half_unit / (per - half_unit) ** 2 + 1 if per > half_unit else float("inf")
    return {k: (v if k in ("st_per_wavefront", "st_slack") else int(v)) for k, v in values.items()}


def main():
    lines = ["| kernel | type | tile | size | grid | shared ld wavefronts model / ncu instr. (L1) | ld conflicts model / ncu L1 | "
             "st wavefronts model / ncu instr. (L1) | st conflicts model / ncu L1 | |",
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
            # Loads: exactly the instruction-level count; stores: bytes / bytes per wavefront, to its rounding.
            ok = mo["ld"] == nc["ld_sass"] and abs(mo["st"] - nc["st_sass"]) <= nc["st_slack"]
            failures += not ok
            lines.append(f"| {key} | {elem} | {tile} | {side} | {grid} | {mo['ld']} / {nc['ld_sass']} ({nc['ld']}) | {mo['ldc']} / "
                         f"{nc['ldc']} | {mo['st']} / {nc['st_sass']} ({nc['st']}) | {mo['stc']} / {nc['stc']} | "
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
