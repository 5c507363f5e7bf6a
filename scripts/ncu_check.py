#!/usr/bin/env python3
"""Checks the trace model's shared-memory wavefronts against Nsight Compute on the GPU machine.

For each kernel x type: the model's per-block load and store wavefronts (`reducelab trace
--format json`, first and last block) summed over the grid, against ncu's
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st.sum and its bank-conflict counters
(l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st.sum) for one launch of the same run
(`reducelab bench ... --final cpu`, so the kernel runs once). `--compare` also makes each trace run
check that the GPU's trace equals the CPU model's.

Two rules, for loads and stores alike:
- the access pattern: ncu's wavefronts minus ncu's bank conflicts (what the instructions need
  without conflicts) must equal the model's ideal wavefronts exactly;
- the conflicts: ncu may count more than the model, never fewer. ncu's counter also takes in
  accesses of different warps that meet in the same cycle, a timing-dependent excess: on the H200
  k8 int32 (one active lane per store, so no conflict is possible inside an instruction) reports
  580 store "conflicts" at N = 2^20 and 434 at 2^24 with the same grid and the same shared-memory
  pattern (docs/bank-conflicts.md). The excess may reach EXCESS of the model's wavefronts (default
  2 %, env NCU_CHECK_EXCESS) or one wavefront per block, whichever is larger.
Exits 1 with a message per difference, 0 when every case agrees. Usage: ncu_check.py [--out FILE]
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
LD_CONF = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
ST_CONF = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
METRICS = [LD, ST, LD_CONF, ST_CONF]
EXCESS = float(os.environ.get("NCU_CHECK_EXCESS", "0.02"))


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
    def total(key):
        return first["totals"][key] * (grid - 1) + last["totals"][key]
    return {"ld": total("load_wavefronts"), "st": total("store_wavefronts"),
            "ld_ideal": total("ideal_load_wavefronts"), "st_ideal": total("ideal_store_wavefronts")}, grid


def ncu_wavefronts(kernel, elem):
    out = run(["ncu", "--clock-control", "none", "--metrics", ",".join(METRICS), "-k",
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
        if r[name_col] in METRICS:
            values[r[name_col]] = int(float(r[value_col].replace(",", "")))
    missing = [m for m in METRICS if m not in values]
    if missing:
        raise RuntimeError(f"ncu did not report {', '.join(missing)} for {kernel} {elem}")
    return {"ld": values[LD], "st": values[ST], "ld_conf": values[LD_CONF], "st_conf": values[ST_CONF]}


def compare(model, ncu, grid, kind):
    """'' when ncu agrees with the model for loads or stores (kind 'ld' / 'st'), else why not."""
    ideal, wavefronts, conflicts = model[kind + "_ideal"], ncu[kind], ncu[kind + "_conf"]
    if wavefronts - conflicts != ideal:
        return f"{kind}: ncu wavefronts without conflicts {wavefronts - conflicts} != model ideal {ideal}"
    excess = wavefronts - model[kind]
    allowed = max(EXCESS * model[kind], grid)
    if excess < 0:
        return f"{kind}: ncu counts fewer conflicts than the model ({wavefronts} < {model[kind]})"
    if excess > allowed:
        return f"{kind}: ncu's excess {excess} over the model's {model[kind]} is above {allowed:.0f}"
    return ""


def main():
    lines, failures = [], 0
    for kernel in KERNELS:
        for elem in TYPES:
            try:
                model, grid = model_wavefronts(kernel, elem)
                ncu = ncu_wavefronts(kernel, elem)
            except RuntimeError as e:
                lines.append(f"FAIL {kernel} {elem}: {e}")
                failures += 1
                continue
            why = [w for w in (compare(model, ncu, grid, "ld"), compare(model, ncu, grid, "st")) if w]
            failures += bool(why)

            def part(kind, label):
                m, n, c = model[kind], ncu[kind], ncu[kind + "_conf"]
                return (f"{label} wavefronts model {m} (ideal {model[kind + '_ideal']}) ncu {n} "
                        f"(conflicts {c}, +{(n - m) / max(m, 1) * 100:.2f} %)")
            lines.append(f"{'ok  ' if not why else 'FAIL'} {kernel} {elem} grid {grid}: {part('ld', 'shared load')}; "
                         f"{part('st', 'store')}" + ("" if not why else " -- " + "; ".join(why)))
    report = "\n".join(lines) + "\n"
    sys.stdout.write(report)
    if "--out" in sys.argv:
        with open(sys.argv[sys.argv.index("--out") + 1], "w") as f:
            f.write(report)
    if failures:
        sys.stderr.write(f"ncu-check: {failures} case(s) where the trace model's shared-memory "
                         "wavefronts differ from Nsight Compute's (see above)\n")
        return 1
    print("ncu-check: the trace model agrees with Nsight Compute in every case (access pattern exact, conflicts within the timing excess)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
