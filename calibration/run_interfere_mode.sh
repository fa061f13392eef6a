#!/usr/bin/env bash
# Builds src/bench_interfere.cu (pairs, chains, int_chains), src/bench_waits.cu (wait_after, wait_shape,
# blocked), src/bench_in_flight.cu (in_flight) or src/bench_issue.cu (issue)
# and runs one of its modes beside running wgmma, each writing
# MODE_env.txt, MODE_build.log, MODE_sass.txt.gz (the mode's kernels), MODE_sass_summary.txt
# (their counted instructions), MODE_smi.csv (clock and power every 100 ms) and MODE.log:
#   pairs       item 24: two instruction kinds on independent chains, one warpgroup, alone and
#               beside wgmma SS (default outdir results/pipe_pairs)
#   chains      item 31: FMNMX, F2FP, MUFU.EX2 on 1-8 dependent chains, alone and beside
#               wgmma SS (results/chains)
#   int_chains  item 35: one dependent integer (IADD3, LOP3), FADD, FFMA or FMNMX chain a thread on one or two
#               warps a sub-partition, alone and beside wgmma SS (results/int_chains)
#   wait_after  item 32: an mbarrier try_wait on a completed phase, or a dependent ld.shared,
#               right after a group of 1-8 wgmma SS or RS (results/wait_after)
#   wait_shape  item 33: the same wait in four shapes (none, uniform address, per-thread
#               address, a ring of TMA-completed phases) timed from before the group
#               (results/wait_shape)
#   blocked     item 34: warps blocked in a try_wait beside another warp's mbarrier round
#               trips (results/blocked)
#   in_flight   item 38: an integer chain or the stage release with the warp's own warpgroup's
#               wgmma group in flight, the other warpgroup's, both or neither; then each kernel's
#               three launches once more under Nsight Compute with warp sampling every 64 cycles
#               (MODE_ncu.csv.gz: per-instruction samples and stall reasons) (results/in_flight)
#   issue       item 45 (prepared): a group of 4 or 8 wgmma m64n128k16 SS issued with its
#               descriptors built in the loop from a per-thread address (as the generated
#               kernels build them) or once before it, the other warpgroup idle or running SS
#               groups
#               (results/issue)
#   fence       item 46: a chain of dependent mad.lo.u32 before or after a group's fence, the
#               group's start hidden under it or not (results/fence)
#   queued      item 47: a group's issue with its own previous group (wait_group 1) or the
#               other warpgroup's groups on the tensor cores (results/queued)
# On the device tool:  bash calibration/run_interfere_mode.sh MODE      (writes into $OUT)
# Anywhere else:       bash calibration/run_interfere_mode.sh MODE [outdir]
set -u
export PATH="$PATH:/usr/local/cuda/bin"
MODE="${1:?usage: run_interfere_mode.sh pairs|chains|int_chains|wait_after|wait_shape|blocked|in_flight|issue|fence|queued [outdir]}"
BIN=bench_interfere
case "$MODE" in
  pairs) DEFAULT=pipe_pairs; KERNELS='interfereILi[01]ELi(8|9|10)ELi1E'
         COUNT='FFMA|FMNMX|MUFU\.EX2|HGMMA\.[0-9x]+\.F32\.BF16' ;;
  chains) DEFAULT=chains; KERNELS='interfereILi[01]ELi(1[1-7])ELi1E'
          COUNT='FMNMX|F2FP\.[A-Z0-9.]+|MUFU\.EX2|HGMMA\.[0-9x]+\.F32\.BF16' ;;
  int_chains) DEFAULT=int_chains; KERNELS='interfereILi[01]ELi(11|18|19|20)ELi[12]E'
              COUNT='IADD3|LOP3\.LUT|FMNMX|FADD|FFMA|HGMMA\.[0-9x]+\.F32\.BF16' ;;
  wait_after) BIN=bench_waits; DEFAULT=wait_after; KERNELS='wait_after_mma'
              COUNT='HGMMA\.[0-9x]+\.F32\.BF16|SYNCS\.PHASECHK\.[A-Z0-9.]+|LDS|CS2R' ;;
  wait_shape) BIN=bench_waits; DEFAULT=wait_shape; KERNELS='wait_shape|wake_shape|arrive_wait'
              COUNT='HGMMA\.[0-9x]+\.F32\.BF16|SYNCS\.PHASECHK\.[A-Z0-9.]+|YIELD|BSSY|BSYNC|CS2R' ;;
  blocked) BIN=bench_waits; DEFAULT=blocked; KERNELS='blocked'
           COUNT='SYNCS\.[A-Z0-9.]+|YIELD|NANOSLEEP' ;;
  in_flight) BIN=bench_in_flight; DEFAULT=in_flight; KERNELS='in_flight'
             COUNT='HGMMA\.[0-9x]+\.F32\.BF16|VIADD|IADD3|LOP3\.LUT|MOV|IMAD\.WIDE[A-Z0-9.]*|S2R|S2UR|SYNCS\.ARRIVE[A-Z0-9.]*' ;;
  issue) BIN=bench_issue; DEFAULT=issue; KERNELS='issue_pieces'
         COUNT='HGMMA\.[0-9x]+\.F32\.BF16|LOP3\.LUT|SHF\.R\.U64|R2UR|VIADD|IADD3' ;;
  fence) BIN=bench_issue; DEFAULT=fence; KERNELS='fence_pad'
         COUNT='HGMMA\.[0-9x]+\.F32\.BF16|WARPGROUP\.ARRIVE|WARPSYNC[A-Z.]*|IMAD|R2UR' ;;
  queued) BIN=bench_issue; DEFAULT=queued; KERNELS='queued_issue'
          COUNT='HGMMA\.[0-9x]+\.F32\.BF16|WARPGROUP\.[A-Z.]+|R2UR' ;;
  *) echo "unknown mode '$MODE': pairs, chains, int_chains, wait_after, wait_shape, blocked, in_flight, issue, fence or queued" >&2; exit 2 ;;
esac
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${2:-${OUT:-$HERE/results/$DEFAULT}}"
mkdir -p "$OUTDIR" "$HERE/build"
cd "$HERE"
NVFLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" > "$OUTDIR/${MODE}_env.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv >> "$OUTDIR/${MODE}_env.txt" 2>&1
nvcc $NVFLAGS -o "build/$BIN" "src/$BIN.cu" > "$OUTDIR/${MODE}_build.log" 2>&1
echo "build rc=$?" >> "$OUTDIR/${MODE}_build.log"
tail -3 "$OUTDIR/${MODE}_build.log"
cuobjdump --dump-sass "build/$BIN" > "build/$MODE.sass" 2>/dev/null
awk -v k="$KERNELS" '/Function :/{p = ($0 ~ k)} p' "build/$MODE.sass" | gzip -c > "$OUTDIR/${MODE}_sass.txt.gz"
zcat "$OUTDIR/${MODE}_sass.txt.gz" | grep -oE "Function : [^ ]+|\b($COUNT)\b" | uniq -c > "$OUTDIR/${MODE}_sass_summary.txt"
Q="timestamp,clocks.sm,power.draw,clocks_event_reasons.active"
nvidia-smi --query-gpu=$Q --format=csv,noheader,nounits -lms 100 > "$OUTDIR/${MODE}_smi.csv" 2>&1 &
SMI=$!
timeout 150 "./build/$BIN" "$MODE" > "$OUTDIR/$MODE.log" 2>&1
echo "rc=$?" >> "$OUTDIR/$MODE.log"
kill $SMI 2>/dev/null; wait $SMI 2>/dev/null
grep -o '"name":"[^"]*","value":[^,]*' "$OUTDIR/$MODE.log"
tail -2 "$OUTDIR/$MODE.log"
if [ "$MODE" = in_flight ]; then
  NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  timeout 240 "$NCU" --kernel-name regex:in_flight --launch-count 24 --clock-control none \
      --warp-sampling-interval 1 --section WarpStateStats --section SourceCounters \
      --export "$OUTDIR/${MODE}_ncu" -f "./build/$BIN" "$MODE" > "$OUTDIR/${MODE}_ncu.log" 2>&1
  echo "ncu rc=$?" >> "$OUTDIR/${MODE}_ncu.log"
  "$NCU" --import "$OUTDIR/${MODE}_ncu.ncu-rep" --page source --print-source sass --csv 2>&1 | gzip -c > "$OUTDIR/${MODE}_ncu.csv.gz"
  rm -f "$OUTDIR/${MODE}_ncu.ncu-rep"
  tail -3 "$OUTDIR/${MODE}_ncu.log"
fi
