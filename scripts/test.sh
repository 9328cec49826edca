#!/usr/bin/env bash
# Sets Grapple up (packages, build) and runs every test through ctest, under a virtual X display
# (Xvfb) for the tests that draw; then the fuzz targets (scripts/fuzz.sh, AddressSanitizer and
# UndefinedBehaviorSanitizer, in a build of their own). Arguments go to ctest, and then only ctest
# runs. (scripts/sanitize.sh, the core tests under ASan/UBSan and the threaded code under TSan,
# runs by hand: it does not fit CI's time yet.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
(cd build && xvfb-run -a -s "-screen 0 1280x800x24" ctest --output-on-failure -j 2 "$@")
if (($# == 0)); then  # the whole suite (CI): fuzzing too
  scripts/fuzz.sh
fi
