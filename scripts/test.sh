#!/usr/bin/env bash
# Sets Grapple up (packages, build) and runs every test through ctest, under a virtual X display
# (Xvfb) for the tests that draw.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
cd build
xvfb-run -a -s "-screen 0 1280x800x24" ctest --output-on-failure -j 2 "$@"
