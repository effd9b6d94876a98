/**
 * Subscriber process of the soak (scripts/soak/harness.ts forks several, with an IPC channel, so the
 * subscribers never share an event loop with the harness or a service). It holds:
 *  - WebSocket clients of ws-fanout: challenge → `{"jwt","nkey"}` → authenticated → one `{"subject"[, "filter"]}`
 *    per subscription (docs/websocket.md §1–2); after a close it reconnects and resumes every subject with
 *    `resume_after` = the last `seq` it got (§2 "Resume after a disconnect"), as @tradewind/client does;
 *  - native NATS subscribers: one nats.js connection each with a customer's user JWT and NKey, core
 *    subscriptions to plan subjects or per-mint subjects (docs/nats.md), reconnecting as nats.js does.
 *
 * What each subscriber receives is judged against what it is owed (scripts/soak/audit.ts) once the stored
 * stream is known up to it: the harness sends every stored trade's record (scripts/soak/records.ts) —
 * subject, filter mask, `Nats-Msg-Id`, and the time the Yellowstone stand-in sent its transaction. A
 * receipt's latency is its receive time (Date.now(), the clock the stand-in's `onSend` uses on this
 * machine) minus that send time, joined here by stream sequence (WebSocket `seq`) or by `Nats-Msg-Id`
 * (`<signature>:<instruction path>`, native), i.e. by the transaction's signature.
 *
 * Requests come as `{id, ...ClientRequest}` and are answered `{id, ok, result | error}`; record batches
 * come as `{records}` and the run's time 0 (epoch ms of the first transaction sent) as `{start}`, without an answer. The process exits when the IPC channel closes.
 */
import WebSocket from 'ws';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jwtAuthenticator, type BenchUser } from '../bench/fanout-users.js';
import { Histogram, type HistogramJson } from './histogram.js';
import { ExpectedSeqs, SeqAudit, addCounts, zeroCounts, type AuditCounts } from './audit.js';
import { NO_SUBJECT, RecordStore, subjectIndex, type RecordBatch } from './records.js';
import type { ClientPlan, Expectation } from './plan.js';
import { closeWebSocket } from '../bench/child-cleanup.js';

/** Limits and timings of the subscribers (the harness passes its named options). */
export interface ClientOptions {
  /** Subscribers connecting at once per process. */
  connectConcurrency: number;
  /** One connect attempt: socket open to every `subscribed` (WebSocket) or connect to subscriptions flushed (native), ms. */
  connectTimeoutMs: number;
  /** Attempts per subscriber at set-up. */
  connectAttempts: number;
  /** Wait before a closed WebSocket client reconnects (and between native reconnect attempts), ms. */
  reconnectDelayMs: number;
  /**
   * After the native subscriptions are in place, wait this long before taking the stored stream's last
   * sequence as their start, ms: a trade published before a subscription existed is stored within it.
   */
  nativeStartMarginMs: number;
  /** Report interval of the run (latency is histogrammed per interval of receive time), ms. */
  intervalMs: number;
  /** A native receipt whose `Nats-Msg-Id` no stored trade has after this long is counted unexpected, ms. */
  unmatchedAfterMs: number;
  /** `Nats-Msg-Id`s of past stored trades kept to match late or repeated native receipts. */
  nativeIdRetention: number;
}

/** One subscriber to set up: its credentials and plan. */
export interface SubscriberSpec {
  readonly id: string;
  readonly user: BenchUser;
  readonly client: ClientPlan;
}

export type ClientRequest =
  | {
      cmd: 'setup';
      wsUrl: string;
      natsServers: string[];
      expectations: Expectation[];
      ws: SubscriberSpec[];
      native: SubscriberSpec[];
      options: ClientOptions;
    }
  | { cmd: 'interval'; index: number }
  | { cmd: 'status' }
  | { cmd: 'final' }
  | { cmd: 'close' };

/** Latency histograms (ms) by phase of the transaction's send. */
export interface PhaseHistograms {
  steady: HistogramJson;
  burst: HistogramJson;
}

export interface ConnectOutcome {
  connected: number;
  /** Reasons of subscribers that never connected, counted. */
  failures: Record<string, number>;
}

export interface SetupResult {
  ws: ConnectOutcome;
  native: ConnectOutcome;
}

/** Cumulative figures at the end of an interval (the harness takes differences) and that interval's latency. */
export interface IntervalReport {
  index: number;
  latency: { ws: PhaseHistograms; native: PhaseHistograms };
  counts: { ws: AuditCounts; native: AuditCounts };
  /** Owed trades not received yet (behind), now. */
  pending: { ws: number; native: number };
  /** Trade messages received (judged or not). */
  received: { ws: number; native: number };
  reconnects: { ws: number; native: number };
  /** Close codes and reasons (WebSocket), disconnects and server errors (native). */
  closes: Record<string, number>;
}

export interface StatusResult {
  pending: number;
  held: number;
  watermark: number;
}

/** One subscription whose counts are not all zero at the end. */
export interface Problem {
  id: string;
  subscription: string;
  counts: AuditCounts;
}

export interface FinalReport {
  counts: { ws: AuditCounts; native: AuditCounts };
  latency: { ws: PhaseHistograms; native: PhaseHistograms };
  received: { ws: number; native: number };
  reconnects: { ws: number; native: number };
  closes: Record<string, number>;
  /** Native receipts no stored trade matched (also in `unexpected`). */
  unmatched: number;
  /** Native receipts of trades stored before the subscriber's start (not judged). */
  beforeStart: number;
  /** The first {@link MAX_PROBLEMS} subscriptions with a non-zero count. */
  problems: Problem[];
  problemCount: number;
}

const MAX_PROBLEMS = 20;

/**
 * Subject index of a trade's `source` (docs/architecture.md §6: source → subject, as ingest's `subjectOf`
 * publishes): read from the frame at receipt time so a reconnect resumes every subject after its own last `seq`.
 */
const SOURCE_SUBJECT: Readonly<Record<string, number>> = {
  pumpfun: subjectIndex('basic.pumpfun'),
  bonk: subjectIndex('basic.bonk'),
  pumpswap: subjectIndex('premium.pumpswap'),
  raydium_cpmm: subjectIndex('premium.raydium'),
};
/** `{"seq":` — how every trade frame starts (docs/websocket.md: `seq` is spliced in first). */
const SEQ_PREFIX = Buffer.from('{"seq":');
const SOURCE_KEY = Buffer.from(',"source":"');

interface Subscription {
  readonly subjectIndex: number;
  readonly subject: string;
  readonly natsSubject: string;
  readonly filter: unknown;
  readonly audit: SeqAudit;
  readonly key: number;
  /** Highest `seq` received (WebSocket resume point). */
  lastSeq: number;
}

interface Subscriber {
  readonly index: number;
  readonly id: string;
  readonly user: BenchUser;
  readonly subs: Subscription[];
  /** WebSocket: subscription by subject index. */
  readonly bySubject: Array<Subscription | undefined>;
  ws?: WebSocket;
  nc?: NatsConnection;
  open: boolean;
  /** Trades of a subject it did not subscribe to (WebSocket). */
  strays: number;
}

class SetupError extends Error {}

let options: ClientOptions;
let wsUrl = '';
let natsServers: string[] = [];
let t0: number | undefined;
let stopping = false;
const wsSubs: Subscriber[] = [];
const natives: Subscriber[] = [];
const lists = new Map<number, ExpectedSeqs>();
let expectationsBySubject: Expectation[][] = [];
const store = new RecordStore();
let watermark = 0;
/** `Nats-Msg-Id` → stored sequence, and the ids in the order they were added (for retention). */
const ids = new Map<string, number>();
let idOrder: string[] = [];
let idHead = 0;

// WebSocket receipts waiting for the records: subscriber index, seq, subject index (from `source`), receive time.
let wsHeld = { client: [] as number[], seq: [] as number[], subject: [] as number[], at: [] as number[] };
// Native receipts waiting for their record: subscriber, subscription, Nats-Msg-Id, receive time.
let natHeld = { client: [] as number[], sub: [] as number[], id: [] as string[], at: [] as number[] };

const received = { ws: 0, native: 0 };
const reconnects = { ws: 0, native: 0 };
const closes: Record<string, number> = {};
let unmatched = 0;
let nativeUnexpected = 0;
let beforeStart = 0;

type Hists = { ws: [Histogram, Histogram]; native: [Histogram, Histogram] };
const byInterval = new Map<number, Hists>();

const tally = (key: string) => {
  closes[key] = (closes[key] ?? 0) + 1;
};
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function histsOf(index: number): Hists {
  let h = byInterval.get(index);
  if (!h) {
    h = { ws: [new Histogram(), new Histogram()], native: [new Histogram(), new Histogram()] };
    byInterval.set(index, h);
  }
  return h;
}

/** Judges one receipt of `sub` and records its latency when it is a first delivery. */
function judge(kind: 'ws' | 'native', sub: Subscription, seq: number, at: number): void {
  const verdict = sub.audit.receive(seq);
  if (verdict === 'duplicate' || verdict === 'unexpected') return;
  const sent = store.sentMs(seq);
  if (!Number.isFinite(sent)) return;
  const index = t0 === undefined ? 0 : Math.max(0, Math.floor((at - t0) / options.intervalMs));
  histsOf(index)[kind][store.burst(seq) ? 1 : 0].record(Math.max(0, at - sent));
}

/** Judges every held receipt the records now cover. `force`: the run is over, what cannot be matched is unexpected. */
function processHeld(force = false): void {
  const w = wsHeld;
  const keep = { client: [] as number[], seq: [] as number[], subject: [] as number[], at: [] as number[] };
  for (let i = 0; i < w.seq.length; i++) {
    const seq = w.seq[i]!;
    const c = wsSubs[w.client[i]!]!;
    const subjectIdx = w.subject[i] !== NO_SUBJECT ? w.subject[i]! : (store.subject(seq) ?? NO_SUBJECT);
    const sub = c.bySubject[subjectIdx];
    if (seq <= watermark && sub && sub.audit.start !== undefined) {
      judge('ws', sub, seq, w.at[i]!);
    } else if (seq <= watermark && !sub) {
      c.strays++;
    } else if (force) {
      // Past the last stored sequence, or on a subscription that never started: not owed.
      c.strays++;
    } else {
      keep.client.push(w.client[i]!);
      keep.seq.push(seq);
      keep.subject.push(w.subject[i]!);
      keep.at.push(w.at[i]!);
    }
  }
  wsHeld = keep;

  const n = natHeld;
  const nkeep = { client: [] as number[], sub: [] as number[], id: [] as string[], at: [] as number[] };
  const now = Date.now();
  for (let i = 0; i < n.id.length; i++) {
    const sub = natives[n.client[i]!]!.subs[n.sub[i]!]!;
    const seq = ids.get(n.id[i]!);
    if (seq !== undefined && sub.audit.start !== undefined) {
      if (seq <= sub.audit.start) beforeStart++;
      else judge('native', sub, seq, n.at[i]!);
    } else if (seq === undefined && (force || now - n.at[i]! > options.unmatchedAfterMs)) {
      unmatched++;
      nativeUnexpected++;
    } else {
      nkeep.client.push(n.client[i]!);
      nkeep.sub.push(n.sub[i]!);
      nkeep.id.push(n.id[i]!);
      nkeep.at.push(n.at[i]!);
    }
  }
  natHeld = nkeep;
}

/** Lets go of expectation entries and records no subscriber can still need. */
function prune(): void {
  const needed = new Map<number, number>();
  let begunAll = true;
  let lowestSeq = Number.POSITIVE_INFINITY;
  for (const c of [...wsSubs, ...natives]) {
    for (const s of c.subs) {
      const list = lists.get(s.key)!;
      const low = s.audit.lowestNeeded;
      needed.set(s.key, Math.min(needed.get(s.key) ?? Number.POSITIVE_INFINITY, low));
      if (s.audit.start === undefined) begunAll = false;
      else lowestSeq = Math.min(lowestSeq, list.at(low) ?? list.watermark + 1);
    }
  }
  for (const [key, low] of needed) lists.get(key)!.dropBefore(low);
  for (const seq of wsHeld.seq) lowestSeq = Math.min(lowestSeq, seq);
  if (begunAll && Number.isFinite(lowestSeq)) store.dropBefore(lowestSeq);
  while (ids.size > options.nativeIdRetention && idHead < idOrder.length) ids.delete(idOrder[idHead++]!);
  if (idHead > 65_536) {
    idOrder = idOrder.slice(idHead);
    idHead = 0;
  }
}

function onRecords(b: RecordBatch): void {
  store.add(b);
  const withNatives = natives.length > 0;
  for (let i = 0; i < b.subject.length; i++) {
    const s = b.subject[i]!;
    if (s === NO_SUBJECT) continue;
    const seq = b.first + i;
    const mask = b.mask[i]!;
    for (const e of expectationsBySubject[s] ?? []) {
      if (e.variant === null || ((mask >>> e.variant) & 1) === 1) lists.get(e.key)!.push(seq);
    }
    if (withNatives && b.msgIds[i]) {
      ids.set(b.msgIds[i]!, seq);
      idOrder.push(b.msgIds[i]!);
    }
  }
  watermark = b.upTo;
  for (const list of lists.values()) list.advance(b.upTo);
  processHeld();
  prune();
}

/** seq and subject index of a trade frame; undefined for a control message. */
function tradeOf(data: Buffer): { seq: number; subject: number } | undefined {
  if (data.length < 9 || data.compare(SEQ_PREFIX, 0, SEQ_PREFIX.length, 0, SEQ_PREFIX.length) !== 0) return undefined;
  let i = SEQ_PREFIX.length;
  let seq = 0;
  for (let c = data[i]; c !== undefined && c >= 0x30 && c <= 0x39; c = data[++i]) seq = seq * 10 + (c - 0x30);
  let subject = NO_SUBJECT;
  if (data.compare(SOURCE_KEY, 0, SOURCE_KEY.length, i, i + SOURCE_KEY.length) === 0) {
    const from = i + SOURCE_KEY.length;
    const to = data.indexOf(0x22, from);
    subject = SOURCE_SUBJECT[data.toString('latin1', from, to)] ?? NO_SUBJECT;
  }
  return { seq, subject };
}

function onWsTrade(c: Subscriber, seq: number, subject: number): void {
  received.ws++;
  const sub = subject === NO_SUBJECT ? undefined : c.bySubject[subject];
  if (sub && seq > sub.lastSeq) sub.lastSeq = seq;
  wsHeld.client.push(c.index);
  wsHeld.seq.push(seq);
  wsHeld.subject.push(subject);
  wsHeld.at.push(Date.now());
}

/** The subscribe request of `s`; on a reconnect it resumes after the last `seq` received (or the start). */
function subscribeRequest(s: Subscription, resume: boolean): string {
  const req: Record<string, unknown> = { subject: s.subject };
  if (s.filter) req.filter = s.filter;
  if (resume) req.resume_after = Math.max(s.lastSeq, s.audit.start ?? 0);
  return JSON.stringify(req);
}

/** Connects, authenticates and subscribes `c`; resolves once every subscription is answered. */
function openWs(c: Subscriber, resume: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, { perMessageDeflate: false, skipUTF8Validation: true, handshakeTimeout: options.connectTimeoutMs });
    let live = false;
    let settled = false;
    let waiting = c.subs.length;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ws.terminate();
      reject(new SetupError(reason));
    };
    const timer = setTimeout(() => fail('timeout'), options.connectTimeoutMs);
    ws.on('message', (data: Buffer) => {
      const trade = tradeOf(data);
      if (trade) return onWsTrade(c, trade.seq, trade.subject);
      let m: { type?: string; code?: string; subject?: string; seq?: number | null };
      try {
        m = JSON.parse(data.toString()) as typeof m;
      } catch {
        return fail('bad_json');
      }
      if (m.type === 'challenge') ws.send(JSON.stringify({ jwt: c.user.jwt, nkey: c.user.seed }));
      else if (m.type === 'authenticated') for (const s of c.subs) ws.send(subscribeRequest(s, resume));
      else if (m.type === 'subscribed') {
        const s = c.subs.find((x) => x.subject === m.subject);
        if (s && s.audit.start === undefined) s.audit.begin(typeof m.seq === 'number' ? m.seq : 0);
        if (--waiting === 0 && !settled) {
          settled = true;
          live = true;
          clearTimeout(timer);
          c.ws = ws;
          c.open = true;
          resolve();
        }
      } else if (m.type === 'error') {
        if (settled) tally(`ws error ${m.code ?? '?'}`);
        else fail(`error:${m.code ?? '?'}`);
      }
    });
    ws.on('close', (code, reason) => {
      if (!live) return fail(`closed:${code}`);
      c.open = false;
      if (stopping) return;
      tally(`ws close ${code}${reason.length ? ` ${reason.toString()}` : ''}`);
      void reconnectWs(c);
    });
    ws.on('error', (err) => fail(`socket:${(err as NodeJS.ErrnoException).code ?? err.message}`));
  });
}

/** Reconnects a closed WebSocket client until it is subscribed again (resuming) or the run stops. */
async function reconnectWs(c: Subscriber): Promise<void> {
  reconnects.ws++;
  while (!stopping && !c.open) {
    await sleep(options.reconnectDelayMs);
    if (stopping) return;
    await openWs(c, true).catch((err: unknown) => tally(`ws reconnect failed ${(err as Error).message}`));
  }
}

async function openNative(c: Subscriber): Promise<void> {
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: natsServers,
      authenticator: jwtAuthenticator(c.user),
      name: `soak-native-${c.id}`,
      timeout: options.connectTimeoutMs,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: options.reconnectDelayMs,
      noEcho: true,
    });
  } catch (err) {
    throw new SetupError(`connect:${(err as Error).message.slice(0, 60)}`);
  }
  c.subs.forEach((s, j) => {
    nc.subscribe(s.natsSubject, {
      callback: (err, msg) => {
        if (err) return tally(`native subscription error ${err.message.slice(0, 60)}`);
        received.native++;
        natHeld.client.push(c.index);
        natHeld.sub.push(j);
        natHeld.id.push(msg.headers?.get('Nats-Msg-Id') ?? '');
        natHeld.at.push(Date.now());
      },
    });
  });
  try {
    await nc.flush();
  } catch (err) {
    await nc.close();
    throw new SetupError(`flush:${(err as Error).message.slice(0, 60)}`);
  }
  c.nc = nc;
  c.open = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') tally('native disconnect');
      else if (s.type === 'reconnect') reconnects.native++;
      else if (s.type === 'error') tally(`native server error ${s.error.message.slice(0, 60)}`);
      else if (s.type === 'slowConsumer') tally('native client-side slow consumer');
    }
  })();
  void nc.closed().then(() => {
    c.open = false;
  });
}

/** Runs `fn` over `items`, `concurrency` at a time, with `attempts` tries each; counts the reasons of those that never succeeded. */
async function connectAll(items: Subscriber[], fn: (c: Subscriber) => Promise<void>): Promise<ConnectOutcome> {
  let todo = items;
  let reasons = new Map<Subscriber, string>();
  for (let attempt = 1; attempt <= options.connectAttempts && todo.length > 0; attempt++) {
    reasons = new Map();
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(options.connectConcurrency, todo.length) }, async () => {
        while (next < todo.length) {
          const c = todo[next++]!;
          await fn(c).catch((err: unknown) => reasons.set(c, err instanceof SetupError ? err.message : `internal:${String(err).slice(0, 60)}`));
        }
      }),
    );
    todo = [...reasons.keys()];
  }
  const failures: Record<string, number> = {};
  for (const r of reasons.values()) failures[r] = (failures[r] ?? 0) + 1;
  return { connected: items.length - reasons.size, failures };
}

function subscriber(index: number, spec: SubscriberSpec): Subscriber {
  const subs = spec.client.subscriptions.map<Subscription>((s) => ({
    subjectIndex: subjectIndex(s.subject),
    subject: s.subject,
    natsSubject: s.natsSubject,
    filter: s.filter,
    key: s.key,
    audit: new SeqAudit(lists.get(s.key)!),
    lastSeq: 0,
  }));
  const bySubject: Array<Subscription | undefined> = [];
  for (const s of subs) bySubject[s.subjectIndex] = s;
  return { index, id: spec.id, user: spec.user, subs, bySubject, open: false, strays: 0 };
}

async function setup(req: Extract<ClientRequest, { cmd: 'setup' }>): Promise<SetupResult> {
  if (wsSubs.length || natives.length) throw new Error('already set up');
  options = req.options;
  wsUrl = req.wsUrl;
  natsServers = req.natsServers;
  expectationsBySubject = [];
  for (const e of req.expectations) {
    lists.set(e.key, new ExpectedSeqs());
    const i = subjectIndex(e.subject);
    expectationsBySubject[i] = [...(expectationsBySubject[i] ?? []), e];
  }
  for (const [i, spec] of req.ws.entries()) wsSubs.push(subscriber(i, spec));
  for (const [i, spec] of req.native.entries()) natives.push(subscriber(i, spec));
  const [ws, native] = await Promise.all([connectAll(wsSubs, (c) => openWs(c, false)), connectAll(natives, openNative)]);
  // A trade published before a native subscription existed is stored within the margin; later ones are owed.
  await sleep(options.nativeStartMarginMs);
  for (const c of natives) for (const s of c.subs) s.audit.begin(watermark);
  // Subscribers that never connected owe everything from the start and count it lost at the end.
  for (const c of wsSubs) for (const s of c.subs) if (s.audit.start === undefined) s.audit.begin(0);
  return { ws, native };
}

function sumCounts(list: Subscriber[], final: boolean): AuditCounts {
  const total = zeroCounts();
  for (const c of list) {
    for (const s of c.subs) addCounts(total, final ? s.audit.finish() : s.audit.snapshot());
    total.unexpected += c.strays;
  }
  return total;
}

const pendingOf = (list: Subscriber[]) => list.reduce((n, c) => n + c.subs.reduce((m, s) => m + s.audit.pending(), 0), 0);

function phaseJson(pair: [Histogram, Histogram]): PhaseHistograms {
  return { steady: pair[0].toJSON(), burst: pair[1].toJSON() };
}

function intervalReport(index: number): IntervalReport {
  processHeld();
  const h = histsOf(index);
  const native = sumCounts(natives, false);
  native.unexpected += nativeUnexpected;
  return {
    index,
    latency: { ws: phaseJson(h.ws), native: phaseJson(h.native) },
    counts: { ws: sumCounts(wsSubs, false), native },
    pending: { ws: pendingOf(wsSubs), native: pendingOf(natives) },
    received: { ...received },
    reconnects: { ...reconnects },
    closes: { ...closes },
  };
}

function finalReport(): FinalReport {
  processHeld(true);
  const all: Hists = { ws: [new Histogram(), new Histogram()], native: [new Histogram(), new Histogram()] };
  for (const h of byInterval.values()) {
    for (const kind of ['ws', 'native'] as const) for (const p of [0, 1] as const) all[kind][p].merge(h[kind][p]);
  }
  const problems: Problem[] = [];
  let problemCount = 0;
  for (const c of [...wsSubs, ...natives]) {
    for (const s of c.subs) {
      const counts = s.audit.finish();
      if (counts.lost + counts.duplicated + counts.reordered + counts.unexpected === 0) continue;
      problemCount++;
      if (problems.length < MAX_PROBLEMS)
        problems.push({ id: c.id, subscription: `${s.natsSubject}${s.filter ? ` ${JSON.stringify(s.filter)}` : ''}`, counts });
    }
    if (c.strays > 0 && problems.length < MAX_PROBLEMS)
      problems.push({ id: c.id, subscription: 'a subject it did not subscribe to', counts: { ...zeroCounts(), unexpected: c.strays } });
  }
  const native = sumCounts(natives, true);
  native.unexpected += nativeUnexpected;
  return {
    counts: { ws: sumCounts(wsSubs, true), native },
    latency: { ws: phaseJson(all.ws), native: phaseJson(all.native) },
    received: { ...received },
    reconnects: { ...reconnects },
    closes: { ...closes },
    unmatched,
    beforeStart,
    problems,
    problemCount,
  };
}

async function close(): Promise<void> {
  stopping = true;
  await Promise.all([...wsSubs.map((c) => (c.ws ? closeWebSocket(c.ws) : Promise.resolve())), ...natives.map((c) => c.nc?.close().catch(() => undefined))]);
}

async function handle(req: ClientRequest): Promise<unknown> {
  switch (req.cmd) {
    case 'setup':
      return setup(req);
    case 'interval':
      return intervalReport(req.index);
    case 'status':
      processHeld();
      return { pending: pendingOf(wsSubs) + pendingOf(natives), held: wsHeld.seq.length + natHeld.id.length, watermark } satisfies StatusResult;
    case 'final':
      return finalReport();
    case 'close':
      await close();
      return null;
  }
}

if (process.send) {
  process.on('message', (msg: ({ id: number } & ClientRequest) | { records: RecordBatch } | { start: number }) => {
    if ('records' in msg) {
      onRecords(msg.records);
      return;
    }
    if ('start' in msg) {
      t0 = msg.start;
      return;
    }
    handle(msg).then(
      (result) => process.send?.({ id: msg.id, ok: true, result }),
      (err: unknown) => process.send?.({ id: msg.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
    );
  });
  // The harness is gone (finished, crashed or killed): nothing will ask for results any more.
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: true });
}
