#!/usr/bin/env bash
# Fuzzes every input format Grapple reads with libFuzzer (clang, AddressSanitizer and
# UndefinedBehaviorSanitizer): scenario files with --set overrides, robot YAML, URDF, the
# probe's state files and campaign files. Each target starts from the repository's own files
# (tests/fuzz/seeds and the files below) with the dictionary tests/fuzz/grapple.dict, first
# replays the inputs that once crashed it (tests/fuzz/regressions/TARGET/), then runs up to
# GRAPPLE_FUZZ_RUNS inputs (default 5000) or GRAPPLE_FUZZ_SECONDS (default 10), whichever comes
# first, from a fixed random seed (CI's bounds: a smoke run that keeps CI's whole stage near 3 min,
# most of it the sanitizer build; longer sessions by hand, below)
# (GRAPPLE_FUZZ_SEED, default 1). It fails on any crash, sanitizer report, leak, or input taking
# more than GRAPPLE_FUZZ_TIMEOUT seconds (default 10: a hang; the slowest input is reported).
# Findings land in build-asan/fuzz/TARGET/ (crash-*, timeout-*, leak-*).
#
#   scripts/fuzz.sh                      # all targets
#   scripts/fuzz.sh fuzz_urdf            # one
#   GRAPPLE_FUZZ_RUNS=1000000 GRAPPLE_FUZZ_SECONDS=3600 GRAPPLE_FUZZ_SEED=0 scripts/fuzz.sh
#                                        # a longer session, from a random seed
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/sanitizer_builds.sh

runs=${GRAPPLE_FUZZ_RUNS:-5000}
seconds=${GRAPPLE_FUZZ_SECONDS:-10}
seed=${GRAPPLE_FUZZ_SEED:-1}
timeout=${GRAPPLE_FUZZ_TIMEOUT:-10}
targets=("$@")
((${#targets[@]})) || targets=(fuzz_scenario fuzz_robot_yaml fuzz_urdf fuzz_probe_state fuzz_campaign)

configure_asan
cmake --build build-asan -j "$(nproc)" --target "${targets[@]}"

# The seeds of each target: the repository's files of its format.
seeds() {
  local target=$1 dir=$2 f
  case $target in
    fuzz_scenario) cp scenarios/*.yaml tests/fuzz/seeds/scenario_*.yaml "$dir" ;;
    fuzz_robot_yaml) cp scenarios/robots/*.yaml "$dir" ;;
    fuzz_urdf) find . -name '*.urdf' -not -path './build*' -exec cp {} "$dir" \; ;;
    fuzz_probe_state)  # the first byte chooses the robot ('0': the rigid MDA arm, see the target)
      for f in tests/data/*_state.json; do { printf 0; cat "$f"; } >"$dir/$(basename "$f")"; done
      cp tests/fuzz/seeds/probe_*.json "$dir" ;;
    fuzz_campaign) cp scenarios/campaigns/*.yaml tests/fuzz/seeds/campaign_*.yaml "$dir" ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  work=build-asan/fuzz/$t
  rm -rf "$work"
  mkdir -p "$work/seeds" "$work/corpus"
  seeds "$t" "$work/seeds"
  bin=build-asan/tests/fuzz/$t
  opts=(-timeout="$timeout" -rss_limit_mb=2048 -artifact_prefix="$work/" -print_final_stats=1)
  regressions=(tests/fuzz/regressions/"$t"/*)
  if [ -e "${regressions[0]}" ]; then
    if ! "$bin" "${opts[@]}" "${regressions[@]}" >"$work/regressions.log" 2>&1; then
      echo "fuzz: $t: a regression input fails again (log: $work/regressions.log)"
      status=1
      continue
    fi
  fi
  start=$SECONDS
  if "$bin" "${opts[@]}" -runs="$runs" -max_total_time="$seconds" -seed="$seed" -dict=tests/fuzz/grapple.dict \
      "$work/corpus" "$work/seeds" >"$work/fuzz.log" 2>&1; then
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$work/fuzz.log" | tail -1)
    executed=$(grep -oE 'number_of_executed_units: [0-9]+' "$work/fuzz.log" | grep -oE '[0-9]+')
    slowest=$(grep -oE 'slowest_unit_time_sec: [0-9]+' "$work/fuzz.log" | grep -oE '[0-9]+' || true)
    echo "fuzz: $t: ${executed} inputs, $(echo "$done_line" | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9a-zA-Z]+'), slowest ${slowest:-0} s, $((SECONDS - start)) s: ok"
  else
    echo "fuzz: $t: FAILED after $((SECONDS - start)) s (log: $work/fuzz.log; the input: $work/crash-*, timeout-*, leak-*)"
    grep -E 'ERROR|SUMMARY|runtime error|fuzz:|ALARM' "$work/fuzz.log" | head -20
    status=1
  fi
done
exit $status
