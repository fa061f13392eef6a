#!/usr/bin/env bash
# Where the cluster GEMM's warps stall, by SASS instruction: one Nsight Compute profile of
# cluster_gemm at one shape (default 8192x8192x1024, where each tile's epilogue weighs most)
# with warp-state statistics and source counters (stall sampling per instruction), exported
# and printed per SASS instruction as CSV. From a folder holding the release cluster_gemm_gpu:
#   OUT=results SIZE=8192x8192x1024 bash cluster_gemm_stalls.sh
set -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-.}
SIZE=${SIZE:-8192x8192x1024}
mkdir -p "$OUT"
P=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)/nvidia/cu13/lib
export CUDA_CACHE_DISABLE=1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64:$P:${LD_LIBRARY_PATH:-}
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 240 "$NCU" --kernel-name cluster_gemm --launch-count 1 --clock-control none \
    --section SpeedOfLight --section WarpStateStats --section SourceCounters \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.max \
    --export "$OUT/stalls" -f "$HERE/cluster_gemm_gpu" --profile --sizes "$SIZE" > "$OUT/stalls.txt" 2>&1
echo "profile: exit status $?" | tee -a "$OUT/stalls.txt"
"$NCU" --import "$OUT/stalls.ncu-rep" --page details >> "$OUT/stalls.txt" 2>&1
"$NCU" --import "$OUT/stalls.ncu-rep" --page source --print-source sass --csv > "$OUT/stalls_sass.csv" 2>&1
gzip -9 -n -f "$OUT/stalls_sass.csv"
echo "source page: exit status $?" | tee -a "$OUT/stalls.txt"
