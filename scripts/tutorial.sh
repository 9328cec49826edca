#!/usr/bin/env bash
# Makes the pictures of docs/tutorial.md from the real application under Xvfb (1280x800, default
# layout, a scratch settings folder), each grabbed by the app itself (grapple --screenshot), and
# one frame of the off-screen video renderer (grapple-cli video --frame):
#   open.png          the default scenario just opened
#   grasp.png         the timeline at the grasp (t = 74.04 s), the hand on the grasp point
#   requirements.png  the run's end: the outcome, the requirements, the metrics, the events
#   editor.png        the scenario editor, the debris tumbling at 6 deg/s instead of 4
#   ghost.png         that run beside the first one, its ghost dashed in every plot
#   frame.png         the grasp seen from beside the hand, as a video export draws it
# and, from the GUI test that drives them (build/tests/test_tutorial), the clicks and dialogs:
#   editor_select.png, editor_type.png       the editor's clicks, framed in red
#   export_plot_menu.png, export_figure_set.png, export_video.png, export_view_image.png
#   scripts/tutorial.sh [OUTPUT_DIR]   (default docs/tutorial)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${1:-docs/tutorial}
[ -x build/app/grapple ] || scripts/setup.sh
mkdir -p "$out"
scenario=scenarios/capture_flexible.yaml
faster=debris.initial.rate_deg_s=[0,6,0]
shot() {  # shot FILE TIME [grapple options...]
  local file=$1 at=$2
  shift 2
  local scratch
  scratch=$(mktemp -d)
  XDG_CONFIG_HOME=$scratch XDG_RUNTIME_DIR=$scratch \
    xvfb-run -a -s "-screen 0 1280x800x24" \
    build/app/grapple "$scenario" --speed max --size 1280x800 --at "$at" --screenshot "$out/$file" "$@"
  rm -rf "$scratch"
}
shot open.png 0
shot grasp.png 74.04
shot requirements.png 150
shot editor.png 150 --set "$faster" --raise dock:editor --raise dock:events
shot ghost.png 150 --compare "$faster" --raise "plot:Tracking error"
build/app/grapple-cli video "$scenario" --frame 74.04 --camera hand --size 960x540 --out "$out/frame.png"
[ -x build/tests/test_tutorial ] || cmake --build build --target test_tutorial
scratch=$(mktemp -d)
# A home folder of its own, as a user's would look, for the file dialogs (they open there); a fixed
# path, so that the pictures do not change from run to run.
home=/tmp/grapple-tutorial/home/engineer
rm -rf /tmp/grapple-tutorial
mkdir -p "$home/figures" "$home/videos" "$home/scenarios"
GRAPPLE_TUTORIAL_DIR=$(realpath "$out") HOME=$home XDG_CONFIG_HOME=$scratch XDG_RUNTIME_DIR=$scratch QT_QPA_PLATFORM=xcb \
  xvfb-run -a -s "-screen 0 1280x800x24" build/tests/test_tutorial
rm -rf "$scratch"
rm -rf /tmp/grapple-tutorial
