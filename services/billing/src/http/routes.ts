/**
 * billing's public HTTP API (reached through the ingress at PUBLIC_URL):
 *   POST /api/checkout-sessions      {tier, period, userId, cancelUrl, proration_date?} → {url}   (bearer optional; required, with the
 *                                    preview's proration_date, to change a live plan)
 *   POST /api/upgrade-preview        (bearer) {tier, period} → {kind, amount_due_cents, currency, lines, next_billing_date, proration_date}
 *   POST /api/create-portal-session  (bearer) → {url} of the billing portal
 *   GET  /api/get-subscription       (bearer) → {tier, billing_period, status, next_billing_date, ...}
 *   POST /api/stripe/webhook         Stripe events, verified by signature over the raw body
 * Every route, with its schemas, is declared in http/api.ts (the source of GET /api/openapi.json).
 * Errors are `{status, code, message}`; calls without a valid session answer exactly
 * 401 {"status":401,"message":"No active session"}.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Stripe from 'stripe';
import type { Counter } from 'prom-client';
import { AppError } from '@tradewind/contracts';
import { NO_ACTIVE_SESSION, type AccessTokenClaims } from '@tradewind/lib';
import { HANDLED_EVENT_TYPES, type BillingService } from '../service.js';
import type { StripeGateway } from '../stripe/gateway.js';
import { checkProrationDate } from '../domain/upgrade.js';

export interface RouteDeps {
  service: BillingService;
  stripe: StripeGateway;
  /** Verifies `Authorization: Bearer <access token>`. @throws AppError('unauthenticated'). */
  verify(authorization: string | undefined): Promise<AccessTokenClaims>;
  webhookBodyLimitBytes: number;
  webhooks: Counter<'type' | 'outcome'>;
}

function noSession(reply: FastifyReply): FastifyReply {
  return reply.status(401).send({ status: 401, message: NO_ACTIVE_SESSION });
}

const HANDLED: ReadonlySet<string> = new Set(HANDLED_EVENT_TYPES);

export function registerRoutes(app: FastifyInstance, deps: RouteDeps): void {
  /** The caller's claims, or undefined without a valid token. */
  async function caller(request: FastifyRequest): Promise<AccessTokenClaims | undefined> {
    try {
      return await deps.verify(request.headers.authorization);
    } catch (err) {
      if (err instanceof AppError && err.code === 'unauthenticated') return undefined;
      throw err;
    }
  }

  app.post<{ Body: Record<string, unknown> | undefined }>('/api/checkout-sessions', async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    const body = request.body;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new AppError('invalid_argument', 'Send a JSON object {tier, period, userId, cancelUrl, proration_date?}');
    // A token is optional for a first checkout (the spec's call carries userId), but a token
    // that is sent must be valid.
    const claims = request.headers.authorization ? await caller(request) : undefined;
    if (request.headers.authorization && !claims) return noSession(reply);
    // The shape of proration_date is checked for every checkout, as the schema (api.ts) states,
    // not only for a plan change; its age is checked later, against billing's clock.
    const prorationDate = body.proration_date;
    if (prorationDate !== undefined && prorationDate !== null)
      checkProrationDate(prorationDate, typeof prorationDate === 'number' ? prorationDate : 0, Number.POSITIVE_INFINITY);
    return deps.service.createCheckout({
      tier: body.tier,
      period: body.period,
      userId: body.userId,
      cancelUrl: body.cancelUrl,
      prorationDate: body.proration_date,
      caller: claims,
      requestId: request.id,
    });
  });

  app.post<{ Body: Record<string, unknown> | undefined }>('/api/upgrade-preview', async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    const claims = await caller(request);
    if (!claims) return noSession(reply);
    const body = request.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new AppError('invalid_argument', 'Send a JSON object {tier, period}');
    return deps.service.previewUpgrade({ tier: body.tier, period: body.period, userId: claims.userId, requestId: request.id });
  });

  app.post('/api/create-portal-session', async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    const claims = await caller(request);
    if (!claims) return noSession(reply);
    return deps.service.createPortal(claims.userId, request.id);
  });

  app.get('/api/get-subscription', async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    const claims = await caller(request);
    if (!claims) return noSession(reply);
    return deps.service.getSubscription(claims.userId);
  });

  // The signature covers the exact bytes Stripe sent, so this route keeps the raw body.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: deps.webhookBodyLimitBytes }, (_request, body, done) => done(null, body));
    scope.post('/api/stripe/webhook', async (request, reply) => {
      const signature = request.headers['stripe-signature'];
      const raw = request.body;
      if (typeof signature !== 'string' || !Buffer.isBuffer(raw)) {
        deps.webhooks.inc({ type: 'unknown', outcome: 'invalid_signature' });
        return reply.status(400).send({ status: 400, code: 'invalid_signature', message: 'Missing Stripe-Signature header or body' });
      }
      let event: Stripe.Event;
      try {
        event = deps.stripe.constructEvent(raw, signature);
      } catch (err) {
        deps.webhooks.inc({ type: 'unknown', outcome: 'invalid_signature' });
        request.log.warn({ err: { message: (err as Error).message }, request_id: request.id }, 'webhook signature rejected');
        const message = err instanceof Stripe.errors.StripeSignatureVerificationError ? err.message : 'The body is not a Stripe event';
        return reply.status(400).send({ status: 400, code: 'invalid_signature', message });
      }
      // A correctly signed body is still only processed when it has an event's shape (a fuzzed or
      // hand-made body would otherwise fail inside the transaction with a 500 and be retried forever).
      const shapeError = eventShapeError(event);
      if (shapeError) {
        deps.webhooks.inc({ type: 'unknown', outcome: 'invalid_signature' });
        request.log.warn({ reason: shapeError, request_id: request.id }, 'webhook body is not a Stripe event');
        return reply.status(400).send({ status: 400, code: 'invalid_signature', message: `The body is not a Stripe event: ${shapeError}` });
      }
      const { outcome, detail } = await deps.service.processEvent(event, request.id);
      deps.webhooks.inc({ type: HANDLED.has(event.type) ? event.type : 'other', outcome });
      request.log.info({ stripe_event: event.id, type: event.type, outcome, detail, request_id: request.id }, 'webhook event');
      return { received: true, outcome };
    });
  });
}

/** The `object` of each handled event type's `data.object`. */
const HANDLED_OBJECTS: Record<string, string> = {
  'checkout.session.completed': 'checkout.session',
  'customer.subscription.created': 'subscription',
  'customer.subscription.updated': 'subscription',
  'customer.subscription.deleted': 'subscription',
  'invoice.paid': 'invoice',
  'invoice.payment_failed': 'invoice',
};

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * Why a signature-verified body is not a Stripe event billing can store, or undefined when it is:
 * `id` and `type` non-empty strings, `created` an integer (s), `livemode` a boolean, `data.object`
 * an object, and for a handled type an object of that type with a string `id`.
 */
export function eventShapeError(event: unknown): string | undefined {
  if (!isRecord(event)) return 'not an object';
  if (typeof event.id !== 'string' || event.id === '' || event.id.length > 255) return 'id must be a non-empty string';
  if (typeof event.type !== 'string' || event.type === '' || event.type.length > 255) return 'type must be a non-empty string';
  if (typeof event.created !== 'number' || !Number.isSafeInteger(event.created)) return 'created must be an integer';
  if (typeof event.livemode !== 'boolean') return 'livemode must be a boolean';
  if (!isRecord(event.data) || !isRecord(event.data.object)) return 'data.object must be an object';
  // PostgreSQL text and jsonb cannot hold U+0000: such an event could never be stored.
  if (JSON.stringify(event).includes('\\u0000')) return 'contains U+0000';
  const expected = HANDLED_OBJECTS[event.type];
  if (expected !== undefined && (event.data.object.object !== expected || typeof event.data.object.id !== 'string'))
    return `data.object must be a ${expected} with an id`;
  return undefined;
}
