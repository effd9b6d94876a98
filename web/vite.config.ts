import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

/**
 * The web app's build (docs/web.md). `vite` serves it on :5173 for development (API paths are
 * proxied to the local ingress on :8080, so `npm start` must be running); `npm run build -w web`
 * builds the client, the server-render bundle, and prerenders the public pages into dist/.
 */
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  // @tradewind/client's exports name its built dist/ (what npm publishes; a fresh clone has none): bundle its
  // source. Only the bare name: `@tradewind/client/package.json?raw` keeps its export. Same in vitest.config.ts's
  // web project and web/tsconfig.json's `paths`.
  resolve: { alias: [{ find: /^@tradewind\/client$/, replacement: fileURLToPath(new URL('../packages/client/src/index.ts', import.meta.url)) }] },
  server: {
    port: 5173,
    strictPort: true,
    proxy: Object.fromEntries(['/auth', '/api'].map((p) => [p, { target: 'http://127.0.0.1:8080', changeOrigin: false }])),
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // The prerender reads it to link each page's own CSS and chunks (web/scripts/build.ts).
    manifest: true,
  },
});
