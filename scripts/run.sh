#!/usr/bin/env bash
# Sets Grapple up (packages, build) and runs its main job: the desktop application on the default
# capture scenario (scenarios/capture_flexible.yaml, the complete flexible chaser facing the
# tumbling TAS debris) when a display is available; otherwise the same mission headless, its
# channels and summary written to out/capture_flexible/, and how to see it. With arguments: they go
# to grapple-cli (e.g. scripts/run.sh run scenarios/capture_rigid.yaml --out out/rigid).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
if (($# > 0)); then
  exec build/app/grapple-cli "$@"
fi
if [[ -x build/app/grapple && ( -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ) ]]; then
  exec build/app/grapple scenarios/capture_flexible.yaml
fi
echo "No display: running the mission headless (the desktop application, build/app/grapple, needs one)."
build/app/grapple-cli run scenarios/capture_flexible.yaml --out out/capture_flexible
echo
echo "To see it: build/app/grapple-cli video scenarios/capture_flexible.yaml --out out/capture_flexible/capture.mp4"
echo "           (an MP4 of the run, made without a display), or on a machine with a display: scripts/run.sh"
