/**
 * Fault injection around the edge (issue 24, helper D): ws-fanout killed with SIGKILL, Redis
 * stopped and restarted, PostgreSQL stopped and restarted. Every server here is private (an
 * operator-mode nats-server, a redis-server and an embedded PostgreSQL on free ports, data in
 * temporary directories): the shared servers are never touched.
 *
 * Policies proven (docs/websocket.md §6, docs/reliability.md):
 * - ws-fanout killed: clients of the dead process reconnect to another and `resume_after` their
 *   last `seq`: no gap, no duplicate; the dead process's slots are free within one lease.
 * - Redis outage: live WebSocket connections keep streaming (delivery needs no Redis); a login
 *   during the outage is refused at once with `unavailable` (close 4503), never admitted past the
 *   plan's limit; when Redis is back (empty) each process writes its live connections' slots back
 *   before admitting anyone, so the limits hold again at once; no service is restarted.
 * - PostgreSQL outage: see postgres-chaos.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { startLocalNats, freePort, type LocalNats } from '@tradewind/dev';
import { connectNats, ensureTradesStream, watchStreamLeader, type NatsConnection, type StreamLeaderWatch } from '@tradewind/lib';
import { encodeCustomerAccount, encodeCustomerUser, newCustomerAccountKey, pushAccountJwt } from '@tradewind/credential-issuer';
import { TRADES_STREAM, type PlanId } from '@tradewind/contracts';
import type { ReliabilityRow, ReliabilityScale } from '../report.js';
import { type EdgeClient, type FanoutEnv, type FanoutProcess, login, sleep, startFanout, tallySeqs } from './edge-ws.js';
import { startRestartableRedis, type RestartableRedis } from './redis-server.js';
import { runPostgresChaos } from './postgres-chaos.js';
import { tokenPriceThroughRedisRestart } from './redis-token-price.js';

/** Sizes of one run. */
interface EdgeSizes {
  /** SIGKILL rounds (each kills the process its subscribers are on). */
  readonly killRounds: number;
  /** Subscribers per kill round: half Pro (reconnect at once), half Starter (wait for the dead slot's lease). */
  readonly subscribers: number;
  /** Redis stop/start rounds. */
  readonly redisRounds: number;
  /** How long Redis stays down, ms. */
  readonly redisOutageMs: number;
  /** PostgreSQL stop/start rounds. */
  readonly postgresRounds: number;
  /** Publishing interval of the trade stream, ms. */
  readonly publishEveryMs: number;
  /** Streaming before and after each fault, ms. */
  readonly streamMs: number;
}

const SIZES: Record<ReliabilityScale, EdgeSizes> = {
  test: { killRounds: 1, subscribers: 4, redisRounds: 1, redisOutageMs: 1000, postgresRounds: 1, publishEveryMs: 5, streamMs: 300 },
  full: { killRounds: 3, subscribers: 10, redisRounds: 3, redisOutageMs: 3000, postgresRounds: 3, publishEveryMs: 2, streamMs: 1500 },
};

/** Slot lease of the ws-fanout children (CONNECTION_LEASE_MS), ms. */
const LEASE_MS = 3000;
/** A subject only this run publishes on. */
const SUBJECT = 'basic.pumpfun';

/** Credentials of one user of a per-customer account. */
export type Creds = { jwt: string; seed: string };

/** A customer account pushed to the resolver; `user()` issues a new user of it. */
export async function createCustomer(
  identities: LocalNats['identities'],
  sysNc: NatsConnection,
  plan: PlanId,
): Promise<{ plan: PlanId; user(): Promise<Creds> }> {
  const spec = { accountPublicKey: newCustomerAccountKey(), name: `chaos-${plan}`, plan };
  await pushAccountJwt(sysNc, await encodeCustomerAccount(identities, spec));
  return {
    plan,
    async user() {
      const u = await encodeCustomerUser(identities, spec.accountPublicKey, { name: spec.name, ttlSeconds: 3600 });
      return { jwt: u.userJwt, seed: u.userSeed };
    },
  };
}

/**
 * Publishes trades on SUBJECT every `everyMs` until stopped; remembers the last stream sequence acknowledged.
 * A failed publish (no ack: a NATS node down, an election) is retried with the same Nats-Msg-Id until it
 * is acknowledged, as ingest does, so JetStream's duplicate window keeps a re-sent trade stored once.
 */
export class Publisher {
  last = 0;
  count = 0;
  errors = 0;
  /** Attempts abandoned because TRADES elected a leader or the connection reconnected (re-sent at once). */
  kicks = 0;
  /** Each acknowledged trade's stream sequence and when its successful attempt was sent (epoch ms), in order. */
  readonly acks: { seq: number; sentMs: number }[] = [];
  private running = true;
  private readonly done: Promise<void>;
  private kick: (() => void) | null = null;
  private readonly watch: StreamLeaderWatch | undefined;

  /**
   * @param options.nc when given, an attempt in flight when TRADES elects a leader (or `nc` reconnects) is
   *   abandoned and re-sent at once with the same Nats-Msg-Id, as ingest's publisher does (its answer may
   *   never come: the old leader died with it).
   */
  constructor(js: JetStreamClient, everyMs: number, tag: string, options: { nc?: NatsConnection } = {}) {
    if (options.nc)
      this.watch = watchStreamLeader(options.nc, TRADES_STREAM, () => {
        this.kicks++;
        this.kick?.();
      });
    this.done = (async () => {
      while (this.running) {
        const n = ++this.count;
        while (this.running) {
          try {
            const kicked = new Promise<never>((_, reject) => {
              this.kick = () => reject(new Error('stream leader changed'));
            });
            const sentMs = Date.now();
            const ack = await Promise.race([
              js.publish(SUBJECT, JSON.stringify({ source: 'pumpfun', transaction_type: 'BUY', signature: `${tag}-${n}`, slot: n, n }), {
                msgID: `${tag}-${n}`,
              }),
              kicked,
            ]);
            this.kick = null;
            this.last = Math.max(this.last, ack.seq);
            this.acks.push({ seq: ack.seq, sentMs });
            break;
          } catch {
            this.kick = null;
            this.errors++;
            await sleep(50);
          }
        }
        await sleep(everyMs);
      }
    })();
  }

  /** The sequence of the first trade whose acknowledged attempt was sent at or after `ms`, or null. */
  firstSentAfter(ms: number): number | null {
    return this.acks.find((a) => a.sentMs >= ms)?.seq ?? null;
  }

  /** Stops publishing. @returns the last acknowledged stream sequence. */
  async stop(): Promise<number> {
    this.running = false;
    this.watch?.stop();
    await this.done;
    return this.last;
  }
}

/** A subscriber of SUBJECT whose received sequences survive reconnections. */
export interface Subscriber {
  readonly creds: Creds;
  readonly plan: PlanId;
  client: EdgeClient;
  /** The subject's last sequence when the first subscription started (0: none). */
  after: number;
  /** Every trade sequence received, over all its connections. */
  readonly seqs: number[];
}

/** The highest sequence `s` received (its start when none). */
export const maxSeq = (s: Subscriber) => s.seqs.reduce((m, x) => Math.max(m, x), s.after);

/** Logs in and subscribes (live, or resuming after `resumeAfter`). @throws Error when refused. */
export async function subscribe(url: string, creds: Creds, plan: PlanId, resumeAfter?: number, existing?: Subscriber): Promise<Subscriber> {
  const seqs = existing?.seqs ?? [];
  const { client, reply } = await login(url, creds, 5000, (seq) => seqs.push(seq));
  if (reply.type !== 'authenticated') {
    client.close(true);
    throw new Error(`login refused: ${JSON.stringify(reply)}`);
  }
  client.send(resumeAfter === undefined ? { subject: SUBJECT } : { subject: SUBJECT, resume_after: resumeAfter });
  const ok = await client.next();
  if (ok.type !== 'subscribed') {
    client.close(true);
    throw new Error(`subscribe refused: ${JSON.stringify(ok)}`);
  }
  if (resumeAfter !== undefined) {
    const caught = await client.next(10_000);
    if (caught.type !== 'replay_caught_up') throw new Error(`expected replay_caught_up, got ${JSON.stringify(caught)}`);
  }
  if (existing) {
    existing.client = client;
    return existing;
  }
  return { creds, plan, client, after: typeof ok.seq === 'number' ? ok.seq : 0, seqs };
}

/** Waits until every subscriber has received `last`; those that do not within `timeoutMs` are left to the tally. */
export async function awaitAll(subs: readonly Subscriber[], last: number, timeoutMs: number): Promise<void> {
  await Promise.all(subs.map((s) => s.client.until(() => maxSeq(s) >= last, timeoutMs, 'last sequence').catch(() => undefined)));
}

/** Adds the tallies of `subs` over (after, last] to `acc`; notes the first lost sequences. */
export function tallyAll(subs: readonly Subscriber[], last: number, acc: { lost: number; duplicated: number; notes: string[] }, label: string): void {
  for (const s of subs) {
    const t = tallySeqs(s.seqs, s.after, last);
    acc.lost += t.lost;
    acc.duplicated += t.duplicated + t.reordered;
    if (t.lost > 0 || t.duplicated > 0 || t.reordered > 0) {
      acc.notes.push(
        `${label} ${s.plan} subscriber (${s.after}, ${last}]: lost ${t.lost} (first ${t.lostSample.join(',')}), duplicated ${t.duplicated}, reordered ${t.reordered}`,
      );
    }
  }
}

/** First line of an error's message, ≤ 200 characters. */
export const errText = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200);

/** Longest a login may wait for its `unavailable` answer while Redis is down, ms. */
export const OUTAGE_ANSWER_MS = 3000;

/**
 * What is wrong with the answer to a login sent while Redis is down, or undefined when it is the
 * policy's: `{"type":"error","code":"unavailable"}` within OUTAGE_ANSWER_MS (ms), then close 4503.
 */
export function outageLoginProblem(reply: Record<string, unknown>, tookMs: number, closeCode: number): string | undefined {
  if (reply.type === 'authenticated') return 'a login was admitted while Redis was down (plan limits unchecked)';
  if (reply.type !== 'error' || reply.code !== 'unavailable')
    return `a login during the Redis outage got ${JSON.stringify(reply).slice(0, 200)} instead of unavailable`;
  if (tookMs > OUTAGE_ANSWER_MS) return `the unavailable answer took ${tookMs} ms (more than ${OUTAGE_ANSWER_MS} ms)`;
  if (closeCode !== 4503) return `the unavailable login was closed with ${closeCode}, not 4503`;
  return undefined;
}

/** The shared pieces of faults 1 and 2. */
interface EdgeStack {
  readonly nats: LocalNats;
  readonly sysNc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly redis: RestartableRedis;
  readonly fanoutEnv: FanoutEnv;
  readonly fanouts: FanoutProcess[];
}

/**
 * Fault 1: the ws-fanout process holding the subscribers is killed (SIGKILL) mid-stream; each
 * subscriber reconnects to the other process and resumes after its last `seq`.
 */
async function fanoutKillFault(stack: EdgeStack, sizes: EdgeSizes, seed: number): Promise<ReliabilityRow> {
  const acc = { lost: 0, duplicated: 0, notes: [] as string[] };
  let crashed = 0;
  let tried = 0;
  let recoveryMs = 0;
  let slotFreeMs = 0;
  for (let round = 0; round < sizes.killRounds; round++) {
    const victim = stack.fanouts.find((f) => f.alive());
    let survivor = stack.fanouts.find((f) => f.alive() && f !== victim);
    if (!survivor) {
      survivor = await startFanout(`ws-fanout-${stack.fanouts.length}`, stack.fanoutEnv, { CONNECTION_LEASE_MS: String(LEASE_MS) });
      stack.fanouts.push(survivor);
    }
    if (!victim) throw new Error('no ws-fanout process left to kill');
    const publisher = new Publisher(stack.js, sizes.publishEveryMs, `kill-${seed}-${round}`);
    const subs: Subscriber[] = [];
    try {
      for (let i = 0; i < sizes.subscribers; i++) {
        const plan: PlanId = i % 2 === 0 ? 'pro' : 'starter';
        const customer = await createCustomer(stack.nats.identities, stack.sysNc, plan);
        subs.push(await subscribe(victim.url, await customer.user(), plan));
      }
      await sleep(sizes.streamMs);
      tried++;
      const killedAt = Date.now();
      await victim.stop('SIGKILL');
      await Promise.all(
        subs.map(async (s) => {
          await s.client.waitClosed(10_000);
          // Reconnect to the survivor; a Starter customer's one slot is still leased by the dead process.
          for (;;) {
            try {
              await subscribe(survivor.url, s.creds, s.plan, maxSeq(s), s);
              break;
            } catch (err) {
              if (!/connection_limit/.test(errText(err))) throw err;
              if (Date.now() - killedAt > LEASE_MS + 5000) throw new Error(`${s.plan} slot of the killed process not free ${LEASE_MS + 5000} ms after SIGKILL`);
              await sleep(100);
            }
          }
          const took = Date.now() - killedAt;
          recoveryMs = Math.max(recoveryMs, took);
          if (s.plan === 'starter') slotFreeMs = Math.max(slotFreeMs, took);
        }),
      );
      // The documented bound: a dead process's slots free after at most one lease (plus polling and renew spread).
      if (slotFreeMs > LEASE_MS + 1500) {
        crashed++;
        acc.notes.push(`starter slot free only ${slotFreeMs} ms after SIGKILL (lease ${LEASE_MS} ms)`);
      }
      await sleep(sizes.streamMs);
    } catch (err) {
      crashed++;
      acc.notes.push(`round ${round}: ${errText(err)}`);
    } finally {
      const last = await publisher.stop();
      await awaitAll(subs, last, 10_000);
      tallyAll(subs, last, acc, `round ${round}`);
      for (const s of subs) s.client.close(true);
    }
    // Replace the killed process so the next round (and fault 2) has two again.
    const replacement = await startFanout(`ws-fanout-${stack.fanouts.length}`, stack.fanoutEnv, { CONNECTION_LEASE_MS: String(LEASE_MS) });
    stack.fanouts.push(replacement);
  }
  return {
    name: 'ws-fanout process killed (SIGKILL) mid-stream; clients resume on another',
    tried,
    lost: acc.lost,
    duplicated: acc.duplicated,
    crashed,
    recoveryMs,
    notes: `seed ${seed}; ${sizes.subscribers} subscribers/round (half Pro, half Starter), lease ${LEASE_MS} ms, Starter slot free after ≤ ${slotFreeMs} ms; recovered = every subscriber resumed and caught up${acc.notes.length ? `; ${acc.notes.join('; ')}` : ''}`,
  };
}

/**
 * Fault 2: the private Redis is stopped and started again (empty). Checks the policy of the
 * module comment on one ws-fanout process.
 */
async function redisRestartFault(stack: EdgeStack, sizes: EdgeSizes, seed: number): Promise<ReliabilityRow> {
  const acc = { lost: 0, duplicated: 0, notes: [] as string[] };
  let crashed = 0;
  let tried = 0;
  let recoveryMs = 0;
  let loginRecoveryMs = 0;
  const fail = (why: string) => {
    crashed++;
    acc.notes.push(why);
  };
  for (let round = 0; round < sizes.redisRounds; round++) {
    const fanout = stack.fanouts.find((f) => f.alive());
    if (!fanout) throw new Error('no ws-fanout process running');
    const publisher = new Publisher(stack.js, sizes.publishEveryMs, `redis-${seed}-${round}`);
    const subs: Subscriber[] = [];
    try {
      const starter = await createCustomer(stack.nats.identities, stack.sysNc, 'starter');
      const pro = await createCustomer(stack.nats.identities, stack.sysNc, 'pro');
      subs.push(await subscribe(fanout.url, await starter.user(), 'starter'));
      subs.push(await subscribe(fanout.url, await pro.user(), 'pro'));
      await sleep(sizes.streamMs);
      tried++;
      await stack.redis.stop(round % 2 === 0);
      const stoppedAt = Date.now();
      const atStop = subs.map(maxSeq);

      // A new login during the outage: refused at once with `unavailable`, close 4503.
      for (const who of [await (await createCustomer(stack.nats.identities, stack.sysNc, 'starter')).user(), await starter.user()]) {
        const t0 = Date.now();
        const { client, reply }: { client?: EdgeClient; reply: Record<string, unknown> } = await login(fanout.url, who, 5000).catch((err: unknown) => ({
          client: undefined,
          reply: { type: 'failed', message: errText(err) },
        }));
        const took = Date.now() - t0;
        const closeCode = client && reply.code === 'unavailable' ? (await client.waitClosed(3000).catch(() => ({ code: 0 }))).code : 0;
        const problem = outageLoginProblem(reply, took, closeCode);
        if (problem) fail(`round ${round}: ${problem}`);
        client?.close(true);
      }
      // Live connections keep streaming during the outage.
      await Promise.all(
        subs.map((s, i) =>
          s.client
            .until(() => maxSeq(s) > (atStop[i] ?? 0) + 5, 5000, 'streaming during the Redis outage')
            .catch(() => fail(`round ${round}: a ${s.plan} connection stopped streaming while Redis was down`)),
        ),
      );
      await sleep(Math.max(0, sizes.redisOutageMs - (Date.now() - stoppedAt)));

      await stack.redis.start();
      const upAt = Date.now();
      // Recovered: a new login is admitted, without restarting ws-fanout.
      const fresh = await (await createCustomer(stack.nats.identities, stack.sysNc, 'starter')).user();
      for (;;) {
        const { client, reply } = await login(fanout.url, fresh, 5000);
        client.close(true);
        if (reply.type === 'authenticated') break;
        if (Date.now() - upAt > 15_000) throw new Error(`logins still refused 15 s after Redis was back: ${JSON.stringify(reply)}`);
        await sleep(50);
      }
      loginRecoveryMs = Math.max(loginRecoveryMs, Date.now() - upAt);
      recoveryMs = Math.max(recoveryMs, loginRecoveryMs);
      // The plan limit holds again at once: the starter's live connection still owns its one slot.
      const second = await login(fanout.url, await starter.user(), 5000);
      second.client.close(true);
      if (second.reply.type === 'authenticated') fail(`round ${round}: after the Redis restart a second Starter connection was admitted (limit 1)`);
      else if (second.reply.code !== 'connection_limit') fail(`round ${round}: second Starter login after restart got ${JSON.stringify(second.reply)}`);
      // Control requests of a live connection work again.
      const s0 = subs[0] as Subscriber;
      s0.client.send({ subject: 'basic.bonk' });
      const sub = await s0.client.next(5000);
      if (sub.type !== 'subscribed') fail(`round ${round}: subscribe after the Redis restart got ${JSON.stringify(sub)}`);
      await sleep(sizes.streamMs);
    } catch (err) {
      fail(`round ${round}: ${errText(err)}`);
    } finally {
      if (!stack.redis.running()) await stack.redis.start().catch((err: unknown) => fail(`redis restart: ${errText(err)}`));
      const last = await publisher.stop();
      await awaitAll(subs, last, 10_000);
      tallyAll(subs, last, acc, `round ${round}`);
      for (const s of subs) s.client.close(true);
    }
  }
  // token-price on the same Redis (last: it publishes the recording into TRADES, other subjects included).
  tried++;
  const tp = await tokenPriceThroughRedisRestart({ js: stack.js, jsm: stack.jsm, redis: stack.redis }, async (duringOutage) => {
    await stack.redis.stop(true);
    await duringOutage();
    await sleep(sizes.redisOutageMs);
    await stack.redis.start();
    return Date.now();
  }).catch((err: unknown) => ({ recoveryMs: 0, problems: [`token-price round: ${errText(err)}`] }));
  if (!stack.redis.running()) await stack.redis.start().catch((err: unknown) => fail(`redis restart: ${errText(err)}`));
  for (const problem of tp.problems) fail(problem);
  recoveryMs = Math.max(recoveryMs, tp.recoveryMs);
  return {
    name: 'Redis stopped and restarted (empty): live streams, logins refused as unavailable, limits kept, token-price rebuilt',
    tried,
    lost: acc.lost,
    duplicated: acc.duplicated,
    crashed,
    recoveryMs,
    notes: `seed ${seed}; outage ${sizes.redisOutageMs} ms (SIGKILL and SIGTERM alternately); recovered = a new login admitted after Redis accepts connections again (no service restarted): ≤ ${loginRecoveryMs} ms; token-price ticker rebuilt to its pre-outage answer in ${tp.recoveryMs} ms${acc.notes.length ? `; ${acc.notes.join('; ')}` : ''}`,
  };
}

/**
 * Runs every edge fault at `scale`: starts a private nats-server, redis-server, two ws-fanout
 * processes (and, for PostgreSQL, its own stack), injects the faults and stops everything again.
 * @param seed recorded in the rows' notes (publisher tags; the faults themselves are deterministic).
 * @returns one row per fault class: SIGKILL of ws-fanout, Redis restart, PostgreSQL restart.
 * @throws Error only when a server cannot be started at all; problems found are counted in the rows.
 */
export async function runEdgeChaos(scale: ReliabilityScale, seed: number): Promise<ReliabilityRow[]> {
  const sizes = SIZES[scale];
  const rows: ReliabilityRow[] = [];
  const cleanup: Array<() => Promise<unknown>> = [];
  const stateDir = await mkdtemp(join(tmpdir(), 'tw-chaos-edge-'));
  cleanup.push(() => rm(stateDir, { recursive: true, force: true }));
  // Should this process die before the finally below (a crash under test), take the children with it.
  const children: Array<{ kill(signal: NodeJS.Signals): unknown }> = [];
  const killChildren = () => {
    for (const c of children) c.kill('SIGKILL');
  };
  process.once('exit', killChildren);
  cleanup.push(async () => {
    process.off('exit', killChildren);
  });
  try {
    const nats = await startLocalNats({ stateDir, port: await freePort(), monitorPort: await freePort() });
    children.push(nats.process);
    cleanup.push(() => nats.stop());
    const nc = await connectNats({ url: nats.url, creds: nats.identities.service_user_creds, name: 'chaos-edge' });
    cleanup.push(() => nc.close());
    const sysNc = await connectNats({ url: nats.url, creds: nats.identities.system_user_creds, name: 'chaos-edge-sys' });
    cleanup.push(() => sysNc.close());
    const jsm = await jetstreamManager(nc);
    await ensureTradesStream(jsm);
    const redis = await startRestartableRedis();
    cleanup.push(() => redis.stop(true));
    const fanoutEnv: FanoutEnv = { natsUrl: nats.url, natsStateDir: stateDir, redisUrl: redis.url };
    const fanouts: FanoutProcess[] = [];
    cleanup.push(() => Promise.all(fanouts.map((f) => f.stop('SIGKILL'))));
    children.push(
      {
        kill: (signal) => {
          for (const f of fanouts) f.proc.kill(signal);
        },
      },
      { kill: () => void redis.stop(true) },
    );
    fanouts.push(...(await Promise.all(['ws-fanout-a', 'ws-fanout-b'].map((n) => startFanout(n, fanoutEnv, { CONNECTION_LEASE_MS: String(LEASE_MS) })))));
    const stack: EdgeStack = { nats, sysNc, js: jetstream(nc), jsm, redis, fanoutEnv, fanouts };
    rows.push(await fanoutKillFault(stack, sizes, seed));
    rows.push(await redisRestartFault(stack, sizes, seed));
    for (const f of fanouts) {
      if (f.alive()) continue;
      if (f.proc.signalCode !== 'SIGKILL')
        process.stderr.write(`[chaos-edge] ${f.name} died by itself (${f.proc.exitCode ?? f.proc.signalCode}):\n${f.output()}\n`);
    }
    const unexpected = fanouts.filter((f) => !f.alive() && f.proc.signalCode !== 'SIGKILL').length;
    const lastRow = rows.pop() as ReliabilityRow;
    rows.push(unexpected > 0 ? { ...lastRow, crashed: lastRow.crashed + unexpected } : lastRow);
  } finally {
    for (const step of cleanup.reverse()) await step().catch((err: unknown) => process.stderr.write(`[chaos-edge] cleanup: ${errText(err)}\n`));
  }
  rows.push(await runPostgresChaos(sizes.postgresRounds, seed));
  return rows;
}
