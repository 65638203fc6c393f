#!/usr/bin/env bash
# The README's second command: installs what is missing, type-checks, runs the whole test suite,
# and ends with the plain summary line `N passed, N failed`. Exit status 0 only when all passed.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit $?

status=0
results=.vitest-results.json
rm -f "$results"
echo "[test] type check (tsc --noEmit)"
typecheck_failed=0
npx tsc --noEmit -p . || { typecheck_failed=1; status=1; }

npx vitest run --reporter=default --reporter=json --outputFile="$results" "$@" || status=1
node scripts/summarize-tests.mjs "$results" "$typecheck_failed" || status=1
exit $status
