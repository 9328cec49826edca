#!/usr/bin/env bash
# Benchmarks (Google Benchmark): the dynamics core in ns per call, whole scenarios in ms per run
# with their real-time factor (sim_s_per_s); medians of 10 repetitions.
# Extra arguments go to the benchmark, e.g. --benchmark_filter=MDA.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
build/tests/grapple_bench --benchmark_repetitions=10 --benchmark_report_aggregates_only=true \
  --benchmark_display_aggregates_only=true "$@" 2>&1 | grep -E "Benchmark|---|_median"
# Off-screen frames and the video export (real time: ffmpeg encodes in another process).
if [ -x build/tests/grapple_render_bench ]; then
  build/tests/grapple_render_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_display_aggregates_only=true "$@" 2>&1 | grep -E "Benchmark|---|_median"
fi
# Campaigns: 1000 rigid captures by the local engine, the same one after the other with
# `grapple-cli run`, the per-run overhead, and a merge of 10,000 summaries (minutes; one run).
if [ -x build/tests/grapple_campaign_bench ]; then
  build/tests/grapple_campaign_bench "$@"
fi
