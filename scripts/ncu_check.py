#!/usr/bin/env python3
"""Checks the trace model's shared-memory wavefronts against Nsight Compute on the GPU machine.

For each kernel x type: the model's per-block load and store wavefronts (`reducelab trace
--format json`, first and last block) summed over the grid, against Nsight Compute for one launch
of the same run (`reducelab bench ... --final cpu`, so the kernel runs once). `--compare` also makes
each trace run check that the GPU's trace equals the CPU model's.

Nsight Compute has two kinds of counters. The instruction-level ones (smsp__sass_*, SASS patching)
count what each executed instruction needs: they must equal the model EXACTLY.
  loads:  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  stores: smsp__sass_data_bytes_mem_shared_op_st.sum
          / smsp__sass_average_data_bytes_per_wavefront_mem_shared_op_st.ratio, exact up to the
          rounding of the ratio as ncu prints it (k1 int32: 225,302 for 225,280)
The hardware L1 counters (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st.sum) also count
wavefronts that accesses of different warps cost when they meet in the same cycles: a
timing-dependent excess (H200, k8 int32, block 256: 580 extra store wavefronts at N = 2^20, 434
at 2^24, with the same grid and the same instructions, each storing from one lane). They are
printed beside the model for the record, with that excess, and must never be below the model.
Exits 1 with a message per difference, 0 when every case agrees. Usage: ncu_check.py [--out FILE]
"""
import csv
import io
import json
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
SASS_LD = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
SASS_ST_BYTES = "smsp__sass_data_bytes_mem_shared_op_st.sum"
SASS_ST_PER_WAVEFRONT = "smsp__sass_average_data_bytes_per_wavefront_mem_shared_op_st.ratio"
HW_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
HW_ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
METRICS = [SASS_LD, SASS_ST_BYTES, SASS_ST_PER_WAVEFRONT, HW_LD, HW_ST]


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
    return {"ld": total("load_wavefronts"), "st": total("store_wavefronts")}, grid


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
    values, decimals = {}, {}
    for r in rows:
        if r is header or len(r) <= value_col:
            continue
        for m in METRICS:
            if r[name_col] == m.rsplit(".", 1)[0] or r[name_col] == m:
                text = r[value_col].replace(",", "")
                values[m] = float(text)
                decimals[m] = len(text.split(".")[1]) if "." in text else 0
    missing = [m for m in METRICS if m not in values]
    if missing:
        raise RuntimeError(f"ncu did not report {', '.join(missing)} for {kernel} {elem}")
    per_wavefront = values[SASS_ST_PER_WAVEFRONT]
    st = round(values[SASS_ST_BYTES] / per_wavefront) if per_wavefront > 0 else 0
    # The printed ratio is rounded to its last decimal: the store count is known to within this.
    half_unit = 0.5 * 10 ** -decimals[SASS_ST_PER_WAVEFRONT]
    st_slack = (values[SASS_ST_BYTES] * half_unit / (per_wavefront - half_unit) ** 2 + 1
                if per_wavefront > half_unit else float("inf"))
    return {"ld": int(values[SASS_LD]), "st": st, "st_slack": st_slack,
            "hw_ld": int(values[HW_LD]), "hw_st": int(values[HW_ST])}


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
            why = []
            for kind, label in (("ld", "load"), ("st", "store")):
                slack = ncu.get(kind + "_slack", 0)
                if abs(ncu[kind] - model[kind]) > slack:
                    why.append(f"{label}: instruction-level {ncu[kind]} != model {model[kind]}"
                               + (f" (+-{slack:.0f} from the printed ratio)" if slack else ""))
                if ncu["hw_" + kind] < model[kind]:
                    why.append(f"{label}: hardware counter {ncu['hw_' + kind]} below the model {model[kind]}")
            failures += bool(why)

            def part(kind, label):
                m, hw = model[kind], ncu["hw_" + kind]
                slack = f" +-{ncu[kind + '_slack']:.0f}" if kind + "_slack" in ncu else ""
                return (f"{label} wavefronts model {m} ncu {ncu[kind]}{slack} (hardware counter {hw}, "
                        f"+{(hw - m) / max(m, 1) * 100:.2f} %)")
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
    print("ncu-check: the trace model's shared-memory wavefronts equal Nsight Compute's instruction-level "
          "counts in every case")
    return 0


if __name__ == "__main__":
    sys.exit(main())
