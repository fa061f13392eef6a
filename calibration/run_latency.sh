#!/usr/bin/env bash
# Builds and runs src/bench_latency.cu (item 26: the dependent-issue latency of the
# instructions the generated loops are made of), counts the SASS opcodes of its chains and
# compresses the SASS.
# On the device tool:  bash calibration/run_latency.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_latency.sh [outdir] (default: calibration/results/latency)
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
OUTDIR="${1:-${OUT:-$HERE/results/latency}}"
bash "$HERE/run_single.sh" latency "$OUTDIR"
grep -oE "FFMA|FADD|FMUL|FMNMX|FSEL|IADD3|LOP3\.LUT|SHF\.[A-Z.0-9]*|IMAD[.A-Z0-9]*|F2FP[.A-Z0-9_]*|MUFU\.EX2" "$OUTDIR/latency.sass" | sort | uniq -c > "$OUTDIR/latency_ops.txt"
cat "$OUTDIR/latency_ops.txt"
gzip -f "$OUTDIR/latency.sass"
