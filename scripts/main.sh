#!/usr/bin/env bash
# The README's first command: installs what is missing, then runs the main job on the shipped
# defaults. At this stage: generate a stimulus stream, print its statistics, trace it with the
# default E-Trace component and decode the trace back, checking that every instruction comes back.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p out
rvtrace() { node bin/rvtrace.js "$@"; }
rvtrace stimulus --seed 1 --count 100000 --out out/stimulus.bin
rvtrace info out/stimulus.bin --check
rvtrace encode --component etrace --in out/stimulus.bin --out out/stimulus.te
rvtrace decode --component etrace --in out/stimulus.te --image out/stimulus.bin --out out/stimulus.pcs
decoded=$(grep -cv '^#' out/stimulus.pcs)
if [ "$decoded" -ne 100000 ]; then
  echo "main: decoded $decoded addresses, expected 100000" >&2
  exit 1
fi
echo "main: 100000 instructions traced and decoded back (out/stimulus.te, out/stimulus.pcs)"
