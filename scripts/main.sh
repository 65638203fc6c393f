#!/usr/bin/env bash
# The README's first command: installs what is missing, then runs the main job on the shipped
# defaults: generate a stimulus stream, print its statistics, trace it with the default E-Trace
# component and decode the trace back (every instruction must come back), and with data trace
# (etrace-data: its accesses decoded back), then through a lossy
# transport (the trace is lost in bursts and recovers; the fraction recovered is printed); generate
# the RTL of every shipped component into out/rtl/; co-simulate the default E-Trace, PMU and N-Trace
# components' RTL against the model; run every SBI PMU call on QEMU virt's PMU (model and RTL);
# trace a real program (the bytecode interpreter of workloads/) through QEMU with every optional
# mode, checking that the trace decodes back to what QEMU executed, count it with pmu-stat, and
# trace it through the default N-Trace encoder; and derive another program's tandem-verification
# trace from QEMU and check it with tv-check.
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
# E-Trace data trace: the stimulus with its loads, stores, AMOs and CSR accesses, traced by the
# etrace-data component; the decoded accesses, written in the reference flow's data CSV, must be the
# file the stimulus's accesses make.
rvtrace stimulus --seed 2 --count 20000 --data --out out/data.bin
rvtrace encode --component etrace-data --in out/data.bin --out out/data.te --set stallEnable=1
rvtrace decode --component etrace-data --in out/data.te --image out/data.bin --out out/data.pcs --data-out out/data-decoded.csv
echo "main: $(($(wc -l < out/data-decoded.csv) - 1)) data accesses decoded from out/data.te (out/data-decoded.csv)"
rvtrace cosim --component etrace-data --seed 3 --count 20000 --set stallEnable=1
# Trace loss that recovers: a transport not ready 30 % of the cycles, the 64-byte FIFO overflows in
# bursts, each loss is reported once and the trace resumes at the next sync that fits.
rvtrace encode --component etrace-rv64-full --in out/stimulus.bin --out out/lossy.te --backpressure 0.3
rvtrace decode --component etrace-rv64-full --in out/lossy.te --image out/stimulus.bin --out out/lossy.pcs --check
for c in $(rvtrace components | cut -d" " -f1); do
  rvtrace generate --component "$c" --out "out/rtl/$c"
done
rvtrace cosim --component etrace --seed 1 --count 100000
rvtrace cosim --component etrace-rv64-full --seed 2 --count 100000 --backpressure 0.5
rvtrace cosim --component pmu --seed 1 --count 100000
rvtrace cosim --component ntrace-btm-mcu --seed 1 --count 100000 --backpressure 0.3
echo "main: RTL generated (out/rtl/) and co-simulated against the model: identical"
# The SBI PMU layer: every function of the extension called on QEMU virt's PMU as OpenSBI 1.9
# answers, every cycle of the run replayed through the generated RTL.
rvtrace sbi-pmu --component pmu-qemu-virt --script golden-model/pmu/sbi/test-fixtures/qemu-virt-all.sbi --out out/qemu-virt-all.sbi --rtl
rvtrace trace-elf interp --arch rv64gc --out out/interp.bin --check \
  --set return_stack_size_p=4 --set bpred_size_p=6 --set cache_size_p=4 --set f0s_width_p=1 --set sijump_p=1 \
  --set ImplicitReturn=1 --set BranchPrediction=1 --set JumpTargetCache=1 --set siJump=1
echo "main: workloads/interp traced through QEMU (out/interp.bin) and round-tripped with every optional mode"
rvtrace pmu-stat --component pmu --stream out/interp.bin
# The same program through the default N-Trace encoder, decoded back by the independent decoder.
rvtrace encode --component ntrace --in out/interp.bin --out out/interp.nt
rvtrace decode --component ntrace --in out/interp.nt --image out/interp.bin --out out/interp-nt.pcs --check
# A real program in tandem-verification form (QEMU's state changes), checked by the tandem checker.
rvtrace trace-elf crc --tv --format bytes --component tvtrace --out out/crc.tv
rvtrace tv-check --elf crc --in out/crc.tv --component tvtrace
echo "main: interp traced through N-Trace and decoded back; crc checked in tandem-verification form"
