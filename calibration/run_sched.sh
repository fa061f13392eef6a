#!/usr/bin/env bash
# Builds and runs src/bench_sched.cu (item 23: how one sub-partition's scheduler shares its
# issue slot between warps that are ready together), then summarises it (sched_summary.py).
# On the device tool:  bash calibration/run_sched.sh          (writes into $OUT)
# Anywhere else:       bash calibration/run_sched.sh [outdir] (default: calibration/results/sched)
set -u
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/sched}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" > "$OUTDIR/sched_env.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv >> "$OUTDIR/sched_env.txt" 2>&1
nvcc $NVFLAGS -o build/bench_sched src/bench_sched.cu > "$OUTDIR/sched_build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/sched_build.log"
tail -3 "$OUTDIR/sched_build.log"
cuobjdump --dump-sass build/bench_sched > "$OUTDIR/sched_sass.txt" 2>&1
timeout 120 ./build/bench_sched > "$OUTDIR/sched.csv" 2> "$OUTDIR/sched.err"
echo "rc=$?" >> "$OUTDIR/sched.err"
cat "$OUTDIR/sched.err"
python3 sched_summary.py "$OUTDIR/sched.csv" | tee "$OUTDIR/sched_summary.txt"
