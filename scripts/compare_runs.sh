#!/usr/bin/env bash
# Runs every built-in scenario (scenarios/*.yaml) with two grapple-cli programs, e.g. one built
# before a refactoring and one after, and compares their outputs: channels.csv byte for byte, and
# summary.json value for value (parsed: every number the same double, every string and key the
# same, keys in the same order; the layout of the text may differ) but for the wall-time figures (wall_time_s,
# real_time_factor).
#   scripts/compare_runs.sh BEFORE/grapple-cli AFTER/grapple-cli [--set KEY=VALUE]...
# Extra arguments go to both runs (e.g. --duration 20 for a quicker check). Exits 1 if any
# scenario differs, naming it.
# A difference in the last bits after a grasp, in the channels of the carried debris (target.v*,
# energy.debris, the impulse), can come from the compiler alone: built for x86-64-v3, GCC fuses
# multiply-adds (FMA) as it sees fit, and an edit elsewhere in core/sim/simulation.cpp can change
# how it fuses the cross products of Simulation::Impl::carryDebris. Compare the two functions'
# instructions (objdump -d) before suspecting the physics.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -lt 2 ]; then
  echo "usage: scripts/compare_runs.sh BEFORE_GRAPPLE_CLI AFTER_GRAPPLE_CLI [grapple-cli run options]" >&2
  exit 2
fi
before=$1 after=$2
shift 2
# Whether two JSON files hold the same values (an empty or unreadable file: none), the wall-time
# figures left out.
sameJson() {
  python3 - "$1" "$2" <<'PY'
import json, sys
def load(path):
    try:
        with open(path) as f:
            j = json.load(f)
    except ValueError:
        return None
    def strip(x):
        if isinstance(x, dict):
            return [(k, strip(v)) for k, v in x.items() if k not in ("wall_time_s", "real_time_factor")]
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    return strip(j)
sys.exit(0 if load(sys.argv[1]) == load(sys.argv[2]) else 1)
PY
}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
differ=0
for scenario in scenarios/*.yaml; do
  name=$(basename "$scenario" .yaml)
  for side in before after; do
    program=$before
    [ "$side" = after ] && program=$after
    mkdir -p "$out/$side/$name"
    set +e
    "$program" run "$scenario" --quiet --out "$out/$side/$name" "$@" 2>"$out/$side/$name/stderr"
    code=$?
    set -e
    echo "$code" >"$out/$side/$name/exit_code"
    # (A program that refuses the scenario writes neither file: the exit codes then differ.)
    touch "$out/$side/$name/channels.csv" "$out/$side/$name/summary.json"
  done
  same=yes
  for f in channels.csv exit_code; do
    cmp -s "$out/before/$name/$f" "$out/after/$name/$f" || { same=no; echo "$name: $f differs"; }
  done
  sameJson "$out/before/$name/summary.json" "$out/after/$name/summary.json" || { same=no; echo "$name: summary.json differs"; }
  if [ $same = yes ]; then
    echo "$name: identical ($(($(wc -l <"$out/after/$name/channels.csv") - 1)) rows)"
  else
    differ=1
  fi
done
exit $differ
