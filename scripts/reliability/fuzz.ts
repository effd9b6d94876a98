/**
 * `npm run fuzz`: every hostile-input class of issue 24 at full size (RELIABILITY_SCALE=full unless
 * set), seeded by FUZZ_SEED (default 24), then the table of docs/reliability.md. Exit status 1 when
 * any class counted a crash, a lost or a duplicated effect (scripts/reliability/report.ts).
 *
 *   npm run -s fuzz                        all classes, full size
 *   FUZZ_SEED=7 npm run -s fuzz            another seed (the seed of each class is in its notes)
 *   RELIABILITY_SCALE=test npm run -s fuzz the sizes npm test runs
 */
import { fuzzSeed, reliabilityScale, writeReliabilityReport, type ReliabilityRow } from './report.js';
import { runDecoderFuzz } from './fuzz/decoder.js';
import { runStripeWebhookFuzz } from './fuzz/stripe-webhooks.js';
import { runWebSocketFuzz } from './fuzz/websocket.js';
import { runHttpFuzz } from './fuzz/http.js';

const scale = reliabilityScale({ RELIABILITY_SCALE: 'full', ...process.env });
const seed = fuzzSeed(24);
const rows: ReliabilityRow[] = [];
// One class at a time: each starts the servers it needs, and the 2-core budget goes to the inputs.
for (const run of [runDecoderFuzz, runStripeWebhookFuzz, runWebSocketFuzz, runHttpFuzz]) {
  process.stderr.write(`fuzz: ${run.name} (${scale}, seed ${seed})…\n`);
  rows.push(...(await run(scale, seed)));
}
process.exit(writeReliabilityReport('fuzz', rows, { scale }));
