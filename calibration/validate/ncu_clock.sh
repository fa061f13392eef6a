#!/usr/bin/env bash
# The clock each kernel actually runs at, and its cycles, from Nsight Compute with the clocks
# left free (`--clock-control none`): SM cycles elapsed over the kernel's duration is the
# effective SM clock of one launch started from a warm, idle GPU (a burst), which NVML's
# clock reading does not show (calibration/README.md: under tensor load NVML reports
# 1.78-1.83 GHz while clock64/globaltimer gives 1.64). L2 and DRAM cycles per second answer
# whether L2 follows the SM clock. The same metrics with the clocks locked to base
# (`--clock-control base`) give each kernel's cycles at a second clock.
#
# Build here (no CUDA needed) and carry (`run` tool, carry [".gpu-carry-ncu"]):
#   cargo build --release -p warpspec-validate -p warpspec-examples --example cluster_gemm_gpu
#   mkdir -p .gpu-carry-ncu && cp target/release/validate target/release/examples/cluster_gemm_gpu \
#       calibration/validate/split.csv calibration/validate/ncu_clock.sh .gpu-carry-ncu/
#   strip .gpu-carry-ncu/validate .gpu-carry-ncu/cluster_gemm_gpu
# On the GPU machine: bash .gpu-carry-ncu/ncu_clock.sh [validate selection, e.g. --ids 0,1]
# Writes into $OUT: env.txt, cluster_{none,base}.csv (cluster_gemm and cuBLAS at the four
# cluster shapes), validate_none.csv and validate_status.csv (each selected configuration
# launched once, in the order of validate_status.csv's `profiled` rows), and the logs.
# CLUSTER_CLOCKS (default "none base"; empty: no cluster run) and VALIDATE_CLOCKS (default
# "none"; "none base": each configuration also at base clock, validate_base.csv) choose the
# clock controls.
set -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/ncu-out}
mkdir -p "$OUT"
P=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)/nvidia/cu13/lib
export CUDA_CACHE_DISABLE=1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64:$P:${LD_LIBRARY_PATH:-}
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1 | tee "$OUT/env.txt"
"$NCU" --version | tee -a "$OUT/env.txt"
M=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second
M=$M,lts__cycles_elapsed.avg.per_second,dram__cycles_elapsed.avg.per_second
M=$M,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
M=$M,lts__t_bytes.sum,dram__bytes.sum
SIZES=8192x8192x8192,4096x4096x4096,16384x16384x4096,8192x8192x1024
for clock in ${CLUSTER_CLOCKS-none base}; do
    timeout "${CLUSTER_TIMEOUT:-120}" "$NCU" --clock-control "$clock" --metrics "$M" --csv \
        --log-file "$OUT/cluster_$clock.csv" "$HERE/cluster_gemm_gpu" --profile --sizes "$SIZES" \
        > "$OUT/cluster_$clock.log" 2>&1
    echo "cluster $clock: exit status $?" | tee -a "$OUT/env.txt"
done
for clock in ${VALIDATE_CLOCKS:-none}; do
    timeout "${VALIDATE_TIMEOUT:-420}" "$NCU" --clock-control "$clock" --metrics "$M" --csv \
        --log-file "$OUT/validate_$clock.csv" "$HERE/validate" run --no-model --profile \
        --split "$HERE/split.csv" --gpu "$OUT/validate" --cublas "$SIZES" "$@" > "$OUT/validate_$clock.log" 2>&1
    echo "validate $clock: exit status $?" | tee -a "$OUT/env.txt"
    cp "$OUT/validate/status.csv" "$OUT/validate_status.csv" 2>/dev/null
    rm -rf "$OUT/validate"
done
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader 2>&1 | tee -a "$OUT/env.txt"
