/**
 * The three starter templates (repository folder `examples/`). The web build copies each file
 * into `dist/examples/`, so the links below download the exact files from the repository; the
 * one file not in the repository, the client library's tarball, the build packs from
 * packages/client (web/scripts/build.ts, `writeTemplateFiles`).
 */
import clientPackageJson from '@tradewind/client/package.json?raw';

/**
 * Version of `@tradewind/client`, read from packages/client/package.json (the one place it is
 * written). @throws Error at import when that file has no string `version`.
 */
export const CLIENT_VERSION: string = (() => {
  const { version } = JSON.parse(clientPackageJson) as { version?: unknown };
  if (typeof version !== 'string' || version === '') throw new Error('packages/client/package.json has no version');
  return version;
})();

/**
 * `@tradewind/client` packed by `npm pack` (which names the tarball `<scope>-<name>-<version>.tgz`),
 * as its download path under examples/. The library is not published on npm: the WebSocket
 * template's package.json depends on `file:./tradewind-client-<version>.tgz`, so a downloaded
 * template installs it from this file (a test checks the two names agree).
 */
export const CLIENT_TARBALL = `examples/websocket/tradewind-client-${CLIENT_VERSION}.tgz`;

/** One starter template, as the pages that offer it show it. */
export interface StarterTemplate {
  id: 'websocket' | 'python' | 'typescript';
  title: string;
  summary: string;
  /** Transport the template uses. */
  transport: 'WebSocket' | 'NATS JetStream';
  /**
   * Files, as repository paths under examples/ (also their download path on this site); all of
   * them are needed to run the template. {@link CLIENT_TARBALL} is built, not in the repository.
   */
  files: readonly string[];
  /** Command that runs it from the template's folder against `npm start`. */
  run: string;
}

export const STARTER_TEMPLATES: readonly StarterTemplate[] = [
  {
    id: 'websocket',
    title: 'WebSocket (Node.js)',
    summary: 'Authenticate with your JWT and NKey seed, subscribe to your plan’s subjects and print each decoded trade.',
    transport: 'WebSocket',
    files: ['examples/websocket/README.md', 'examples/websocket/package.json', 'examples/websocket/client.mjs', CLIENT_TARBALL],
    run: 'npm install && TRADEWIND_CREDS=./tradewind.creds node client.mjs basic.pumpfun',
  },
  {
    id: 'python',
    title: 'Python (asyncio)',
    summary: 'The same WebSocket protocol from Python with the websockets library, answering the server’s NKey challenge.',
    transport: 'WebSocket',
    files: ['examples/python/README.md', 'examples/python/requirements.txt', 'examples/python/client.py'],
    run: 'pip install -r requirements.txt && TRADEWIND_CREDS=./tradewind.creds python3 client.py basic.pumpfun',
  },
  {
    id: 'typescript',
    title: 'TypeScript (native NATS)',
    summary: 'Connect to NATS JetStream with your .creds file, subscribe to TRADES subjects and, on Pro, replay history.',
    transport: 'NATS JetStream',
    files: [
      'examples/typescript/README.md',
      'examples/typescript/package.json',
      'examples/typescript/tsconfig.json',
      'examples/typescript/src/main.ts',
      'examples/typescript/src/resume.ts',
    ],
    run: 'npm install && TRADEWIND_CREDS=./tradewind.creds npm start -- basic.pumpfun',
  },
];

/** Download path of a template file on this site (`/examples/...`). */
export function templateFileUrl(path: string): string {
  return `/${path}`;
}
