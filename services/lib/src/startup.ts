/**
 * Start-up against dependencies that are not there yet (docs/architecture.md §9, "Start-up"): a JetStream
 * cluster still electing its meta leader, an R3 stream that cannot be placed until enough servers run,
 * a NATS server that refuses connections during a rollout. The one place that retries, backs off and
 * gives up:
 *
 * - {@link retryStartup} runs one start-up step (connect, create a stream, create a durable consumer) until
 *   it succeeds, with exponential backoff and jitter ({@link DEFAULT_STARTUP_BACKOFF}), logging every retry
 *   at `warn` with the attempt number and the error; an error that retrying cannot fix
 *   ({@link isRetryableStartupError} false: bad credentials, an invalid stream config) fails at once.
 * - {@link runStartup} is the start-up of a process: one deadline (STARTUP_DEADLINE_MS) for every step
 *   inside it, and an abort signal (SIGTERM). The lib's own start-up calls (connectNats, upsertStream,
 *   ensureEventsStreams, ensureTradesStream, the event consumer's start) call {@link retryStartup} themselves:
 *   inside a start-up they retry under its deadline, outside one (tests, scripts, a call at run time)
 *   they make one attempt, as before.
 * - startService (lifecycle.ts) is what every composition root runs: the admin server first (`/healthz`
 *   200, `/readyz` 503 naming the step it waits for), then the service's `setup` and `app.start()` inside
 *   {@link runStartup}, then graceful shutdown — SIGTERM while it still waits aborts the wait and exits 0.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { AuthorizationError, ConnectionError, NoRespondersError, RequestError, TimeoutError, UserAuthenticationExpiredError } from '@nats-io/transport-node';
import { JetStreamApiError } from '@nats-io/jetstream';
import type { Logger } from './logger.js';

/** Delays between the attempts of a start-up step: attempt n waits a random time in [d/2, d], d = min(maxMs, initialMs × 2^(n−1)). */
export interface StartupBackoff {
  /** Delay bound after the first failed attempt, ms. */
  readonly initialMs: number;
  /** Largest delay bound, ms. */
  readonly maxMs: number;
}

/**
 * 250 ms doubling to 5 s: a connection refused during a rollout is retried within a quarter second, while a
 * cluster that needs tens of seconds to elect a meta leader and place an R3 stream gets a request every
 * 2.5–5 s — each JetStream request itself waits up to nats.js' 5 s API timeout.
 */
export const DEFAULT_STARTUP_BACKOFF: StartupBackoff = { initialMs: 250, maxMs: 5_000 };

/** Thrown by {@link retryStartup} / {@link runStartup} when the start-up was aborted (SIGTERM during the wait). */
export class StartupAbortedError extends Error {
  constructor(what: string) {
    super(`start-up aborted while waiting for ${what}`);
    this.name = 'StartupAbortedError';
  }
}

/**
 * Thrown when a start-up step gives up: its deadline passed, or it failed with an error retrying cannot fix.
 * The message names the step and carries the last error; `cause` is that error.
 */
export class StartupFailedError extends Error {
  constructor(
    message: string,
    /** The step, e.g. `stream EVENTS`. */
    readonly step: string,
    /** Attempts made. */
    readonly attempts: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'StartupFailedError';
  }
}

/** One process's start-up: shared by every step inside it. */
interface StartupRun {
  readonly logger: Logger | undefined;
  /** performance.now() at which it gives up, ms. */
  readonly deadlineAt: number;
  /** The configured deadline, for messages, ms. */
  readonly deadlineMs: number;
  readonly signal: AbortSignal | undefined;
  readonly backoff: StartupBackoff;
  /** Steps waited for now, outermost only (what `/readyz` names). */
  readonly waiting: string[];
  /** Set once the start-up ended: timers and callbacks created during it must not inherit its deadline. */
  finished: boolean;
}

/** The async context of a start-up: the run, and whether an enclosing {@link retryStartup} already retries. */
interface StartupScope {
  readonly run: StartupRun;
  readonly inStep: boolean;
}

const scope = new AsyncLocalStorage<StartupScope>();

/** JetStream API error codes (nats-server errors.json) a settling cluster answers with and that heal by themselves. */
const RETRYABLE_JETSTREAM_CODES: ReadonlySet<number> = new Set([
  10005, // no suitable peers for placement: fewer servers up than the stream's replicas
  10007, // JetStream cluster not assigned to this server
  10008, // JetStream system temporarily unavailable: no meta leader yet
  10009, // JetStream cluster can not handle request: leader changing
  10014, // consumer not found: a create/info race while the consumer is being placed
  10023, // insufficient resources: placement while servers are still joining
  10039, // JetStream not enabled for account: in operator mode until the server resolved the account JWT
  10049, // error creating store for stream: a server that has not caught up with the meta group yet
  10059, // stream not found: a create/update race (created, not yet visible to the server asked)
  10118, // stream is offline
]);

/** Node socket error codes of an unreachable peer. */
const RETRYABLE_SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EPIPE']);

/**
 * Whether a start-up step that failed with `err` may succeed if tried again:
 * - retryable: nats.js timeouts, no responders / JetStream not available (`JetStreamNotEnabled`), connection
 *   refused or reset (`ConnectionError`, ECONNREFUSED…), JetStream API answers with status 503 or one of
 *   the codes a settling cluster gives (no meta leader, "no suitable peers", "insufficient resources",
 *   "stream not found" during a creation race; see RETRYABLE_JETSTREAM_CODES);
 * - not retryable, failing at once: authorization violations and expired credentials, permission
 *   violations, any other JetStream API answer (an invalid or conflicting stream config, replicas > 1 on a
 *   single server), and every error not listed (a bug does not heal by waiting).
 */
export function isRetryableStartupError(err: unknown): boolean {
  if (err instanceof AuthorizationError || err instanceof UserAuthenticationExpiredError) return false;
  if (err instanceof TimeoutError || err instanceof NoRespondersError) return true;
  // nats.js does not export JetStreamNotEnabled: its name tells it (no responders on the API, or code 10039).
  if (err instanceof Error && err.name === 'JetStreamNotEnabled') return true;
  if (err instanceof RequestError) return err.isNoResponders() || err.cause instanceof TimeoutError;
  if (err instanceof ConnectionError) return true;
  if (err instanceof JetStreamApiError) return err.status === 503 || err.status === 408 || RETRYABLE_JETSTREAM_CODES.has(err.code);
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_SOCKET_CODES.has(code);
}

/**
 * The delay before attempt `attempt + 1` after `attempt` failed ones: a random time in [d/2, d] with
 * d = min(maxMs, initialMs × 2^(attempt−1)) ("equal jitter": it grows, and restarted pods spread out).
 * @param random a number in [0, 1) (default Math.random).
 * @returns ms.
 */
export function startupBackoffDelay(attempt: number, backoff: StartupBackoff = DEFAULT_STARTUP_BACKOFF, random: () => number = Math.random): number {
  const bound = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(30, Math.max(0, attempt - 1)));
  return Math.round(bound / 2 + (random() * bound) / 2);
}

/** Options of {@link retryStartup}; outside {@link runStartup} `deadlineMs` turns retrying on. */
export interface RetryStartupOptions {
  /** Gives up this many ms from now (default: the enclosing start-up's deadline). */
  deadlineMs?: number;
  /** Ends the wait with {@link StartupAbortedError} (default: the enclosing start-up's). */
  signal?: AbortSignal;
  logger?: Logger;
  backoff?: StartupBackoff;
  /** Default {@link isRetryableStartupError}. */
  isRetryable?: (err: unknown) => boolean;
}

const abortError = (what: string) => new StartupAbortedError(what);

/**
 * Runs start-up step `step`, named `what` in logs, `/readyz` and errors (`stream EVENTS`, `NATS connection`).
 * Inside {@link runStartup} (or with `options.deadlineMs`) it retries a retryable failure after
 * {@link startupBackoffDelay}, logging each retry at `warn` (`startup_step`, `attempt`, `err`, `retry_in_ms`),
 * until the step succeeds or the deadline passes; a step still running at the deadline is abandoned.
 * Outside a start-up, and inside a step that an enclosing call already retries, it runs `step` once.
 * @returns what `step` resolves with.
 * @throws StartupFailedError past the deadline (naming the step, its attempts and the last error) or at once
 *   for a non-retryable error; StartupAbortedError when the signal aborts (SIGTERM during the wait).
 */
export async function retryStartup<T>(what: string, step: () => Promise<T>, options: RetryStartupOptions = {}): Promise<T> {
  const current = scope.getStore();
  const enclosing = current && !current.run.finished ? current : undefined;
  if (options.deadlineMs === undefined && (!enclosing || enclosing.inStep)) return step();
  const run: StartupRun =
    options.deadlineMs === undefined && enclosing
      ? enclosing.run
      : {
          logger: options.logger ?? enclosing?.run.logger,
          deadlineAt: performance.now() + (options.deadlineMs ?? 0),
          deadlineMs: options.deadlineMs ?? 0,
          signal: options.signal ?? enclosing?.run.signal,
          backoff: options.backoff ?? enclosing?.run.backoff ?? DEFAULT_STARTUP_BACKOFF,
          waiting: enclosing?.run.waiting ?? [],
          finished: false,
        };
  const logger = options.logger ?? run.logger;
  const signal = options.signal ?? run.signal;
  const backoff = options.backoff ?? run.backoff;
  const isRetryable = options.isRetryable ?? isRetryableStartupError;
  const started = performance.now();
  let lastError: unknown;
  run.waiting.push(what);
  try {
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw abortError(what);
      const remaining = run.deadlineAt - performance.now();
      if (remaining <= 0) throw deadlinePassed(what, run.deadlineMs, attempt - 1, lastError);
      const outcome = await within(scope.run({ run, inStep: true }, step), remaining, signal);
      if (outcome.kind === 'done') {
        if (attempt > 1)
          logger?.info({ startup_step: what, attempts: attempt, waited_ms: Math.round(performance.now() - started) }, `start-up: ${what} succeeded`);
        return outcome.value;
      }
      if (outcome.kind === 'aborted') throw abortError(what);
      if (outcome.kind === 'deadline') throw deadlinePassed(what, run.deadlineMs, attempt, lastError, true);
      lastError = outcome.error;
      if (!isRetryable(outcome.error)) {
        throw new StartupFailedError(`${what} failed with an error that retrying cannot fix: ${messageOf(outcome.error)}`, what, attempt, {
          cause: outcome.error,
        });
      }
      const delay = Math.max(0, Math.min(startupBackoffDelay(attempt, backoff), run.deadlineAt - performance.now()));
      logger?.warn(
        { startup_step: what, attempt, err: outcome.error, retry_in_ms: delay, deadline_in_ms: Math.max(0, Math.round(run.deadlineAt - performance.now())) },
        `start-up: ${what} failed (attempt ${attempt}: ${messageOf(outcome.error)}); retrying`,
      );
      if (!(await sleep(delay, signal))) throw abortError(what);
    }
  } finally {
    const i = run.waiting.lastIndexOf(what);
    if (i >= 0) run.waiting.splice(i, 1);
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function deadlinePassed(what: string, deadlineMs: number, attempts: number, lastError: unknown, running = false): StartupFailedError {
  const last = running
    ? `the attempt was still running${lastError === undefined ? '' : `; error before it: ${messageOf(lastError)}`}`
    : `last error: ${messageOf(lastError)}`;
  return new StartupFailedError(
    `gave up waiting for ${what} after the start-up deadline of ${deadlineMs} ms (STARTUP_DEADLINE_MS), ${attempts} attempt${attempts === 1 ? '' : 's'}; ${last}`,
    what,
    attempts,
    lastError === undefined ? undefined : { cause: lastError },
  );
}

type Outcome<T> = { kind: 'done'; value: T } | { kind: 'failed'; error: unknown } | { kind: 'deadline' } | { kind: 'aborted' };

/** `promise`'s outcome, or 'deadline' after `ms`, or 'aborted' when `signal` aborts first; a late rejection is swallowed. */
function within<T>(promise: Promise<T>, ms: number, signal: AbortSignal | undefined): Promise<Outcome<T>> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish({ kind: 'deadline' }), ms);
    const onAbort = () => finish({ kind: 'aborted' });
    signal?.addEventListener('abort', onAbort, { once: true });
    function finish(outcome: Outcome<T>) {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    }
    promise.then(
      (value) => finish({ kind: 'done', value }),
      (error: unknown) => finish({ kind: 'failed', error }),
    );
  });
}

/** Waits `ms`; resolves false at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Options of {@link runStartup}. */
export interface StartupOptions {
  logger: Logger;
  /** The whole start-up's deadline, ms (STARTUP_DEADLINE_MS). */
  deadlineMs: number;
  /** Aborting it ends the wait with {@link StartupAbortedError}. */
  signal?: AbortSignal;
  backoff?: StartupBackoff;
}

/** How much later than its steps {@link runStartup} gives up on a body stuck outside any step, ms. */
const BODY_DEADLINE_GRACE_MS = 250;

/** What {@link runStartup} hands to its callback. */
export interface StartupHandle {
  /** {@link retryStartup} under this start-up's deadline and signal. */
  step<T>(what: string, step: () => Promise<T>): Promise<T>;
  /** The steps waited for right now (outermost first); empty between steps. */
  waitingFor(): readonly string[];
  readonly signal: AbortSignal | undefined;
}

/**
 * Runs `body` as a process's start-up: every {@link retryStartup} inside it (the lib's connectNats,
 * stream and consumer creation included) retries under one deadline, `options.deadlineMs` from now, and
 * stops when `options.signal` aborts. The whole of `body` is bounded too: past the deadline it rejects
 * even while `body` waits on something that is not a step.
 * @returns what `body` resolves with.
 * @throws StartupFailedError past the deadline or for a non-retryable step error; StartupAbortedError on abort;
 *   whatever `body` throws otherwise.
 */
export async function runStartup<T>(options: StartupOptions, body: (startup: StartupHandle) => Promise<T>): Promise<T> {
  const run: StartupRun = {
    logger: options.logger,
    deadlineAt: performance.now() + options.deadlineMs,
    deadlineMs: options.deadlineMs,
    signal: options.signal,
    backoff: options.backoff ?? DEFAULT_STARTUP_BACKOFF,
    waiting: [],
    finished: false,
  };
  const handle: StartupHandle = {
    step: (what, step) => retryStartup(what, step),
    waitingFor: () => [...run.waiting],
    signal: options.signal,
  };
  try {
    // A little later than the steps' own deadline, so that a step waited for gives up first, with its own message.
    const outcome = await within(
      scope.run({ run, inStep: false }, () => body(handle)),
      options.deadlineMs + BODY_DEADLINE_GRACE_MS,
      options.signal,
    );
    if (outcome.kind === 'done') return outcome.value;
    const what = run.waiting[0] ?? 'the service to start';
    if (outcome.kind === 'aborted') throw abortError(what);
    if (outcome.kind === 'deadline') {
      throw new StartupFailedError(`gave up waiting for ${what} after the start-up deadline of ${options.deadlineMs} ms (STARTUP_DEADLINE_MS)`, what, 0);
    }
    throw outcome.error;
  } finally {
    run.finished = true;
  }
}
