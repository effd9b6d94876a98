import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** web/ */
export const WEB_DIR = resolve(import.meta.dirname, '..');
const ROOT = resolve(WEB_DIR, '..');

/**
 * Everything the built app depends on besides node_modules (the contracts it imports, the
 * schemas the docs render, the starter templates, and what the build packs into the WebSocket
 * template's `tradewind-client-<version>.tgz`: the client's sources, manifest, README and
 * compiler settings, not its dist/ or node_modules/).
 */
const INPUTS = [
  'web/src',
  'web/public',
  'web/index.html',
  'web/vite.config.ts',
  'web/package.json',
  'web/scripts',
  'packages/contracts/src',
  'packages/contracts/package.json',
  'packages/contracts/schemas',
  'examples',
  'package-lock.json',
  'packages/client/src',
  'packages/client/package.json',
  'packages/client/README.md',
  'packages/client/tsconfig.build.json',
  'tsconfig.base.json',
];

function files(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => (name.endsWith('.test.ts') || name.endsWith('.test.tsx') ? [] : files(join(path, name))));
}

/** sha256 over the paths and contents of the web app's inputs; equal hashes mean an equal build. */
export function webInputsHash(): string {
  const h = createHash('sha256');
  for (const input of INPUTS) {
    for (const f of files(join(ROOT, input))) {
      h.update(relative(ROOT, f));
      h.update('\0');
      h.update(readFileSync(f));
      h.update('\0');
    }
  }
  return h.digest('hex');
}

/** Whether web/dist holds a build of the current inputs. */
export function webBuildIsCurrent(): boolean {
  try {
    const info = JSON.parse(readFileSync(join(WEB_DIR, 'dist/build-info.json'), 'utf8')) as { inputsHash?: string };
    return info.inputsHash === webInputsHash();
  } catch {
    return false;
  }
}
