/**
 * What the soak prints: one line per interval while it runs, then the summary (latency by phase against
 * the targets, integrity, sends and stores, processes, the memory rule, the verdict) and a dated
 * Markdown table ready for docs/performance.md.
 */
import type { IntervalRow, PhaseLatency, Quantiles, SoakResult } from './harness.js';

const MIB = 2 ** 20;
const ms = (x: number) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)) : '-');
const trio = (q: Quantiles) => (q.count ? `${ms(q.p50)}/${ms(q.p99)}/${ms(q.max)}` : '-');
const mib = (b: number | null) => (b === null ? '-' : (b / MIB).toFixed(0));
const int = (n: number) => n.toLocaleString('en');
const pct = (x: number | null) => (x === null ? '-' : x.toFixed(0));
const pad = (s: string, n: number) => s.padEnd(n);

/** What the interval column says: the minute (or 10 s step) and, after the run, "drain". */
function when(r: IntervalRow): string {
  return r.stage === 'drain' ? `drain ${r.fromS.toFixed(0)}-${r.toS.toFixed(0)}s` : `${r.fromS.toFixed(0)}-${r.toS.toFixed(0)}s`;
}

function phase(r: IntervalRow): string {
  if (r.stage === 'drain') return 'stopped';
  const span = Math.max(1, Math.round(r.toS - r.fromS));
  if (r.burstSeconds === 0) return 'steady';
  if (r.burstSeconds >= span - 1) return 'burst';
  return `burst ${r.burstSeconds}s`;
}

function busiest(r: IntervalRow): string {
  const top = [...r.processes].filter((p) => p.cpuPercent !== null).sort((a, b) => b.cpuPercent! - a.cpuPercent!)[0];
  return top ? `${top.name} ${pct(top.cpuPercent)}%` : '-';
}

/** How busy the machine was: all its cores, the soak's share, the load average. */
function machineText(r: IntervalRow): string {
  return `machine CPU ${pct(r.machineBusyPercent)}% of all cores (soak processes ${pct(r.soakBusyPercent)}%), load ${r.load1.toFixed(1)}`;
}

const integrityText = (r: IntervalRow) => `${r.integrity.lost}/${r.integrity.duplicated}/${r.integrity.reordered}/${r.integrity.unexpected}`;

/** Header of the per-interval lines. */
export function intervalHeader(): string {
  return [
    pad('interval', 16),
    pad('phase', 10),
    pad('sent/produced tx', 17),
    pad('stored', 8),
    pad('ingest lag p50/p99/max ms', 26),
    pad('queue', 6),
    pad('WS p50/p99/max ms', 20),
    pad('native p50/p99/max ms', 22),
    pad('deliveries ws/native', 21),
    pad('lost/dup/reord/unexp', 21),
    pad('behind', 8),
    pad('TRADES MiB', 11),
    'busiest CPU',
  ].join(' ');
}

/** One interval as a line, then its processes' RSS (MiB) and CPU (% of a core). */
export function intervalLine(r: IntervalRow): string {
  const line = [
    pad(when(r), 16),
    pad(phase(r), 10),
    pad(`${int(r.sentTx)}/${int(r.producedTx)}`, 17),
    pad(int(r.storedTrades), 8),
    pad(trio(r.ingestLag.all), 26),
    pad(r.queueMax === null ? '-' : int(r.queueMax), 6),
    pad(trio(r.ws.all), 20),
    pad(trio(r.native.all), 22),
    pad(`${int(r.deliveries.ws)}/${int(r.deliveries.native)}`, 21),
    pad(integrityText(r), 21),
    pad(int(r.behind.ws + r.behind.native), 8),
    pad(`${mib(r.tradesBytes)}/${mib(r.tradesMaxBytes)}`, 11),
    busiest(r),
  ].join(' ');
  const procs = r.processes.map((p) => `${p.name} ${mib(p.rssBytes)}MiB ${pct(p.cpuPercent)}%`).join(', ');
  const extra = [
    r.ws.steady.count || r.ws.burst.count ? `WS p99 steady ${ms(r.ws.steady.p99)} / burst ${ms(r.ws.burst.p99)} ms` : '',
    r.reconnects.ws || r.reconnects.native ? `reconnects ws ${r.reconnects.ws} native ${r.reconnects.native}` : '',
    Object.keys(r.closes).length
      ? `closes ${Object.entries(r.closes)
          .map(([k, v]) => `${k} ×${v}`)
          .join(', ')}`
      : '',
    r.geyserLagged ? `stand-in lagged ${r.geyserLagged}` : '',
    r.standInBacklog ? `stand-in backlog ${int(r.standInBacklog)} tx` : '',
    machineText(r),
  ].filter(Boolean);
  return `${line}\n    ${extra.length ? `${extra.join('; ')}; ` : ''}${procs}`;
}

const target = (q: Quantiles, limit: number) => (!q.count ? 'not measured' : q.p99 <= limit ? `met (≤ ${limit} ms)` : `not met (target ≤ ${limit} ms)`);

function latencyRows(result: SoakResult): string[][] {
  const o = result.options;
  const row = (name: string, l: PhaseLatency, targets: boolean) => [
    name,
    `${trio(l.steady)} (${int(l.steady.count)})`,
    `${trio(l.burst)} (${int(l.burst.count)})`,
    targets ? `steady ${target(l.steady, o.targetSteadyP99Ms)}, burst ${target(l.burst, o.targetBurstP99Ms)}` : '',
  ];
  return [
    row('chain → WebSocket client', result.latency.ws, true),
    row('chain → native subscriber', result.latency.native, true),
    row('ingest lag (chain → JetStream store)', result.latency.ingest, false),
  ];
}

/** The summary printed after the run. */
export function summaryText(result: SoakResult): string {
  const o = result.options;
  const lines: string[] = [];
  lines.push(
    '',
    `soak summary (${o.scale}, ${(o.runMs / 60_000).toFixed(2)} min run, drain ${(result.drainMs / 1000).toFixed(1)} s${result.drained ? '' : ', NOT drained'})`,
  );
  lines.push('', '  latency p50/p99/max ms (count)        steady                        burst                         targets (p99, not failed on)');
  for (const [name, steady, burst, t] of latencyRows(result)) lines.push(`  ${pad(name!, 38)} ${pad(steady!, 29)} ${pad(burst!, 29)} ${t}`);
  const i = result.integrity;
  lines.push(
    '',
    `  integrity (lost/duplicated/reordered/unexpected): WebSocket ${i.ws.lost}/${i.ws.duplicated}/${i.ws.reordered}/${i.ws.unexpected} over ${int(i.ws.delivered)} deliveries; native ${i.native.lost}/${i.native.duplicated}/${i.native.reordered}/${i.native.unexpected} over ${int(i.native.delivered)}`,
  );
  for (const p of result.problems)
    lines.push(
      `    ${p.id} ${p.subscription}: lost ${p.counts.lost}, dup ${p.counts.duplicated}, reordered ${p.counts.reordered}, unexpected ${p.counts.unexpected}`,
    );
  if (result.problemCount > result.problems.length) lines.push(`    … ${result.problemCount - result.problems.length} more subscriptions with problems`);
  lines.push(
    `  subscribers: ${result.connect.ws.connected}/${result.subscribers.ws} WebSocket (${result.subscribers.filteredWs} filtered), ${result.connect.native.connected}/${result.subscribers.native} native (${result.subscribers.perMintNative} on per-mint subjects), ${result.subscribers.processes} processes; reconnects ws ${result.reconnects.ws}, native ${result.reconnects.native}`,
  );
  if (Object.keys(result.closes).length)
    lines.push(
      `  closes: ${Object.entries(result.closes)
        .map(([k, v]) => `${k} ×${v}`)
        .join(', ')}`,
    );
  lines.push(
    `  stand-in: ${int(result.geyser?.transactionsSent ?? 0)} transactions sent (${int(result.sends.reported)} reported), produced ${int(result.geyser?.transactionsProduced ?? 0)}, disconnects ${result.geyser?.disconnects ?? '?'}, lagged ${result.geyser?.lagged ?? '?'}`,
    `  stored: ${int(result.stored.trades)} trades of ${int(result.stored.transactions)} transactions (last seq ${int(result.stored.lastSeq)}); stored trades without a known send ${result.stored.withoutSend}; sequences skipped ${result.stored.skipped}`,
    `  sent transactions without a stored trade: ${int(result.sends.withoutStoredTrade)} (the recording's ${result.sends.noTradeFiles.length} of ${result.sends.successfulTemplates} successful transactions that decode to no trade: ${result.sends.noTradeFiles.join(', ') || 'none'}); beyond those: ${result.sends.unstored}`,
    `  ingest: source reconnects ${result.ingest.reconnects ?? '?'} (before the stand-in stopped), queue depth max ${result.ingest.queueMax ?? '?'}, publish errors ${result.ingest.publishErrors ?? '?'}, duplicates ${result.ingest.duplicates ?? '?'}`,
    `  TRADES: ${result.trades ? `${mib(result.trades.bytes)} MiB of ${mib(result.trades.maxBytes)} MiB max_bytes (${((result.trades.bytes / result.trades.maxBytes) * 100).toFixed(1)} %), ${int(result.trades.messages)} messages` : '-'}`,
  );
  const run = result.rows.filter((r) => r.stage === 'run');
  const avg = (xs: Array<number | null>) => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
  };
  const backlog = run.at(-1)?.standInBacklog ?? null;
  lines.push(
    `  machine: CPU ${pct(avg(run.map((r) => r.machineBusyPercent)))}% of all ${result.machine.cores} cores busy on average over the run (soak processes ${pct(avg(run.map((r) => r.soakBusyPercent)))}%), load average up to ${Math.max(0, ...run.map((r) => r.load1)).toFixed(1)}; busiest soak process per interval: ${run.map(busiest).join('; ')}`,
    `  stand-in backlog at the end of the run: ${backlog === null ? '-' : `${int(backlog)} transactions produced but not yet taken by ingest's stream`}`,
  );
  lines.push(
    '',
    `  processes (memory rule: service RSS at the end ≤ ${(o.memoryGrowthLimit * 100).toFixed(0)} % above the warm-up sample at ${warmupText(result)})`,
  );
  lines.push(
    `  ${pad('process', 22)} ${pad('RSS warm-up MiB', 16)} ${pad('RSS end MiB', 12)} ${pad('RSS max MiB', 12)} ${pad('growth', 8)} CPU avg/max % of a core`,
  );
  for (const p of result.processes) {
    const m = result.memory?.find((x) => x.process === p.name);
    const growth = m?.growth === null || m === undefined ? (p.service ? '-' : 'n/a') : `${(m.growth * 100).toFixed(1)}%${m.failed ? ' ✗' : ''}`;
    lines.push(
      `  ${pad(p.name, 22)} ${pad(mib(p.rssWarmup), 16)} ${pad(mib(p.rssEnd), 12)} ${pad(mib(p.rssMax), 12)} ${pad(growth, 8)} ${pct(p.cpuAvg)}/${pct(p.cpuMax)}`,
    );
  }
  lines.push(
    '',
    result.reasons.length
      ? `  FAILED:\n${result.reasons.map((r) => `    - ${r}`).join('\n')}`
      : '  PASSED: nothing lost, duplicated, reordered or unexpected; no disconnect; memory within the rule',
  );
  return lines.join('\n');
}

function warmupText(result: SoakResult): string {
  if (result.warmupMs === null) return 'n/a: the run is shorter than one rate cycle, the rule is not applied';
  return `${(result.warmupMs / 1000).toFixed(0)} s`;
}

/** A dated Markdown section for docs/performance.md. */
export function markdownReport(result: SoakResult): string {
  const o = result.options;
  const m = result.machine;
  const date = result.startedAt.toISOString().slice(0, 10);
  const p = o.profile;
  const out: string[] = [];
  out.push(
    `### Soak, ${date} (\`npm run soak -- --scale ${o.scale} --minutes ${+(o.runMs / 60_000).toFixed(2)}\`)`,
    '',
    `Machine: ${m.cores} cores (\`nproc\`), ${m.cpuModel}, ${m.ramGiB} GiB RAM; Node ${m.node}. Everything on this one machine: 3 nats-server nodes (TRADES R3), ingest, ws-fanout (${result.processes.filter((x) => x.name.startsWith('ws-fanout worker')).length} workers), token-price, the Yellowstone stand-in and ${result.subscribers.processes} subscriber processes.`,
    `Load: the stand-in at ${p.steadyTxPerSecond} tx/s for ${p.steadyMs / 1000} s, then ${p.burstTxPerSecond} tx/s for ${p.burstMs / 1000} s, repeating; ${result.subscribers.ws} WebSocket clients (${result.subscribers.filteredWs} filtered) and ${result.subscribers.native} native subscribers (${result.subscribers.perMintNative} on per-mint subjects).`,
    '',
    '| interval | phase | sent / produced tx | stand-in backlog | stored trades | ingest lag p50 / p99 / max (ms) | WS p50 / p99 / max (ms) | native p50 / p99 / max (ms) | lost / dup / reordered / unexpected | TRADES MiB | machine CPU % (soak %), load | busiest process (CPU % of a core) |',
    '|---|---|---:|---:|---:|---|---|---|---|---:|---|---|',
  );
  const t = (q: Quantiles) => (q.count ? `${ms(q.p50)} / ${ms(q.p99)} / ${ms(q.max)}` : '-');
  for (const r of result.rows) {
    out.push(
      `| ${when(r)} | ${phase(r)} | ${int(r.sentTx)} / ${int(r.producedTx)} | ${r.standInBacklog === null ? '-' : int(r.standInBacklog)} | ${int(r.storedTrades)} | ${t(r.ingestLag.all)} | ${t(r.ws.all)} | ${t(r.native.all)} | ${integrityText(r).replaceAll('/', ' / ')} | ${mib(r.tradesBytes)} | ${pct(r.machineBusyPercent)} (${pct(r.soakBusyPercent)}), ${r.load1.toFixed(1)} | ${busiest(r)} |`,
    );
  }
  out.push('', '| figure | steady p50 / p99 / max (ms) | burst p50 / p99 / max (ms) | target |', '|---|---|---|---|');
  for (const [name, steady, burst, tg] of latencyRows(result)) out.push(`| ${name} | ${steady} | ${burst} | ${tg || '—'} |`);
  out.push('', '| process | RSS warm-up (MiB) | RSS end (MiB) | growth | CPU avg / max (% of a core) |', '|---|---:|---:|---:|---|');
  for (const x of result.processes) {
    const f = result.memory?.find((y) => y.process === x.name);
    out.push(
      `| ${x.name} | ${mib(x.rssWarmup)} | ${mib(x.rssEnd)} | ${f?.growth === null || f === undefined ? '—' : `${(f.growth * 100).toFixed(1)} %`} | ${pct(x.cpuAvg)} / ${pct(x.cpuMax)} |`,
    );
  }
  const i = result.integrity;
  out.push(
    '',
    `Integrity: WebSocket ${i.ws.lost} lost / ${i.ws.duplicated} duplicated / ${i.ws.reordered} reordered / ${i.ws.unexpected} unexpected over ${int(i.ws.delivered)} deliveries; native ${i.native.lost} / ${i.native.duplicated} / ${i.native.reordered} / ${i.native.unexpected} over ${int(i.native.delivered)}. ` +
      `Stand-in disconnects ${result.geyser?.disconnects ?? '?'}, ingest source reconnects ${result.ingest.reconnects ?? '?'}, ingest queue depth max ${result.ingest.queueMax ?? '?'}. ` +
      `TRADES ${result.trades ? `${mib(result.trades.bytes)} of ${mib(result.trades.maxBytes)} MiB` : '-'}. Verdict: ${result.reasons.length ? `failed (${result.reasons.join('; ')})` : 'passed'}.`,
  );
  return out.join('\n');
}
