// Preloaded by `rvtrace bench` (node --require scripts/peak-rss.cjs bin/rvtrace.js ...): prints the
// process's peak resident memory on stderr when it ends, as `rvtrace cosim` prints its own, so the
// bench can compare the peak of one command at several input lengths. Nothing else uses it.
'use strict';
process.on('exit', () => {
  process.stderr.write(`peak resident memory ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB\n`);
});
