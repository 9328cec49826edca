#!/usr/bin/env bash
# Performance figures of the desktop application under Xvfb with software OpenGL (Mesa llvmpipe),
# window 1280x800, default layout, the flexible capture scenario (30 DOF) simulating:
#   1. start-up: process start to the first frame of the 3D view (3 runs);
#   2. frame rate of the 3D view while the simulation runs at x1 and as fast as possible (20 s each);
#   3. memory while the recorded run is replayed in a loop (--replay-minutes R, default 5, x1): the
#      view redraws, nothing new is recorded, so the memory must stay flat;
#   4. memory over a long recorded run: --minutes M (default 10) of wall time at x1 with the run
#      lengthened to cover it, resident memory printed every 10 s (it grows with the recording).
#   scripts/gui_benchmark.sh [--minutes M] [--replay-minutes R] [--skip-long]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
minutes=10
replay_minutes=5
long=1
while (($#)); do
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --replay-minutes) replay_minutes=$2; shift 2 ;;
    --skip-long) long=0; shift ;;
    *) echo "usage: $0 [--minutes M] [--replay-minutes R] [--skip-long]" >&2; exit 2 ;;
  esac
done
[ -x build/app/grapple ] || scripts/setup.sh
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
app() {
  XDG_CONFIG_HOME=$scratch XDG_RUNTIME_DIR=$scratch \
    xvfb-run -a -s "-screen 0 1280x800x24" build/app/grapple scenarios/capture_flexible.yaml --size 1280x800 "$@" 2>/dev/null
}
echo "== start-up (process start -> first 3D frame)"
for k in 1 2 3; do app --benchmark 1 | grep startup; done
echo "== 3D view frame rate, simulating at x1 (20 s)"
app --speed 1 --benchmark 20 | grep -v startup
echo "== 3D view frame rate, simulating as fast as possible (run lengthened to 3000 s: it must outlast the 20 s)"
app --speed max --set run.duration=3000 --benchmark 20 | grep -v startup
echo "== memory while replaying the first 120 s of the run in a loop at x1 (${replay_minutes} min)"
app --speed 1 --set run.duration=600 --replay --at 120 --benchmark $((replay_minutes * 60)) | grep -v startup
if ((long)); then
  echo "== memory over a ${minutes}-minute recorded run at x1"
  app --speed 1 --set run.duration=$((minutes * 60 + 60)) --benchmark $((minutes * 60)) | grep -v startup
fi
