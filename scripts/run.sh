#!/usr/bin/env bash
# Sets Grapple up (packages, build) and runs its main job. With no arguments: the default capture
# scenario (scenarios/capture_flexible.yaml, the complete flexible chaser facing the tumbling TAS
# debris), its channels and summary written to out/capture_flexible/. Otherwise the arguments go
# to grapple-cli (e.g. scripts/run.sh run scenarios/capture_rigid.yaml --out out/rigid).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
if (($# == 0)); then
  exec build/app/grapple-cli run scenarios/capture_flexible.yaml --out out/capture_flexible
fi
exec build/app/grapple-cli "$@"
