import { readFileSync } from 'node:fs';
import { normalizeTransaction, decodeNormalized } from '@tradewind/ingest';
const t = readFileSync('services/ingest/recording/pumpfun/2ghHZXwyU6K1Q8KMJbLJg37ktmyctKmdzzZKGDvHk1MR865dDYyo8SfrKvmvijT43P6hdu6ozPtATiMeg2STszhc.json', 'utf8');
const o = JSON.parse(t);
const t0 = performance.now(); let n = 0;
while (performance.now() - t0 < 3000) { decodeNormalized(normalizeTransaction(o)); n++; }
console.log('us/tx', ((performance.now() - t0) / n * 1000).toFixed(1));
