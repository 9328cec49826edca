#!/usr/bin/env bash
# Sets Grapple up (packages, build) and runs its main job. With no arguments: the summary of the
# built-in chaser (grapple-cli summary); otherwise the arguments go to grapple-cli.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
exec build/app/grapple-cli "$@"
