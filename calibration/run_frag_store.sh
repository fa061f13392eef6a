#!/usr/bin/env bash
# Builds and runs src/bench_frag_store.cu (item 17: a GEMM epilogue storing f32 fragments to
# global memory, one 8-byte store per column pair, at one CTA per SM; item 22, `bf16`: the
# same, and the fragments rounded to bf16, one 4-byte store per pair).
# On the device tool:  bash calibration/run_frag_store.sh [bf16]          (writes into $OUT)
# Anywhere else:       bash calibration/run_frag_store.sh [bf16] [outdir]
#                      (default: calibration/results/frag_store, or frag_store_bf16 with bf16)
set -u
MODE=""
if [ "${1:-}" = bf16 ]; then MODE=bf16; shift; fi
export PATH="$PATH:/usr/local/cuda/bin"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/frag_store${MODE:+_$MODE}}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" > "$OUTDIR/frag_store_env.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv >> "$OUTDIR/frag_store_env.txt" 2>&1
nvcc $NVFLAGS -o build/bench_frag_store src/bench_frag_store.cu > "$OUTDIR/frag_store_build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/frag_store_build.log"
tail -3 "$OUTDIR/frag_store_build.log"
cuobjdump --dump-sass build/bench_frag_store 2>/dev/null \
  | grep -oE "\b(STG\.[A-Z0-9.]+|CS2R[A-Z0-9.]*)\b" | sort | uniq -c | sort -rn > "$OUTDIR/frag_store_sass_summary.txt"
timeout 120 ./build/bench_frag_store $MODE > "$OUTDIR/frag_store.csv" 2> "$OUTDIR/frag_store.err"
echo "rc=$?" >> "$OUTDIR/frag_store.err"
cat "$OUTDIR/frag_store.err"
cat "$OUTDIR/frag_store.csv"
