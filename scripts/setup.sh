#!/usr/bin/env bash
# Installs what this checkout needs and is missing, then returns. Safe to run any number of times:
# each step checks first and does nothing when its tool is already there.
#   npm packages  -> `npm ci` when node_modules is absent or older than package-lock.json
#   Debian tools  -> `apt-get install` of the packages whose command is absent (needs root or sudo)
#   dist/         -> tsc + bundle of the CLI when a source is newer than it (node scripts/dist.mjs)
#   --chromium    -> also Debian's chromium (rvtrace report --screenshot and the report tests), via
#                    scripts/install-chromium.sh; the report tests call that script themselves
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[setup] %s\n' "$*" >&2; }

for arg in "$@"; do
  case "$arg" in
    --chromium) bash scripts/install-chromium.sh ;;
    *) say "unknown option $arg (known: --chromium)"; exit 2 ;;
  esac
done

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error >&2
fi

# command -> Debian package. Keep this list to what the commands and tests use.
declare -A TOOLS=(
  [verilator]=verilator
  [yosys]=yosys
  [iverilog]=iverilog
  [xmllint]=libxml2-utils
  [ccache]=ccache
  [fst2vcd]=gtkwave
  [riscv64-unknown-elf-gcc]=gcc-riscv64-unknown-elf
  [qemu-system-riscv64]=qemu-system-misc
)
missing=()
for cmd in $(printf '%s\n' "${!TOOLS[@]}" | sort); do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${TOOLS[$cmd]}")
done
# The workloads' C library has no command to look for.
[ -f /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs ] || missing+=(picolibc-riscv64-unknown-elf)
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
      say "missing Debian packages: ${missing[*]}; run as root or install them, then retry"; exit 3
    fi
  fi
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >&2
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# The CLI runs the compiled TypeScript in dist/ (scripts/dist.mjs): compiled here when it is missing
# or older than a source, so that the README's commands and the tests start from current code.
node scripts/dist.mjs
