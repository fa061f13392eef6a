#!/usr/bin/env bash
# Builds and runs src/bench_trywait.cu (item 20: the cost of a wait on an mbarrier phase that
# has already completed).
# On the device tool:  bash calibration/run_trywait.sh      (writes into $OUT)
# Anywhere else:       bash calibration/run_trywait.sh [outdir] (default: calibration/results/trywait)
exec bash "$(dirname "$0")/run_single.sh" trywait "$@"
