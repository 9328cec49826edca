#!/usr/bin/env bash
# The capture envelope of the rigid mission: scenarios/capture_rigid.yaml flown over the debris'
# tumbling rates (0.5 to 8 deg/s) x tumbling axes x initial phases (grapple-cli envelope), the map
# written to docs/envelope_rigid.svg (shown in the README) and the table to docs/envelope_rigid.csv.
# Extra arguments go to grapple-cli envelope (e.g. --rates 1,4 --threads 4).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
build/app/grapple-cli envelope scenarios/capture_rigid.yaml --out "$out" "$@"
cp "$out/envelope.svg" docs/envelope_rigid.svg
cp "$out/envelope.csv" docs/envelope_rigid.csv
echo "docs/envelope_rigid.svg, docs/envelope_rigid.csv"
