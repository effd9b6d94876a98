import { defineConfig } from 'vitest/config';

/** The client's tests on their own: `npx vitest run --config packages/client/vitest.config.ts` (from the repo root). */
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
