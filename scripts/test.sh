#!/usr/bin/env bash
# Sets Grapple up (packages, build) and runs every test through ctest, under a virtual X display
# (Xvfb) for the tests that draw; then the core under sanitizers (scripts/sanitize.sh) and the
# fuzz targets (scripts/fuzz.sh), each in a build of its own; arguments go to ctest, and then
# only ctest runs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
(cd build && xvfb-run -a -s "-screen 0 1280x800x24" ctest --output-on-failure -j 2 "$@")
if (($# == 0)); then  # the whole suite (CI): sanitizers and fuzzing too
  scripts/sanitize.sh
  scripts/fuzz.sh
fi
