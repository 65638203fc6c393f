import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['core/**/*.test.ts', 'blocks/**/*.test.ts', 'cli/**/*.test.ts', 'golden-model/**/*.test.ts', 'ipxact/**/*.test.ts', 'generator/**/*.test.ts', 'tb/**/*.test.ts', 'workloads/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 120_000,
    // The CLI tests spawn bin/rvtrace.js, which runs dist/: compiled once before any test file.
    globalSetup: ['scripts/vitest-global-setup.mjs'],
    hookTimeout: 600_000,
    // Two cores: one worker each. Verilator builds are cached per configuration (see tb/).
    pool: 'forks',
    maxWorkers: 2,
  },
});
