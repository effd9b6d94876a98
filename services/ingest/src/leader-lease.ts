/**
 * Leader election between ingest replicas of one source: exactly one process publishes, the others
 * stand by and take over within seconds (issue 31).
 *
 * Two ingests publishing at once is wrong: two replays publish every trade twice under different
 * `Nats-Msg-Id`s, two live ingests break each other's `Nats-Expected-Last-Msg-Id` chain
 * (docs/decoding.md "Publishing"). So each process contends for a lease: one key (the source name,
 * INGEST_SOURCE) in JetStream KV bucket {@link LEADER_BUCKET}, holding the holder's id.
 *
 * - **Acquire**: create-if-absent (`kv.create`, i.e. expected last subject sequence 0), or a
 *   compare-and-set on the revision of a released (DEL/PURGE) or expired entry (`kv.update(key, v,
 *   revision)`). Of two contenders exactly one write succeeds; the other gets JetStream error 10071
 *   "wrong last sequence".
 * - **Renew**: the leader re-writes its entry with a compare-and-set on its own last revision every
 *   `renewMs`. A renewal refused with 10071 means someone else wrote the key: the leader is fenced.
 * - **Expiry**: a standby watches the key (`kv.watch`) and records, on its own clock, when it last saw
 *   the revision change. When it has seen no new revision for `leaseMs` it takes over with a
 *   compare-and-set on that revision. No clocks are compared between processes (the entry's
 *   server-side time is never read), only elapsed time on each process's own clock.
 * - **Expiry counts only time the bucket answered.** A standby's clock starts again whenever one of
 *   its reads or writes of the key fails for another reason than a lost compare-and-set (the bucket
 *   has no leader: JetStream is electing one, or the standby is cut off): it takes over only after
 *   `leaseMs` in which the bucket answered it and showed no new revision. The leader retries a
 *   failed renewal every `renewMs / 4`, so once the bucket answers again it renews long before that.
 *   Without this rule every election of the bucket longer than `leaseMs − renewMs` (seconds under
 *   load, npm run chaos) deposed a healthy leader and stopped ingest until a new term started.
 * - **Fencing**: a leader whose last successful renewal was *sent* more than `leaseMs − renewMs` ago
 *   and that NATS does not answer (disconnected, or its server does not answer a ping within the
 *   request timeout: a stalled connection) steps down by itself. A standby can only write after
 *   seeing that renewal (so after it was sent) plus `leaseMs`: the old leader has stopped at least
 *   `renewMs − renewMs / 2` before anyone else may start. A leader whose server answers but that
 *   cannot renew (the bucket is electing a leader) keeps publishing: no standby can write a bucket
 *   without a leader, and after the election it renews first (the rule above). The one case this does not cover is a
 *   partial partition in which the leader's NATS server reaches TRADES but not the bucket while a
 *   standby's reaches the bucket for `leaseMs`: the standby then takes over, the leader's next
 *   renewal is refused and it steps down, and for that moment two writers interleave (docs/decoding.md
 *   "Publishing": nothing lost or reordered within either; a live source's copies share their
 *   `Nats-Msg-Id`, so TRADES drops them). A leader that sees another holder's write (watch) or whose
 *   renewal is refused steps down at once. Stepping down calls `onDeposed` synchronously: the caller
 *   aborts its source and publisher there.
 * - **Timeouts**: every request to the bucket times out after `renewMs / 2` (not nats.js' 5 s), so a
 *   request sent into an election is retried soon after the bucket has a leader again.
 * - **Release**: on shutdown the leader deletes its entry (compare-and-set on its revision); the
 *   standbys see the DEL on their watch and one takes over at once.
 *
 * Takeover time: at once after a release; `leaseMs` + up to one watch delivery after the last renewal
 * when the leader died without releasing (SIGKILL, lost node); when the bucket was electing a leader
 * meanwhile, `leaseMs` after it answers again.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { JetStreamApiCodes, JetStreamApiError, jetstream } from '@nats-io/jetstream';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { Counter, Gauge, Registry } from 'prom-client';
import { counterOnce, gaugeOnce, retryStartup, type Logger, type NatsConnection } from '@tradewind/lib';

/** JetStream KV bucket of the ingest leader leases (history 1, file storage); one key per source. */
export const LEADER_BUCKET = 'ingest_leader';

/** Why a process became leader: the key was never written (`vacant`), its holder released it, or it expired. */
export type ElectedReason = 'vacant' | 'released' | 'expired' | 'reclaimed';
/**
 * Why a leader stopped being one: another holder wrote the key (`fenced`), it could not renew in time
 * while disconnected from NATS (`unreachable`), or it released (`released`).
 */
export type DeposedReason = 'fenced' | 'unreachable' | 'released';

/** The lease's Prometheus metrics. */
export interface LeaderMetrics {
  /** 1 while this process holds the lease, else 0. */
  leader: Gauge;
  /** Leases taken over from another holder, by reason (`released`, `expired`). */
  takeovers: Counter<'reason'>;
  /** Times this process stopped being leader other than by releasing, by reason (`fenced`, `unreachable`). */
  stepDowns: Counter<'reason'>;
}

/** Registers (or reuses) {@link LeaderMetrics} on `registry`. */
export function leaderMetrics(registry: Registry): LeaderMetrics {
  return {
    leader: gaugeOnce(registry, 'tradewind_ingest_leader', '1 while this ingest holds the leader lease of its source (publishes), 0 while it stands by', []),
    takeovers: counterOnce(registry, 'tradewind_ingest_leader_takeovers_total', 'Leader leases this ingest took over from another holder, by reason', [
      'reason',
    ]),
    stepDowns: counterOnce(
      registry,
      'tradewind_ingest_leader_step_downs_total',
      'Times this ingest stopped publishing because it lost its leader lease (fenced: another holder; unreachable: not renewed in time while disconnected)',
      ['reason'],
    ),
  };
}

/** What is stored under the key (informative: only revisions are compared, never these times). */
export interface LeaseValue {
  /** Holder id: `<hostname>-<pid>-<random>`. */
  holder: string;
  /** When this holder acquired the lease, ms since the Unix epoch (its own clock). */
  acquired_at_ms: number;
  /** When it wrote this entry, ms since the Unix epoch (its own clock). */
  renewed_at_ms: number;
}

export interface LeaderLeaseOptions {
  nc: NatsConnection;
  /** The key: the source name (`[A-Za-z0-9_-]+`, e.g. INGEST_SOURCE). */
  key: string;
  /** Lease length, ms (INGEST_LEASE_MS): a holder not renewing for this long is replaced. */
  leaseMs: number;
  /** Renewal period, ms (INGEST_LEASE_RENEW_MS); less than `leaseMs`. Default {@link defaultRenewMs}. */
  renewMs?: number | undefined;
  /** Replicas of the bucket when this call creates it (NATS_STREAM_REPLICAS). Default 1. */
  replicas?: number;
  /** Default {@link LEADER_BUCKET}. */
  bucket?: string;
  /** This process's id in the lease; default `<hostname>-<pid>-<8 hex>`. */
  holder?: string;
  logger: Logger;
  metrics: LeaderMetrics;
  /** Called (synchronously) when this process becomes leader. */
  onElected(reason: ElectedReason): void;
  /**
   * Called (synchronously) when this process stops being leader. For `fenced` and `unreachable` the
   * caller must stop publishing at once: another process may hold the lease from now on.
   */
  onDeposed(reason: DeposedReason): void;
}

type State = 'idle' | 'standby' | 'leader' | 'closed';

/** The last entry a standby saw, and when (its own clock, `performance.now()` ms). */
interface Seen {
  revision: number;
  holder: string | null;
  atMs: number;
}

const now = (): number => performance.now();

function isWrongLastSequence(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

function holderOf(entry: KvEntry): string | null {
  if (entry.operation !== 'PUT' || entry.length === 0) return null;
  try {
    const v = entry.json<Partial<LeaseValue>>();
    return typeof v.holder === 'string' ? v.holder : null;
  } catch {
    return null;
  }
}

/** The default renewal period: a third of the lease (rounded down), so a leader has two periods to renew before it steps down, ms. */
export function defaultRenewMs(leaseMs: number): number {
  return Math.floor(leaseMs / 3);
}

/** A fresh holder id: `<hostname>-<pid>-<8 hex>` (the pod name in Kubernetes). */
export function newHolderId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/**
 * One process's side of the lease of one key. {@link openLeaderLease} builds it; {@link LeaderLease.start}
 * makes the first attempt; {@link LeaderLease.release} stops it (and hands the lease over when held).
 */
export class LeaderLease {
  readonly holder: string;
  readonly #kv: KV;
  readonly #o: LeaderLeaseOptions & { renewMs: number };
  readonly #log: Logger;
  readonly #closing = new AbortController();
  #state: State = 'idle';
  /** Bumped at every transition: the result of an older transition's I/O is ignored. */
  #epoch = 0;
  /** Leader: the revision of our last write (also a write that won while closing, to delete it). */
  #revision = 0;
  /** True when an attempt won the key after {@link release} began: release deletes it. */
  #wonWhileClosing = false;
  #acquiredAtMs = 0;
  /** Leader: when the last successful renewal (or the acquisition) was sent, own clock. */
  #lastSentMs = 0;
  /** Standby: the last entry seen under the key; null = none or deleted. */
  #seen: Seen | null = null;
  /**
   * Standby: since when (own clock) every read and write of the bucket has been answered; null after
   * one failed (the expiry clock starts again at the next answer).
   */
  #answeredSinceMs: number | null = null;
  /** False while the connection is disconnected (nats.js status `disconnect` until `reconnect`). */
  #connected = true;
  /** Leader: true once it logged that it kept its term past the fence deadline (until the next renewal). */
  #holdingThroughElection = false;
  #probeTimer: NodeJS.Timeout | undefined;
  /** The last holder id seen under the key (for the logs; a DEL carries none). */
  #lastHolder: string | null = null;
  #renewTimer: NodeJS.Timeout | undefined;
  #fenceTimer: NodeJS.Timeout | undefined;
  #expiryTimer: NodeJS.Timeout | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #attempt: Promise<void> | null = null;
  #attemptAgain = false;
  #watch: { stop(): void } | null = null;
  #watching: Promise<void> | null = null;

  constructor(kv: KV, options: LeaderLeaseOptions) {
    this.#kv = kv;
    this.#o = { ...options, renewMs: options.renewMs ?? defaultRenewMs(options.leaseMs) };
    this.holder = options.holder ?? newHolderId();
    this.#log = options.logger.child({ component: 'leader-lease', lease_key: options.key, holder: this.holder });
  }

  /** True while this process holds the lease. */
  get isLeader(): boolean {
    return this.#state === 'leader';
  }

  /**
   * Starts watching the key and makes the first attempt. Resolves once this process is leader or
   * standby (it never waits for a takeover); later attempts run in the background.
   * @throws the nats.js error when JetStream cannot be reached for the watch (inside a start-up: retried,
   *   StartupFailedError past STARTUP_DEADLINE_MS).
   */
  async start(): Promise<void> {
    if (this.#state !== 'idle') throw new Error('leader lease already started');
    this.#state = 'standby';
    this.#o.metrics.leader.set(0);
    void this.#watchConnection().catch((err: unknown) => this.#log.warn({ err }, 'connection status watch ended'));
    this.#probe();
    const iter = await retryStartup(`leader lease watch ${this.#o.key}`, () => this.#kv.watch({ key: this.#o.key }));
    this.#watch = iter;
    this.#watching = this.#watchLoop(iter);
    this.#trigger();
    await this.#attempt;
  }

  /**
   * Stops contending. When leader: stops renewing and deletes the entry (compare-and-set on our
   * revision, waiting at most `renewMs`), so a standby takes over at once; `onDeposed('released')`
   * is called first. Call it after the last publish is acknowledged. Never throws (a failed delete
   * leaves the lease to expire).
   */
  async release(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasLeader = this.#state === 'leader';
    this.#state = 'closed';
    this.#epoch++;
    this.#clearTimers();
    this.#closing.abort();
    this.#watch?.stop();
    // An attempt in flight may still win the key: wait for it, so that is handed over too.
    await this.#attempt?.catch(() => undefined);
    this.#o.metrics.leader.set(0);
    if (wasLeader) this.#o.onDeposed('released');
    if (wasLeader || this.#wonWhileClosing) {
      const revision = this.#revision;
      const deleted = this.#kv.delete(this.#o.key, { previousSeq: revision }).then(
        () => true,
        (err: unknown) => {
          this.#log.warn({ err }, 'leader lease not released; it expires on its own');
          return false;
        },
      );
      let timer: NodeJS.Timeout | undefined;
      const ok = await Promise.race([deleted, new Promise<false>((r) => (timer = setTimeout(() => r(false), this.#o.renewMs)))]);
      clearTimeout(timer);
      if (ok) this.#log.info({ revision }, 'leader lease released');
    }
    await this.#watching;
  }

  /** Follows the connection's status: fencing counts only time spent disconnected (see the module comment). */
  async #watchConnection(): Promise<void> {
    const signal = this.#closing.signal;
    const status = this.#o.nc.status();
    // nats.js' status iterator (a QueuedIterator) ends on stop().
    signal.addEventListener('abort', () => (status as { stop?(): void }).stop?.(), { once: true });
    this.#connected = !this.#o.nc.isClosed();
    for await (const s of status) {
      if (signal.aborted) return;
      if (s.type === 'disconnect') {
        this.#connected = false;
        this.#answeredSinceMs = null;
        if (this.#state === 'leader') void this.#checkFence();
      } else if (s.type === 'reconnect') {
        this.#connected = true;
      }
    }
  }

  /** Timeout of every request to the bucket, ms: half a renewal period (module comment, "Timeouts"). */
  get #requestTimeoutMs(): number {
    return requestTimeoutMs(this.#o.renewMs);
  }

  /** Wait before retrying a failed attempt, renewal or a stale read, ms: a quarter renewal period (the fence deadline leaves room for a few). */
  get #retryMs(): number {
    return Math.ceil(this.#o.renewMs / 4);
  }

  /** The state now (after an await: it may have changed meanwhile). */
  #currentState(): State {
    return this.#state;
  }

  #clearTimers(): void {
    clearTimeout(this.#renewTimer);
    clearTimeout(this.#fenceTimer);
    clearTimeout(this.#expiryTimer);
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#probeTimer);
  }

  #value(): string {
    const v: LeaseValue = { holder: this.holder, acquired_at_ms: this.#acquiredAtMs, renewed_at_ms: Date.now() };
    return JSON.stringify(v);
  }

  // ---- watching ----

  /** Feeds watch entries to #onEntry; when the watch ends under us (connection closed, consumer lost), watches again every `renewMs` until it works. */
  async #watchLoop(first: AsyncIterable<KvEntry>): Promise<void> {
    let iter = first;
    const signal = this.#closing.signal;
    for (;;) {
      try {
        for await (const entry of iter) this.#onEntry(entry);
      } catch (err) {
        if (!signal.aborted) this.#log.warn({ err }, 'leader lease watch failed');
      }
      this.#answeredSinceMs = null;
      // Meanwhile the timers and attempts still work: they read the key themselves.
      for (;;) {
        if (signal.aborted) return;
        this.#log.warn('leader lease watch ended; watching again');
        await sleep(this.#o.renewMs, signal);
        if (signal.aborted) return;
        try {
          const next = await this.#kv.watch({ key: this.#o.key });
          this.#watch = next;
          iter = next;
          break;
        } catch (err) {
          this.#log.warn({ err }, 'leader lease watch could not restart');
        }
      }
    }
  }

  #onEntry(entry: KvEntry): void {
    if (entry.key !== this.#o.key) return;
    const holder = holderOf(entry);
    if (this.#state === 'leader') {
      // Our own renewal may show up before its acknowledgement: only another holder's write fences.
      if (entry.revision > this.#revision && holder !== this.holder) this.#depose('fenced', { new_holder: holder, revision: entry.revision });
      return;
    }
    if (this.#state !== 'standby') return;
    if (holder === null) {
      // Released (DEL/PURGE): take it over now.
      this.#seen = null;
      clearTimeout(this.#expiryTimer);
      this.#trigger();
      return;
    }
    this.#see(entry.revision, holder);
    if (holder === this.holder) this.#trigger();
  }

  /** Standby: records that `revision` was seen now (own clock) and schedules the expiry check `leaseMs` later. */
  #see(revision: number, holder: string): void {
    if (this.#seen && this.#seen.revision >= revision) return;
    if (holder !== this.#lastHolder && holder !== this.holder)
      this.#log.info({ leader: holder, revision }, 'standing by: another ingest holds the leader lease');
    this.#lastHolder = holder;
    this.#seen = { revision, holder, atMs: now() };
    clearTimeout(this.#expiryTimer);
    this.#expiryTimer = setTimeout(() => this.#trigger(), this.#o.leaseMs + 1);
  }

  /**
   * Standby: asks the bucket's leader for its state every `renewMs / 2` (`kv.status()`, a stream info
   * that only a stream leader answers; a key read may be served by any replica). An answer starts the
   * expiry clock's "answered" span when none runs; a failure ends it. This is how a standby learns of
   * an election it made no request during (module comment, "Expiry counts only time the bucket answered").
   */
  #probe(): void {
    clearTimeout(this.#probeTimer);
    if (this.#state !== 'standby') return;
    const epoch = this.#epoch;
    this.#kv
      .status()
      .then(
        () => {
          if (this.#epoch === epoch && this.#connected) this.#answeredSinceMs ??= now();
        },
        () => {
          if (this.#epoch === epoch) this.#answeredSinceMs = null;
        },
      )
      .finally(() => {
        if (this.#state === 'standby' && this.#epoch === epoch) this.#probeTimer = setTimeout(() => this.#probe(), Math.ceil(this.#o.renewMs / 2));
      });
  }

  // ---- standby: attempts ----

  /** Runs one attempt now, or once more after the one in flight. */
  #trigger(): void {
    if (this.#state !== 'standby') return;
    if (this.#attempt) {
      this.#attemptAgain = true;
      return;
    }
    clearTimeout(this.#retryTimer);
    this.#attempt = this.#tryAcquire()
      .catch((err: unknown) => {
        // The bucket did not answer: the expiry clock starts again at its next answer.
        this.#answeredSinceMs = null;
        if (this.#state !== 'standby') return;
        this.#log.warn({ err }, 'leader lease attempt failed; retrying');
        this.#retryTimer = setTimeout(() => this.#trigger(), this.#retryMs);
      })
      .finally(() => {
        this.#attempt = null;
        if (this.#attemptAgain) {
          this.#attemptAgain = false;
          this.#trigger();
        }
      });
  }

  /**
   * Reads the key and writes it when it is vacant, released, ours, or expired (no new revision seen for
   * `leaseMs`, all of it while the bucket answered).
   */
  async #tryAcquire(): Promise<void> {
    const epoch = this.#epoch;
    const entry = await this.#kv.get(this.#o.key);
    if (this.#epoch !== epoch || this.#state !== 'standby') return;
    const holder = entry ? holderOf(entry) : null;
    let reason: ElectedReason;
    let previous = 0;
    if (!entry) {
      reason = 'vacant';
    } else if (holder === null) {
      reason = 'released';
      previous = entry.revision;
    } else if (holder === this.holder) {
      // Our own entry, left when we stepped down: nobody wrote the key since (same revision).
      reason = 'reclaimed';
      previous = entry.revision;
    } else {
      this.#see(entry.revision, holder);
      const seen = this.#seen!;
      if (seen.revision !== entry.revision) {
        // A replica behind the one the watch read (direct get): look again soon.
        this.#retryTimer = setTimeout(() => this.#trigger(), this.#retryMs);
        return;
      }
      const quietSince = Math.max(seen.atMs, this.#answeredSinceMs ?? now());
      if (now() - quietSince < this.#o.leaseMs) {
        // Alive, or the bucket has not answered for a whole lease yet: look again when it would have.
        clearTimeout(this.#expiryTimer);
        this.#expiryTimer = setTimeout(() => this.#trigger(), quietSince + this.#o.leaseMs + 1 - now());
        return;
      }
      reason = 'expired';
      previous = entry.revision;
    }
    const from = this.#lastHolder;
    const sentMs = now();
    this.#acquiredAtMs = Date.now();
    let revision: number;
    try {
      revision =
        previous === 0
          ? await this.#kv.create(this.#o.key, this.#value())
          : await this.#kv.update(this.#o.key, this.#value(), previous, this.#requestTimeoutMs);
    } catch (err) {
      if (!isWrongLastSequence(err)) throw err;
      // Someone else wrote first (another standby, or the holder renewed): look again.
      this.#log.debug({ reason }, 'leader lease written by another first');
      this.#attemptAgain = true;
      return;
    }
    if (this.#currentState() === 'closed') {
      this.#wonWhileClosing = true;
      this.#revision = revision;
      return;
    }
    if (this.#epoch !== epoch || this.#currentState() !== 'standby') return;
    this.#elect(revision, sentMs, reason, reason === 'vacant' ? null : from);
  }

  // ---- leader ----

  #elect(revision: number, sentMs: number, reason: ElectedReason, from: string | null): void {
    this.#state = 'leader';
    this.#epoch++;
    this.#revision = revision;
    this.#lastSentMs = sentMs;
    this.#seen = null;
    this.#lastHolder = this.holder;
    this.#clearTimers();
    this.#armFence();
    this.#scheduleRenew(this.#o.renewMs);
    this.#o.metrics.leader.set(1);
    if (reason === 'released' || reason === 'expired') this.#o.metrics.takeovers.inc({ reason });
    this.#log.info({ reason, previous_holder: from, revision }, 'became leader: publishing');
    this.#o.onElected(reason);
  }

  /**
   * Checks the fence `leaseMs − renewMs` after the last successful renewal was sent, unless a renewal
   * succeeds first (and again at every disconnect, {@link #checkFence}).
   */
  #armFence(): void {
    clearTimeout(this.#fenceTimer);
    const deadline = this.#lastSentMs + this.#o.leaseMs - this.#o.renewMs;
    this.#fenceTimer = setTimeout(() => void this.#checkFence(), Math.max(0, deadline - now()));
  }

  /**
   * Steps down when the last successful renewal was sent `leaseMs − renewMs` ago or more and NATS does
   * not answer this process: the connection is down or closed, or its server does not answer a ping
   * (`nc.rtt()`) within the request timeout (a stalled connection). When the server answers, the leader
   * keeps its term: the bucket is electing a leader and nobody can write it meanwhile (module comment).
   * Runs when the fence timer fires, at every disconnect, and after every failed renewal past the deadline.
   */
  async #checkFence(): Promise<void> {
    if (this.#state !== 'leader') return;
    const epoch = this.#epoch;
    if (now() - this.#lastSentMs < this.#o.leaseMs - this.#o.renewMs) return;
    let answers = this.#connected && !this.#o.nc.isClosed();
    if (answers) answers = await withTimeout(this.#o.nc.rtt(), this.#requestTimeoutMs);
    if (this.#epoch !== epoch || this.#state !== 'leader') return;
    const ago = Math.round(now() - this.#lastSentMs);
    if (!answers) {
      this.#depose('unreachable', { last_renewal_ms_ago: ago });
      return;
    }
    if (!this.#holdingThroughElection) {
      this.#holdingThroughElection = true;
      this.#log.warn({ last_renewal_ms_ago: ago }, 'leader lease not renewed in time, but NATS answers: the bucket is electing a leader; still publishing');
    }
  }

  #scheduleRenew(delayMs: number): void {
    clearTimeout(this.#renewTimer);
    this.#renewTimer = setTimeout(() => void this.#renew(), delayMs);
  }

  async #renew(): Promise<void> {
    if (this.#state !== 'leader') return;
    const epoch = this.#epoch;
    const sentMs = now();
    try {
      const revision = await this.#kv.update(this.#o.key, this.#value(), this.#revision, this.#requestTimeoutMs);
      if (this.#epoch !== epoch) {
        // Stepped down while this write was in flight, and it still landed: hand it over at once.
        if (this.#currentState() === 'standby') void this.#kv.delete(this.#o.key, { previousSeq: revision }).catch(() => undefined);
        return;
      }
      this.#revision = revision;
      this.#lastSentMs = sentMs;
      if (this.#holdingThroughElection) this.#log.info({ revision }, 'leader lease renewed again');
      this.#holdingThroughElection = false;
      this.#armFence();
    } catch (err) {
      if (this.#epoch !== epoch) return;
      if (isWrongLastSequence(err)) {
        this.#depose('fenced', { revision: this.#revision });
        return;
      }
      this.#log.warn({ err, last_renewal_ms_ago: Math.round(now() - this.#lastSentMs) }, 'leader lease renewal failed; retrying');
      // Retry sooner than the period: the fence deadline leaves room for a few attempts only.
      this.#scheduleRenew(this.#retryMs);
      void this.#checkFence();
      return;
    }
    this.#scheduleRenew(this.#o.renewMs);
  }

  #depose(reason: 'fenced' | 'unreachable', detail: Record<string, unknown>): void {
    if (this.#state !== 'leader') return;
    this.#state = 'standby';
    this.#epoch++;
    this.#clearTimers();
    this.#o.metrics.leader.set(0);
    this.#o.metrics.stepDowns.inc({ reason });
    this.#log.warn({ reason, ...detail }, 'lost the leader lease: stopped publishing, standing by');
    this.#o.onDeposed(reason);
    this.#answeredSinceMs = null;
    this.#probe();
    this.#trigger();
  }
}

/** Timeout of a request to the lease bucket for renewal period `renewMs`, ms: half of it, at least 100. */
function requestTimeoutMs(renewMs: number): number {
  return Math.max(100, Math.floor(renewMs / 2));
}

/** True when `p` resolves within `ms`; false when it rejects or takes longer. */
async function withTimeout(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p.then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves after `ms` or when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Opens (creating when missing) bucket `options.bucket` and returns the lease of `options.key`, not
 * started yet.
 * @throws Error when the key is not `[A-Za-z0-9_-]+` or `renewMs` ≥ `leaseMs`; the nats.js error when
 *   JetStream is unavailable (outside a start-up: one attempt); StartupFailedError inside a start-up
 *   (services/lib startup.ts) past STARTUP_DEADLINE_MS.
 */
export async function openLeaderLease(options: LeaderLeaseOptions): Promise<LeaderLease> {
  if (!/^[A-Za-z0-9_-]+$/.test(options.key)) throw new Error(`leader lease key "${options.key}" must match [A-Za-z0-9_-]+`);
  const renewMs = options.renewMs ?? defaultRenewMs(options.leaseMs);
  if (!(renewMs > 0 && renewMs < options.leaseMs))
    throw new Error(`lease renew period (${renewMs} ms) must be positive and below the lease (${options.leaseMs} ms)`);
  // Requests time out after half a renewal period (module comment, "Timeouts").
  const bucket = options.bucket ?? LEADER_BUCKET;
  const config = { history: 1, replicas: options.replicas ?? 1, description: 'ingest leader leases (one key per source)' };
  // Start-up steps: on a cluster still settling (no meta leader yet, fewer servers than the replicas) they are
  // retried under STARTUP_DEADLINE_MS (services/lib startup.ts). The bucket is placed with nats.js' API timeout
  // first (placing an R3 stream outlasts the lease's short request timeout), then opened with the short one.
  await retryStartup(`leader lease bucket ${bucket}`, () => new Kvm(options.nc).create(bucket, config));
  const kv = await retryStartup(`leader lease bucket ${bucket}`, () =>
    new Kvm(jetstream(options.nc, { timeout: requestTimeoutMs(renewMs) })).create(bucket, config),
  );
  return new LeaderLease(kv, options);
}
