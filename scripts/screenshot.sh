#!/usr/bin/env bash
# Makes docs/screenshot.png from the real application: the default scenario (the flexible capture,
# scenarios/capture_flexible.yaml) run to t = 72 s (the hand closing on the grasp point, two seconds before the gripper closes) under Xvfb in a 1280x800 window, grabbed by the
# app itself (grapple --screenshot). The layout is the default one (a scratch settings folder).
#   scripts/screenshot.sh [SCENARIO] [TIME] [OUTPUT]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scenario=${1:-scenarios/capture_flexible.yaml}
at=${2:-72}
out=${3:-docs/screenshot.png}
[ -x build/app/grapple ] || scripts/setup.sh
mkdir -p "$(dirname "$out")"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
XDG_CONFIG_HOME=$scratch XDG_RUNTIME_DIR=$scratch \
  xvfb-run -a -s "-screen 0 1280x800x24" \
  build/app/grapple "$scenario" --speed max --size 1280x800 --at "$at" --screenshot "$out"
