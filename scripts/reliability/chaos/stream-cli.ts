/**
 * Runs only the stream-path fault classes and prints their table (debugging aid; `npm run chaos` runs all):
 * `RELIABILITY_SCALE=test|full FUZZ_SEED=<n> npx tsx scripts/reliability/chaos/stream-cli.ts`. Exit status 1 when a row failed.
 */
import { formatReliabilityTable, fuzzSeed, reliabilityExitCode, reliabilityScale } from '../report.js';
import { runStreamChaos } from './stream.js';

const started = Date.now();
const rows = await runStreamChaos(reliabilityScale(), fuzzSeed(24));
process.stdout.write(`${formatReliabilityTable(rows)}\n(${Date.now() - started} ms)\n`);
process.exitCode = reliabilityExitCode(rows);
