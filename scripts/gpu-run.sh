#!/usr/bin/env bash
# Runs on the GPU machine (device tool): the carried build in .gpu-carry/, logs and images to $OUT.
# Usage: scripts/gpu-run.sh STEP... [COMMAND ARGS...]   (steps below; the first word that is no step
# starts a command that takes the remaining arguments, e.g. `gpu-run.sh info bash -c '...'`)
set -uo pipefail
cd "$(dirname "$0")/.."
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
# Libraries the GPU machine may lack (cairo and its dependencies, from .gpu-libs/extra): unpacked
# aside, and only those the system does not have are put on the library path.
if [ -d .gpu-libs/extra ]; then
  rm -rf /tmp/rl-extra /tmp/rl-libs; mkdir -p /tmp/rl-extra /tmp/rl-libs
  for f in .gpu-libs/extra/*.deb; do dpkg -x "$f" /tmp/rl-extra; done
  for l in /tmp/rl-extra/usr/lib/x86_64-linux-gnu/*.so.*; do
    ldconfig -p | grep -q "$(basename "$l") " || cp -P "$l" /tmp/rl-libs/
  done
  export LD_LIBRARY_PATH=/tmp/rl-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
if [ ! -d /usr/share/glvnd/egl_vendor.d ] && [ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
[ -f .gpu-carry.txz ] && tar -xJf .gpu-carry.txz
C=$PWD/.gpu-carry
# The tests find the copied build through REDUCELAB_TEST_BUILT (tests/test_support.hpp), the scripts through REDUCELAB_BINARY.
export REDUCELAB_SOURCE_DIR=$PWD REDUCELAB_TEST_BUILT=$C REDUCELAB_BINARY=$C/reducelab REDUCELAB_FONT_DIR=$C/fonts PATH=$C:$PATH LD_LIBRARY_PATH=$C${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# cairo finds the carried DejaVu fonts through fontconfig (the machine has no font packages).
printf '<?xml version="1.0"?><fontconfig><dir>%s</dir><cachedir>/tmp/rl-fc</cachedir></fontconfig>\n' "$C/fonts" > /tmp/rl-fonts.conf
export FONTCONFIG_FILE=/tmp/rl-fonts.conf
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/shots
log() { echo "=== $*"; }
NCU_METRICS=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
while [ $# -gt 0 ]; do
  step=$1; shift
  case "$step" in
    info)
      log info; nvidia-smi --query-gpu=name,driver_version,clocks.mem,clocks.sm --format=csv
      reducelab info | tee "$OUT/info.txt"; reducelab info --json > "$OUT/info.json" ;;
    remote)
      # A remote GPU through a local pipe (docs/remote.md): traces, sweep, killed server, GUI, quit.
      log remote; REDUCELAB_BINARY=$C/reducelab scripts/remote-check.sh "$OUT/remote" 2>&1 | tee "$OUT/remote-check.txt" ;;
    ui)
      log ui; reducelab --headless --frames 3 --screenshot "$OUT/ui-h200.png" --stats ;;
    suite)
      # The whole GPU suite (issue 28) with REDUCELAB_EXPECT_GPU=1, so a GPU that does not answer
      # fails every test instead of skipping it; the multi-GPU tests where this machine has two or
      # more GPUs (REDUCELAB_EXPECT_GPUS: fewer visible fails them); the CPU suite too, since some
      # of its tests take another path where a GPU exists. Each in SUITE_SHARDS gtest shards run
      # in turn within SUITE_LIMIT seconds apiece (the device's call lasts 10 minutes); full logs and
      # JSON reports in $OUT/suite/; the summary per label last. Non-zero exit on any failure, any
      # GPU skip, or a shard that wrote no report (crash, time limit).
      log "GPU suite (REDUCELAB_EXPECT_GPU=1)"; mkdir -p "$OUT/suite"; rm -f "$OUT"/suite/*
      # A process left from an earlier call on this machine (one that ran past its limit) would
      # share the GPU with the suite: its tests would fail or time for the wrong reason.
      left='(^|/)(reducelab|reducelab_[a-z]+_tests|reducelab_tests|remote_test_server|usercode_fake_worker)( |$)'
      if pgrep -f "$left" > /dev/null; then
        echo "stopping processes left by an earlier call:"; pgrep -af "$left" | head
        pkill -9 -f "$left"; sleep 1
      fi
      G=$(nvidia-smi -L | grep -c "^GPU")
      export REDUCELAB_EXPECT_GPU=1 REDUCELAB_EXPECT_GPUS=$G
      shards=${SUITE_SHARDS:-1}; limit=${SUITE_LIMIT:-420}; reports=()
      run_shards() {  # LABEL STRICT BINARY PARALLEL [GTEST ARGS]
        local label=$1 strict=$2 bin=$3 parallel=$4 i pids=(); shift 4
        # 4 at once: 8 headless GUI tests at once on the NVIDIA EGL driver made frames take 30 s.
        local n=$shards; [ "$parallel" = 1 ] && n=4
        for i in $(seq 0 $((n - 1))); do
          ( cd /tmp && GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i timeout "$limit" "$bin" \
              --gtest_output="json:$OUT/suite/$label-$i.json" "$@" > "$OUT/suite/$label-$i.log" 2>&1 ) &
          pids+=($!)
          [ "$parallel" = 1 ] || wait $!
          reports+=("$label:$strict:$OUT/suite/$label-$i.json")
        done
        wait "${pids[@]}" 2>/dev/null
      }
      # First, on a GPU nothing has used yet: the CPU suite on 4 processes (CUDA-free tests: they do
      # not disturb each other's timings), but BuildConfig.*, which checks the build folder (it stays
      # on the build machine). SUITE_CPU=0 leaves it out (a call that has the GPU part to do in its
      # 10 minutes); SUITE_CPU_LIMIT bounds each of its shards (default SUITE_LIMIT).
      if [ "${SUITE_CPU:-1}" = 1 ]; then
        t0=$(date +%s); gpuLimit=$limit; limit=${SUITE_CPU_LIMIT:-$limit}
        run_shards cpu 0 "$C/reducelab_tests" 1 --gtest_filter=-BuildConfig.*
        limit=$gpuLimit
        echo "cpu suite: $(( $(date +%s) - t0 )) s"
      fi
      t0=$(date +%s)
      # The user-kernel faults last: after an MMU fault or a trap (Xid 31/43) the NVIDIA GL on the
      # H200 machine drew only black frames, ~5 s each (2026-11-26), so the GL and interop tests,
      # the instrumented traces and any later step run on a GPU no kernel has faulted yet.
      run_shards gpu 1 "$C/reducelab_gpu_tests" 0 --gtest_filter=-GpuUserKernelFaults.*
      echo "gpu suite: $(( $(date +%s) - t0 )) s"
      # What the GPU tests left behind: after them, headless GL frames on this machine took 20-50 s
      # (2026-11-25; a killed worker's endless kernel still running is the suspect), so the CPU
      # shards run first and this says what is still on the GPU.
      nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader | sed 's/^/after the gpu tests: GPU busy, memory: /'
      nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader | sed 's/^/after the gpu tests: still on the GPU: /'
      ps -eo pid,stat,etime,args | grep -E "(reducelab|usercode_fake_worker|remote_test_server)" | grep -vE "grep|gpu-run" | sed 's/^/after the gpu tests: process /' | head
      # Instrumented traces (Compute Sanitizer): their own binary, which subscribes before its first
      # CUDA call; one process per test, so a fault in one cannot end the others.
      if [ -x "$C/reducelab_instrumented_tests" ]; then
        t0=$(date +%s); i=0
        for t in $("$C/reducelab_instrumented_tests" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}'); do
          ( cd /tmp && timeout 120 "$C/reducelab_instrumented_tests" --gtest_filter="$t" \
              --gtest_output="json:$OUT/suite/instrumented-$i.json" > "$OUT/suite/instrumented-$i.log" 2>&1 )
          reports+=("gpu:1:$OUT/suite/instrumented-$i.json"); i=$((i + 1))
        done
        echo "instrumented: $i tests, one process each: $(( $(date +%s) - t0 )) s"
      else
        echo "instrumented: not built (no Compute Sanitizer SDK at configure time)"
      fi
      if [ "$G" -ge 2 ] && [ -x "$C/reducelab_multigpu_tests" ]; then
        run_shards multigpu 1 "$C/reducelab_multigpu_tests" 0
      else
        echo "multigpu: not run: $G GPU on this machine (the multi-GPU tests need 2 or more)"
      fi
      run_shards faults 1 "$C/reducelab_gpu_tests" 0 --gtest_filter=GpuUserKernelFaults.*
      echo "user-kernel faults (run last): the driver logged $(dmesg 2>/dev/null | grep -c 'NVRM: Xid') Xid lines; later GL steps on this machine may draw black frames"
      python3 scripts/test-summary.py "${reports[@]}" | tee "$OUT/suite-summary.txt"; verdict=${PIPESTATUS[0]}
      # One archive: the device returns a limited number of files.
      tar czf "$OUT/suite.tgz" -C "$OUT" suite && rm -rf "$OUT/suite"
      [ "$verdict" = 0 ] || exit 1 ;;
    tests)
      log gpu tests; timeout 550 reducelab_gpu_tests 2>&1 | tee "$OUT/gpu-tests.log" | grep -E "^\[  (FAILED|PASSED|SKIPPED) |OK \]|checked|identical|distinct|Failure|got |differ" | head -90 ;;
    service)
      # One owner of GPU work: k12 on fresh engines, the blocking kernel, resources = curve, peaks
      # cache, and a sweep disturbed by GUI-like trace/resources requests vs an undisturbed one
      # (medians within 1 %). Then the GUI quitting during a sweep (must exit within ~1 s of the
      # last frame) and the results panel's frame cost at 10,000 rows.
      log service; timeout 550 reducelab_gpu_tests --gtest_filter='GpuService.*' 2>&1 | tee "$OUT/gpu-service.log" | grep -E "^\[  (FAILED|PASSED|SKIPPED) |OK \]|Failure|undisturbed" | head -40
      reducelab info --remeasure-peaks | tee "$OUT/info-peaks.txt" | grep -E "peak|clock"
      ( time reducelab --headless --frames 120 --stats --sweep n --kernel k3,k7 ) 2>&1 | tail -6  # real: ~2 s of frames + start-up, not the sweep
      reducelab --headless --frames 300 --stats --dev-fill-results 10000 | tee "$OUT/stats-results-10k.txt" ;;
    cputests)
      log cpu tests; (cd /tmp && timeout 400 reducelab_tests 2>&1) > "$OUT/cpu-tests.log"; grep -E "PASSED|FAILED|Failure" "$OUT/cpu-tests.log" | head -20 ;;
    sweeps)
      log sweeps; rm -rf /tmp/sweeps; mkdir -p /tmp/sweeps
      reducelab sweep --axis n --kernel k3,k7,k10,cub --type float32 --out /tmp/sweeps/n 2>&1 | tail -8
      reducelab sweep --axis block --kernel k3,k7,k10 --type float32 --n 2^24 --out /tmp/sweeps/block 2>&1 | tail -4
      reducelab sweep --axis type --kernel k7,k10,cub --n 2^26 --out /tmp/sweeps/type 2>&1 | tail -3
      tar czf "$OUT/sweeps.tgz" -C /tmp/sweeps . ;;
    recording)
      # The shipped recording (assets/recordings/upc.reducelab) made on the GPU, checked by reading it back and by
      # opening it headless (the banner, the lesson's measured table, the recorded GPU trace): copy
      # $OUT/upc.reducelab to assets/recordings/ and look at $OUT/recording-upc.png.
      log recording; rm -f "$OUT/upc.reducelab"
      reducelab record --lesson upc --out "$OUT/upc.reducelab" 2>&1 | tail -3
      reducelab --headless --frames 3 --size 1920x1080 --screenshot "$OUT/recording-upc.png" --dump-layout "$OUT/recording-upc.json" "$OUT/upc.reducelab"
      timeout 300 reducelab_gpu_tests --gtest_filter='GpuRecording.*' 2>&1 | grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure" ;;
    live-screens)
      # Issue 25 on a live GPU: lessons stepped in presentation mode (each step's panel, headline and
      # plot from runs measured now) at the three projector sizes, and the normal window after --run.
      log "live screens"; rm -rf /tmp/live; mkdir -p /tmp/live
      for s in 1280x720 1600x900 1920x1080; do
        l=upc; [ $s = 1600x900 ] && l=harris
        timeout 200 reducelab lesson $l --headless --presentation --size $s --out /tmp/live/present-$l-$s 2>&1 | tail -3
        timeout 60 reducelab --headless --frames 4 --size $s --run --kernel k3,k8,k12,cub --type float32 --n 2^24 \
          --screenshot /tmp/live/run-$s.png --dump-layout /tmp/live/run-$s.json 2>&1 | tail -2
      done
      tar czf "$OUT/live.tgz" -C /tmp/live . ; find /tmp/live -name '*.png' | wc -l ;;
    lessons)
      log lessons; rm -rf /tmp/lessons; mkdir -p /tmp/lessons
      for l in upc tour; do reducelab lesson $l --headless --out /tmp/lessons/$l | tail -22; done
      tar czf "$OUT/lessons.tgz" -C /tmp/lessons . ;;
    report)
      log report; rm -rf /tmp/report; reducelab report --quick --out /tmp/report 2>&1 | tail -3
      tar czf "$OUT/report.tgz" -C /tmp report ;;
    bench)
      log bench
      reducelab bench --kernel all --type float32 --n 2^24 --block 512 | tee "$OUT/bench-f32-2p24.txt"
      reducelab bench --kernel all --type int32 --n 2^28 --block 512 --no-cpu | tee "$OUT/bench-i32-2p28.txt"
      reducelab bench --kernel all --type float64 --n 2^28 --block 512 --no-cpu | tee "$OUT/bench-f64-2p28.txt" ;;
    pdl)
      # Issue 13, outcome C: programmatic dependent launch isolated. final=gpu (two launches), blocked timing,
      # --pdl on vs off at each point, one after the other; summary table in $OUT/pdl-summary.md.
      log "pdl on vs off"; rm -rf /tmp/pdl; mkdir -p /tmp/pdl
      for t in int32 float64; do for e in 12 16 20; do for p in on off; do
        reducelab bench --kernel k1,k2,k3,k4,k10 --final gpu --type $t --n 2^$e --block 512 --no-cpu --reps 30 \
          --timing blocked --pdl $p --out /tmp/pdl/pdl-$p-$t-2p$e.json --force > /tmp/pdl/log-$p-$t-$e.txt 2>&1 \
          || echo "pdl $p $t 2^$e rc=$?"
      done; done; done
      tar czf "$OUT/pdl.tgz" -C /tmp/pdl . ; python3 scripts/summarize-pdl-bulk.py pdl /tmp/pdl | tee "$OUT/pdl-summary.md" ;;
    bulk)
      # Issue 13, attempt I: k14 (cp.async.bulk into shared memory) against k13 and CUB at large N, then k14 under
      # compute-sanitizer (memcheck, racecheck, synccheck) at an odd N, blocks 256 and 1024, untraced and traced.
      log "bulk: GPU tests of k14"
      REDUCELAB_TEST_QUICK=1 timeout 300 reducelab_gpu_tests --gtest_filter='Catalogue/*k14*:Catalogue/KernelDataAndFinals.*:TimingModes.*' \
        > "$OUT/bulk-gpu-tests.log" 2>&1; echo "rc=$?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure" "$OUT/bulk-gpu-tests.log" | tail -20
      log "bulk: bench k13,k14,cub"; rm -rf /tmp/bulk; mkdir -p /tmp/bulk
      for t in int32 float32 float64; do for e in 24 26 28 30 32; do
        reducelab bench --kernel k13,k14,cub --n 2^$e --type $t --reps 20 --no-cpu \
          --out /tmp/bulk/bulk-$t-2p$e.json --force > /tmp/bulk/log-$t-$e.txt 2>&1 || echo "bulk $t 2^$e rc=$?"
      done; done
      tar czf "$OUT/bulk.tgz" -C /tmp/bulk . ; python3 scripts/summarize-pdl-bulk.py bulk /tmp/bulk | tee "$OUT/bulk-summary.md"
      S="compute-sanitizer --print-limit 100"
      for b in 256 1024; do for tool in memcheck racecheck synccheck; do
        log "compute-sanitizer $tool k14 block $b"
        timeout 120 $S --tool $tool reducelab bench --kernel k14 --type float32 --n 1048613 --block $b --reps 2 --warmup 1 --no-cpu \
          > "$OUT/bulk-sanitizer-$tool-b$b.log" 2>&1; echo "rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|fail" "$OUT/bulk-sanitizer-$tool-b$b.log"
        timeout 120 $S --tool $tool reducelab trace --kernel k14 --type float64 --n 1048613 --block $b \
          > "$OUT/bulk-sanitizer-$tool-traced-b$b.log" 2>&1; echo "traced rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/bulk-sanitizer-$tool-traced-b$b.log"
      done; done ;;
    ncu-fastest)
      # Issue 13, what is in the way where a goal is missed: Nsight Compute's view of k13 and CUB at 2^12,
      # 2^16 (latency: kernel duration against the measured time, occupancy, stalls) and 2^30 (DRAM
      # throughput against its peak), and k14 at 2^30. One launch each (the bench's first timed one).
      log "ncu: k13 / k14 / CUB at the missed goals"
      for c in "k13 int32 2^12 1024" "cub int32 2^12 512" "k13 int32 2^16 512" "cub int32 2^16 512" \
               "k13 float32 2^16 256" "k13 int32 2^30 512" "cub int32 2^30 512" "k14 int32 2^30 512"; do
        set -- $c; echo "--- $c"
        regex=$([ $1 = cub ] && echo "DeviceReduce" || ([ $1 = k13 ] && echo k13Tuned || echo k14Bulk))
        ncu --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
          -k regex:"$regex" --launch-skip 4 --launch-count 1 --csv --page details \
          reducelab bench --kernel $1 --type $2 --n $3 --block $4 --reps 5 --warmup 0 --no-cpu --format csv 2>/dev/null |
          grep -E '^"' | awk -F'","' '{print $(NF-2)" = "$NF" "$(NF-1)}' | tr -d '"' |
          grep -E "^(Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Grid Size|Block Size|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued Instruction|Stall|Waves Per SM|Cluster Size)" | head -24
      done 2>&1 | tee "$OUT/ncu-fastest.txt" ;;
    cluster)
      # Issue 13, outcome H: the cluster threshold lowered to 4 vectors a thread. k13 around it (2^16: cluster of 16,
      # 2^17: cluster, 2^18: ticket now) against k12 and CUB, block 512, blocked timing, 30 repetitions.
      log "cluster threshold"; rm -rf /tmp/cluster; mkdir -p /tmp/cluster
      for t in int32 float32 float64; do for e in 16 17 18; do
        reducelab bench --kernel k12,k13,cub --type $t --n 2^$e --block 512 --no-cpu --reps 30 \
          --out /tmp/cluster/bench-$t-2p$e.json --force > /tmp/cluster/log-$t-$e.txt 2>&1 || echo "cluster $t 2^$e rc=$?"
      done; done
      tar czf "$OUT/cluster.tgz" -C /tmp/cluster . ; python3 scripts/summarize-fastest.py /tmp/cluster | tee "$OUT/cluster-summary.md" ;;
    bench-f32-2p28)
      reducelab bench --kernel all --type float32 --n 2^28 --block 512 --no-cpu | tee "$OUT/bench-f32-2p28.txt" ;;
    shots)
      log screenshots
      for k in k1 k2 k3 k8; do for v in warp bank tree coalescing; do
        step=-1; [ $v = bank ] && step=2; [ $v = tree ] && step=4; [ $v = coalescing ] && step=0
        reducelab --headless --frames 3 --kernel $k --block 256 --view $v --step $step --screenshot /tmp/shots/h200-$k-$v.png || echo "FAILED $k $v"
      done; done
      tar czf "$OUT/shots.tgz" -C /tmp/shots . ; ls /tmp/shots | wc -l ;;
    stats)
      log frame stats
      { reducelab --headless --frames 600 --kernel k2 --block 1024 --view all --step 3 --stats
        reducelab --headless --frames 300 --kernel k8 --block 1024 --view warp --stats
        reducelab --headless --frames 300 --kernel k2 --block 1024 --view bank --step 3 --stats; } | tee "$OUT/stats.txt" ;;
    summaries)
      log gpu trace summaries
      { echo "["; first=1
        for k in k1 k2 k3 k4 k5 k5s k6 k7 k8 k9 k10 k11 k12; do for t in int32 float64; do
          [ $first = 1 ] || echo ","; first=0
          reducelab trace --kernel $k --block 256 --type $t --n 2^20 --format json
        done; done
        echo ","; reducelab trace --kernel k3 --block 512 --type float32 --n 2^24 --format json
        echo "]"; } > "$OUT/gpu_trace_summaries.json"
      for k in k1 k2 k3 k8 k10; do reducelab trace --kernel $k --block 256 --type float64 --n 2^20 --compare > /dev/null; done ;;
    ncu)
      log ncu bank conflicts
      for k in k1 k2 k3 k4; do for t in int32 float64; do
        case $k in k1) name=k1Interleaved;; k2) name=k2Interleaved;; k3) name=k3Sequential;; k4) name=k4FirstAdd;; esac
        echo "--- $k $t"
        ncu --clock-control none --metrics $NCU_METRICS -k regex:$name --launch-count 1 --csv \
          reducelab bench --kernel $k --block 256 --type $t --n 2^20 --reps 1 --warmup 0 --warm-l2 --final cpu --no-cpu --format csv 2>&1 \
          | grep -E '"(l1tex|smsp)__' | awk -F'","' '{print $(NF-2), $NF}' | tr -d '"'
      done; done 2>&1 | tee "$OUT/ncu.txt" ;;
    ncu-check)
      # Fails (exit 1) when the trace model's shared-memory load/store wavefronts, summed over the
      # grid, differ from Nsight Compute's for k1-k4 and k8, int32 and float64 (scripts/ncu_check.py).
      log "ncu-check: trace model shared-memory wavefronts against Nsight Compute"
      python3 scripts/ncu_check.py --out "$OUT/ncu-check.txt" || exit 1 ;;
    k8-probe)
      # Where k8 int32's extra shared-store wavefronts come from: its SASS stores and Nsight
      # Compute's store instructions, wavefronts and bank conflicts over block sizes and N.
      log "k8 int32 probe"
      cuobjdump -sass "$C/reducelab" > /tmp/sass.txt 2>&1
      awk '/Function : .*k8WarpShuffleINS0_5SumOpEiiNS0_6TracerILb0E/ {on=1; print; next} /Function : / {on=0} on && /STS|REDUX|SHFL|BAR/' /tmp/sass.txt | tee "$OUT/k8-sass.txt"
      M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__ctas_launched.sum
      for t in int32 float64 int64; do for b in 32 256 1024; do for n in 2^20 2^24; do
        echo "--- k8 $t block $b N $n"
        ncu --clock-control none --metrics $M -k regex:k8WarpShuffle --launch-count 1 --csv reducelab bench --kernel k8 --block $b --type $t --n $n \
          --reps 1 --warmup 0 --warm-l2 --final cpu --no-cpu --format csv 2>/dev/null | grep -E '^"' | awk -F'","' '{print $(NF-2), $NF}' | grep -v "Metric Name"
      done; done; done 2>&1 | tee "$OUT/k8-probe.txt" ;;
    ncu-sass-probe)
      # Instruction-level (SASS-patched) shared-memory wavefront metrics, which do not see other
      # warps' timing: which exist, and their values for k8 int32 and k1 float64.
      log "ncu instruction-level shared wavefront metrics"
      ncu --query-metrics --chip gh100 2>/dev/null | grep -iE "^smsp__sass.*(shared|bank)" | tee "$OUT/ncu-sass-metrics.txt" | head -40
      M=$(grep -ioE "^smsp__sass_[a-z0-9_]*(wavefronts|bank_conflicts)[a-z0-9_]*shared[a-z0-9_]*" "$OUT/ncu-sass-metrics.txt" | sort -u | sed 's/$/.sum/' | paste -sd, -)
      echo "metrics: $M"
      for c in "k8 int32 256 2^20" "k8 int32 256 2^24" "k8 int32 1024 2^20" "k1 float64 256 2^20" "k2 int32 256 2^20" "k3 int32 256 2^20"; do
        set -- $c; echo "--- $c"
        ncu --clock-control none --metrics "$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum" -k regex:"$( [ $1 = k8 ] && echo k8WarpShuffle || ([ $1 = k1 ] && echo k1Interleaved) || ([ $1 = k2 ] && echo k2Interleaved) || echo k3Sequential)" --launch-count 1 --csv \
          reducelab bench --kernel $1 --block $3 --type $2 --n $4 --reps 1 --warmup 0 --warm-l2 --final cpu --no-cpu --format csv 2>/dev/null | grep -E '^"' | awk -F'","' '{print $(NF-2), $NF}' | grep -v "Metric Name"
      done 2>&1 | tee "$OUT/ncu-sass-probe.txt" ;;
    layout-full)
      # The whole layout matrix (every view x block x scale x size x mode) on the CPU model (CUDA
      # hidden), 16 processes sharing it; each prints its cases and failures.
      log "layout matrix, full"
      for i in $(seq 0 15); do
        (cd /tmp && CUDA_VISIBLE_DEVICES= REDUCELAB_LAYOUT_MATRIX=full REDUCELAB_LAYOUT_SHARD=$i/16 timeout 500 \
          reducelab_tests --gtest_filter='LayoutMatrix.*' > "/tmp/layout-$i.log" 2>&1; echo "shard $i rc=$?" >> /tmp/layout-rc.txt) &
      done; wait
      cat /tmp/layout-rc.txt; cat /tmp/layout-*.log > "$OUT/layout-full.log"
      grep -hE "cases|slowest|FAILED|Failure" /tmp/layout-*.log | head -60 ;;
    bank-probe)
      # How the hardware serves one warp's shared load (4, 8, 16 bytes), pattern by pattern: one LDS
      # per launch under Nsight Compute (scripts/bank_probe.py); the model must give the same counts.
      log "bank probe"; cuobjdump -sass "$C/bank_probe" | grep -E "Function|LDS" | head -12
      timeout 560 python3 scripts/bank_probe.py "$C/bank_probe" "$OUT" "${BANK_PROBE_BUDGET:-330}" | tail -200 ;;
    ncu-matrix)
      # The matrix families (issue 14): shared-memory wavefronts and bank conflicts of the transpose
      # and tiled matmul kernels, model against Nsight Compute, as a Markdown table for the docs.
      log "ncu-matrix: transpose and matmul bank conflicts, model against Nsight Compute"
      python3 scripts/ncu_matrix_check.py --out "$OUT/ncu-matrix.md" || exit 1 ;;
    matrix)
      # The matrix families measured: bench tables, the two lessons, bank-view screenshots.
      log matrix families; rm -rf /tmp/matrix; mkdir -p /tmp/matrix
      reducelab bench --kernel transpose --rows 1024 --cols 1024 --tile 32 --type float32 | tee "$OUT/bench-transpose-1024.txt"
      reducelab bench --kernel transpose --rows 1000 --cols 777 --type float64 | tee "$OUT/bench-transpose-odd-f64.txt"
      reducelab bench --kernel matmul --rows 1024 --cols 1024 --inner 1024 --tile 16 --type float32 | tee "$OUT/bench-matmul-1024.txt"
      reducelab bench --kernel matmul --rows 1000 --cols 777 --inner 333 --tile 29 --type float64 | tee "$OUT/bench-matmul-odd-f64.txt"
      reducelab sweep --axis tile --kernel mm-naive,mm-tiled --rows 2048 --cols 2048 --inner 2048 --out /tmp/matrix/tile 2>&1 | tail -3
      reducelab sweep --axis size --kernel tr-naive,tr-tile,tr-padded,tr-swizzle,tr-diagonal --size-min 256 --size-max 8192 --out /tmp/matrix/size 2>&1 | tail -3
      for l in transpose matmul; do reducelab lesson $l --headless --out /tmp/matrix/lesson-$l | tail -12; done
      for k in tr-tile tr-padded tr-swizzle; do
        reducelab --headless --frames 3 --kernel $k --view bank --step 4 --screenshot /tmp/matrix/h200-$k-bank.png || echo "FAILED $k"
      done
      reducelab --headless --frames 3 --kernel tr-naive --view coalescing --step 0 --screenshot /tmp/matrix/h200-tr-naive-coalescing.png
      reducelab --headless --frames 3 --kernel mm-tiled --view bank --step 1 --screenshot /tmp/matrix/h200-mm-tiled-bank.png
      tar czf "$OUT/matrix.tgz" -C /tmp/matrix . ;;
    sanitize)
      # QUICK=1: N {1, 33, 4099, 2^20+1}, blocks {32, 256, 1024}, every op and type pair. Racecheck runs k5 apart with
      # every hazard printed, so the summary of the others shows nothing is hidden behind the print limit.
      S="compute-sanitizer --print-limit 100000"; T=reducelab_gpu_tests; F='Catalogue/KernelCorrectness*'
      run_tool() { local name=$1; shift; log "compute-sanitizer $name"; REDUCELAB_TEST_QUICK=1 timeout 280 "$@" > "$OUT/sanitizer-$name.log" 2>&1
        echo "rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$OUT/sanitizer-$name.log"
        grep -o "Race reported between Write access at void rl::kernels::[a-zA-Z0-9]*" "$OUT/sanitizer-$name.log" | sort | uniq -c; }
      run_tool memcheck $S --tool memcheck $T --gtest_filter="$F:Catalogue/TraceEquality*"
      run_tool synccheck $S --tool synccheck $T --gtest_filter="$F"
      run_tool racecheck-without-k5 $S --tool racecheck $T --gtest_filter="$F:-*/k5"
      run_tool racecheck-k5 $S --tool racecheck $T --gtest_filter="$F/k5" ;;
    sass)
      log "traced vs untraced twins in SASS (float sum)"
      cuobjdump -sass "$C/reducelab" > /tmp/sass.txt 2>&1
      cuobjdump -res-usage "$C/reducelab" > /tmp/res.txt 2>&1
      for k in k1InterleavedDivergent k3Sequential k7GridStrideILj512E k8WarpShuffle k10VectorLoads k12LastBlock; do
        for t in 0 1; do
          awk -v pat="${k}.*SumOpEffNS0_6TracerILb${t}E" '
            /Function : / { on = ($0 ~ pat) } on && /\/\*[0-9a-f]+\*\// { n++; if ($0 ~ /STG/) stg++; if ($0 ~ /ATOM|RED\./) atom++ }
            END { printf "%-24s traced=%d  SASS instructions %5d  global stores %3d  atomics %d\n", substr(pat,1,24), pat ~ /Lb1E/, n, stg, atom }' /tmp/sass.txt
        done
      done | tee "$OUT/sass.txt"
      grep -A1 "k3SequentialINS0_5SumOpEffNS0_6TracerILb0E" /tmp/res.txt | head -2 | tee -a "$OUT/sass.txt" ;;
    gui)
      log gui on the GPU
      reducelab --headless --frames 900 --kernel k3,k7,k10,cub --sweep n --sweep-n-max 2^28 --stats \
        --screenshot "$OUT/gui-sweep-h200.png" | tee "$OUT/gui-stats.txt"
      reducelab --headless --frames 3 --kernel k1,k2,k3,k4,k5,k5s,k6,k7,k8,k9,k10,k11,k12,cub --run --block 512 \
        --view bank --step 2 --screenshot "$OUT/gui-h200.png" ;;
    multi)
      # Reduction across every visible GPU (NCCL_NVLS_ENABLE=0 is set by the binary itself).
      log multi; G=$(nvidia-smi -L | wc -l); nvidia-smi topo -m | tee "$OUT/multi-topo-g$G.txt"
      reducelab multi --format json --out "$OUT/multi-g$G.json" --chart "$OUT/multi-g$G.svg" --force; echo "rc=$?"
      reducelab multi --from "$OUT/multi-g$G.json" > "$OUT/multi-g$G.txt"; reducelab multi --from "$OUT/multi-g$G.json" --format md > "$OUT/multi-g$G.md"; cat "$OUT/multi-g$G.txt"
      reducelab multi --model --gpus "$G" --sizes 1G > "$OUT/multi-model-g$G.txt"
      # The multi-GPU tests have their own binary; REDUCELAB_EXPECT_GPUS makes fewer GPUs than here a failure.
      REDUCELAB_EXPECT_GPU=1 REDUCELAB_EXPECT_GPUS=$G timeout 550 reducelab_multigpu_tests 2>&1 | tee "$OUT/multi-tests-g$G.log" | grep -E "^\[  (FAILED|PASSED|SKIPPED) |OK \]|Failure" | head -40 ;;
    pitfalls)
      # Seed 002's pitfalls on the GPU (issue 14): the GPU tests (GPU = CPU model where deterministic, the guard
      # zone), memcheck over them (the undersized buffer's writes stay inside the allocation: 0 errors), and
      # the lesson headless (tables in lesson.md, one CSV per pitfall, step PNGs).
      log pitfalls; rm -rf /tmp/lessons/pitfalls; mkdir -p /tmp/lessons
      timeout 300 reducelab_gpu_tests --gtest_filter='GpuPitfalls.*' 2>&1 | tee "$OUT/pitfalls-gpu-tests.log" | grep -E "^\[  (FAILED|PASSED|SKIPPED) |OK \]|Failure" | head -20
      timeout 300 compute-sanitizer --tool memcheck --print-limit 1000 reducelab_gpu_tests --gtest_filter='GpuPitfalls.*:-*Clock*' > "$OUT/pitfalls-memcheck.log" 2>&1
      echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$OUT/pitfalls-memcheck.log"
      (cd /tmp && reducelab_tests --gtest_filter='Pitfalls*' 2>&1 | tail -3)
      reducelab lesson pitfalls --headless --out /tmp/lessons/pitfalls | tee "$OUT/lesson-pitfalls.txt" | tail -60
      tar czf "$OUT/lesson-pitfalls.tgz" -C /tmp/lessons pitfalls ;;
    ladder)
      reducelab --headless --frames 600 --kernel k3 --sweep kernel --stats --screenshot "$OUT/gui-ladder-h200.png" | tail -1 ;;
    *) "$step" "$@"; break ;;  # a command: the rest of the arguments are its own
  esac
done
