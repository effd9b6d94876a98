/**
 * Runs only the local operator-mode nats-server (4223, monitoring 8223) in the foreground,
 * creating the operator keys on first run. Used by the Tiltfile; `npm start` does the same inline.
 */
import { resolve } from 'node:path';
import { startLocalNats } from '../src/local-nats.js';

const stateDir = resolve(import.meta.dirname, '..', '..', process.env.TRADEWIND_STATE_DIR ?? '.tradewind');
const nats = await startLocalNats({ stateDir, port: 4223, monitorPort: 8223 });
process.stdout.write(`nats-server ready on ${nats.url}\n`);
const stop = () => void nats.stop().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
nats.process.once('exit', (code) => process.exit(code ?? 1));
