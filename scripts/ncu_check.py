#!/usr/bin/env python3
"""Checks the trace model's shared-memory wavefronts against Nsight Compute on the GPU machine.

For each kernel x type: the model's per-block load and store wavefronts (`reducelab trace
--format json`, first and last block) summed over the grid, against ncu's
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st.sum for one launch of the same run
(`reducelab bench ... --final cpu`, so the kernel runs once). The wavefronts are the bank model's
(trace_analysis.cpp) over the traced addresses; `--compare` also makes each trace run check that the
GPU's trace equals the CPU model's. Stores must match exactly. Loads: ncu adds a timing-dependent
excess of 0.4-1.4 % on this hardware (docs/bank-conflicts.md: not a multiple of the block count, so
not an access pattern), so ncu may exceed the model by at most LOAD_EXCESS (default 2 %, env
NCU_CHECK_LOAD_EXCESS) and never fall below it. Exits 1 with a message per difference, 0 when
every case agrees. Usage: ncu_check.py [--out FILE]
"""
import csv
import io
import json
import os
import subprocess
import sys

KERNELS = {  # key: the __global__ function's name (ncu -k regex)
    "k1": "k1InterleavedDivergent",
    "k2": "k2InterleavedStrided",
    "k3": "k3Sequential",
    "k4": "k4FirstAddDuringLoad",
    "k8": "k8WarpShuffle",
}
TYPES = ["int32", "float64"]
BLOCK, N = "256", "2^20"
LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
LOAD_EXCESS = float(os.environ.get("NCU_CHECK_LOAD_EXCESS", "0.02"))


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-400:]}")
    return p.stdout


def model_wavefronts(kernel, elem):
    """Load and store wavefronts of the whole grid from the traces of the first and last block."""
    base = ["reducelab", "trace", "--kernel", kernel, "--block", BLOCK, "--type", elem, "--n", N,
            "--final", "cpu", "--format", "json", "--compare"]
    first = json.loads(run(base + ["--traced-block", "0"]))
    grid = int(first["grid"])
    last = json.loads(run(base + ["--traced-block", str(grid - 1)])) if grid > 1 else first
    ld = first["totals"]["load_wavefronts"] * (grid - 1) + last["totals"]["load_wavefronts"]
    st = first["totals"]["store_wavefronts"] * (grid - 1) + last["totals"]["store_wavefronts"]
    return ld, st, grid


def ncu_wavefronts(kernel, elem):
    out = run(["ncu", "--clock-control", "none", "--metrics", f"{LD},{ST}", "-k",
               f"regex:{KERNELS[kernel]}", "--launch-count", "1", "--csv",
               "reducelab", "bench", "--kernel", kernel, "--block", BLOCK, "--type", elem, "--n", N,
               "--reps", "1", "--warmup", "0", "--warm-l2", "--final", "cpu", "--no-cpu",
               "--format", "csv"])
    rows = list(csv.reader(io.StringIO("\n".join(l for l in out.splitlines() if l.startswith('"')))))
    header = next((r for r in rows if "Metric Name" in r and "Metric Value" in r), None)
    if header is None:
        raise RuntimeError(f"no ncu metrics in the output for {kernel} {elem}:\n{out[-800:]}")
    name_col, value_col = header.index("Metric Name"), header.index("Metric Value")
    values = {}
    for r in rows:
        if r is header or len(r) <= value_col:
            continue
        if r[name_col] in (LD, ST):
            values[r[name_col]] = int(float(r[value_col].replace(",", "")))
    if LD not in values or ST not in values:
        raise RuntimeError(f"ncu did not report {LD} and {ST} for {kernel} {elem}")
    return values[LD], values[ST]


def main():
    lines, failures = [], 0
    for kernel in KERNELS:
        for elem in TYPES:
            try:
                mld, mst, grid = model_wavefronts(kernel, elem)
                nld, nst = ncu_wavefronts(kernel, elem)
            except RuntimeError as e:
                lines.append(f"FAIL {kernel} {elem}: {e}")
                failures += 1
                continue
            ok = mst == nst and mld <= nld <= mld * (1 + LOAD_EXCESS)
            failures += not ok
            lines.append(f"{'ok  ' if ok else 'FAIL'} {kernel} {elem} grid {grid}: shared load wavefronts "
                         f"model {mld} ncu {nld} (+{(nld - mld) / max(mld, 1) * 100:.2f} %); "
                         f"store wavefronts model {mst} ncu {nst}")
    report = "\n".join(lines) + "\n"
    sys.stdout.write(report)
    if "--out" in sys.argv:
        with open(sys.argv[sys.argv.index("--out") + 1], "w") as f:
            f.write(report)
    if failures:
        sys.stderr.write(f"ncu-check: {failures} case(s) where the trace model's shared-memory "
                         "wavefronts differ from Nsight Compute's (see above)\n")
        return 1
    print("ncu-check: the trace model's shared-memory wavefronts equal Nsight Compute's in every case")
    return 0


if __name__ == "__main__":
    sys.exit(main())
