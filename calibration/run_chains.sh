#!/usr/bin/env bash
# Item 31: builds src/bench_interfere.cu and runs its `chains` mode: FMNMX, F2FP and MUFU.EX2 on
# 1, 2, 4 (or 8) dependent chains per thread, one warpgroup, alone and beside a warpgroup
# running wgmma SS back to back (does a busy tensor pipe slow latency-bound chains as it slows
# saturating streams, item 11?).
# On the device tool:  bash calibration/run_chains.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_chains.sh [outdir] (default: calibration/results/chains)
set -u
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/chains}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" > "$OUTDIR/chains_env.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv >> "$OUTDIR/chains_env.txt" 2>&1
nvcc $NVFLAGS -o build/bench_interfere src/bench_interfere.cu > "$OUTDIR/chains_build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/chains_build.log"
tail -3 "$OUTDIR/chains_build.log"
cuobjdump --dump-sass build/bench_interfere > build/chains.sass 2>/dev/null
# The chain kernels (ALU kinds 11-17, one stream warpgroup), for their instruction counts.
awk '/Function :/{p = ($0 ~ /interfereILi[01]ELi(1[1-7])ELi1E/)} p' build/chains.sass | gzip -c > "$OUTDIR/chains_sass.txt.gz"
zcat "$OUTDIR/chains_sass.txt.gz" | grep -oE "Function : [^ ]+|\b(FMNMX|F2FP\.[A-Z0-9.]+|MUFU\.EX2|HGMMA\.[0-9x]+\.F32\.BF16)\b" | uniq -c > "$OUTDIR/chains_sass_summary.txt"
Q="timestamp,clocks.sm,power.draw,clocks_event_reasons.active"
nvidia-smi --query-gpu=$Q --format=csv,noheader,nounits -lms 100 > "$OUTDIR/chains_smi.csv" 2>&1 &
SMI=$!
timeout 150 ./build/bench_interfere chains > "$OUTDIR/chains.log" 2>&1
echo "rc=$?" >> "$OUTDIR/chains.log"
kill $SMI 2>/dev/null; wait $SMI 2>/dev/null
grep -o '"name":"[^"]*","value":[^,]*' "$OUTDIR/chains.log"
tail -2 "$OUTDIR/chains.log"
