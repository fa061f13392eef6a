#!/usr/bin/env bash
# Item 24: builds src/bench_interfere.cu and runs its `pairs` mode: single instruction kinds
# (MUFU.EX2, FFMA, FMNMX) and pairs of them on independent chains, one warpgroup, alone and
# beside a warpgroup running wgmma SS back to back (do two pipes still overlap while the
# tensor cores run?).
# On the device tool:  bash calibration/run_pipe_pairs.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_pipe_pairs.sh [outdir] (default: calibration/results/pipe_pairs)
set -u
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/pipe_pairs}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" > "$OUTDIR/pairs_env.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv >> "$OUTDIR/pairs_env.txt" 2>&1
nvcc $NVFLAGS -o build/bench_interfere src/bench_interfere.cu > "$OUTDIR/pairs_build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/pairs_build.log"
tail -3 "$OUTDIR/pairs_build.log"
cuobjdump --dump-sass build/bench_interfere > build/pairs.sass 2>/dev/null
# The pair kernels (ALU kinds 8-10, one stream warpgroup), for the instruction counts.
awk '/Function :/{p = ($0 ~ /interfereILi[01]ELi(8|9|10)ELi1E/)} p' build/pairs.sass | gzip -c > "$OUTDIR/pairs_sass.txt.gz"
zcat "$OUTDIR/pairs_sass.txt.gz" | grep -oE "Function : [^ ]+|\b(FFMA|FMNMX|MUFU\.EX2|HGMMA\.[0-9x]+\.F32\.BF16)\b" | uniq -c > "$OUTDIR/pairs_sass_summary.txt"
Q="timestamp,clocks.sm,power.draw,clocks_event_reasons.active"
nvidia-smi --query-gpu=$Q --format=csv,noheader,nounits -lms 100 > "$OUTDIR/pairs_smi.csv" 2>&1 &
SMI=$!
timeout 120 ./build/bench_interfere pairs > "$OUTDIR/pairs.log" 2>&1
echo "rc=$?" >> "$OUTDIR/pairs.log"
kill $SMI 2>/dev/null; wait $SMI 2>/dev/null
grep -o '"name":"[^"]*","value":[^,]*' "$OUTDIR/pairs.log"
tail -2 "$OUTDIR/pairs.log"
