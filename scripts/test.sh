#!/usr/bin/env bash
# Sets Grapple up (packages, build) and runs every test through ctest, under a virtual X display
# (Xvfb) for the tests that draw; then the fuzz targets (scripts/fuzz.sh, AddressSanitizer and
# UndefinedBehaviorSanitizer, in a build of their own) and the core tests under the same
# sanitizers in that build (scripts/sanitize.sh ci: CI's subset, the script says what it leaves
# out and why), and the threaded code under ThreadSanitizer (scripts/sanitize.sh tsan, a third
# build of the core). Arguments go to ctest, and then only ctest runs. Each stage's time is
# printed. (`scripts/sanitize.sh asan` runs every core test under ASan/UBSan: by hand, it does not
# fit CI's time.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
stage() {  # name, command...
  local start=$SECONDS
  "${@:2}"
  echo "test.sh: stage $1: $((SECONDS - start)) s"
}
stage setup scripts/setup.sh
stage ctest bash -c 'cd build && xvfb-run -a -s "-screen 0 1280x800x24" ctest --output-on-failure -j 2 "$@"' ctest "$@"
if (($# == 0)); then  # the whole suite (CI): fuzzing and the sanitizers too
  stage fuzz scripts/fuzz.sh
  stage sanitize scripts/sanitize.sh ci
  stage tsan scripts/sanitize.sh tsan
fi
