// Prints the plain summary line CI recognises, from vitest's JSON report: `N passed, N failed`.
// A failed type check counts as one failed test; a missing report (vitest crashed) as one too.
import { existsSync, readFileSync } from 'node:fs';

const [file, typecheckFailed] = process.argv.slice(2);
let passed = 0;
let failed = Number(typecheckFailed) ? 1 : 0;
let skipped = 0;
if (existsSync(file)) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // Suites that failed to load contribute no tests but must not pass silently.
  for (const suite of report.testResults ?? []) {
    if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) failed += 1;
  }
  if (passed + failed === 0) failed = 1;
} else {
  console.error(`no test report at ${file}: the test runner did not finish`);
  failed += 1;
}
console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ''));
process.exit(failed === 0 ? 0 : 1);
