/**
 * The accounting of the rolling-restart class (chaos/rolling.ts): pure functions that judge what every client
 * saw against the stream's ground truth (every TRADES message as stored, rolling-native.ts readStoredTrades)
 * and attribute each finding to the restart during which it happened.
 *
 * Attribution: restart i owns the time from its start to the start of restart i + 1 (the first one also owns
 * the warm-up before it, the last one the wind-down after it). A trade belongs to the restart during which it
 * was stored; a close, a reconnect attempt or an HTTP request to the one during which it happened.
 *
 * Rules (the class's checks):
 * - every trade of a subscribed subject stored after the client's start is received exactly once, in order per
 *   subject: a missing one is lost, an extra copy (or one arriving after a later one) is duplicated;
 * - a WebSocket client closes and reconnects at most once during a ws-fanout replica's restart, with close code
 *   1001, and never during any other restart; a refused login while reconnecting is one more reconnect;
 * - every HTTP request gets the answer its step expects (a 5xx, a request without an answer, or any other
 *   unexpected status is a failure);
 * - a native subscriber's server reconnects only when a NATS node restarts;
 * - each ingest replay run's stored trades are a gap-free prefix of its replay order, and no message id is
 *   stored twice (chaos/stream-ledger.ts's rule);
 * - recovery is the longest any client waited for a trade already stored (arrival − store time), or for an
 *   HTTP answer.
 */
import { REPLAY_ID } from './stream-ledger.js';

/** What was being restarted: the rules differ for NATS nodes and ws-fanout replicas. */
export type RestartKind = 'nats' | 'ws-fanout' | 'service';

/** One restart of the rollout, as the tally sees it. */
export interface RestartWindow {
  readonly label: string;
  readonly kind: RestartKind;
  /** Epoch ms the restart began (the replacement was started, or the node told to enter lame duck mode). */
  readonly startMs: number;
}

/** What one restart's row accumulates. */
export interface WindowTally {
  lost: number;
  duplicated: number;
  crashed: number;
  /** Longest wait for a stored trade or an HTTP answer, ms (null: nothing measured). */
  recoveryMs: number | null;
  /** Who waited that long (a client id, or an HTTP route). */
  recoveryBy: string;
  /** The longest wait per kind of client (`WebSocket`, `native`, `HTTP`), ms, with who waited. */
  readonly worst: Map<string, { ms: number; by: string }>;
  /** One-line findings (bounded per kind by {@link note}). */
  readonly notes: string[];
  /** Findings not written out because the notes already had enough of their kind. */
  elided: number;
}

/** One message of TRADES as stored (rolling-native.ts StoredTrade). */
export interface TruthTrade {
  readonly seq: number;
  readonly subject: string;
  readonly storedMs: number;
  readonly msgId: string;
}

/** The ground truth, indexed. */
export interface Truth {
  readonly bySeq: ReadonlyMap<number, TruthTrade>;
  /** Sequences of each subject, ascending. */
  readonly bySubject: ReadonlyMap<string, readonly number[]>;
  /** The stream's last sequence when the run ended. */
  readonly lastSeq: number;
}

/** Builds the index of `trades` (ascending by seq). */
export function indexTruth(trades: readonly TruthTrade[]): Truth {
  const bySeq = new Map<number, TruthTrade>();
  const bySubject = new Map<string, number[]>();
  for (const t of trades) {
    bySeq.set(t.seq, t);
    const list = bySubject.get(t.subject) ?? [];
    list.push(t.seq);
    bySubject.set(t.subject, list);
  }
  return { bySeq, bySubject, lastSeq: trades.at(-1)?.seq ?? 0 };
}

/** Fresh, empty tallies, one per window. */
export function newTallies(windows: readonly RestartWindow[]): WindowTally[] {
  return windows.map(() => ({ lost: 0, duplicated: 0, crashed: 0, recoveryMs: null, recoveryBy: '', worst: new Map(), notes: [], elided: 0 }));
}

/** Index of the window `atMs` falls in (0 before the first start). */
export function windowAt(windows: readonly RestartWindow[], atMs: number): number {
  let i = 0;
  while (i + 1 < windows.length && windows[i + 1]!.startMs <= atMs) i++;
  return i;
}

/** Adds a one-line finding to `t`, at most `max` per `kind` key (the rest only counted as elided). */
export function note(t: WindowTally, kind: string, text: string, max = 3): void {
  const have = t.notes.filter((n) => n.startsWith(`${kind}: `)).length;
  if (have < max) t.notes.push(`${kind}: ${text}`);
  else t.elided++;
}

const raise = (t: WindowTally, ms: number, by: string, kind: string) => {
  if ((t.worst.get(kind)?.ms ?? -1) < ms) t.worst.set(kind, { ms, by });
  if (t.recoveryMs !== null && t.recoveryMs >= ms) return;
  t.recoveryMs = ms;
  t.recoveryBy = by;
};

/** What a subscriber received: every `seq` with its arrival time (parallel arrays). */
export interface Received {
  readonly id: string;
  /** What kind of client (`WebSocket`, `native`), for the per-kind worst wait; default `subscriber`. */
  readonly kind?: string;
  readonly seqs: readonly number[];
  readonly times: readonly number[];
}

/**
 * Judges one subscriber: for each subject in `after` (subject → the sequence it started after), every truth
 * sequence of that subject above it must have arrived exactly once and in order. Adds lost, duplicated and the
 * arrival delays to the window each trade was stored in; a received sequence of a subject it does not hold
 * counts as crashed (a wrong delivery).
 */
export function tallySubscriber(
  r: Received,
  after: ReadonlyMap<string, number>,
  truth: Truth,
  windows: readonly RestartWindow[],
  tallies: WindowTally[],
): void {
  const count = new Map<number, number>();
  const firstAt = new Map<number, number>();
  const previous = new Map<string, number>();
  for (let i = 0; i < r.seqs.length; i++) {
    const seq = r.seqs[i]!;
    if (seq > truth.lastSeq) continue;
    const trade = truth.bySeq.get(seq);
    const t = tallies[windowAt(windows, trade?.storedMs ?? r.times[i]!)]!;
    if (!trade || !after.has(trade.subject)) {
      t.crashed++;
      note(t, 'wrong delivery', `${r.id} received seq ${seq} (${trade?.subject ?? 'not in TRADES'}), not of its subjects`);
      continue;
    }
    if (seq <= after.get(trade.subject)!) continue;
    count.set(seq, (count.get(seq) ?? 0) + 1);
    if (!firstAt.has(seq)) firstAt.set(seq, r.times[i]!);
    if (seq < (previous.get(trade.subject) ?? 0)) {
      t.duplicated++;
      note(t, 'reordered', `${r.id} received ${trade.subject} seq ${seq} after seq ${previous.get(trade.subject)}`);
    }
    previous.set(trade.subject, Math.max(seq, previous.get(trade.subject) ?? 0));
  }
  for (const [subject, start] of after) {
    for (const seq of truth.bySubject.get(subject) ?? []) {
      if (seq <= start) continue;
      const trade = truth.bySeq.get(seq)!;
      const t = tallies[windowAt(windows, trade.storedMs)]!;
      const n = count.get(seq) ?? 0;
      if (n === 0) {
        t.lost++;
        note(t, 'lost', `${r.id} never received ${subject} seq ${seq}`);
        continue;
      }
      if (n > 1) {
        t.duplicated += n - 1;
        note(t, 'duplicated', `${r.id} received ${subject} seq ${seq} ${n}×`);
      }
      raise(t, firstAt.get(seq)! - trade.storedMs, `${r.id} (${subject} seq ${seq})`, r.kind ?? 'subscriber');
    }
  }
}

/** The connection history of one WebSocket client (rolling-ws.ts). */
export interface WsHistory {
  readonly id: string;
  readonly closes: ReadonlyArray<{ at: number; code: number; reason: string }>;
  /** Connection attempts after the first, with `ok` or why they failed. */
  readonly attempts: ReadonlyArray<{ at: number; outcome: string }>;
  /** Protocol errors and reconnects given up. */
  readonly problems: ReadonlyArray<{ at: number; what: string }>;
}

/**
 * Judges one WebSocket client's connection history per window: during a ws-fanout restart at most one close,
 * with 1001, and at most one reconnect attempt; during any other restart none. Each window that breaks the
 * rule counts once as crashed for this client. @returns how many closes and reconnects each window saw (for the notes).
 */
export function tallyReconnects(h: WsHistory, windows: readonly RestartWindow[], tallies: WindowTally[]): Array<{ closes: number; attempts: number }> {
  const per = windows.map(() => ({ closes: 0, attempts: 0, codes: [] as number[], outcomes: [] as string[] }));
  for (const c of h.closes) {
    const w = per[windowAt(windows, c.at)]!;
    w.closes++;
    w.codes.push(c.code);
  }
  for (const a of h.attempts) {
    const w = per[windowAt(windows, a.at)]!;
    w.attempts++;
    w.outcomes.push(a.outcome);
  }
  per.forEach((w, i) => {
    const kind = windows[i]!.kind;
    const t = tallies[i]!;
    const allowed = kind === 'ws-fanout' ? 1 : 0;
    const badCode = w.codes.some((c) => c !== 1001);
    if (w.closes > allowed || w.attempts > allowed || (w.closes > 0 && badCode)) {
      t.crashed++;
      note(
        t,
        'reconnects',
        `${h.id}: ${w.closes} close(s) (codes ${w.codes.join(',') || '—'}), ${w.attempts} reconnect attempt(s) (${w.outcomes.join(', ') || '—'}); allowed ${allowed}${allowed ? ' with 1001' : ''}`,
      );
    }
  });
  for (const p of h.problems) {
    const t = tallies[windowAt(windows, p.at)]!;
    t.crashed++;
    note(t, 'protocol', `${h.id}: ${p.what}`);
  }
  return per.map(({ closes, attempts }) => ({ closes, attempts }));
}

/** One HTTP request of the load and what came back (rolling-http.ts records these). */
export interface HttpOutcome {
  /** The service the route table sends it to (`local-oidc` for the provider's own step). */
  readonly service: string;
  /** Method and path without query, e.g. `GET /auth/callback`. */
  readonly route: string;
  /** Epoch ms the request was sent. */
  readonly at: number;
  readonly durationMs: number;
  /** The HTTP status, or `no answer` (timeout, connection refused or reset). */
  readonly status: number | 'no answer';
  /** True when the status is the one this step expects. */
  readonly expected: boolean;
  /** The replica that answered (the balancer's `x-upstream-replica`), or why there was no answer. */
  readonly detail: string;
}

/** Judges the HTTP load: every unexpected answer (5xx, no answer, another status) is crashed in its window; durations raise recovery. */
export function tallyHttp(records: readonly HttpOutcome[], windows: readonly RestartWindow[], tallies: WindowTally[]): void {
  for (const r of records) {
    const t = tallies[windowAt(windows, r.at)]!;
    raise(t, r.durationMs, r.route, 'HTTP');
    if (r.expected) continue;
    t.crashed++;
    note(t, 'http', `${r.route} (${r.service}) → ${r.status} after ${r.durationMs} ms: ${r.detail}`);
  }
}

/** Judges native server reconnects: allowed only while a NATS node restarts. */
export function tallyNativeReconnects(id: string, reconnects: readonly number[], windows: readonly RestartWindow[], tallies: WindowTally[]): void {
  for (const at of reconnects) {
    const i = windowAt(windows, at);
    if (windows[i]!.kind === 'nats') continue;
    tallies[i]!.crashed++;
    note(tallies[i]!, 'native reconnect', `${id} lost its server while no NATS node restarted`);
  }
}

/** Per window, the longest time between two consecutive stored trades whose later one falls in it (a publishing pause), ms. */
export function publishingPauses(trades: readonly TruthTrade[], windows: readonly RestartWindow[]): number[] {
  const pauses = windows.map(() => 0);
  for (let i = 1; i < trades.length; i++) {
    const w = windowAt(windows, trades[i]!.storedMs);
    pauses[w] = Math.max(pauses[w]!, trades[i]!.storedMs - trades[i - 1]!.storedMs);
  }
  return pauses;
}

/**
 * Judges what the ingest replicas stored (chaos/stream-ledger.ts's rule): per replay run the stored positions
 * (`loop × pass length + index in the pass`) must be 0…max without a hole, and no message id may be stored
 * twice. A hole is attributed to the window of the next position stored after it.
 * @param passOrder the recording's base message ids in replay order (one pass).
 * @returns how many runs and how many messages with an id that is not a replay id were seen (for the notes).
 */
export function tallyIngestRuns(
  trades: readonly TruthTrade[],
  passOrder: readonly string[],
  windows: readonly RestartWindow[],
  tallies: WindowTally[],
): { runs: number; unrecognised: number } {
  const index = new Map(passOrder.map((id, i) => [id, i]));
  const seen = new Map<string, TruthTrade>();
  const runs = new Map<string, Map<number, TruthTrade>>();
  let unrecognised = 0;
  for (const trade of trades) {
    const earlier = seen.get(trade.msgId);
    if (earlier) {
      const t = tallies[windowAt(windows, trade.storedMs)]!;
      t.duplicated++;
      note(t, 'stored twice', `id ${trade.msgId} at seqs ${earlier.seq} and ${trade.seq}`);
      continue;
    }
    seen.set(trade.msgId, trade);
    const m = REPLAY_ID.exec(trade.msgId);
    const at = m ? index.get(m[1]!) : undefined;
    if (!m || at === undefined) {
      unrecognised++;
      continue;
    }
    const positions = runs.get(m[2]!) ?? new Map<number, TruthTrade>();
    runs.set(m[2]!, positions);
    positions.set(Number(m[3]) * passOrder.length + at, trade);
  }
  for (const [run, positions] of runs) {
    const max = Math.max(...positions.keys());
    let nextStored: TruthTrade | undefined;
    for (let p = max; p >= 0; p--) {
      const here = positions.get(p);
      if (here) {
        nextStored = here;
        continue;
      }
      const t = tallies[windowAt(windows, nextStored!.storedMs)]!;
      t.lost++;
      note(t, 'ingest gap', `run ${run} never stored loop ${Math.floor(p / passOrder.length)} trade ${passOrder[p % passOrder.length]}`);
    }
  }
  return { runs: runs.size, unrecognised };
}

/** A subscriber as {@link lossWitnesses} sees it: what it received and the subjects it holds, each after a sequence. */
export interface Witness extends Received {
  readonly after: ReadonlyMap<string, number>;
}

/**
 * Where the trades a subscriber lost went missing: for each subscriber that lost trades, one line naming the lost
 * range per subject and how many of the other subscribers holding that subject (by kind) received every one of
 * them. Nobody: the trades never left the broker (or the stream as read back differs from what was delivered);
 * the native subscribers but no WebSocket client: ws-fanout's feeds; other WebSocket clients too: this client's
 * own subscription. At most `max` lines, each with the first lost sequence (to place it in its restart window).
 */
export function lossWitnesses(subscribers: readonly Witness[], truth: Truth, max = 5): Array<{ text: string; firstSeq: number }> {
  const got = subscribers.map((s) => new Set(s.seqs));
  const lines: Array<{ text: string; firstSeq: number }> = [];
  subscribers.forEach((s, i) => {
    for (const [subject, start] of s.after) {
      const lost = (truth.bySubject.get(subject) ?? []).filter((seq) => seq > start && !got[i]!.has(seq));
      if (lost.length === 0 || lines.length >= max) continue;
      const byKind = new Map<string, { all: number; holders: number }>();
      subscribers.forEach((o, j) => {
        if (j === i) return;
        const from = o.after.get(subject);
        if (from === undefined || lost[0]! <= from) return;
        const kind = o.kind ?? 'subscriber';
        const k = byKind.get(kind) ?? { all: 0, holders: 0 };
        k.holders++;
        if (lost.every((seq) => got[j]!.has(seq))) k.all++;
        byKind.set(kind, k);
      });
      const seen = [...byKind].map(([kind, k]) => `${k.all} of ${k.holders} other ${kind}`).join(', ') || 'no other subscriber of it';
      lines.push({ text: `${s.id} lost ${lost.length} ${subject} trade(s), seq ${lost[0]}…${lost.at(-1)}; received all of them: ${seen}`, firstSeq: lost[0]! });
    }
  });
  return lines;
}
