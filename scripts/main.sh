#!/usr/bin/env bash
# The README's first command: installs what is missing, then runs the main job on the shipped
# defaults. At this stage: generate a stimulus stream and print its summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p out
node bin/rvtrace.js stimulus --seed 1 --count 100000 --out out/stimulus.bin
node bin/rvtrace.js info out/stimulus.bin
