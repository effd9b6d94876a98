/**
 * `npm run chaos`: every fault of issue 24 and the rolling restart of issue 31 (chaos/rolling.ts) at
 * full size (RELIABILITY_SCALE=full unless set), on real processes on loopback, then the table of
 * docs/reliability.md. Exit status 1 when any fault lost, duplicated or crashed anything
 * (scripts/reliability/report.ts).
 *
 *   npm run -s chaos                          all faults, full size
 *   RELIABILITY_SCALE=test npm run -s chaos   the sizes npm test runs
 *   CHAOS_ONLY=stream,rolling npm run -s chaos  only those classes (stream, edge-cluster, edge, rolling), e.g. while fixing one
 *
 * Each NATS cluster's node logs are kept in `artifacts/chaos-nats-logs/<cluster>-<time>/` (CHAOS_NATS_LOG_DIR):
 * when a round fails, the broker's own account of it stays.
 */
import { join } from 'node:path';
import { ensureClusterNatsServer, natsServerVersion } from '../lib/cluster-nats-server.js';
import { reliabilityScale, writeReliabilityReport, type ReliabilityRow } from './report.js';
import { runStreamChaos } from './chaos/stream.js';
import { runEdgeChaos } from './chaos/edge.js';
import { runClusterEdgeChaos } from './chaos/edge-cluster.js';
import { runRollingChaos } from './chaos/rolling.js';

process.env.CHAOS_NATS_LOG_DIR ??= join(import.meta.dirname, '../../artifacts/chaos-nats-logs');
const scale = reliabilityScale({ RELIABILITY_SCALE: 'full', ...process.env });
// The clusters run nats-server 2.10 (below 2.14), fetched and verified from Debian once (scripts/lib/cluster-nats-server.ts).
const natsBin = await ensureClusterNatsServer((line) => process.stderr.write(`chaos: ${line}\n`));
process.stderr.write(`chaos: nats-server ${natsServerVersion(natsBin)} (${natsBin}) for the clusters\n`);
const rows: ReliabilityRow[] = [];
const runClusterEdge = async (s: typeof scale, seed: number) => [await runClusterEdgeChaos(s, seed)];
const classes = { stream: runStreamChaos, 'edge-cluster': runClusterEdge, edge: runEdgeChaos, rolling: runRollingChaos } as const;
const only = (process.env.CHAOS_ONLY ?? '').split(',').filter((c) => c.trim() !== '');
const unknown = only.filter((c) => !(c in classes));
if (unknown.length > 0) {
  process.stderr.write(`CHAOS_ONLY: unknown class ${unknown.join(', ')} (known: ${Object.keys(classes).join(', ')})\n`);
  process.exit(2);
}
for (const [name, run] of Object.entries(classes)) {
  if (only.length > 0 && !only.includes(name)) continue;
  process.stderr.write(`chaos: ${name} (${scale})…\n`);
  try {
    rows.push(...(await run(scale, 0)));
  } catch (err) {
    // A class whose harness gave up still has a row (counted as crashed), and the other classes still run.
    process.stderr.write(`chaos: ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    rows.push({ name: `${name}: the class's run ended with an error`, tried: 1, lost: 0, duplicated: 0, crashed: 1, recoveryMs: null, notes: String(err) });
  }
}
process.exit(writeReliabilityReport('chaos', rows, { scale }));
