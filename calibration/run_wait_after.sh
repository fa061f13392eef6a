#!/usr/bin/env bash
# Item 32: builds src/bench_interfere.cu and runs its `wait_after` mode: an mbarrier
# try_wait on a completed phase, or a dependent ld.shared, issued right after a group of 1-8
# wgmma m64n128k16 (SS or RS) and before the group completes, against the same alone
# (1 or 2 warpgroups a CTA, 1 CTA per SM).
# On the device tool:  bash calibration/run_wait_after.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_wait_after.sh [outdir] (default: calibration/results/wait_after)
set -u
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/wait_after}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" > "$OUTDIR/wait_after_env.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv >> "$OUTDIR/wait_after_env.txt" 2>&1
nvcc $NVFLAGS -o build/bench_interfere src/bench_interfere.cu > "$OUTDIR/wait_after_build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/wait_after_build.log"
tail -3 "$OUTDIR/wait_after_build.log"
cuobjdump --dump-sass build/bench_interfere > build/wait_after.sass 2>/dev/null
# The wait_after kernels' SASS, for the order of the MMAs, the clock reads and the wait.
awk '/Function :/{p = ($0 ~ /wait_after_mma/)} p' build/wait_after.sass | gzip -c > "$OUTDIR/wait_after_sass.txt.gz"
timeout 120 ./build/bench_interfere wait_after > "$OUTDIR/wait_after.log" 2>&1
echo "rc=$?" >> "$OUTDIR/wait_after.log"
grep -o '"name":"[^"]*","value":[^,]*' "$OUTDIR/wait_after.log"
tail -2 "$OUTDIR/wait_after.log"
