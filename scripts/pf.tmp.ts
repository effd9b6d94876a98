import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeTransaction, decodeNormalized } from '@tradewind/ingest';
const dir = 'services/ingest/recording';
const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
const rows = files.map((f) => {
  const t = JSON.stringify(JSON.parse(readFileSync(join(dir, f), 'utf8')));
  const enc = t.includes('"base64"]') ? 'b64' : t.includes('"parsed"') ? 'jsonParsed' : 'json';
  for (let i = 0; i < 300; i++) decodeNormalized(normalizeTransaction(JSON.parse(t)));
  let p = 0, nn = 0, d = 0; const N = 500;
  for (let i = 0; i < N; i++) { const a = performance.now(); const o = JSON.parse(t); const b = performance.now(); const tx = normalizeTransaction(o); const c = performance.now(); decodeNormalized(tx); const e = performance.now(); p += b - a; nn += c - b; d += e - c; }
  return [f.slice(0, 18), enc, t.length, (p / N * 1000).toFixed(0), (nn / N * 1000).toFixed(0), (d / N * 1000).toFixed(0)];
});
for (const r of rows) console.log(r.join('\t'));
