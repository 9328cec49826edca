#!/usr/bin/env bash
# Benchmarks of the dynamics core (Google Benchmark): medians of 10 repetitions, in ns per call.
# Extra arguments go to the benchmark, e.g. --benchmark_filter=MDA.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
build/tests/grapple_bench --benchmark_repetitions=10 --benchmark_report_aggregates_only=true \
  --benchmark_display_aggregates_only=true "$@" 2>&1 | grep -E "Benchmark|---|_median"
