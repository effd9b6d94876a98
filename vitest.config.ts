import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['services/*/src/**/*.test.ts', 'services/*/test/**/*.test.ts', 'scripts/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
