import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Installs and starts what the suite needs when the machine lacks it (scripts/test-env.ts).
    globalSetup: ['scripts/test-env.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'services',
          include: [
            'services/*/src/**/*.test.ts',
            'services/*/test/**/*.test.ts',
            'dev/src/**/*.test.ts',
            'dev/test/**/*.test.ts',
            'scripts/test/**/*.test.ts',
            'scripts/bench/**/*.test.ts',
            'scripts/soak/**/*.test.ts',
            'scripts/reliability/fuzz-*.test.ts',
            'scripts/reliability/report.test.ts',
            'packages/*/src/**/*.test.ts',
            'packages/*/test/**/*.test.ts',
            'web/server/**/*.test.ts',
          ],
        },
      },
      {
        // Component and logic tests of the web app (Testing Library in jsdom).
        extends: true,
        plugins: [react()],
        // @tradewind/client from its source, as the web app's bundles take it (web/vite.config.ts).
        resolve: { alias: [{ find: /^@tradewind\/client$/, replacement: fileURLToPath(new URL('packages/client/src/index.ts', import.meta.url)) }] },
        test: { name: 'web', include: ['web/src/**/*.test.{ts,tsx}', 'web/test/**/*.test.{ts,tsx}'], environment: 'jsdom', setupFiles: ['web/test/setup.ts'] },
      },
      {
        // End to end: the real local stack (scripts/start.ts) driven by Debian's Chromium. It runs
        // after the other projects (groupOrder), so its dozen processes do not load the 2-core
        // machine while timing-sensitive integration tests run.
        extends: true,
        test: { name: 'e2e', include: ['web/e2e/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 300_000, sequence: { groupOrder: 1 } },
      },
      {
        // Fault injection at test size (docs/reliability.md): killed NATS cluster leaders, ingest and
        // ws-fanout processes, stopped Redis and PostgreSQL. Last and one file at a time, so no other
        // test loads the 2 cores while a JetStream cluster re-elects (under the full suite's load a
        // leader election could take longer than the fault's 30 s hang bound).
        extends: true,
        test: { name: 'chaos', include: ['scripts/reliability/chaos-*.test.ts'], fileParallelism: false, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
