/**
 * The local Stripe stand-in's HTTP server (plain `node:http`): the Stripe v1 REST subset under
 * `/v1` for the official `stripe` client (`new Stripe(key, { host, port, protocol: 'http' })`),
 * the hosted Checkout and billing-portal pages, and signed webhook deliveries to one endpoint.
 *
 * API behaviour follows https://docs.stripe.com/api: `Authorization: Bearer <secret key>` (or
 * HTTP Basic with the key as user name), form-encoded parameters, JSON answers with `Request-Id`
 * and `Stripe-Version` headers, Stripe's error shape, and idempotency keys
 * (https://docs.stripe.com/api/idempotent_requests): a POST repeating a key with the same path
 * and parameters gets the stored answer (`Idempotent-Replayed: true`) without running again; the
 * same key with other parameters is an `idempotency_error`.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@tradewind/lib';
import type Stripe from 'stripe';
import { createApi, type ApiResponse } from './api.js';
import { StripeApiError } from './errors.js';
import { parseParams, type Params } from './form.js';
import { createHostedPages, type PageResponse } from './hosted.js';
import { messagePage } from './pages.js';
import { API_VERSION, LocalStripeState, randomId } from './state.js';
import { DEFAULT_WEBHOOK_RETRY_DELAYS_MS, WebhookQueue } from './webhooks.js';

/** Options of {@link startLocalStripe}. */
export interface LocalStripeOptions {
  /** TCP port for the API and the hosted pages; 0 = any free port. */
  port: number;
  /** Bind address, default '127.0.0.1'. */
  host?: string;
  /** Browser-facing origin of the hosted pages (e.g. http://localhost:8092); default http://<host>:<bound port>. */
  publicUrl?: string;
  /** The secret key clients must send as `Authorization: Bearer <key>` (stripe-node does this). */
  secretKey: string;
  /** Endpoint receiving events (POST, JSON body, `Stripe-Signature` header); undefined = events are only recorded. */
  webhookUrl?: string;
  /** Signing secret (`whsec_...`) of that endpoint. */
  webhookSecret: string;
  /** Delays between delivery attempts of one event, ms; default [1000, 5000, 30000] (then given up, logged). */
  webhookRetryDelaysMs?: number[];
  /** Wall clock in ms since the epoch; default Date.now. Used for `created` of every object/event. */
  now?: () => number;
  logger?: Logger;
}

/** A running stand-in. */
export interface LocalStripe {
  /** Base URL of the API, e.g. http://127.0.0.1:54321 (the client's host/port/protocol point here). */
  readonly apiUrl: string;
  readonly host: string;
  readonly port: number;
  /** Origin used in hosted page URLs. */
  readonly publicUrl: string;
  /** Every event created so far, oldest first (the exact objects delivered). */
  readonly events: readonly Stripe.Event[];
  /** Resolves once every event created so far was delivered with a 2xx or given up (while paused: see `pauseWebhooks`). */
  flushWebhooks(): Promise<void>;
  /** What the hosted checkout page's Pay button does: completes an open subscription-mode session with a successful test card. @returns the new subscription id and the success URL ({CHECKOUT_SESSION_ID} replaced). @throws Error for an unknown or non-open session. */
  completeCheckoutSession(sessionId: string): Promise<{ subscriptionId: string; successUrl: string }>;
  /** Test clock: moves the subscription to the end of its current period. If cancel_at_period_end → the subscription ends (status canceled, ended_at set, event customer.subscription.deleted). Otherwise it renews: a new period starts at the old period end; with paymentSucceeds (default true) invoice.paid + customer.subscription.updated (new period); else invoice.payment_failed + customer.subscription.updated with status past_due (the invoice stays open). */
  advanceToPeriodEnd(subscriptionId: string, options?: { paymentSucceeds?: boolean }): Promise<void>;
  /** Pays the subscription's open invoice (card updated): invoice.paid, and status past_due → active (customer.subscription.updated). */
  payOpenInvoice(subscriptionId: string): Promise<void>;
  /**
   * Holds webhook deliveries back: events are still created and recorded in `events`, and are
   * delivered (oldest first) after `resumeWebhooks()`. While paused, `flushWebhooks()` does not
   * wait for the held-back events.
   */
  pauseWebhooks(): void;
  /** Ends `pauseWebhooks()`: held-back events are delivered, then new ones as they come. */
  resumeWebhooks(): void;
  /** Closes the server and its connections and stops retry timers (pending deliveries are dropped). */
  stop(): Promise<void>;
}

/** Request bodies above this are refused: Stripe's own parameters are a few KB at most. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Idempotent answers kept (oldest dropped first); Stripe keeps them 24 h, a dev process needs far fewer. */
const MAX_IDEMPOTENT_RESULTS = 10_000;
/** Pages only load their own inline CSS; forms post to this origin. */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
} as const;

interface IdempotentResult {
  method: string;
  path: string;
  params: string;
  status: number;
  body: string;
}

/**
 * Starts the stand-in and seeds its catalogue (one Product per paid plan, four recurring Prices
 * with lookup keys `tradewind_<tier>_<period>`).
 * @throws Error for empty keys or bad retry delays; the listen error (e.g. EADDRINUSE) when the port is taken.
 */
export async function startLocalStripe(options: LocalStripeOptions): Promise<LocalStripe> {
  if (options.secretKey === '') throw new Error('local stripe: secretKey must not be empty');
  if (options.webhookSecret === '') throw new Error('local stripe: webhookSecret must not be empty');
  const retryDelaysMs = options.webhookRetryDelaysMs ?? DEFAULT_WEBHOOK_RETRY_DELAYS_MS;
  if (retryDelaysMs.some((d) => !Number.isFinite(d) || d < 0)) throw new Error('local stripe: webhookRetryDelaysMs must be non-negative numbers');
  if (options.webhookUrl !== undefined) new URL(options.webhookUrl);
  const logger = options.logger;
  const host = options.host ?? '127.0.0.1';
  const queue = new WebhookQueue({ url: options.webhookUrl, secret: options.webhookSecret, retryDelaysMs, logger });
  const idempotent = new Map<string, IdempotentResult>();
  let handlers: { api: ReturnType<typeof createApi>; pages: ReturnType<typeof createHostedPages> } | undefined;
  let warnedVersion = false;

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, requestId: string): Promise<void> {
    const method = req.method ?? 'GET';
    const idempotencyKey = method === 'POST' ? headerValue(req, 'idempotency-key') : undefined;
    const baseHeaders: Record<string, string> = { 'request-id': requestId, 'stripe-version': API_VERSION };
    if (idempotencyKey !== undefined) baseHeaders['idempotency-key'] = idempotencyKey;
    const auth = authenticate(req.headers.authorization, options.secretKey);
    if (auth !== undefined) {
      sendJson(res, 401, JSON.stringify({ error: { type: 'invalid_request_error', message: auth } }, null, 2), {
        ...baseHeaders,
        'www-authenticate': 'Basic realm="Stripe"',
      });
      return;
    }
    const version = headerValue(req, 'stripe-version');
    if (version !== undefined && version !== API_VERSION && !warnedVersion) {
      warnedVersion = true;
      logger?.warn({ requested: version, served: API_VERSION }, "local stripe: client asked for another API version; objects keep the served version's shape");
    }
    const text = await readBody(req, MAX_BODY_BYTES);
    if (text === undefined) {
      sendJson(res, 400, JSON.stringify(new StripeApiError(400, 'Request body too large.').toBody(), null, 2), baseHeaders);
      return;
    }
    const params: Params = { ...parseParams(url.search.slice(1)), ...parseParams(text) };
    const canonical = JSON.stringify(params);
    if (idempotencyKey !== undefined) {
      const stored = idempotent.get(idempotencyKey);
      if (stored !== undefined) {
        if (stored.method !== method || stored.path !== url.pathname || stored.params !== canonical) {
          const error = new StripeApiError(
            400,
            `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            { type: 'idempotency_error' },
          );
          sendJson(res, 400, JSON.stringify(error.toBody(), null, 2), baseHeaders);
          return;
        }
        sendJson(res, stored.status, stored.body, { ...baseHeaders, 'idempotent-replayed': 'true' });
        logger?.debug({ method, path: url.pathname, status: stored.status, requestId }, 'local stripe: idempotent replay');
        return;
      }
    }
    let answer: ApiResponse;
    try {
      if (!handlers) throw new Error('local stripe: not started');
      answer = handlers.api({ method, path: url.pathname, params, request: { id: requestId, idempotencyKey: idempotencyKey ?? null } });
    } catch (err) {
      if (err instanceof StripeApiError) {
        answer = { status: err.status, body: err.toBody() };
      } else {
        logger?.error({ err, method, path: url.pathname, requestId }, 'local stripe: request failed');
        answer = { status: 500, body: new StripeApiError(500, 'An unknown error occurred in the local Stripe stand-in.', { type: 'api_error' }).toBody() };
      }
    }
    const body = JSON.stringify(answer.body, null, 2);
    // Server errors are not stored, so a retry with the same key runs again (as at Stripe).
    if (idempotencyKey !== undefined && answer.status < 500) {
      if (idempotent.size >= MAX_IDEMPOTENT_RESULTS) {
        const oldest = idempotent.keys().next().value;
        if (oldest !== undefined) idempotent.delete(oldest);
      }
      idempotent.set(idempotencyKey, { method, path: url.pathname, params: canonical, status: answer.status, body });
    }
    sendJson(res, answer.status, body, baseHeaders);
    logger?.debug({ method, path: url.pathname, status: answer.status, requestId }, 'local stripe: api request');
  }

  async function handlePage(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    const text = method === 'POST' ? await readBody(req, 64 * 1024) : '';
    if (text === undefined) {
      sendPage(res, { status: 413, html: messagePage('Local Stripe stand-in — no real payment', 'Request too large', 'The form was too large.') });
      return;
    }
    let answer: PageResponse | undefined;
    try {
      if (!handlers) throw new Error('local stripe: not started');
      answer = handlers.pages(method, url.pathname, url.searchParams, parseParams(text));
    } catch (err) {
      if (err instanceof StripeApiError) {
        answer = { status: err.status, html: messagePage('Local Stripe stand-in — no real payment', 'That did not work', err.message) };
      } else {
        logger?.error({ err, method, path: url.pathname }, 'local stripe: page failed');
        answer = {
          status: 500,
          html: messagePage('Local Stripe stand-in — no real payment', 'Something went wrong', 'The local Stripe stand-in failed; see its log.'),
        };
      }
    }
    sendPage(
      res,
      answer ?? { status: 404, html: messagePage('Local Stripe stand-in — no real payment', 'Page not found', 'There is no page at this address.') },
    );
  }

  const server = createServer((req, res) => {
    const requestId = randomId('req_', 14);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://local');
      // Path segments are decoded by the routers; a malformed escape is the client's error.
      decodeURIComponent(url.pathname);
    } catch {
      sendJson(res, 400, JSON.stringify(new StripeApiError(400, 'Invalid request URL.').toBody(), null, 2), { 'request-id': requestId });
      return;
    }
    const work = url.pathname === '/v1' || url.pathname.startsWith('/v1/') ? handleApi(req, res, url, requestId) : handlePage(req, res, url);
    work.catch((err: unknown) => {
      logger?.error({ err }, 'local stripe: request handling failed');
      if (!res.headersSent) sendJson(res, 500, JSON.stringify(new StripeApiError(500, 'An unknown error occurred.', { type: 'api_error' }).toBody()), {});
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => logger?.error({ err }, 'local stripe: server error'));
  const port = (server.address() as AddressInfo).port;
  const apiUrl = `http://${urlHost(host, '127.0.0.1')}:${port}`;
  const publicUrl = (options.publicUrl ?? `http://${urlHost(host, 'localhost')}:${port}`).replace(/\/+$/, '');
  const state = new LocalStripeState({
    now: options.now ?? Date.now,
    publicUrl,
    onEvent: (event, payload) => queue.enqueue(event, payload),
  });
  handlers = { api: createApi(state, logger), pages: createHostedPages(state, logger) };
  logger?.info({ apiUrl, publicUrl, webhooks: options.webhookUrl !== undefined }, 'local stripe: listening (test mode, no real payments)');

  let stopping: Promise<void> | undefined;
  return {
    apiUrl,
    host,
    port,
    publicUrl,
    get events() {
      return state.events;
    },
    flushWebhooks: () => queue.flush(),
    completeCheckoutSession: async (sessionId) => state.completeCheckoutSession(sessionId),
    advanceToPeriodEnd: async (subscriptionId, opts) => state.advanceToPeriodEnd(subscriptionId, opts),
    payOpenInvoice: async (subscriptionId) => state.payOpenInvoice(subscriptionId),
    pauseWebhooks: () => queue.pause(),
    resumeWebhooks: () => queue.resume(),
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        queue.stop();
        server.close(() => resolve());
        // Keep-alive sockets (stripe-node's agent) would otherwise hold close() open.
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}

/** Host as written in a URL: unspecified bind addresses become `fallback`, IPv6 gets brackets. */
function urlHost(host: string, fallback: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return fallback;
  return host.includes(':') ? `[${host}]` : host;
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

/**
 * Checks `Authorization` against the secret key.
 * @returns undefined when it matches, else Stripe's 401 message (the key is masked as Stripe does:
 *   its `sk_test_` prefix and last four characters).
 */
function authenticate(header: string | undefined, secretKey: string): string | undefined {
  let key: string | undefined;
  if (header !== undefined) {
    const [scheme, value = ''] = header.split(/\s+/, 2);
    if (scheme?.toLowerCase() === 'bearer') key = value;
    // curl -u sk_test_...: — Stripe accepts the key as the Basic user name.
    else if (scheme?.toLowerCase() === 'basic') key = Buffer.from(value, 'base64').toString('utf8').split(':')[0];
  }
  if (key === undefined || key === '') {
    return "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.";
  }
  const given = Buffer.from(key);
  const expected = Buffer.from(secretKey);
  if (given.length === expected.length && timingSafeEqual(given, expected)) return undefined;
  const prefix = /^[a-z]{2}_(?:test|live)_/.exec(key)?.[0] ?? '';
  const tail = key.length > prefix.length + 8 ? key.slice(-4) : '';
  return `Invalid API Key provided: ${prefix}${'*'.repeat(Math.max(3, key.length - prefix.length - tail.length))}${tail}`;
}

/** Reads the whole body as UTF-8; undefined when it exceeds `limit` bytes (the rest is discarded). */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string>): void {
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-cache, no-store',
  });
  res.end(body);
}

function sendPage(res: ServerResponse, answer: PageResponse): void {
  if ('location' in answer) {
    res.writeHead(303, { location: answer.location, 'cache-control': 'no-store', 'content-length': 0 });
    res.end();
    return;
  }
  res.writeHead(answer.status, { ...PAGE_HEADERS, 'content-length': Buffer.byteLength(answer.html) });
  res.end(answer.html);
}
