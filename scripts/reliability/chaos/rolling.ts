/**
 * Fault class "rolling restart" (issue 31): a deploy, the most common fault in production. Every NATS node,
 * every ingest, ws-fanout, token-price, auth, billing and credential-issuer replica and every web server
 * replica is restarted in turn, as a Kubernetes rollout does it, while trades stream and users sign in.
 *
 * The stack (rolling-stack.ts): a 3-node NATS cluster in operator mode, TRADES with 3 replicas; every service
 * as replicas from its real entry point; in front of them a load balancer that routes new requests and
 * connections only to replicas whose `/readyz` passed its last probe (rolling-lb.ts: Endpoints + ingress /
 * kube-proxy). The load: WebSocket subscribers of every plan through the balancer, counting by `seq` and
 * resuming with `resume_after` (rolling-ws.ts); native NATS subscribers on TRADES (rolling-native.ts); users
 * signing in with the local OpenID provider and calling credential-issuer, billing, token-price and the web
 * server (rolling-http.ts).
 *
 * The rollout: each NATS node in lame duck mode, restarted on its ports and store and current again before
 * the next (the StatefulSet, highest ordinal first); then for each service in turn, each replica replaced
 * with maxSurge 1 / maxUnavailable 0 (its replacement ready at the balancer first, then SIGTERM, the
 * termination grace = SHUTDOWN_READINESS_DELAY_MS + SHUTDOWN_DEADLINE_MS + 2 s, SIGKILL past it).
 *
 * One row per restart (rolling-tally.ts states the rules): lost and duplicated trades of any subscriber;
 * crashed = a WebSocket client reconnecting more than once during a ws-fanout restart (or closed other than
 * with 1001) or at all during another restart, an HTTP 5xx / request without an answer / unexpected status,
 * a native subscriber losing its server outside a NATS restart, a replacement never ready, a replica
 * SIGKILLed past its grace or exiting non-zero, a process dying by itself; recovery = the longest any client
 * waited for a trade already stored, or for an HTTP answer, during that restart.
 */
import { BUNDLED_RECORDING_DIR, loadRecording, messageId } from '@tradewind/ingest';
import type { PlanId } from '@tradewind/contracts';
import type { ReliabilityRow, ReliabilityScale } from '../report.js';
import { createCustomer, errText } from './edge.js';
import { HttpLoad } from './rolling-http.js';
import { type NativeSubscriber, readStoredTrades, startNativeSubscribers } from './rolling-native.js';
import { COMPONENTS, type Component, problemLines, type Replica } from './rolling-replica.js';
import { LAME_DUCK, PROBE, READINESS_DELAY_MS, startStack, type Stack, type StepOutcome } from './rolling-stack.js';
import {
  indexTruth,
  lossWitnesses,
  newTallies,
  note,
  type RestartKind,
  type RestartWindow,
  tallyHttp,
  publishingPauses,
  tallyIngestRuns,
  tallyNativeReconnects,
  tallyReconnects,
  tallySubscriber,
  type TruthTrade,
  windowAt,
} from './rolling-tally.js';
import { RollingWsClient } from './rolling-ws.js';
import { until } from './stream.js';
import { metricSum } from '../../bench/prometheus-text.js';

/** Sizes of one run. */
interface RollingSizes {
  /** Running replicas of each service. */
  readonly replicas: Readonly<Record<Component, number>>;
  /** Replicas of each service restarted (from the first). */
  readonly restarts: Readonly<Record<Component, number>>;
  /** NATS nodes restarted (the TRADES leader first, then the others). */
  readonly natsRestarts: number;
  /** WebSocket subscribers, a third of each plan (Starter, Plus, Pro). */
  readonly wsClients: number;
  readonly nativeSubscribers: number;
  /** Concurrent HTTP sessions, and the pause between two requests of one, ms. */
  readonly httpLoops: number;
  readonly httpPauseMs: number;
  /** REPLAY_TRANSACTIONS_PER_SECOND per ingest replica (≈ 1.5 trades per transaction). */
  readonly ingestTransactionsPerSecond: number;
  /** Streaming before the first restart and between two restarts, ms. */
  readonly settleMs: number;
}

const SIZES: Record<ReliabilityScale, RollingSizes> = {
  // One replica of most services: a rollout surges a replacement next to it all the same (maxSurge 1), and eight
  // processes start in about half the time of fourteen on two cores.
  test: {
    replicas: { ingest: 1, 'ws-fanout': 2, 'token-price': 1, auth: 1, billing: 1, 'credential-issuer': 1, web: 1 },
    restarts: { ingest: 1, 'ws-fanout': 1, 'token-price': 0, auth: 1, billing: 0, 'credential-issuer': 0, web: 0 },
    natsRestarts: 1,
    wsClients: 6,
    nativeSubscribers: 2,
    httpLoops: 2,
    httpPauseMs: 100,
    ingestTransactionsPerSecond: 15,
    settleMs: 1_000,
  },
  full: {
    replicas: { ingest: 2, 'ws-fanout': 2, 'token-price': 2, auth: 2, billing: 2, 'credential-issuer': 2, web: 2 },
    restarts: { ingest: 2, 'ws-fanout': 2, 'token-price': 2, auth: 2, billing: 2, 'credential-issuer': 2, web: 2 },
    natsRestarts: 3,
    wsClients: 30,
    nativeSubscribers: 4,
    httpLoops: 3,
    httpPauseMs: 50,
    // 2 × 67 transactions/s ≈ 200 trades/s: a trade every 5 ms.
    ingestTransactionsPerSecond: 67,
    settleMs: 2_000,
  },
};

/** The row names: one per restart, e.g. "rolling restart: ws-fanout replica a (surge 1, SIGTERM)". */
export const ROLLING_ROW_PREFIX = 'rolling restart: ';
const PLANS: readonly PlanId[] = ['starter', 'plus', 'pro'];
/** After the rollout, how long every subscriber may take to receive the last stored trade, ms. */
const DRAIN_DEADLINE_MS = 30_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** `a, b, a` → `a ×2, b`. */
function summarise(items: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].map(([item, n]) => (n > 1 ? `${item} ×${n}` : item)).join(', ');
}

/** One restart to run, in order. */
interface PlannedRestart {
  readonly label: string;
  readonly kind: RestartKind;
  readonly run: () => Promise<StepOutcome>;
}

/** The rollout order: NATS nodes (the TRADES leader first), then each service's replicas in COMPONENTS order. */
async function plan(stack: Stack, sizes: RollingSizes): Promise<PlannedRestart[]> {
  const leader = (await stack.jsm.streams.info('TRADES')).cluster?.leader ?? 'n1';
  const nodes = [leader, ...stack.nats.nodes.map((n) => n.name).filter((n) => n !== leader)].slice(0, sizes.natsRestarts);
  const steps: PlannedRestart[] = nodes.map((name) => ({
    label: `NATS node ${name} (lame duck mode, restarted on its ports and store)`,
    kind: 'nats',
    run: () => stack.rollNatsNode(name),
  }));
  for (const component of COMPONENTS) {
    for (let i = 0; i < sizes.restarts[component]; i++) {
      if (component === 'ingest') {
        steps.push({
          label: `ingest replica ${i + 1} of ${sizes.replicas.ingest}, the leader-lease holder first (surge 1, SIGTERM)`,
          kind: 'service',
          run: () => rollIngest(stack),
        });
        continue;
      }
      steps.push({
        label: `${component} replica ${'abcdefgh'[i]} of ${sizes.replicas[component]} (surge 1, SIGTERM)`,
        kind: component === 'ws-fanout' ? 'ws-fanout' : 'service',
        run: () => stack.rollReplica(component, i),
      });
    }
  }
  return steps;
}

/** 1 when the replica reports `tradewind_ingest_leader` 1 (it holds the lease and publishes), 0 when standing by, undefined when unknown. */
async function ingestLeader(r: Replica): Promise<number | undefined> {
  const text = await fetch(`${r.adminUrl}/metrics`, { signal: AbortSignal.timeout(2_000) }).then(
    (res) => res.text(),
    () => '',
  );
  return metricSum(text, 'tradewind_ingest_leader');
}

/**
 * Restarts the ingest replica holding the leader lease (src/leader-lease.ts) among those not restarted yet, else the
 * first of those: replacing the publisher is the interesting case (release on SIGTERM, a standby takes over).
 */
async function rollIngest(stack: Stack): Promise<StepOutcome> {
  const list = stack.replicas.get('ingest')!;
  const pending = list.map((r, i) => ({ r, i })).filter(({ r }) => r.name.endsWith('.1'));
  const roles = await Promise.all(pending.map(({ r }) => ingestLeader(r)));
  const pick = pending[Math.max(0, roles.indexOf(1))];
  if (!pick) return { crashed: 1, notes: ['no ingest replica left to restart'] };
  const out = await stack.rollReplica('ingest', pick.i);
  await sleep(1_000);
  const after = await Promise.all(stack.replicas.get('ingest')!.map(async (r) => `${r.name} ${(await ingestLeader(r)) ?? '?'}`));
  out.notes.push(`tradewind_ingest_leader before: ${pending.map(({ r }, k) => `${r.name} ${roles[k] ?? '?'}`).join(', ')}; after: ${after.join(', ')}`);
  return out;
}

/** The clients of a run. */
interface Load {
  readonly ws: RollingWsClient[];
  natives: NativeSubscriber[];
  http: HttpLoad | undefined;
}

/** Starts the native subscribers, the WebSocket clients (a third of each plan, each its own customer) and the HTTP sessions. */
async function startLoad(s: Stack, sizes: RollingSizes, seed: number, load: Load): Promise<void> {
  load.natives = await startNativeSubscribers(
    sizes.nativeSubscribers,
    s.nats.nodes.map((n) => n.url),
    s.identities.service_user_creds,
    s.jsm,
  );
  for (let i = 0; i < sizes.wsClients; i++) {
    const planId = PLANS[i % PLANS.length]!;
    const customer = await createCustomer(s.identities, s.sysNc, planId);
    const client = new RollingWsClient(`ws-${i}-${planId}`, planId, await customer.user(), s.lb.wsUrl);
    await client.start();
    load.ws.push(client);
  }
  load.http = new HttpLoad({
    origin: s.lb.httpUrl,
    oidcIssuer: s.oidc.issuer,
    loops: sizes.httpLoops,
    pauseMs: sizes.httpPauseMs,
    usersPerLoop: 10,
    tag: `${seed}-${Date.now().toString(36)}`,
  });
}

/**
 * The end of the run (not a restart): the HTTP sessions stop, ingest stops publishing (SIGTERM), the stream is read
 * whole, and every subscriber gets up to DRAIN_DEADLINE_MS to receive the last trade of each of its subjects.
 * @returns every trade stored, in order.
 */
async function windDown(s: Stack, load: Load): Promise<TruthTrade[]> {
  await load.http?.stop();
  await Promise.all((s.replicas.get('ingest') ?? []).map((r) => r.terminate(15_000)));
  const trades = await readStoredTrades(s.nc, 1, 180_000);
  const truth = indexTruth(trades);
  await Promise.all([
    ...load.natives.map((n) => until('native catch-up', DRAIN_DEADLINE_MS, () => n.maxSeq() >= truth.lastSeq, 100).catch(() => undefined)),
    ...load.ws.map((c) =>
      until(
        'WebSocket catch-up',
        DRAIN_DEADLINE_MS,
        () => c.subjects.every((subject) => c.lastSeq(subject) >= (truth.bySubject.get(subject)?.at(-1) ?? 0)),
        100,
      ).catch(() => undefined),
    ),
  ]);
  return trades;
}

/** Judges everything the clients saw and the processes did (rolling-tally.ts) and builds one row per restart. */
async function rowsOf(
  s: Stack,
  load: Load,
  run: {
    sizes: RollingSizes;
    seed: number;
    windows: readonly RestartWindow[];
    outcomes: readonly StepOutcome[];
    trades: readonly TruthTrade[];
    rejections: readonly number[];
  },
): Promise<ReliabilityRow[]> {
  const { windows, trades } = run;
  const truth = indexTruth(trades);
  const tallies = newTallies(windows);
  const moved = windows.map(() => ({ clients: 0, closes: 0, attempts: 0 }));
  for (const c of load.ws) {
    tallySubscriber(c, c.after, truth, windows, tallies);
    tallyReconnects(c, windows, tallies).forEach((w, i) => {
      moved[i]!.closes += w.closes;
      moved[i]!.attempts += w.attempts;
      if (w.closes > 0) moved[i]!.clients++;
    });
  }
  for (const n of load.natives) {
    tallySubscriber(n, new Map([...truth.bySubject.keys()].map((subject) => [subject, n.after])), truth, windows, tallies);
    tallyNativeReconnects(n.id, n.reconnects, windows, tallies);
  }
  // Where any loss went missing: one note per losing subscriber, in the window its first lost trade was stored in.
  const witnesses = [
    ...load.ws.map((c) => ({ id: c.id, kind: 'WebSocket', seqs: c.seqs, times: c.times, after: c.after })),
    ...load.natives.map((n) => ({
      id: n.id,
      kind: 'native',
      seqs: n.seqs,
      times: n.times,
      after: new Map([...truth.bySubject.keys()].map((subject) => [subject, n.after])),
    })),
  ];
  for (const { text, firstSeq } of lossWitnesses(witnesses, truth)) {
    note(tallies[windowAt(windows, truth.bySeq.get(firstSeq)?.storedMs ?? 0)]!, 'loss witnesses', text);
  }
  const records = load.http?.records ?? [];
  tallyHttp(records, windows, tallies);
  const { transactions } = await loadRecording(BUNDLED_RECORDING_DIR);
  const runs = tallyIngestRuns(
    trades,
    transactions.flatMap((t) => t.trades.map(messageId)),
    windows,
    tallies,
  );
  // Processes that died by themselves (a terminated or killed one is not counted) and unhandled rejections here.
  for (const r of s.allReplicas) {
    const status = r.exitStatus();
    if (!status || !r.exitedUnexpectedly()) continue;
    const t = tallies[windowAt(windows, status.at)]!;
    t.crashed++;
    note(t, 'crash', `${r.name} exited ${status.code ?? status.signal} by itself: ${problemLines(r.output()).join(' | ') || r.output().slice(-300)}`);
  }
  const last = tallies[tallies.length - 1]!;
  for (const node of s.nats.nodes) {
    if (node.unexpectedExits() === 0) continue;
    last.crashed += node.unexpectedExits();
    note(last, 'crash', `nats-server ${node.name} exited by itself ${node.unexpectedExits()}×: ${await node.logTail(4)}`);
  }
  for (const at of run.rejections) {
    const t = tallies[windowAt(windows, at)]!;
    t.crashed++;
    note(t, 'harness', 'an unhandled rejection in the harness (see stderr)');
  }

  const pauses = publishingPauses(trades, windows);
  const observed = (i: number) => {
    const inWindow = (at: number) => windowAt(windows, at) === i;
    const t = tallies[i]!;
    const requests = records.filter((r) => inWindow(r.at));
    const recreated = load.natives.reduce((n, x) => n + x.recreations.filter((r) => inWindow(r.at)).length, 0);
    const nativeReconnects = load.natives.reduce((n, x) => n + x.reconnects.filter(inWindow).length, 0);
    const lbEvents = s.lb.events.filter((e) => inWindow(e.at));
    const worst = ['WebSocket', 'native', 'HTTP'].map((kind) => {
      const w = t.worst.get(kind);
      return `${kind} ${w ? `${w.ms} ms (${w.by})` : '—'}`;
    });
    return [
      `longest wait: ${worst.join(', ')}; longest pause between two stored trades ${pauses[i]} ms`,
      `${moved[i]!.clients} of ${load.ws.length} WebSocket clients closed and reconnected (${moved[i]!.closes} closes, ${moved[i]!.attempts} attempts)`,
      `native subscribers: ${nativeReconnects} server reconnect(s), ${recreated} consumer re-creation(s)`,
      `HTTP ${requests.length} requests (${summarise(requests.map((r) => r.service))}), ${requests.filter((r) => !r.expected).length} failed`,
      `balancer: ${lbEvents.length === 0 ? 'nothing retried or refused' : summarise(lbEvents.map((e) => `${e.kind} ${e.service}${e.replica ? ` (${e.replica})` : ''}`))}`,
    ].join('; ');
  };
  const { sizes, seed } = run;
  const setting = `seed ${seed}; ${load.ws.length} WebSocket clients (Starter, Plus, Pro) and ${load.natives.length} native subscribers through the balancer, ${sizes.replicas.ingest} ingest replica(s) replaying ${sizes.ingestTransactionsPerSecond} tx/s (${trades.length} trades stored, ${runs.runs} replay run(s)), ${sizes.httpLoops} HTTP sessions; readiness probe every ${PROBE.periodMs} ms (timeout ${PROBE.timeoutMs} ms, out after ${PROBE.failureThreshold} failures), SHUTDOWN_READINESS_DELAY_MS ${READINESS_DELAY_MS}, NATS lame duck ${LAME_DUCK.durationMs}/${LAME_DUCK.gracePeriodMs} ms; recovery = longest wait for a stored trade or an HTTP answer`;
  return windows.map((w, i) => {
    const t = tallies[i]!;
    const o = run.outcomes[i]!;
    const elided = t.elided > 0 ? [`${t.elided} more finding(s) not listed`] : [];
    return {
      name: `${ROLLING_ROW_PREFIX}${w.label}`,
      tried: 1,
      lost: t.lost,
      duplicated: t.duplicated,
      crashed: t.crashed + o.crashed,
      recoveryMs: t.recoveryMs,
      notes: [i === 0 ? setting : `seed ${seed}, as above`, ...o.notes, observed(i), ...t.notes, ...elided].join('; '),
    };
  });
}

/**
 * Runs the class at `scale` and returns one row per restart.
 * @param seed recorded in the notes and in the users' e-mail addresses (the restarts themselves are deterministic).
 * @throws Error only when the stack cannot be started; whatever goes wrong afterwards is counted in the rows.
 */
export async function runRollingChaos(scale: ReliabilityScale, seed: number): Promise<ReliabilityRow[]> {
  const sizes = SIZES[scale];
  const startedAt = Date.now();
  const progress = (what: string) => process.stderr.write(`chaos(rolling) +${((Date.now() - startedAt) / 1000).toFixed(1)} s: ${what}\n`);
  const rejections: number[] = [];
  const onRejection = (err: unknown) => {
    rejections.push(Date.now());
    process.stderr.write(`chaos(rolling): unhandled rejection: ${errText(err)}\n`);
  };
  process.on('unhandledRejection', onRejection);
  let stack: Stack | undefined;
  const killOnExit = () => {
    for (const r of stack?.allReplicas ?? []) void r.kill();
  };
  process.once('exit', killOnExit);
  const load: Load = { ws: [], natives: [], http: undefined };
  try {
    stack = await startStack({ replicas: sizes.replicas, ingestTransactionsPerSecond: sizes.ingestTransactionsPerSecond });
    await startLoad(stack, sizes, seed, load);
    progress('stack ready, clients streaming');
    await sleep(sizes.settleMs);
    const windows: RestartWindow[] = [];
    const outcomes: StepOutcome[] = [];
    for (const step of await plan(stack, sizes)) {
      windows.push({ label: step.label, kind: step.kind, startMs: Date.now() });
      progress(`${step.label}…`);
      outcomes.push(await step.run().catch((err: unknown) => ({ crashed: 1, notes: [`the step failed: ${errText(err)}`] })));
      await sleep(sizes.settleMs);
    }
    progress('rollout done, counting');
    const trades = await windDown(stack, load);
    return await rowsOf(stack, load, { sizes, seed, windows, outcomes, trades, rejections });
  } finally {
    process.off('unhandledRejection', onRejection);
    process.off('exit', killOnExit);
    await load.http?.stop().catch(() => undefined);
    await Promise.all(load.ws.map((c) => c.stop().catch(() => undefined)));
    await Promise.all(load.natives.map((n) => n.stop()));
    await stack?.stop();
  }
}
