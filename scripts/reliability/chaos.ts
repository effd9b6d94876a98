/**
 * `npm run chaos`: every fault of issue 24 and the rolling restart of issue 31 (chaos/rolling.ts) at
 * full size (RELIABILITY_SCALE=full unless set), on real processes on loopback, then the table of
 * docs/reliability.md. Exit status 1 when any fault lost, duplicated or crashed anything
 * (scripts/reliability/report.ts).
 *
 *   npm run -s chaos                          all faults, full size
 *   RELIABILITY_SCALE=test npm run -s chaos   the sizes npm test runs
 */
import { reliabilityScale, writeReliabilityReport, type ReliabilityRow } from './report.js';
import { runStreamChaos } from './chaos/stream.js';
import { runEdgeChaos } from './chaos/edge.js';
import { runClusterEdgeChaos } from './chaos/edge-cluster.js';
import { runRollingChaos } from './chaos/rolling.js';

const scale = reliabilityScale({ RELIABILITY_SCALE: 'full', ...process.env });
const rows: ReliabilityRow[] = [];
const runClusterEdge = async (s: typeof scale, seed: number) => [await runClusterEdgeChaos(s, seed)];
for (const run of [runStreamChaos, runClusterEdge, runEdgeChaos, runRollingChaos]) {
  process.stderr.write(`chaos: ${run === runClusterEdge ? 'runClusterEdgeChaos' : run.name} (${scale})…\n`);
  rows.push(...(await run(scale, 0)));
}
process.exit(writeReliabilityReport('chaos', rows, { scale }));
