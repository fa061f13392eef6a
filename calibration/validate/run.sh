#!/usr/bin/env bash
# Runs the validation sweep's GPU half on the GPU machine (the `run` device tool), from the
# root of the checkout that tool sends, with the release binary in .gpu-carry/validate/:
#
#   cargo build --release -p warpspec-validate
#   mkdir -p .gpu-carry/validate && cp target/release/validate calibration/validate/split.csv .gpu-carry/validate/
#   (run tool, carry [".gpu-carry"]): bash .gpu-carry/validate/run.sh [--ids ...]
#
# Writes into $OUT (or ./validate-out): env.txt, phases.csv, series.csv, status.csv, sweep.log.
# The model half runs anywhere: `validate run` (no --gpu) writes calibration/validate/model.csv.
set -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/validate-out}
mkdir -p "$OUT"
P=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)/nvidia/cu13/lib
# NVRTC (CUDA 12.9+) caches compiles on disk; a cached compile's log lacks ptxas' report
# (NVRTC documentation, "Caching"; NVIDIA/cuda-python#1124: CUDA_CACHE_DISABLE=1 brings it back).
# gpu::Cuda then reads registers and local memory from the driver instead, which cannot tell
# spills from stack; with the cache off every kernel keeps the full ptxas report.
export CUDA_CACHE_DISABLE=1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64:$P:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1 | tee "$OUT/env.txt"
# Extra arguments select configurations (e.g. `--ids 0,55`); CUBLAS="" leaves out the
# cuBLAS reference shapes.
CUBLAS=${CUBLAS-8192x8192x8192,4096x4096x4096,8192x8192x1024}
timeout "${SWEEP_TIMEOUT:-480}" "$HERE/validate" run --no-model --split "$HERE/split.csv" --gpu "$OUT" \
    --sustained-s "${SUSTAINED_S:-3}" --rest-s "${REST_S:-0.5}" ${CUBLAS:+--cublas "$CUBLAS"} "$@" 2>&1 | tee "$OUT/sweep.log"
echo "exit status $?" | tee -a "$OUT/sweep.log"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader 2>&1 | tee -a "$OUT/env.txt"
