/**
 * The three starter templates (repository folder `examples/`). The web build copies each file
 * into `dist/examples/`, so the links below download the exact files from the repository.
 */
export interface StarterTemplate {
  id: 'websocket' | 'python' | 'typescript';
  title: string;
  summary: string;
  /** Transport the template uses. */
  transport: 'WebSocket' | 'NATS JetStream';
  /** Files, as repository paths under examples/ (also their download path on this site). */
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
    files: ['examples/websocket/README.md', 'examples/websocket/package.json', 'examples/websocket/client.mjs'],
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
    files: ['examples/typescript/README.md', 'examples/typescript/package.json', 'examples/typescript/tsconfig.json', 'examples/typescript/src/main.ts'],
    run: 'npm install && TRADEWIND_CREDS=./tradewind.creds npm start -- basic.pumpfun',
  },
];

/** Download path of a template file on this site (`/examples/...`). */
export function templateFileUrl(path: string): string {
  return `/${path}`;
}
