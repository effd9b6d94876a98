import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeTransaction } from '@tradewind/ingest';
const dir = 'services/ingest/recording';
const objs = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
const t0 = performance.now(); let n = 0;
while (performance.now() - t0 < 3000) { for (const o of objs) normalizeTransaction(o); n++; }
console.log('normalize us/tx', ((performance.now() - t0) / n / objs.length * 1000).toFixed(1));
