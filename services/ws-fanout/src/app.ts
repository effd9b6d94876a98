/**
 * ws-fanout: the WebSocket edge of the TRADES stream (docs/websocket.md).
 *
 * Composition of the modules that do the work:
 * - delivery/: each subject read once per process from JetStream (subject-feed.ts), each trade
 *   framed once with its stream sequence (frame.ts) and queued for every subscriber, each client's
 *   queue written in one corked batch per turn of the event loop (outbox.ts);
 * - session.ts: one connection's state; subscriptions.ts: live subscriptions, filters, and the
 *   catch-up reads (Pro replay, resume_after) that join the live feed without a seam;
 * - domain/: credentials (verifier.ts), per-address login throttling, filters, limits, errors.
 * - plan-changes.ts: account updates applied to live connections; liveness.ts: heartbeats and pings.
 * This file holds the protocol: connections, authentication and requests.
 *
 * Live plan changes and revocations: account JWTs pushed to the NATS resolver are read off the
 * system account (we only listen, the server answers the pusher) and every authenticated client of
 * that account is re-checked from its stored user JWT (docs/websocket.md §5).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import type { Registry } from 'prom-client';
import { PLANS, TRADE_PUBLISHED_MS_HEADER, TRADE_SUBJECTS, cheapestPlanWhere, type PlanId } from '@tradewind/contracts';
import { lastForwardedFor, type Logger, type NatsConnection } from '@tradewind/lib';
import type { MsgHdrs, Subscription as NatsSubscription } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import type { CredentialVerifier, VerifiedUser } from './domain/verifier.js';
import { CLOSE_CODES, WsProtocolError } from './domain/errors.js';
import { parseReplayStart } from './domain/replay-request.js';
import { parseTradeFilter, type TradeFilter } from './domain/trade-filter.js';
import { allowedSubject, subjectsOf, tradeSubject } from './domain/subject-rights.js';
import { startLiveness } from './liveness.js';
import { PlanChanges } from './plan-changes.js';
import { LoginGuard } from './domain/login-guard.js';
import { slotHolder, type ConnectionLimiter, type SlotHolder, type TakeResult } from './domain/connection-limiter.js';
import type { RequestRateLimiter } from './domain/request-rate-limiter.js';
import { TradesReplayer } from './trades-replay.js';
import { FlushScheduler, Outbox } from './delivery/outbox.js';
import { TradeFeeds, type FeedDelivery } from './delivery/subject-feed.js';
import { DEFAULT_WS_SLOT_TRACK_MAX } from './domain/slot-watch.js';
import { Subscriptions } from './subscriptions.js';
import { Session } from './session.js';
import { createMetrics } from './metrics.js';
import { ConnectionLimitEvents } from './connection-limit-events.js';
import {
  DEFAULT_USAGE_FINAL_REPORT_TIMEOUT_MS,
  DEFAULT_USAGE_REPORT_INTERVAL_MS,
  DEFAULT_USAGE_REPORT_MAX_CUSTOMERS,
  DEFAULT_USAGE_REPORT_PUBLISH_TIMEOUT_MS,
  DEFAULT_USAGE_REPORT_RETRY_MS,
  UsageMeter,
} from './usage-meter.js';
import type { WsFanoutConfig } from './config.js';

/** Subjects on which account JWTs pushed to the resolver travel (nats-server accounts.go: accClaimsReqSubj, accUpdateEventSubjOld). */
export const ACCOUNT_UPDATE_SUBJECTS = ['$SYS.REQ.CLAIMS.UPDATE', '$SYS.ACCOUNT.*.CLAIMS.UPDATE'] as const;

/** What createApp needs from the composition root. */
export interface WsFanoutDeps {
  logger: Logger;
  registry: Registry;
  /** Connection as the services' user: reads the TRADES stream (live feeds, replay and resume consumers). */
  nc: NatsConnection;
  /**
   * Connection as a system-account user: the app listens on {@link ACCOUNT_UPDATE_SUBJECTS} for account
   * JWTs pushed to the resolver (never answering them) and applies them to live clients.
   */
  sysNc: NatsConnection;
  verifier: CredentialVerifier;
  limiter: ConnectionLimiter;
  /** Control requests per minute per user and plan, across processes. */
  rateLimiter: RequestRateLimiter;
}

/** The running service. */
export interface WsFanoutApp {
  start(): Promise<{ port: number }>;
  /** Closes every WebSocket with 1001, stops feeds and catch-up consumers, frees connection slots. */
  stop(): Promise<void>;
  readonly clientCount: () => number;
  /** Whether every subject's live feed is reading the TRADES stream (readiness). */
  readonly feedsReady: () => boolean;
}

/** The config keys createApp reads. */
export type WsFanoutAppConfig = Pick<
  WsFanoutConfig,
  | 'PORT'
  | 'HOST'
  | 'WS_MAX_FRAME_BYTES'
  | 'WS_AUTH_TIMEOUT_MS'
  | 'WS_MAX_BUFFERED_BYTES'
  | 'WS_MAX_REPLAYS_PER_CONNECTION'
  | 'WS_REPLAY_BATCH_MESSAGES'
  | 'WS_REPLAY_PAUSE_BYTES'
  | 'WS_REPLAY_STALL_MS'
  | 'WS_LOGIN_FAILURES_PER_MINUTE'
  | 'WS_FILTER_MAX_ITEMS'
  | 'WS_RESUME_WINDOW_MS'
  | 'WS_HEARTBEAT_INTERVAL_MS'
  | 'WS_PING_INTERVAL_MS'
  | 'WS_SOCKET_HIGH_WATER_BYTES'
  | 'WS_CLOSE_TIMEOUT_MS'
  | 'WS_TRUST_FORWARDED_FOR'
  | 'WS_CONNECTION_LIMIT_EVENT_INTERVAL_MS'
> &
  Partial<Pick<WsFanoutConfig, 'WS_FEED_STALL_CHECK_MS' | 'WS_FEED_IDLE_HEARTBEAT_MS' | 'WS_FEED_RETRY_MS' | 'WS_SLOT_TRACK_MAX'>> &
  Partial<
    Pick<
      WsFanoutConfig,
      'USAGE_REPORT_INTERVAL_MS' | 'USAGE_REPORT_RETRY_MS' | 'USAGE_REPORT_PUBLISH_TIMEOUT_MS' | 'USAGE_REPORT_MAX_CUSTOMERS' | 'USAGE_FINAL_REPORT_TIMEOUT_MS'
    >
  >;

/** The cheapest plan that includes replay (for messages). */
const REPLAY_PLAN = cheapestPlanWhere((p) => p.replay);

/** Keys a subscribe request may carry. */
const SUBSCRIBE_KEYS = new Set(['subject', 'filter', 'replay', 'resume_after', 'slots']);

/** Addresses the login guard tracks at most (about 150 bytes each). */
const LOGIN_GUARD_MAX_ADDRESSES = 100_000;

/**
 * The publish time ingest stamped on a trade ({@link TRADE_PUBLISHED_MS_HEADER}, epoch ms), or undefined
 * when the header is absent or not a decimal integer.
 */
function publishedMsOf(headers: MsgHdrs | undefined): number | undefined {
  const raw = headers?.get(TRADE_PUBLISHED_MS_HEADER);
  return raw && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

/** `err` with the request's `subject` among the fields of the error message. */
function withSubject(err: WsProtocolError, subject: string): WsProtocolError {
  return new WsProtocolError(err.code, err.wsCode, err.message, err.close, { cause: err.cause, details: { subject, ...err.details } });
}

/**
 * The client's address for per-address login limits: the TCP peer, or — behind a proxy this service
 * trusts (WS_TRUST_FORWARDED_FOR: the ingress) — the last X-Forwarded-For entry, which that proxy
 * appended (entries before it are the client's own claims).
 */
function peerAddress(req: IncomingMessage, trustForwardedFor: boolean): string {
  return (trustForwardedFor ? lastForwardedFor(req.headers['x-forwarded-for']) : undefined) || req.socket.remoteAddress || 'unknown';
}

/** Builds the service; nothing listens until `start()`. */
export function createApp(config: WsFanoutAppConfig, deps: WsFanoutDeps): WsFanoutApp {
  const { logger, nc, sysNc, verifier, limiter, rateLimiter } = deps;
  const metrics = createMetrics(deps.registry);
  // A whole IPv6 /64 counts as one source: one host usually holds all of it.
  const loginGuard = new LoginGuard(config.WS_LOGIN_FAILURES_PER_MINUTE, Date.now, LOGIN_GUARD_MAX_ADDRESSES, 64);
  const scheduler = new FlushScheduler();
  const sessions = new Set<Session>();
  /** What a session's connection slot records about it (docs/websocket.md §7 `holders`), from its upgrade request. */
  const holders = new WeakMap<Session, SlotHolder>();
  const limitEvents = new ConnectionLimitEvents(jetstream(nc), {
    intervalMs: config.WS_CONNECTION_LIMIT_EVENT_INTERVAL_MS,
    logger,
    counter: metrics.limitEvents,
  });
  // Usage metering (usage-meter.ts): every frame written to an authenticated client, per customer, reported on EVENTS.
  const usage = new UsageMeter(jetstream(nc), () => sessions, {
    intervalMs: config.USAGE_REPORT_INTERVAL_MS ?? DEFAULT_USAGE_REPORT_INTERVAL_MS,
    retryMs: config.USAGE_REPORT_RETRY_MS ?? DEFAULT_USAGE_REPORT_RETRY_MS,
    publishTimeoutMs: config.USAGE_REPORT_PUBLISH_TIMEOUT_MS ?? DEFAULT_USAGE_REPORT_PUBLISH_TIMEOUT_MS,
    maxCustomers: config.USAGE_REPORT_MAX_CUSTOMERS ?? DEFAULT_USAGE_REPORT_MAX_CUSTOMERS,
    finalTimeoutMs: config.USAGE_FINAL_REPORT_TIMEOUT_MS ?? DEFAULT_USAGE_FINAL_REPORT_TIMEOUT_MS,
    reporter: `${hostname()}/${process.pid}`,
    logger: logger.child({ component: 'usage' }),
    metrics: { messages: metrics.usageMessages, bytes: metrics.usageBytes, reports: metrics.usageReports, lost: metrics.usageLost },
  });

  const onDelivered = ({ subject, recipients, bytes, msg }: FeedDelivery) => {
    metrics.sent.inc({ subject }, recipients);
    metrics.sentBytes.inc(bytes);
    const publishedMs = publishedMsOf(msg.headers);
    // Clocks of two hosts can disagree by a little: a publish time ahead of ours counts as no delay.
    if (publishedMs !== undefined) metrics.deliveryLatency.observe({ subject }, Math.max(0, Date.now() - publishedMs) / 1000);
  };
  const feeds = new TradeFeeds(
    nc,
    TRADE_SUBJECTS,
    {
      batchMessages: config.WS_REPLAY_BATCH_MESSAGES,
      retryMs: config.WS_FEED_RETRY_MS ?? 250,
      stallCheckMs: config.WS_FEED_STALL_CHECK_MS ?? 5_000,
      idleHeartbeatMs: config.WS_FEED_IDLE_HEARTBEAT_MS ?? 1_000,
      onRecreated: (reason) => metrics.feedRecreated.inc({ reason }),
    },
    logger,
    onDelivered,
  );
  const replayer = new TradesReplayer(nc, {
    batchMessages: config.WS_REPLAY_BATCH_MESSAGES,
    inactiveMs: 60_000,
    idleHeartbeatMs: config.WS_FEED_IDLE_HEARTBEAT_MS ?? 1_000,
  });
  const subscriptions = new Subscriptions(
    { ...config, WS_SLOT_TRACK_MAX: config.WS_SLOT_TRACK_MAX ?? DEFAULT_WS_SLOT_TRACK_MAX },
    nc,
    feeds,
    replayer,
    metrics,
    logger,
    (session) => disconnectSlow(session),
  );

  /** Moves `session` in the connections gauge to `plan` (undefined: not counted); a closed session is never counted again. */
  const countAs = (session: Session, plan: PlanId | undefined) => {
    const next = sessions.has(session) ? plan : undefined;
    if (session.countedPlan === next) return;
    if (session.countedPlan) metrics.connections.dec({ plan: session.countedPlan });
    if (next) metrics.connections.inc({ plan: next });
    session.countedPlan = next;
  };

  const refuse = (session: Session, err: WsProtocolError) => {
    metrics.refusals.inc({ code: err.wsCode });
    session.send({ type: 'error', code: err.wsCode, message: err.message, ...err.details });
    if (err.close !== undefined) session.close(err.close, err.wsCode, config.WS_CLOSE_TIMEOUT_MS);
  };

  /**
   * Named policy: bounded queue, then disconnect with a reason. The queue is already dropped (its
   * bytes are counted as shed); the close frame follows at most the socket's high-water bytes, and the
   * socket is destroyed if the peer does not finish closing within WS_CLOSE_TIMEOUT_MS.
   */
  const disconnectSlow = (session: Session) => {
    if (session.closing) return;
    metrics.slow.inc();
    metrics.shed.inc(Math.max(0, session.outbox.bufferedBytes - session.socket.writableLength));
    logger.info({ connection_id: session.id, user: session.user?.name, account: session.user?.account }, 'slow consumer disconnected (4413)');
    subscriptions.detach(session);
    session.close(CLOSE_CODES.slowConsumer, 'slow_consumer', config.WS_CLOSE_TIMEOUT_MS, false);
  };

  /** Closes the connection with `expired` (4401) when the user JWT expires, as nats-server does for native connections. */
  const armExpiry = (session: Session, user: VerifiedUser) => {
    if (session.expiryTimer) clearTimeout(session.expiryTimer);
    session.expiryTimer = undefined;
    const expiresAtMs = user.expiresAtMs;
    if (expiresAtMs === undefined) return;
    // setTimeout holds at most 2^31 − 1 ms (about 24.8 days): longer expiries re-arm.
    session.expiryTimer = setTimeout(
      () => {
        if (session.user !== user) return;
        if (Date.now() < expiresAtMs) return armExpiry(session, user);
        subscriptions.detach(session);
        refuse(
          session,
          new WsProtocolError('unauthenticated', 'expired', 'the user JWT has expired; fetch new credentials and reconnect', CLOSE_CODES.unauthenticated),
        );
      },
      Math.min(Math.max(0, expiresAtMs - Date.now()), 2 ** 31 - 1),
    );
    session.expiryTimer.unref();
  };

  const planChanges = new PlanChanges(sessions, { refuse, countAs, armExpiry }, subscriptions, verifier, limiter, metrics, logger);

  const authenticate = async (session: Session, body: Record<string, unknown>) => {
    if (session.user || session.authenticating) {
      throw new WsProtocolError('conflict', 'already_authenticated', 'this connection is already authenticated');
    }
    const jwt = body.jwt;
    const seed = body.nkey;
    const sig = body.sig;
    if (typeof jwt !== 'string' || jwt === '' || ((typeof seed !== 'string' || seed === '') && (typeof sig !== 'string' || sig === ''))) {
      throw new WsProtocolError(
        'invalid_argument',
        'missing_fields',
        'send {"jwt": "<user JWT>", "nkey": "<user NKey seed>"} (or {"jwt", "sig"} signing the challenge nonce)',
        CLOSE_CODES.badRequest,
      );
    }
    const gate = loginGuard.allow(session.address);
    if (!gate.allowed) {
      metrics.authenticated.inc({ result: 'throttled' });
      throw new WsProtocolError(
        'resource_exhausted',
        'rate_limited',
        `too many failed logins from your address (at most ${config.WS_LOGIN_FAILURES_PER_MINUTE} a minute); retry in ${Math.ceil(gate.retryAfterMs / 1000)} s`,
        CLOSE_CODES.limit,
      );
    }
    session.authenticating = true;
    try {
      let updatesSeen = planChanges.applied;
      let user: VerifiedUser;
      try {
        user = await verifier.verify(
          jwt,
          typeof seed === 'string' && seed !== '' ? { kind: 'seed', seed } : { kind: 'signature', nonce: session.nonce, signature: sig as string },
        );
      } catch (err) {
        if (err instanceof WsProtocolError && err.close === CLOSE_CODES.unauthenticated) loginGuard.recordFailure(session.address);
        throw err;
      }
      const plan: PlanId = user.plan ?? 'starter';
      const limit = PLANS[plan].connections;
      // Per customer (account) for per-customer accounts, else per user key (verifier.ts, limitKey).
      let acquired: TakeResult;
      try {
        acquired = await limiter.take(user.limitKey, session.id, limit, holders.get(session));
      } catch (err) {
        // Redis outage policy (docs/websocket.md §6): no slot can be counted, so no login is let in.
        throw new WsProtocolError(
          'unavailable',
          'unavailable',
          'login is unavailable right now (connection limits cannot be checked); try again shortly',
          CLOSE_CODES.unavailable,
          { cause: err },
        );
      }
      if (!acquired.taken) {
        // Fire-and-forget (never awaited, never throws): the customer's notification bell hears of it.
        limitEvents.refused(user, plan, limit);
        const more = cheapestPlanWhere((p) => p.connections > limit);
        const better = more ? `the ${more.id} plan allows ${more.connections}` : 'contact us for more';
        // `holders`: the customer's own connections that hold the slots (the key is theirs alone), so they can find and close one.
        throw new WsProtocolError(
          'resource_exhausted',
          'connection_limit',
          `connection limit reached: the ${plan} plan allows ${limit} concurrent connection${limit === 1 ? '' : 's'}; ${better}`,
          CLOSE_CODES.limit,
          { details: { holders: acquired.holders } },
        );
      }
      if (!session.open) {
        await limiter.release(session.id);
        return;
      }
      try {
        await countRequest(user);
        // An account update applied while we were verifying skipped this client (no user yet): apply it now.
        while (planChanges.applied !== updatesSeen) {
          updatesSeen = planChanges.applied;
          user = await verifier.reverify(jwt);
        }
      } catch (err) {
        // Never let a failed release (Redis down) hide the refusal; the slot's lease runs out by itself.
        await limiter.release(session.id).catch((releaseErr: unknown) => logger.warn({ err: releaseErr }, 'releasing connection slot failed'));
        throw err;
      }
      session.user = user;
      session.userJwt = jwt;
      countAs(session, plan);
      if (session.authTimer) clearTimeout(session.authTimer);
      armExpiry(session, user);
      metrics.authenticated.inc({ result: 'ok' });
      session.send({ type: 'authenticated', plan, subjects: subjectsOf(user), expires_at_ms: user.expiresAtMs ?? null });
    } catch (err) {
      metrics.authenticated.inc({ result: 'refused' });
      throw err;
    } finally {
      session.authenticating = false;
    }
  };

  /**
   * Counts one control request of an authenticated user against the plan's requests per minute.
   * @throws WsProtocolError rate_limited (connection stays open) naming the plan that allows more.
   */
  const countRequest = async (user: VerifiedUser) => {
    const plan = PLANS[user.plan ?? 'starter'];
    let decision: Awaited<ReturnType<RequestRateLimiter['take']>>;
    try {
      decision = await rateLimiter.take(user.limitKey, plan.requestsPerMinute);
    } catch (err) {
      // Redis outage: the budget cannot be counted; refuse the request (the connection and its live subjects stay).
      throw new WsProtocolError(
        'unavailable',
        'unavailable',
        'this request is unavailable right now (request limits cannot be checked); try again shortly',
        undefined,
        { cause: err },
      );
    }
    if (decision.allowed) return;
    const higher = cheapestPlanWhere((p) => p.requestsPerMinute > plan.requestsPerMinute);
    const raise = higher ? `the ${higher.name} plan allows ${higher.requestsPerMinute.toLocaleString('en-US')}` : 'contact us for a higher limit';
    throw new WsProtocolError(
      'resource_exhausted',
      'rate_limited',
      `control request limit reached: the ${plan.name} plan allows ${plan.requestsPerMinute.toLocaleString('en-US')} per minute; retry in ${Math.ceil(decision.retryAfterMs / 1000)} s or upgrade (${raise})`,
    );
  };

  /** The session's verified user; a control request before authentication ends the connection. */
  const requireUser = (session: Session): VerifiedUser => {
    if (!session.user)
      throw new WsProtocolError('unauthenticated', 'not_authenticated', 'authenticate first: send {"jwt", "nkey"}', CLOSE_CODES.unauthenticated);
    return session.user;
  };

  /**
   * `{"subject", "filter"?, "replay"? | "resume_after"?, "slots"?}`.
   * Check order: unknown keys (bad_request), unknown_subject, replay_not_in_plan, subject_not_in_plan,
   * bad_filter, bad_replay / bad_resume, replay_limit; all leave the connection open.
   */
  const onSubscribe = async (session: Session, msg: Record<string, unknown>) => {
    const user = requireUser(session);
    const unknown = Object.keys(msg).filter((k) => !SUBSCRIBE_KEYS.has(k));
    if (unknown.length > 0) {
      throw new WsProtocolError(
        'invalid_argument',
        'bad_request',
        `unknown key${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => JSON.stringify(k)).join(', ')} in a subscribe request; allowed: subject, filter, replay, resume_after, slots`,
      );
    }
    if ('replay' in msg && 'resume_after' in msg) {
      throw new WsProtocolError(
        'invalid_argument',
        'bad_request',
        'send either "replay" (Pro: from a time or sequence) or "resume_after" (the last seq you received), not both',
      );
    }
    if ('slots' in msg && typeof msg.slots !== 'boolean') {
      throw new WsProtocolError('invalid_argument', 'bad_request', `"slots" must be true or false, got ${JSON.stringify(msg.slots)}`);
    }
    // Absent: off for a new subscription, unchanged for an existing one (a filter change need not repeat it).
    const slots: boolean | undefined = 'slots' in msg ? msg.slots === true : undefined;
    if (slots === true && !slotsSupported()) {
      throw new WsProtocolError(
        'unavailable',
        'unavailable',
        `slot status needs nats-server 2.10 or newer behind this endpoint (it runs ${nc.info?.version ?? 'an unknown version'}); subscribe without "slots"`,
      );
    }
    const requested = tradeSubject(msg.subject);
    const plan = PLANS[user.plan ?? 'starter'];
    if ('replay' in msg && !plan.replay) {
      throw new WsProtocolError(
        'permission_denied',
        'replay_not_in_plan',
        `replay of history is included in the ${REPLAY_PLAN?.name ?? 'Pro'} plan; your ${plan.name} plan streams live trades and resumes with "resume_after" (subscribe without "replay")`,
      );
    }
    const subject = allowedSubject(user, requested);
    const filter: TradeFilter | null | undefined =
      'filter' in msg ? parseTradeFilter(msg.filter, subject, { maxItems: config.WS_FILTER_MAX_ITEMS }) : undefined;
    if ('replay' in msg) {
      const start = parseReplayStart(msg.replay, Date.now());
      const others = [...session.subscriptions.values()].filter((s) => s.subject !== subject && s.catchUp?.kind === 'replay').length;
      if (others >= config.WS_MAX_REPLAYS_PER_CONNECTION) {
        throw new WsProtocolError(
          'resource_exhausted',
          'replay_limit',
          `a connection runs at most ${config.WS_MAX_REPLAYS_PER_CONNECTION} replay${config.WS_MAX_REPLAYS_PER_CONNECTION === 1 ? '' : 's'} at once; unsubscribe one first`,
        );
      }
      return subscriptions.replay(session, subject, (msg.replay as { from: string | number }).from, start, filter ?? null, slots ?? false);
    }
    if ('resume_after' in msg) {
      const after = msg.resume_after;
      if (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0) {
        throw new WsProtocolError(
          'invalid_argument',
          'bad_resume',
          `resume_after must be the last "seq" you received (an integer ≥ 0), got ${JSON.stringify(after)}`,
        );
      }
      return subscriptions.resume(session, subject, after, plan.id, filter ?? null, slots ?? false);
    }
    subscriptions.subscribe(session, subject, filter, slots);
  };

  /**
   * Whether the NATS server can merge a subject with `slots` in one consumer (`filter_subjects`, nats-server 2.10+;
   * an older server ignores the field and would deliver every subject).
   */
  const slotsSupported = (): boolean => {
    const [major = 0, minor = 0] = (nc.info?.version ?? '0.0').split('.').map((x) => Number.parseInt(x, 10));
    return major > 2 || (major === 2 && minor >= 10);
  };

  const onUnsubscribe = (session: Session, subject: unknown) => {
    requireUser(session);
    if (!subscriptions.unsubscribe(session, String(subject))) {
      throw new WsProtocolError('invalid_argument', 'bad_request', `not subscribed to ${JSON.stringify(subject)}`);
    }
    session.send({ type: 'unsubscribed', subject });
  };

  const onMessage = async (session: Session, raw: RawData, isBinary: boolean) => {
    let body: unknown;
    try {
      body = JSON.parse(isBinary ? Buffer.from(raw as Buffer).toString('utf8') : raw.toString());
    } catch {
      throw new WsProtocolError('invalid_argument', 'bad_json', 'message is not valid JSON', session.user ? undefined : CLOSE_CODES.badRequest);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new WsProtocolError('invalid_argument', 'bad_request', 'message must be a JSON object', session.user ? undefined : CLOSE_CODES.badRequest);
    }
    const msg = body as Record<string, unknown>;
    if ('jwt' in msg || 'nkey' in msg || 'sig' in msg) return authenticate(session, msg);
    if ('subject' in msg) {
      await countRequest(requireUser(session));
      try {
        return await onSubscribe(session, msg);
      } catch (err) {
        // Errors about one subscription name its subject, so a client with several in flight can tell which failed.
        if (err instanceof WsProtocolError && err.close === undefined && typeof msg.subject === 'string') throw withSubject(err, msg.subject);
        throw err;
      }
    }
    if ('unsubscribe' in msg) {
      await countRequest(requireUser(session));
      return onUnsubscribe(session, msg.unsubscribe);
    }
    if (!session.user) {
      throw new WsProtocolError('invalid_argument', 'missing_fields', 'send {"jwt": "<user JWT>", "nkey": "<user NKey seed>"} first', CLOSE_CODES.badRequest);
    }
    throw new WsProtocolError(
      'invalid_argument',
      'bad_request',
      'expected {"subject": "...", "filter"?: {...}, "resume_after"?: <seq>}, {"subject": "...", "replay": {"from": ...}} or {"unsubscribe": "..."}',
    );
  };

  const onConnection = (ws: WebSocket, socket: Socket, req: IncomingMessage) => {
    const outbox = new Outbox(socket, { highWaterBytes: config.WS_SOCKET_HIGH_WATER_BYTES, maxBytes: config.WS_MAX_BUFFERED_BYTES }, scheduler, () =>
      disconnectSlow(session),
    );
    const session: Session = new Session(
      randomUUID(),
      ws,
      socket,
      outbox,
      peerAddress(req, config.WS_TRUST_FORWARDED_FOR),
      randomBytes(24).toString('base64url'),
    );
    sessions.add(session);
    holders.set(session, slotHolder(Date.now(), session.address, req.headers['user-agent'], req.headers.origin));
    session.authTimer = setTimeout(() => {
      if (!session.user)
        refuse(
          session,
          new WsProtocolError('unauthenticated', 'auth_timeout', `no credentials within ${config.WS_AUTH_TIMEOUT_MS} ms`, CLOSE_CODES.authTimeout),
        );
    }, config.WS_AUTH_TIMEOUT_MS);
    session.send({ type: 'challenge', nonce: session.nonce });
    // One request at a time per connection, in the order sent: a request never overtakes an earlier one
    // still waiting on NATS or Redis (else an unsubscribe right after a replay or resume found nothing to
    // end, was refused, and the subscription started afterwards: scripts/reliability/fuzz/websocket.ts).
    let turn: Promise<void> = Promise.resolve();
    ws.on('message', (raw, isBinary) => {
      if (session.closing) return;
      turn = turn
        .then(() => (session.closing ? undefined : onMessage(session, raw, isBinary)))
        .catch((err: unknown) => {
          if (err instanceof WsProtocolError) {
            refuse(session, err);
          } else {
            logger.error({ err, connection_id: session.id }, 'websocket message handling failed');
            refuse(session, new WsProtocolError('internal', 'internal', 'internal error', 1011));
          }
        });
    });
    ws.on('pong', () => {
      session.missedPongs = 0;
    });
    ws.on('error', (err) => logger.debug({ err, connection_id: session.id }, 'websocket error'));
    ws.on('close', () => {
      sessions.delete(session);
      // Nothing is written after the close: the connection's last counts go to its customer's pending delta.
      usage.collect(session, true);
      countAs(session, undefined);
      if (session.authTimer) clearTimeout(session.authTimer);
      if (session.expiryTimer) clearTimeout(session.expiryTimer);
      session.closing = true;
      outbox.close();
      subscriptions.detach(session);
      void limiter.release(session.id).catch((err: unknown) => logger.warn({ err }, 'releasing connection slot failed'));
    });
  };

  let http: Server | undefined;
  let wss: WebSocketServer | undefined;
  /** Set by stop(): upgrades are refused from then on. */
  let stopping = false;
  let accountSubs: NatsSubscription[] = [];
  let stopLiveness: (() => void) | undefined;

  return {
    clientCount: () => sessions.size,
    feedsReady: () => feeds.ready,
    async start() {
      // No queue group: every pod must see every update. No reply: the resolver answers the pusher.
      accountSubs = ACCOUNT_UPDATE_SUBJECTS.map((subject) =>
        sysNc.subscribe(subject, {
          callback: (err, msg) => {
            if (err) logger.error({ err, subject }, 'account update subscription error');
            else planChanges.onAccountJwt(msg.string());
          },
        }),
      );
      // The subscriptions must be in place on the server before the first client can authenticate.
      await sysNc.flush();
      await feeds.start();
      http = createServer((_req, res) => {
        res.writeHead(426, { 'content-type': 'application/json' }).end('{"error":"upgrade_required","message":"connect with a WebSocket client"}');
      });
      wss = new WebSocketServer({ noServer: true, maxPayload: config.WS_MAX_FRAME_BYTES, perMessageDeflate: false });
      http.on('upgrade', (req, socket, head) => {
        // Stopping: a keep-alive connection may still ask to upgrade; it is told to go elsewhere, never served by a dying process.
        if (stopping) {
          socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
          return;
        }
        wss!.handleUpgrade(req, socket, head, (ws) => onConnection(ws, socket as Socket, req));
      });
      stopLiveness = startLiveness(config, sessions, subscriptions, metrics, logger);
      usage.start();
      await new Promise<void>((resolve, reject) => {
        http!.once('error', reject);
        http!.listen(config.PORT, config.HOST, () => resolve());
      });
      return { port: (http.address() as AddressInfo).port };
    },
    async stop() {
      // No new connection from here on (the listener closes now; the sockets already open are closed below), so
      // nothing connects while the final usage report and the feeds wind down.
      stopping = true;
      const listenerClosed = new Promise<void>((resolve) => (http?.listening ? http.close(() => resolve()) : resolve()));
      stopLiveness?.();
      for (const sub of accountSubs) sub.unsubscribe();
      accountSubs = [];
      // Connection slots are freed before the 1001 goes out: a client reconnects the moment it reads it, and
      // its new connection (on another pod) must not find its own old slot still taken (connection_limit;
      // `npm run chaos` rolling class, a Starter client with its one slot).
      await Promise.all(
        [...sessions].map((session) => limiter.release(session.id).catch((err: unknown) => logger.warn({ err }, 'releasing connection slot failed'))),
      );
      for (const session of sessions) {
        subscriptions.detach(session);
        session.close(1001, 'server shutting down', config.WS_CLOSE_TIMEOUT_MS);
      }
      // Give clients a moment to answer the close handshake, then cut the rest.
      const deadline = Date.now() + 1000;
      while (sessions.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const session of sessions) session.ws.terminate();
      // The sockets are closed: the final usage report holds everything written to them (NATS is still connected).
      await usage.stop();
      await feeds.stop();
      await subscriptions.stop();
      await planChanges.settled();
      await limitEvents.settled();
      await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
      await listenerClosed;
      await limiter.stop();
    },
  };
}
