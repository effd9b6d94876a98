/**
 * ws-fanout: the WebSocket edge of the TRADES stream (ARCHITECTURE §7).
 *
 * One NATS subscription per subject per process, shared by all its clients; each trade's
 * bytes are sent to every subscribed client as a text frame exactly as they arrived from
 * NATS (never parsed or re-serialised). Control messages always carry `type`.
 *
 * Pro replay: a subject subscribed with `replay` is fed by its own ordered JetStream consumer
 * (trades-replay.ts) instead of the shared subscription, from the requested point into the live feed.
 *
 * Live plan changes and revocations: account JWTs pushed to the NATS resolver are read off the
 * system account (we only listen, the server answers the pusher) and every authenticated client of
 * that account is re-checked from its stored user JWT (docs/websocket.md, "Plan changes").
 * Protocol reference: docs/websocket.md.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import {
  PLANS, PLAN_IDS, TRADE_PUBLISHED_MS_HEADER, TRADE_SUBJECTS, cheapestPlanFor, cheapestPlanWhere, isTradeSubject,
  type Logger, type NatsConnection, type PlanId, type TradeSubject,
} from '@tradewind/lib';
import type { MsgHdrs, Subscription } from '@nats-io/transport-node';
import { CredentialVerifier, maySubscribe, type VerifiedUser } from './domain/verifier.js';
import { CLOSE_CODES, WsProtocolError } from './domain/errors.js';
import { parseReplayStart } from './domain/replay-request.js';
import type { ConnectionLimiter } from './domain/connection-limiter.js';
import type { RequestRateLimiter } from './domain/request-rate-limiter.js';
import { TradesReplayer, type TradesReplay } from './trades-replay.js';
import type { WsFanoutConfig } from './config.js';

/** Subjects on which account JWTs pushed to the resolver travel (nats-server accounts.go: accClaimsReqSubj, accUpdateEventSubjOld). */
export const ACCOUNT_UPDATE_SUBJECTS = ['$SYS.REQ.CLAIMS.UPDATE', '$SYS.ACCOUNT.*.CLAIMS.UPDATE'] as const;

/** What createApp needs from the composition root. */
export interface WsFanoutDeps {
  logger: Logger;
  registry: Registry;
  /** Connection as the services' user: subscribes to TRADES subjects and runs replay consumers on the TRADES stream. */
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
  /** Closes every WebSocket with 1001, stops replay consumers, unsubscribes from NATS, frees connection slots. */
  stop(): Promise<void>;
  readonly clientCount: () => number;
}

interface Client {
  readonly id: string;
  readonly ws: WebSocket;
  readonly nonce: string;
  user: VerifiedUser | undefined;
  /** The user JWT the client authenticated with: its rights are re-derived from it on account updates. */
  userJwt: string | undefined;
  authenticating: boolean;
  /** Live subjects (fed by the shared subscription). */
  readonly subjects: Set<string>;
  /** Replaying subjects (each fed by its own consumer); a subject is in `subjects` or here, never both. */
  readonly replays: Map<string, Replay>;
  authTimer: NodeJS.Timeout | undefined;
  /** Fires when the user JWT expires. */
  expiryTimer: NodeJS.Timeout | undefined;
  /** The `plan` under which the connections gauge counts this client; undefined until it authenticates and once it closed. */
  countedPlan: PlanId | undefined;
}

/** One replaying subject of one client. `handle` is set once the consumer exists. */
interface Replay {
  readonly subject: TradeSubject;
  /** `from` as the client sent it (echoed in `subscribed`). */
  readonly from: string | number;
  handle: TradesReplay | undefined;
  stopped: boolean;
}

/** The config keys createApp reads. */
export type WsFanoutAppConfig = Pick<WsFanoutConfig,
  | 'PORT' | 'HOST' | 'WS_MAX_FRAME_BYTES' | 'WS_AUTH_TIMEOUT_MS' | 'WS_MAX_BUFFERED_BYTES'
  | 'WS_MAX_REPLAYS_PER_CONNECTION' | 'WS_REPLAY_BATCH_MESSAGES' | 'WS_REPLAY_PAUSE_BYTES' | 'WS_REPLAY_STALL_MS'>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The cheapest plan that includes replay (for messages). */
const REPLAY_PLAN = cheapestPlanWhere((p) => p.replay);

/** Buckets of the delivery latency histogram, seconds: 1 ms to 5 s. */
const DELIVERY_LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * The publish time ingest stamped on a trade ({@link TRADE_PUBLISHED_MS_HEADER}, epoch ms), or undefined
 * when the header is absent or not a decimal integer.
 */
function publishedMsOf(headers: MsgHdrs | undefined): number | undefined {
  const raw = headers?.get(TRADE_PUBLISHED_MS_HEADER);
  return raw && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

/** Subjects `user` may subscribe to, in catalogue order. */
const subjectsOf = (user: VerifiedUser): string[] => [...PLANS[user.plan ?? 'starter'].subjects].filter((s) => maySubscribe(user, s));

/** Builds the service; nothing listens until `start()`. */
export function createApp(config: WsFanoutAppConfig, deps: WsFanoutDeps): WsFanoutApp {
  const { logger, nc, sysNc, verifier, limiter, rateLimiter } = deps;
  const replayer = new TradesReplayer(nc, { batchMessages: config.WS_REPLAY_BATCH_MESSAGES, inactiveMs: 60_000 });
  const metrics = {
    connections: new Gauge({
      name: 'tradewind_ws_fanout_connections',
      help: 'Open WebSocket connections by the plan they authenticated with (starter, plus, pro), following live plan changes; a connection counts from its authentication until it closes, so ones still authenticating are not counted',
      labelNames: ['plan'], registers: [deps.registry],
    }),
    deliveryLatency: new Histogram({
      name: 'tradewind_ws_fanout_delivery_latency_seconds',
      help: 'From ingest publishing a live trade (header Tradewind-Published-Ms) to the end of sending it to this process\'s subscribed clients; observed once per message that reached at least one client (not replays; messages without the header are not observed)',
      labelNames: ['subject'], buckets: DELIVERY_LATENCY_BUCKETS, registers: [deps.registry],
    }),
    authenticated: new Counter({ name: 'tradewind_ws_fanout_auth_total', help: 'Authentication attempts by result', labelNames: ['result'], registers: [deps.registry] }),
    refusals: new Counter({ name: 'tradewind_ws_fanout_refusals_total', help: 'Protocol refusals by error code', labelNames: ['code'], registers: [deps.registry] }),
    sent: new Counter({ name: 'tradewind_ws_fanout_messages_sent_total', help: 'Trade messages sent to clients', labelNames: ['subject'], registers: [deps.registry] }),
    sentBytes: new Counter({ name: 'tradewind_ws_fanout_sent_bytes_total', help: 'Trade message bytes sent to clients', registers: [deps.registry] }),
    slow: new Counter({ name: 'tradewind_ws_fanout_slow_consumer_disconnects_total', help: 'Clients disconnected by the slow-consumer policy', registers: [deps.registry] }),
    replays: new Gauge({ name: 'tradewind_ws_fanout_replays', help: 'Replay consumers running (Pro replay)', registers: [deps.registry] }),
    accountUpdates: new Counter({
      name: 'tradewind_ws_fanout_account_updates_total',
      help: 'Account JWTs pushed to the resolver, by result: applied, stale (older than the cached one), ignored (does not verify)',
      labelNames: ['result'], registers: [deps.registry],
    }),
    planChanges: new Counter({ name: 'tradewind_ws_fanout_live_plan_changes_total', help: 'Live clients whose rights changed on an account update, by outcome', labelNames: ['outcome'], registers: [deps.registry] }),
  };

  // Every series exists from the start, so dashboards show 0 rather than no data.
  for (const plan of PLAN_IDS) metrics.connections.set({ plan }, 0);
  for (const subject of TRADE_SUBJECTS) metrics.deliveryLatency.zero({ subject });

  const clients = new Set<Client>();
  const hubs = new Map<string, { sub: Subscription; clients: Set<Client> }>();
  /** Every replay that has not stopped (the gauge), and consumer deletions under way (awaited by stop()). */
  const replays = new Set<Replay>();
  const closingReplays = new Set<Promise<void>>();
  /** Incremented per applied account update: an authentication that raced one re-checks itself. */
  let accountUpdatesApplied = 0;

  /** Moves `client` in the connections gauge to `plan` (undefined: not counted); a closed client is never counted again. */
  const countAs = (client: Client, plan: PlanId | undefined) => {
    const next = clients.has(client) ? plan : undefined;
    if (client.countedPlan === next) return;
    if (client.countedPlan) metrics.connections.dec({ plan: client.countedPlan });
    if (next) metrics.connections.inc({ plan: next });
    client.countedPlan = next;
  };

  const send = (client: Client, message: Record<string, unknown>) => {
    if (client.ws.readyState === client.ws.OPEN) client.ws.send(JSON.stringify(message));
  };

  const refuse = (client: Client, err: WsProtocolError) => {
    metrics.refusals.inc({ code: err.wsCode });
    send(client, { type: 'error', code: err.wsCode, message: err.message });
    if (err.close !== undefined) client.ws.close(err.close, err.wsCode);
  };

  /** Named policy: bounded buffer, then disconnect with a reason; nothing more is sent to the client. */
  const disconnectSlow = (client: Client) => {
    metrics.slow.inc();
    detach(client);
    client.ws.close(CLOSE_CODES.slowConsumer, 'slow_consumer');
  };

  const fanOut = (subject: string, data: Uint8Array, headers: MsgHdrs | undefined) => {
    const hub = hubs.get(subject);
    if (!hub) return;
    let delivered = false;
    for (const client of hub.clients) {
      if (client.ws.bufferedAmount > config.WS_MAX_BUFFERED_BYTES) {
        disconnectSlow(client);
        continue;
      }
      client.ws.send(data, { binary: false });
      delivered = true;
      metrics.sent.inc({ subject });
      metrics.sentBytes.inc(data.byteLength);
    }
    const publishedMs = delivered ? publishedMsOf(headers) : undefined;
    // Clocks of two hosts can disagree by a little: a publish time ahead of ours counts as no delay.
    if (publishedMs !== undefined) metrics.deliveryLatency.observe({ subject }, Math.max(0, Date.now() - publishedMs) / 1000);
  };

  const joinHub = (client: Client, subject: string) => {
    let hub = hubs.get(subject);
    if (!hub) {
      const sub = nc.subscribe(subject, {
        callback: (err, msg) => {
          if (err) logger.error({ err, subject }, 'nats subscription error');
          else fanOut(subject, msg.data, msg.headers);
        },
      });
      hub = { sub, clients: new Set() };
      hubs.set(subject, hub);
    }
    hub.clients.add(client);
  };

  const leaveHub = (client: Client, subject: string) => {
    const hub = hubs.get(subject);
    if (!hub) return;
    hub.clients.delete(client);
    if (hub.clients.size === 0) {
      hub.sub.unsubscribe();
      hubs.delete(subject);
    }
  };

  /** Ends a replay: its loop stops before sending anything more, and its consumer is deleted. */
  const stopReplay = (client: Client, replay: Replay) => {
    if (client.replays.get(replay.subject) === replay) client.replays.delete(replay.subject);
    if (replay.stopped) return;
    replay.stopped = true;
    if (replays.delete(replay)) metrics.replays.dec();
    if (replay.handle) closeHandle(replay.handle);
  };

  const closeHandle = (handle: TradesReplay) => {
    const closing = handle.close().finally(() => closingReplays.delete(closing));
    closingReplays.add(closing);
  };

  /** Stops everything that sends trades to `client` (live subscriptions and replays). */
  const detach = (client: Client) => {
    for (const subject of client.subjects) leaveHub(client, subject);
    client.subjects.clear();
    for (const replay of [...client.replays.values()]) stopReplay(client, replay);
  };

  /**
   * Waits until the socket has room for more replayed messages: below WS_REPLAY_PAUSE_BYTES queued.
   * @returns false when the slow-consumer policy applies: more than WS_MAX_BUFFERED_BYTES queued, or no
   *   room within WS_REPLAY_STALL_MS.
   */
  const roomFor = async (client: Client, replay: Replay): Promise<boolean> => {
    if (client.ws.bufferedAmount > config.WS_MAX_BUFFERED_BYTES) return false;
    const pauseAt = Math.min(config.WS_REPLAY_PAUSE_BYTES, config.WS_MAX_BUFFERED_BYTES);
    const deadline = Date.now() + config.WS_REPLAY_STALL_MS;
    while (client.ws.bufferedAmount >= pauseAt && !replay.stopped && client.ws.readyState === client.ws.OPEN) {
      if (Date.now() > deadline) return false;
      await sleep(10);
    }
    return true;
  };

  /**
   * Forwards a replay's messages to the client until the replay stops: `subscribed` (with the first
   * stream sequence) before the first message, each message's bytes as a text frame, and one
   * `replay_caught_up` after the message that left nothing pending.
   */
  const pump = async (client: Client, replay: Replay, handle: TradesReplay) => {
    const subscribed = (firstSeq: number | null) =>
      send(client, { type: 'subscribed', subject: replay.subject, replay: { from: replay.from, first_seq: firstSeq } });
    let announced = false;
    let caughtUp = false;
    if (handle.pendingAtStart === 0) {
      subscribed(null);
      send(client, { type: 'replay_caught_up', subject: replay.subject, seq: null });
      announced = caughtUp = true;
    }
    try {
      for await (const m of handle.messages) {
        if (replay.stopped) break;
        if (!(await roomFor(client, replay))) {
          disconnectSlow(client);
          break;
        }
        if (replay.stopped || client.ws.readyState !== client.ws.OPEN) break;
        if (!announced) {
          subscribed(m.seq);
          announced = true;
        }
        client.ws.send(m.data, { binary: false });
        metrics.sent.inc({ subject: replay.subject });
        metrics.sentBytes.inc(m.data.byteLength);
        if (!caughtUp && m.info.pending === 0) {
          caughtUp = true;
          send(client, { type: 'replay_caught_up', subject: replay.subject, seq: m.seq });
        }
      }
    } catch (err) {
      if (!replay.stopped) {
        logger.warn({ err, connection_id: client.id, subject: replay.subject }, 'replay consumer failed');
        send(client, { type: 'error', code: 'unavailable', message: `replay of ${replay.subject} stopped: TRADES history cannot be read right now; subscribe again shortly` });
      }
    } finally {
      stopReplay(client, replay);
    }
  };

  /** Closes the connection with `expired` (4401) when the user JWT expires, as nats-server does for native connections. */
  const armExpiry = (client: Client, user: VerifiedUser) => {
    if (client.expiryTimer) clearTimeout(client.expiryTimer);
    client.expiryTimer = undefined;
    const expiresAtMs = user.expiresAtMs;
    if (expiresAtMs === undefined) return;
    // setTimeout holds at most 2^31 − 1 ms (about 24.8 days): longer expiries re-arm.
    client.expiryTimer = setTimeout(() => {
      if (client.user !== user) return;
      if (Date.now() < expiresAtMs) return armExpiry(client, user);
      detach(client);
      refuse(client, new WsProtocolError('unauthenticated', 'expired', 'the user JWT has expired; fetch new credentials and reconnect', CLOSE_CODES.unauthenticated));
    }, Math.min(Math.max(0, expiresAtMs - Date.now()), 2 ** 31 - 1));
    client.expiryTimer.unref();
  };

  const authenticate = async (client: Client, body: Record<string, unknown>) => {
    if (client.user || client.authenticating) {
      throw new WsProtocolError('conflict', 'already_authenticated', 'this connection is already authenticated');
    }
    const jwt = body.jwt;
    const seed = body.nkey;
    const sig = body.sig;
    if (typeof jwt !== 'string' || jwt === '' || ((typeof seed !== 'string' || seed === '') && (typeof sig !== 'string' || sig === ''))) {
      throw new WsProtocolError('invalid_argument', 'missing_fields', 'send {"jwt": "<user JWT>", "nkey": "<user NKey seed>"} (or {"jwt", "sig"} signing the challenge nonce)', CLOSE_CODES.badRequest);
    }
    client.authenticating = true;
    try {
      let updatesSeen = accountUpdatesApplied;
      let user = await verifier.verify(jwt, typeof seed === 'string' && seed !== ''
        ? { kind: 'seed', seed }
        : { kind: 'signature', nonce: client.nonce, signature: sig as string });
      const plan: PlanId = user.plan ?? 'starter';
      const limit = PLANS[plan].connections;
      // Per customer (account) for per-customer accounts, else per user key (verifier.ts, limitKey).
      if (!(await limiter.acquire(user.limitKey, client.id, limit))) {
        const more = cheapestPlanWhere((p) => p.connections > limit);
        const better = more ? `the ${more.id} plan allows ${more.connections}` : 'contact us for more';
        throw new WsProtocolError('resource_exhausted', 'connection_limit',
          `connection limit reached: the ${plan} plan allows ${limit} concurrent connection${limit === 1 ? '' : 's'}; ${better}`, CLOSE_CODES.limit);
      }
      if (client.ws.readyState !== client.ws.OPEN) {
        await limiter.release(client.id);
        return;
      }
      try {
        await countRequest(user);
        // An account update applied while we were verifying skipped this client (no user yet): apply it now.
        while (accountUpdatesApplied !== updatesSeen) {
          updatesSeen = accountUpdatesApplied;
          user = await verifier.reverify(jwt);
        }
      } catch (err) {
        await limiter.release(client.id);
        throw err;
      }
      client.user = user;
      client.userJwt = jwt;
      countAs(client, plan);
      if (client.authTimer) clearTimeout(client.authTimer);
      armExpiry(client, user);
      metrics.authenticated.inc({ result: 'ok' });
      send(client, {
        type: 'authenticated',
        plan,
        subjects: subjectsOf(user),
        expires_at_ms: user.expiresAtMs ?? null,
      });
    } catch (err) {
      metrics.authenticated.inc({ result: 'refused' });
      throw err;
    } finally {
      client.authenticating = false;
    }
  };

  /**
   * Counts one control request of an authenticated user against the plan's requests per minute.
   * @throws WsProtocolError rate_limited (connection stays open) naming the plan that allows more.
   */
  const countRequest = async (user: VerifiedUser) => {
    const plan = PLANS[user.plan ?? 'starter'];
    const decision = await rateLimiter.take(user.limitKey, plan.requestsPerMinute);
    if (decision.allowed) return;
    const higher = cheapestPlanWhere((p) => p.requestsPerMinute > plan.requestsPerMinute);
    const raise = higher ? `the ${higher.name} plan allows ${higher.requestsPerMinute.toLocaleString('en-US')}` : 'contact us for a higher limit';
    throw new WsProtocolError('resource_exhausted', 'rate_limited',
      `control request limit reached: the ${plan.name} plan allows ${plan.requestsPerMinute.toLocaleString('en-US')} per minute; retry in ${Math.ceil(decision.retryAfterMs / 1000)} s or upgrade (${raise})`);
  };

  /** The client's verified user; a control request before authentication ends the connection. */
  const requireUser = (client: Client): VerifiedUser => {
    if (!client.user) throw new WsProtocolError('unauthenticated', 'not_authenticated', 'authenticate first: send {"jwt", "nkey"}', CLOSE_CODES.unauthenticated);
    return client.user;
  };

  /** The value as a TRADES subject. @throws WsProtocolError unknown_subject (connection stays open). */
  const tradeSubject = (subject: unknown): TradeSubject => {
    if (!isTradeSubject(subject)) {
      throw new WsProtocolError('invalid_argument', 'unknown_subject', `unknown subject ${JSON.stringify(subject)}; subjects are basic.pumpfun, basic.bonk, premium.pumpswap, premium.raydium`);
    }
    return subject;
  };

  /** `subject`, when the user may receive it. @throws WsProtocolError subject_not_in_plan naming the plan that includes it (connection stays open). */
  const allowedSubject = (user: VerifiedUser, subject: TradeSubject): TradeSubject => {
    if (!maySubscribe(user, subject)) {
      const plan = cheapestPlanFor(subject);
      throw new WsProtocolError('permission_denied', 'subject_not_in_plan',
        `${subject} is not in your ${user.plan ?? 'current'} plan; it is included in the ${plan?.name ?? 'paid'} plan and above`);
    }
    return subject;
  };

  /** Live subscription; replaces a replay of the same subject. */
  const subscribe = (client: Client, rawSubject: unknown) => {
    const subject = allowedSubject(requireUser(client), tradeSubject(rawSubject));
    const replay = client.replays.get(subject);
    if (replay) stopReplay(client, replay);
    if (!client.subjects.has(subject)) {
      client.subjects.add(subject);
      joinHub(client, subject);
    }
    send(client, { type: 'subscribed', subject });
  };

  /**
   * Replay from a time or stream sequence into the live feed (Pro); replaces a live subscription or
   * an earlier replay of the same subject once the consumer exists.
   * @throws WsProtocolError unknown_subject, replay_not_in_plan, subject_not_in_plan, bad_replay,
   *   replay_limit or unavailable; the connection stays open for all of them.
   */
  const startReplay = async (client: Client, rawSubject: unknown, rawReplay: unknown) => {
    const user = requireUser(client);
    const requested = tradeSubject(rawSubject);
    const plan = PLANS[user.plan ?? 'starter'];
    if (!plan.replay) {
      throw new WsProtocolError('permission_denied', 'replay_not_in_plan',
        `replay of history is included in the ${REPLAY_PLAN?.name ?? 'Pro'} plan; your ${plan.name} plan streams live trades only (subscribe without "replay")`);
    }
    const subject = allowedSubject(user, requested);
    const start = parseReplayStart(rawReplay, Date.now());
    const others = [...client.replays.keys()].filter((s) => s !== subject).length;
    if (others >= config.WS_MAX_REPLAYS_PER_CONNECTION) {
      throw new WsProtocolError('resource_exhausted', 'replay_limit',
        `a connection runs at most ${config.WS_MAX_REPLAYS_PER_CONNECTION} replay${config.WS_MAX_REPLAYS_PER_CONNECTION === 1 ? '' : 's'} at once; unsubscribe one first`);
    }
    const previous = client.replays.get(subject);
    if (previous) stopReplay(client, previous);
    const replay: Replay = { subject, from: (rawReplay as { from: string | number }).from, handle: undefined, stopped: false };
    client.replays.set(subject, replay);
    replays.add(replay);
    metrics.replays.inc();
    let handle: TradesReplay;
    try {
      handle = await replayer.open(subject, start);
    } catch (err) {
      stopReplay(client, replay);
      throw err;
    }
    replay.handle = handle;
    if (replay.stopped || client.ws.readyState !== client.ws.OPEN) {
      // Unsubscribed, replaced, downgraded or closed while the consumer was being created.
      stopReplay(client, replay);
      closeHandle(handle);
      return;
    }
    if (client.subjects.delete(subject)) leaveHub(client, subject);
    void pump(client, replay, handle);
  };

  const unsubscribe = (client: Client, subject: unknown) => {
    requireUser(client);
    const replay = typeof subject === 'string' ? client.replays.get(subject) : undefined;
    if (replay) {
      stopReplay(client, replay);
    } else if (typeof subject === 'string' && client.subjects.has(subject)) {
      client.subjects.delete(subject);
      leaveHub(client, subject);
    } else {
      throw new WsProtocolError('invalid_argument', 'bad_request', `not subscribed to ${JSON.stringify(subject)}`);
    }
    send(client, { type: 'unsubscribed', subject });
  };

  /**
   * Re-derives a live client's rights after an account update: a revoked or expired user is refused
   * and closed (4401); subjects (and replay) the plan no longer includes are ended with
   * `unsubscribed`/`plan_changed`; a changed plan is announced with `plan_changed`; when the new plan
   * allows fewer connections than the customer holds (across all processes), the surplus is closed
   * with `connection_limit` (4429).
   */
  const recheck = async (client: Client) => {
    const before = client.user;
    const jwt = client.userJwt;
    if (!before || !jwt) return;
    let after: VerifiedUser;
    try {
      after = await verifier.reverify(jwt);
    } catch (err) {
      if (client.user !== before || client.ws.readyState !== client.ws.OPEN) return;
      if (err instanceof WsProtocolError && err.close === CLOSE_CODES.unauthenticated) {
        metrics.planChanges.inc({ outcome: 'closed' });
        detach(client);
        refuse(client, err);
      } else {
        // The resolver is unreachable: keep the connection on the rights it has.
        logger.warn({ err, connection_id: client.id }, 're-checking a live client after an account update failed');
      }
      return;
    }
    if (client.user !== before || client.ws.readyState !== client.ws.OPEN) return;
    client.user = after;
    armExpiry(client, after);
    const plan = PLANS[after.plan ?? 'starter'];
    countAs(client, plan.id);
    const subjects = subjectsOf(after);
    const planChanged = (before.plan ?? 'starter') !== plan.id || subjectsOf(before).join() !== subjects.join();
    if (planChanged) {
      metrics.planChanges.inc({ outcome: 'plan_changed' });
      send(client, { type: 'plan_changed', plan: plan.id, subjects });
    }
    const notInPlan = (subject: string) =>
      `${subject} is not in your ${plan.name} plan any more; it is included in the ${cheapestPlanFor(subject)?.name ?? 'paid'} plan and above`;
    for (const subject of [...client.subjects]) {
      if (maySubscribe(after, subject)) continue;
      client.subjects.delete(subject);
      leaveHub(client, subject);
      send(client, { type: 'unsubscribed', subject, reason: 'plan_changed', message: notInPlan(subject) });
    }
    for (const replay of [...client.replays.values()]) {
      if (maySubscribe(after, replay.subject) && plan.replay) continue;
      stopReplay(client, replay);
      send(client, {
        type: 'unsubscribed', subject: replay.subject, reason: 'plan_changed',
        message: maySubscribe(after, replay.subject)
          ? `replay of history is not in your ${plan.name} plan any more; it is included in the ${REPLAY_PLAN?.name ?? 'Pro'} plan (subscribe again without "replay" for live trades)`
          : notInPlan(replay.subject),
      });
    }
    if (plan.connections < PLANS[before.plan ?? 'starter'].connections && await limiter.shed(client.id, plan.connections)) {
      metrics.planChanges.inc({ outcome: 'connection_shed' });
      detach(client);
      refuse(client, new WsProtocolError('resource_exhausted', 'connection_limit',
        `your plan changed to ${plan.name}, which allows ${plan.connections} concurrent connection${plan.connections === 1 ? '' : 's'}; this one was closed`, CLOSE_CODES.limit));
    }
  };

  /** Takes one account JWT from the resolver's update subjects and re-checks that account's live clients. */
  const applyAccountUpdate = async (jwt: string) => {
    let update: { account: string; applied: boolean };
    try {
      update = verifier.acceptAccountJwt(jwt);
    } catch (err) {
      metrics.accountUpdates.inc({ result: 'ignored' });
      logger.warn({ err }, 'ignored an account update that does not verify');
      return;
    }
    if (!update.applied) {
      metrics.accountUpdates.inc({ result: 'stale' });
      return;
    }
    metrics.accountUpdates.inc({ result: 'applied' });
    accountUpdatesApplied++;
    // limits.conn is not looked at: WebSocket connections are counted by the Redis slots, per plan,
    // so the `conn = 0` half of reauthorize() closes nothing here.
    await Promise.all([...clients].filter((c) => c.user?.account === update.account).map((c) => recheck(c)));
  };

  // Updates are applied one after another, in the order they arrived.
  let updates = Promise.resolve();
  const onAccountJwt = (jwt: string) => {
    updates = updates.then(() => applyAccountUpdate(jwt)).catch((err: unknown) => logger.error({ err }, 'applying an account update failed'));
  };

  const onMessage = async (client: Client, raw: RawData, isBinary: boolean) => {
    let body: unknown;
    try {
      body = JSON.parse(isBinary ? Buffer.from(raw as Buffer).toString('utf8') : raw.toString());
    } catch {
      throw new WsProtocolError('invalid_argument', 'bad_json', 'message is not valid JSON', client.user ? undefined : CLOSE_CODES.badRequest);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new WsProtocolError('invalid_argument', 'bad_request', 'message must be a JSON object', client.user ? undefined : CLOSE_CODES.badRequest);
    }
    const msg = body as Record<string, unknown>;
    if ('jwt' in msg || 'nkey' in msg || 'sig' in msg) return authenticate(client, msg);
    if ('subject' in msg) {
      await countRequest(requireUser(client));
      if ('replay' in msg) return startReplay(client, msg.subject, msg.replay);
      return subscribe(client, msg.subject);
    }
    if ('unsubscribe' in msg) {
      await countRequest(requireUser(client));
      return unsubscribe(client, msg.unsubscribe);
    }
    if (!client.user) {
      throw new WsProtocolError('invalid_argument', 'missing_fields', 'send {"jwt": "<user JWT>", "nkey": "<user NKey seed>"} first', CLOSE_CODES.badRequest);
    }
    throw new WsProtocolError('invalid_argument', 'bad_request', 'expected {"subject": "..."}, {"subject": "...", "replay": {"from": ...}} or {"unsubscribe": "..."}');
  };

  let http: Server | undefined;
  let wss: WebSocketServer | undefined;
  let accountSubs: Subscription[] = [];

  return {
    clientCount: () => clients.size,
    async start() {
      // No queue group: every pod must see every update. No reply: the resolver answers the pusher.
      accountSubs = ACCOUNT_UPDATE_SUBJECTS.map((subject) => sysNc.subscribe(subject, {
        callback: (err, msg) => {
          if (err) logger.error({ err, subject }, 'account update subscription error');
          else onAccountJwt(msg.string());
        },
      }));
      // The subscriptions must be in place on the server before the first client can authenticate.
      await sysNc.flush();
      http = createServer((_req, res) => {
        res.writeHead(426, { 'content-type': 'application/json' }).end('{"error":"upgrade_required","message":"connect with a WebSocket client"}');
      });
      wss = new WebSocketServer({ server: http, maxPayload: config.WS_MAX_FRAME_BYTES, perMessageDeflate: false });
      wss.on('connection', (ws) => {
        const client: Client = {
          id: randomUUID(), ws, nonce: randomBytes(24).toString('base64url'),
          user: undefined, userJwt: undefined, authenticating: false, subjects: new Set(), replays: new Map(), authTimer: undefined, expiryTimer: undefined,
          countedPlan: undefined,
        };
        clients.add(client);
        client.authTimer = setTimeout(() => {
          if (!client.user) refuse(client, new WsProtocolError('unauthenticated', 'auth_timeout', `no credentials within ${config.WS_AUTH_TIMEOUT_MS} ms`, CLOSE_CODES.authTimeout));
        }, config.WS_AUTH_TIMEOUT_MS);
        send(client, { type: 'challenge', nonce: client.nonce });
        ws.on('message', (raw, isBinary) => {
          onMessage(client, raw, isBinary).catch((err: unknown) => {
            if (err instanceof WsProtocolError) {
              refuse(client, err);
            } else {
              logger.error({ err, connection_id: client.id }, 'websocket message handling failed');
              refuse(client, new WsProtocolError('internal', 'internal', 'internal error', 1011));
            }
          });
        });
        ws.on('error', (err) => logger.debug({ err, connection_id: client.id }, 'websocket error'));
        ws.on('close', () => {
          clients.delete(client);
          countAs(client, undefined);
          if (client.authTimer) clearTimeout(client.authTimer);
          if (client.expiryTimer) clearTimeout(client.expiryTimer);
          detach(client);
          void limiter.release(client.id).catch((err: unknown) => logger.warn({ err }, 'releasing connection slot failed'));
        });
      });
      await new Promise<void>((resolve, reject) => {
        http!.once('error', reject);
        http!.listen(config.PORT, config.HOST, () => resolve());
      });
      return { port: (http.address() as AddressInfo).port };
    },
    async stop() {
      for (const sub of accountSubs) sub.unsubscribe();
      accountSubs = [];
      for (const client of clients) {
        detach(client);
        client.ws.close(1001, 'server shutting down');
      }
      // Give clients a moment to answer the close handshake, then cut the rest.
      const deadline = Date.now() + 1000;
      while (clients.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const client of clients) client.ws.terminate();
      for (const hub of hubs.values()) hub.sub.unsubscribe();
      hubs.clear();
      await Promise.all([...closingReplays]);
      await updates;
      await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
      await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
      await limiter.stop();
    },
  };
}
