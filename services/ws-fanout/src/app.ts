/**
 * ws-fanout: the WebSocket edge of the TRADES stream (ARCHITECTURE §7).
 *
 * One NATS subscription per subject per process, shared by all its clients; each trade's
 * bytes are sent to every subscribed client as a text frame exactly as they arrived from
 * NATS (never parsed or re-serialised). Control messages always carry `type`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import { Counter, Gauge, type Registry } from 'prom-client';
import { PLANS, PLAN_IDS, cheapestPlanFor, isTradeSubject, type Logger, type NatsConnection, type PlanId } from '@tradewind/lib';
import type { Subscription } from '@nats-io/transport-node';
import { CredentialVerifier, maySubscribe, type VerifiedUser } from './domain/verifier.js';
import { CLOSE_CODES, WsProtocolError } from './domain/errors.js';
import type { ConnectionLimiter } from './domain/connection-limiter.js';
import type { RequestRateLimiter } from './domain/request-rate-limiter.js';
import type { WsFanoutConfig } from './config.js';

/** What createApp needs from the composition root. */
export interface WsFanoutDeps {
  logger: Logger;
  registry: Registry;
  /** Connection as the services' user: subscribes to TRADES subjects. */
  nc: NatsConnection;
  verifier: CredentialVerifier;
  limiter: ConnectionLimiter;
  /** Control requests per minute per user and plan, across processes. */
  rateLimiter: RequestRateLimiter;
}

/** The running service. */
export interface WsFanoutApp {
  start(): Promise<{ port: number }>;
  /** Closes every WebSocket with 1001, unsubscribes from NATS, frees connection slots. */
  stop(): Promise<void>;
  readonly clientCount: () => number;
}

interface Client {
  readonly id: string;
  readonly ws: WebSocket;
  readonly nonce: string;
  user: VerifiedUser | undefined;
  authenticating: boolean;
  readonly subjects: Set<string>;
  authTimer: NodeJS.Timeout | undefined;
}

/** Builds the service; nothing listens until `start()`. */
export function createApp(config: Pick<WsFanoutConfig, 'PORT' | 'HOST' | 'WS_MAX_FRAME_BYTES' | 'WS_AUTH_TIMEOUT_MS' | 'WS_MAX_BUFFERED_BYTES'>, deps: WsFanoutDeps): WsFanoutApp {
  const { logger, nc, verifier, limiter, rateLimiter } = deps;
  const metrics = {
    connections: new Gauge({ name: 'tradewind_ws_fanout_connections', help: 'Open WebSocket connections', registers: [deps.registry] }),
    authenticated: new Counter({ name: 'tradewind_ws_fanout_auth_total', help: 'Authentication attempts by result', labelNames: ['result'], registers: [deps.registry] }),
    refusals: new Counter({ name: 'tradewind_ws_fanout_refusals_total', help: 'Protocol refusals by error code', labelNames: ['code'], registers: [deps.registry] }),
    sent: new Counter({ name: 'tradewind_ws_fanout_messages_sent_total', help: 'Trade messages sent to clients', labelNames: ['subject'], registers: [deps.registry] }),
    sentBytes: new Counter({ name: 'tradewind_ws_fanout_sent_bytes_total', help: 'Trade message bytes sent to clients', registers: [deps.registry] }),
    slow: new Counter({ name: 'tradewind_ws_fanout_slow_consumer_disconnects_total', help: 'Clients disconnected by the slow-consumer policy', registers: [deps.registry] }),
  };

  const clients = new Set<Client>();
  const hubs = new Map<string, { sub: Subscription; clients: Set<Client> }>();

  const send = (client: Client, message: Record<string, unknown>) => {
    if (client.ws.readyState === client.ws.OPEN) client.ws.send(JSON.stringify(message));
  };

  const refuse = (client: Client, err: WsProtocolError) => {
    metrics.refusals.inc({ code: err.wsCode });
    send(client, { type: 'error', code: err.wsCode, message: err.message });
    if (err.close !== undefined) client.ws.close(err.close, err.wsCode);
  };

  const fanOut = (subject: string, data: Uint8Array) => {
    const hub = hubs.get(subject);
    if (!hub) return;
    for (const client of hub.clients) {
      if (client.ws.bufferedAmount > config.WS_MAX_BUFFERED_BYTES) {
        // Named policy: bounded buffer, then disconnect with a reason.
        metrics.slow.inc();
        hub.clients.delete(client);
        client.ws.close(CLOSE_CODES.slowConsumer, 'slow_consumer');
        continue;
      }
      client.ws.send(data, { binary: false });
      metrics.sent.inc({ subject });
      metrics.sentBytes.inc(data.byteLength);
    }
  };

  const joinHub = (client: Client, subject: string) => {
    let hub = hubs.get(subject);
    if (!hub) {
      const sub = nc.subscribe(subject, {
        callback: (err, msg) => {
          if (err) logger.error({ err, subject }, 'nats subscription error');
          else fanOut(subject, msg.data);
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
      const user = await verifier.verify(jwt, typeof seed === 'string' && seed !== ''
        ? { kind: 'seed', seed }
        : { kind: 'signature', nonce: client.nonce, signature: sig as string });
      const plan: PlanId = user.plan ?? 'starter';
      const limit = PLANS[plan].connections;
      if (!(await limiter.acquire(user.userKey, client.id, limit))) {
        const better = plan === 'pro' ? 'contact us for more' : 'the pro plan allows 5';
        throw new WsProtocolError('resource_exhausted', 'connection_limit',
          `connection limit reached: the ${plan} plan allows ${limit} concurrent connection${limit === 1 ? '' : 's'}; ${better}`, CLOSE_CODES.limit);
      }
      if (client.ws.readyState !== client.ws.OPEN) {
        await limiter.release(client.id);
        return;
      }
      try {
        await countRequest(user);
      } catch (err) {
        await limiter.release(client.id);
        throw err;
      }
      client.user = user;
      if (client.authTimer) clearTimeout(client.authTimer);
      metrics.authenticated.inc({ result: 'ok' });
      send(client, {
        type: 'authenticated',
        plan,
        subjects: [...PLANS[plan].subjects].filter((s) => maySubscribe(user, s)),
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
    const decision = await rateLimiter.take(user.userKey, plan.requestsPerMinute);
    if (decision.allowed) return;
    const higher = PLAN_IDS.map((id) => PLANS[id]).find((p) => p.requestsPerMinute > plan.requestsPerMinute);
    const raise = higher ? `the ${higher.name} plan allows ${higher.requestsPerMinute.toLocaleString('en-US')}` : 'contact us for a higher limit';
    throw new WsProtocolError('resource_exhausted', 'rate_limited',
      `control request limit reached: the ${plan.name} plan allows ${plan.requestsPerMinute.toLocaleString('en-US')} per minute; retry in ${Math.ceil(decision.retryAfterMs / 1000)} s or upgrade (${raise})`);
  };

  /** The client's verified user; a control request before authentication ends the connection. */
  const requireUser = (client: Client): VerifiedUser => {
    if (!client.user) throw new WsProtocolError('unauthenticated', 'not_authenticated', 'authenticate first: send {"jwt", "nkey"}', CLOSE_CODES.unauthenticated);
    return client.user;
  };

  const subscribe = (client: Client, subject: unknown) => {
    const user = requireUser(client);
    if (!isTradeSubject(subject)) {
      throw new WsProtocolError('invalid_argument', 'unknown_subject', `unknown subject ${JSON.stringify(subject)}; subjects are basic.pumpfun, basic.bonk, premium.pumpswap, premium.raydium`);
    }
    if (!maySubscribe(user, subject)) {
      const plan = cheapestPlanFor(subject);
      throw new WsProtocolError('permission_denied', 'subject_not_in_plan',
        `${subject} is not in your ${user.plan ?? 'current'} plan; it is included in the ${plan?.name ?? 'paid'} plan and above`);
    }
    if (!client.subjects.has(subject)) {
      client.subjects.add(subject);
      joinHub(client, subject);
    }
    send(client, { type: 'subscribed', subject });
  };

  const unsubscribe = (client: Client, subject: unknown) => {
    requireUser(client);
    if (typeof subject !== 'string' || !client.subjects.has(subject)) {
      throw new WsProtocolError('invalid_argument', 'bad_request', `not subscribed to ${JSON.stringify(subject)}`);
    }
    client.subjects.delete(subject);
    leaveHub(client, subject);
    send(client, { type: 'unsubscribed', subject });
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
      return subscribe(client, msg.subject);
    }
    if ('unsubscribe' in msg) {
      await countRequest(requireUser(client));
      return unsubscribe(client, msg.unsubscribe);
    }
    if (!client.user) {
      throw new WsProtocolError('invalid_argument', 'missing_fields', 'send {"jwt": "<user JWT>", "nkey": "<user NKey seed>"} first', CLOSE_CODES.badRequest);
    }
    throw new WsProtocolError('invalid_argument', 'bad_request', 'expected {"subject": "..."} or {"unsubscribe": "..."}');
  };

  let http: Server | undefined;
  let wss: WebSocketServer | undefined;

  return {
    clientCount: () => clients.size,
    async start() {
      http = createServer((_req, res) => {
        res.writeHead(426, { 'content-type': 'application/json' }).end('{"error":"upgrade_required","message":"connect with a WebSocket client"}');
      });
      wss = new WebSocketServer({ server: http, maxPayload: config.WS_MAX_FRAME_BYTES, perMessageDeflate: false });
      wss.on('connection', (ws) => {
        const client: Client = {
          id: randomUUID(), ws, nonce: randomBytes(24).toString('base64url'),
          user: undefined, authenticating: false, subjects: new Set(), authTimer: undefined,
        };
        clients.add(client);
        metrics.connections.inc();
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
          metrics.connections.dec();
          if (client.authTimer) clearTimeout(client.authTimer);
          for (const subject of client.subjects) leaveHub(client, subject);
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
      for (const client of clients) client.ws.close(1001, 'server shutting down');
      // Give clients a moment to answer the close handshake, then cut the rest.
      const deadline = Date.now() + 1000;
      while (clients.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const client of clients) client.ws.terminate();
      for (const hub of hubs.values()) hub.sub.unsubscribe();
      hubs.clear();
      await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
      await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
      await limiter.stop();
    },
  };
}
