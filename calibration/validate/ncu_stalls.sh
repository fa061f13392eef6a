#!/usr/bin/env bash
# Where the warps of validation-set kernels stall, by SASS instruction: one Nsight Compute
# profile per configuration (each launched once by `validate run --profile`), with warp-state
# statistics and source counters (stall sampling per instruction), exported and printed per
# SASS instruction as CSV; calibration/validate/stalls.py turns the samples into cycles per
# code region. The model names its stalls by DSL operation in the example binaries' reports
# (`gemm_tradeoff --trace ...`, `gemm`, `flash_attention_hopper`); docs/validation.md sets
# the two side by side.
#
# Build here and carry (`run` tool, carry [".gpu-carry-ncu"]):
#   cargo build --release -p warpspec-validate
#   mkdir -p .gpu-carry-ncu && cp target/release/validate calibration/validate/split.csv \
#       calibration/validate/ncu_stalls.sh .gpu-carry-ncu/ && strip .gpu-carry-ncu/validate
# On the GPU machine: IDS="55 56 57" bash .gpu-carry-ncu/ncu_stalls.sh
# (VALIDATE_ARGS adds arguments to `validate run`, e.g. --copies-free: the builds without TMA
# loads of item 25; SPLIT names another split in the carried directory, e.g. one_sm.csv;
# NCU_SAMPLING sets Nsight Compute's sampling interval, 2^(5+N) cycles, for kernels on few SMs.)
# Writes into $OUT: env.txt, and per configuration ID: ID.txt (the details page and the
# log) and ID_sass.csv.gz (the source page: every SASS instruction with its stall samples).
set -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/stalls-out}
mkdir -p "$OUT"
P=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)/nvidia/cu13/lib
export CUDA_CACHE_DISABLE=1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64:$P:${LD_LIBRARY_PATH:-}
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm,temperature.gpu,power.draw --format=csv 2>&1 | tee "$OUT/env.txt"
"$NCU" --version | tee -a "$OUT/env.txt"
M=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.max
M=$M,lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum
for id in ${IDS:?IDS: the configuration ids to profile}; do
    timeout "${STALLS_TIMEOUT:-120}" "$NCU" --kernel-name 'regex:^(ws_|flat_|fa3_|cluster_)' --launch-count 1 \
        --clock-control none --warp-sampling-interval "${NCU_SAMPLING:-auto}" --section SpeedOfLight --section WarpStateStats --section SourceCounters \
        --section MemoryWorkloadAnalysis --metrics "$M" --export "$OUT/$id" -f \
        "$HERE/validate" run --no-model --profile --split "$HERE/${SPLIT:-split.csv}" --gpu "$OUT/run_$id" --ids "$id" \
        ${VALIDATE_ARGS:-} > "$OUT/$id.txt" 2>&1
    echo "$id: profile exit status $?" | tee -a "$OUT/env.txt"
    "$NCU" --import "$OUT/$id.ncu-rep" --page details >> "$OUT/$id.txt" 2>&1
    "$NCU" --import "$OUT/$id.ncu-rep" --page source --print-source sass --csv > "$OUT/${id}_sass.csv" 2>&1
    gzip -9 -n -f "$OUT/${id}_sass.csv"
    rm -rf "$OUT/run_$id" "$OUT/$id.ncu-rep"
done
