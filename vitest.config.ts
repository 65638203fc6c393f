import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['core/**/*.test.ts', 'blocks/**/*.test.ts', 'cli/**/*.test.ts', 'golden-model/**/*.test.ts', 'ipxact/**/*.test.ts', 'generator/**/*.test.ts', 'tb/**/*.test.ts', 'workloads/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // Two cores: one worker each. Verilator builds are cached per configuration (see tb/).
    pool: 'forks',
    maxWorkers: 2,
  },
});
