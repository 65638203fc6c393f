#!/usr/bin/env bash
# Installs Debian's `chromium` when the command is missing (for `rvtrace report --screenshot` and
# the report's rendering test, which call this; `scripts/setup.sh --chromium` also does). Safe to
# run any number of times: does nothing when `chromium` is already there.
# `apt-get update` runs only when the package is not known yet (a fresh machine).
set -euo pipefail
say() { printf '[setup] %s\n' "$*" >&2; }
command -v chromium >/dev/null 2>&1 && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    say "chromium is missing; run as root or install the Debian package chromium, then retry"; exit 3
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-cache show chromium >/dev/null 2>&1; then
  say "apt-get update (the package list does not know chromium yet)"
  $SUDO apt-get update -qq >&2
fi
say "installing Debian package: chromium"
$SUDO apt-get install -y -qq --no-install-recommends chromium >&2
command -v chromium >/dev/null 2>&1 || { say "chromium still missing after apt-get install"; exit 3; }
