/**
 * Fuzzing billing's Stripe webhook endpoint (issue 24, helper A), in-process with the billing test
 * harness (services/billing/test/support.ts: real PostgreSQL, a private nats-server, the local
 * Stripe stand-in). Classes: bad signatures (random, stale, wrong secret, truncated, body swapped),
 * replayed deliveries, unknown event types, random JSON bodies with a valid signature, and real
 * subscription lives (checkout, optionally cancel + period end) delivered shuffled and duplicated.
 * Property: every answer is the documented one (docs/billing.md "Webhooks": 400 invalid_signature,
 * 200 {received, outcome}), never 5xx, the process stays healthy, and effects are idempotent: the
 * subscription.changed events of a user form one chain (versions 1..n, each previous = the last
 * new, no event without a change) ending at the state of the newest event.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import Stripe from 'stripe';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { encodeEvent, newEventMeta, type EventTypes } from '@tradewind/contracts';
import { type Harness, WEBHOOK_SECRET, startHarness } from '../../../services/billing/test/support.js';
import type { ReliabilityRow, ReliabilityScale } from '../report.js';

/** The outcomes docs/billing.md lists for an accepted event. */
export const WEBHOOK_OUTCOMES = new Set(['applied', 'unchanged', 'stale', 'ignored', 'unhandled', 'duplicate']);

/** Deliveries per class and scale; lives = real subscription lives delivered shuffled. */
export const WEBHOOK_SIZES: Record<ReliabilityScale, { signatures: number; replays: number; unknownTypes: number; randomBodies: number; lives: number }> = {
  test: { signatures: 40, replays: 10, unknownTypes: 20, randomBodies: 80, lives: 2 },
  full: { signatures: 1_500, replays: 500, unknownTypes: 800, randomBodies: 2_000, lives: 40 },
};

/** Counts of one class. */
export interface WebhookClassResult {
  tried: number;
  lost: number;
  duplicated: number;
  crashed: number;
  failures: string[];
}

const newResult = (): WebhookClassResult => ({ tried: 0, lost: 0, duplicated: 0, crashed: 0, failures: [] });
const fail = (r: WebhookClassResult, what: string) => {
  if (r.failures.length < 5) r.failures.push(what);
};

/** POSTs `body` to the webhook endpoint with `signature` (none when undefined). Network errors become status 0. */
async function post(h: Harness, body: string | Buffer, signature: string | undefined): Promise<{ status: number; json: Record<string, unknown> | undefined }> {
  try {
    const res = await fetch(`${h.baseUrl}/api/stripe/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', ...(signature === undefined ? {} : { 'stripe-signature': signature }) },
      body,
    });
    const text = await res.text();
    let json: Record<string, unknown> | undefined;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    return { status: res.status, json };
  } catch {
    return { status: 0, json: undefined };
  }
}

const sign = (payload: string, secret = WEBHOOK_SECRET, timestamp = Math.floor(Date.now() / 1000)) =>
  Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });

/** A well-formed event envelope of `type` with a fresh id. */
function envelope(type: string, object: unknown, id = `evt_fuzz_${randomUUID()}`): Record<string, unknown> {
  return { id, object: 'event', api_version: '2026-10-28.endive', type, created: Math.floor(Date.now() / 1000), livemode: false, data: { object } };
}

/** Rows in stripe_events. */
async function storedEvents(h: Harness): Promise<number> {
  const row = await h.db
    .selectFrom('stripe_events')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Bad signatures: each must get 400 invalid_signature and store nothing. */
export async function runBadSignatures(h: Harness, numRuns: number, seed: number): Promise<WebhookClassResult> {
  const r = newResult();
  const before = await storedEvents(h);
  // A future timestamp is not refused: Stripe's own verification (and docs/billing.md) only bounds the age.
  const kind = fc.constantFrom('random', 'stale', 'wrong-secret', 'truncated', 'other-body', 'missing', 'v0-only', 'empty');
  const cases = fc.sample(fc.tuple(kind, fc.string({ maxLength: 200 }), fc.nat({ max: 1000 })), { seed, numRuns });
  for (const [k, junk, n] of cases) {
    r.tried++;
    const payload = JSON.stringify(envelope('customer.subscription.deleted', { id: `sub_fuzz_${n}`, object: 'subscription' }));
    const good = sign(payload);
    const now = Math.floor(Date.now() / 1000);
    const header: string | undefined =
      k === 'random'
        ? junk
        : k === 'stale'
          ? sign(payload, WEBHOOK_SECRET, now - 301 - n)
          : k === 'wrong-secret'
            ? sign(payload, `whsec_${junk}x`)
            : k === 'truncated'
              ? good.slice(0, n % good.length)
              : k === 'other-body'
                ? good
                : k === 'missing'
                  ? undefined
                  : k === 'v0-only'
                    ? good.replace(/v1=/, 'v0=')
                    : '';
    const body = k === 'other-body' ? payload.replace('customer.subscription.deleted', 'customer.subscription.created') : payload;
    const res = await post(h, body, header);
    if (res.status !== 400 || res.json?.code !== 'invalid_signature') {
      r.crashed++;
      fail(r, `${k}: ${res.status} ${JSON.stringify(res.json)} header=${JSON.stringify(header)}`);
    }
  }
  const after = await storedEvents(h);
  if (after !== before) {
    r.duplicated += after - before;
    fail(r, `${after - before} events stored from bad signatures`);
  }
  return r;
}

/** Unknown event types with a valid signature: 200 unhandled, stored once. */
export async function runUnknownTypes(h: Harness, numRuns: number, seed: number): Promise<WebhookClassResult> {
  const r = newResult();
  const types = fc.oneof(fc.stringMatching(/^[a-z_]{1,12}(\.[a-z_]{1,12}){1,3}$/), fc.string({ minLength: 1, maxLength: 40 }));
  for (const type of fc.sample(types, { seed, numRuns })) {
    if (
      [
        'checkout.session.completed',
        'customer.subscription.created',
        'customer.subscription.updated',
        'customer.subscription.deleted',
        'invoice.paid',
        'invoice.payment_failed',
      ].includes(type)
    )
      continue;
    r.tried++;
    const payload = JSON.stringify(envelope(type, { id: 'obj_fuzz', object: 'thing' }));
    const res = await post(h, payload, sign(payload));
    if (res.status !== 200 || res.json?.outcome !== 'unhandled') {
      r.crashed++;
      fail(r, `type ${JSON.stringify(type)}: ${res.status} ${JSON.stringify(res.json)}`);
    }
  }
  return r;
}

/** Replays: an event delivered 2–4 times answers `duplicate` after the first and is stored once. */
export async function runReplays(h: Harness, numRuns: number, seed: number): Promise<WebhookClassResult> {
  const r = newResult();
  for (const [times, type] of fc.sample(
    fc.tuple(fc.integer({ min: 2, max: 4 }), fc.constantFrom('customer.tax_id.created', 'customer.subscription.updated', 'invoice.paid')),
    { seed, numRuns },
  )) {
    const object =
      type === 'customer.tax_id.created'
        ? { id: 'txi_fuzz', object: 'tax_id' }
        : type === 'invoice.paid'
          ? { id: `in_fuzz_${randomUUID()}`, object: 'invoice', customer: 'cus_not_ours', status: 'paid' }
          : {
              id: 'sub_fuzz',
              object: 'subscription',
              customer: 'cus_not_ours',
              status: 'active',
              created: 1,
              metadata: {},
              cancel_at_period_end: false,
              cancel_at: null,
              trial_end: null,
              items: { object: 'list', data: [] },
            };
    const event = envelope(type, object);
    const payload = JSON.stringify(event);
    const outcomes: unknown[] = [];
    for (let i = 0; i < times; i++) {
      r.tried++;
      // Stripe re-signs a redelivery with a new timestamp.
      const res = await post(h, payload, sign(payload, WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - i));
      if (res.status !== 200) {
        r.crashed++;
        fail(r, `replay ${i} of ${type}: ${res.status} ${JSON.stringify(res.json)}`);
      }
      outcomes.push(res.json?.outcome);
    }
    const dups = outcomes.slice(1).filter((o) => o !== 'duplicate').length;
    if (outcomes[0] === 'duplicate') {
      r.lost++;
      fail(r, `first delivery of ${String(event.id)} answered duplicate`);
    }
    if (dups > 0) {
      r.duplicated += dups;
      fail(r, `${String(event.id)} ${type}: outcomes ${JSON.stringify(outcomes)}`);
    }
    const stored = await h.db.selectFrom('stripe_events').select('id').where('id', '=', String(event.id)).execute();
    if (stored.length !== 1) {
      r.lost += stored.length === 0 ? 1 : 0;
      r.duplicated += Math.max(0, stored.length - 1);
      fail(r, `${String(event.id)} stored ${stored.length} times`);
    }
  }
  return r;
}

/** JSON values shaped like events, partly: random members, wrong types, missing data. */
const eventish = fc.oneof(
  fc.jsonValue(),
  fc.record(
    {
      id: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
      object: fc.oneof(fc.constant('event'), fc.string()),
      type: fc.oneof(
        fc.constantFrom(
          'checkout.session.completed',
          'customer.subscription.created',
          'customer.subscription.updated',
          'customer.subscription.deleted',
          'invoice.paid',
          'invoice.payment_failed',
        ),
        fc.string(),
      ),
      created: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null)),
      livemode: fc.oneof(fc.boolean(), fc.jsonValue()),
      data: fc.oneof(
        fc.jsonValue(),
        fc.record({
          object: fc.oneof(
            fc.jsonValue(),
            fc.dictionary(
              fc.constantFrom(
                'id',
                'object',
                'customer',
                'status',
                'created',
                'metadata',
                'items',
                'subscription',
                'cancel_at_period_end',
                'current_period_end',
                'client_reference_id',
                'mode',
                'lines',
              ),
              fc.jsonValue(),
            ),
          ),
        }),
      ),
    },
    { requiredKeys: [] },
  ),
);

const HANDLED: [string, string][] = [
  ['checkout.session.completed', 'checkout.session'],
  ['customer.subscription.created', 'subscription'],
  ['customer.subscription.updated', 'subscription'],
  ['customer.subscription.deleted', 'subscription'],
  ['invoice.paid', 'invoice'],
  ['invoice.payment_failed', 'invoice'],
];
const fieldValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom('cus_not_ours', 'sub_fuzz', 'active', 'canceled', 'subscription', 'payment'),
  fc.integer({ min: 0, max: 2 ** 32 }),
  fc.uuid(),
);
/** Envelopes of a handled type whose object has the right `object` and `id` but random members. */
const handledEvent = fc
  .tuple(
    fc.constantFrom(...HANDLED),
    fc.dictionary(
      fc.constantFrom(
        'customer',
        'status',
        'created',
        'metadata',
        'items',
        'subscription',
        'cancel_at_period_end',
        'cancel_at',
        'trial_end',
        'current_period_end',
        'client_reference_id',
        'mode',
        'lines',
        'parent',
        'billing_reason',
        'period_end',
      ),
      fieldValue,
    ),
  )
  .map(([[type, object], members]) =>
    envelope(type, { ...members, id: `${object === 'invoice' ? 'in' : object === 'subscription' ? 'sub' : 'cs'}_fuzz_${randomUUID()}`, object }),
  );

/** Random JSON bodies with a valid signature: 200 with a documented outcome or 400, never 5xx. */
export async function runRandomBodies(h: Harness, numRuns: number, seed: number): Promise<WebhookClassResult> {
  const r = newResult();
  for (const value of fc.sample(fc.oneof(eventish, handledEvent), { seed, numRuns })) {
    r.tried++;
    const payload = JSON.stringify(value) ?? 'null';
    const res = await post(h, payload, sign(payload));
    const ok = (res.status === 200 && WEBHOOK_OUTCOMES.has(String(res.json?.outcome))) || (res.status === 400 && typeof res.json?.code === 'string');
    if (!ok) {
      r.crashed++;
      fail(r, `${res.status} ${JSON.stringify(res.json)} <- body ${payload.slice(0, 300)}`);
    }
  }
  return r;
}

/**
 * A user known to auth and announced with user.created, once billing applied it (the harness's own
 * `newUser` waits with vitest's `vi.waitFor`, which only works inside vitest; `npm run fuzz` is not).
 * @throws Error when billing has not applied it within 10 s.
 */
async function newUser(h: Harness): Promise<{ userId: string; authorization: string }> {
  const userId = randomUUID();
  const email = `${userId.slice(0, 8)}@example.com`;
  const name = `Fuzz ${userId.slice(0, 4)}`;
  h.authUsers.set(userId, { email, name });
  const event: EventTypes['user.created'] = {
    meta: newEventMeta('user.created', 'auth'),
    userId,
    email,
    name,
    avatarUrl: '',
    plan: 'starter',
    billingPeriod: 'indefinite',
    identityProvider: 'local-oidc',
  };
  const hdr = natsHeaders();
  hdr.set('Nats-Msg-Id', event.meta?.eventId ?? randomUUID());
  await h.js.publish('user.created', encodeEvent('user.created', event), { headers: hdr });
  const deadline = Date.now() + 10_000;
  while (!(await h.db.selectFrom('subscriptions').select('user_id').where('user_id', '=', userId).executeTakeFirst())) {
    if (Date.now() > deadline) throw new Error(`user.created for ${userId} not applied by billing within 10 s`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return { userId, authorization: await h.tokenFor(userId, email) };
}

type Plan = { plan: string; billingPeriod: string; subscriptionStatus: string };
const samePlan = (a: Plan, b: Plan) => a.plan === b.plan && a.billingPeriod === b.billingPeriod && a.subscriptionStatus === b.subscriptionStatus;

/**
 * Real subscription lives: a user checks out (tier, period drawn), and in half of them cancels and
 * reaches the period end; the stand-in records the events without delivering them; they are then
 * delivered shuffled, each 1–3 times, and finally the stand-in's own (late) deliveries follow.
 * lost = final state differs from the newest event's, or a chain gap; duplicated = an event
 * without a change or a repeated version.
 */
export async function runSubscriptionLives(h: Harness, numRuns: number, seed: number): Promise<WebhookClassResult> {
  const r = newResult();
  const lives = fc.sample(
    fc.record({
      tier: fc.constantFrom('plus', 'pro'),
      period: fc.constantFrom('monthly', 'yearly'),
      cancel: fc.boolean(),
      order: fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
      copies: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 12, maxLength: 12 }),
    }),
    { seed, numRuns },
  );
  for (const [i, life] of lives.entries()) {
    const user = await newUser(h);
    const start = h.localStripe.events.length;
    h.localStripe.pauseWebhooks();
    try {
      const res = await h.post('/api/checkout-sessions', { tier: life.tier, period: life.period, userId: user.userId });
      const { url } = (await res.json()) as { url: string };
      const sessionId = new URL(url).pathname.split('/').pop() as string;
      const { subscriptionId } = await h.localStripe.completeCheckoutSession(sessionId);
      if (life.cancel) {
        await h.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true });
        await h.localStripe.advanceToPeriodEnd(subscriptionId);
      }
      const events = h.localStripe.events.slice(start);
      // Shuffle by the drawn keys, then deliver each event 1–3 times.
      const order = events.map((e, k) => ({ e, key: (life.order[k % 12] ?? 0) * 100 + k, copies: life.copies[k % 12] ?? 1 })).sort((a, b) => a.key - b.key);
      for (const { e, copies } of order) {
        for (let c = 0; c < copies; c++) {
          r.tried++;
          const payload = JSON.stringify(e);
          const answer = await post(h, payload, sign(payload));
          const expected =
            c === 0 ? WEBHOOK_OUTCOMES.has(String(answer.json?.outcome)) && answer.json?.outcome !== 'duplicate' : answer.json?.outcome === 'duplicate';
          if (answer.status !== 200) {
            r.crashed++;
            fail(r, `life ${i} ${e.type} copy ${c}: ${answer.status} ${JSON.stringify(answer.json)}`);
          } else if (!expected) {
            if (c === 0) r.lost++;
            else r.duplicated++;
            fail(r, `life ${i} ${e.type} (${e.id}) copy ${c}: outcome ${String(answer.json?.outcome)}`);
          }
        }
      }
    } finally {
      h.localStripe.resumeWebhooks();
    }
    await h.settle();
    const want: Plan = life.cancel
      ? { plan: 'starter', billingPeriod: 'indefinite', subscriptionStatus: 'active' }
      : { plan: life.tier, billingPeriod: life.period, subscriptionStatus: 'active' };
    const changes = await h.changes(user.userId);
    let prev: Plan = { plan: 'starter', billingPeriod: 'indefinite', subscriptionStatus: 'active' };
    changes.forEach((c, k) => {
      const previous = { plan: c.previousPlan, billingPeriod: c.previousBillingPeriod, subscriptionStatus: c.previousSubscriptionStatus };
      if (c.version !== BigInt(k + 1)) {
        r.duplicated++;
        fail(r, `life ${i}: change ${k} has version ${c.version}`);
      }
      if (!samePlan(previous, prev)) {
        r.lost++;
        fail(r, `life ${i}: change ${k} previous ${JSON.stringify(previous)} but last state ${JSON.stringify(prev)}`);
      }
      if (samePlan(c, previous)) {
        r.duplicated++;
        fail(r, `life ${i}: change ${k} changes nothing ${JSON.stringify(previous)}`);
      }
      prev = { plan: c.plan, billingPeriod: c.billingPeriod, subscriptionStatus: c.subscriptionStatus };
    });
    const state = (await (await h.get('/api/get-subscription', { authorization: user.authorization })).json()) as {
      tier: string;
      billing_period: string;
      status: string;
    };
    const final = { plan: state.tier, billingPeriod: state.billing_period, subscriptionStatus: state.status };
    if (!samePlan(final, want) || !samePlan(prev, want)) {
      r.lost++;
      fail(r, `life ${i} ${JSON.stringify(life)}: final ${JSON.stringify(final)}, last event ${JSON.stringify(prev)}, want ${JSON.stringify(want)}`);
    }
  }
  return r;
}

/** Whether billing still answers: the webhook route refuses an unsigned body with 400 and the subscription API answers 401. */
async function healthy(h: Harness): Promise<boolean> {
  const a = await post(h, '{}', undefined);
  const b = await h.get('/api/get-subscription').then(
    (res) => res.status,
    () => 0,
  );
  return a.status === 400 && b === 401;
}

/**
 * The webhook fuzz (`npm run fuzz`, and its 'test' size inside `npm test`): starts the billing
 * harness (scratch database, private NATS, local Stripe stand-in), runs every class at
 * WEBHOOK_SIZES[scale] from `seed`, stops everything, and returns one row per class. An unhandled
 * rejection while it runs counts as a crash of the class that was running. `crashed` also counts
 * 5xx / undocumented answers and a failed health check after the class. Never throws for what it
 * finds. @throws Error when the harness cannot start.
 */
export async function runStripeWebhookFuzz(scale: ReliabilityScale, seed: number): Promise<ReliabilityRow[]> {
  const size = WEBHOOK_SIZES[scale];
  const h = await startHarness('fuzz_stripe_webhooks');
  const rows: ReliabilityRow[] = [];
  let rejections = 0;
  const onRejection = (reason: unknown) => {
    rejections++;
    process.stderr.write(`stripe webhook fuzz: unhandled rejection ${String(reason)}\n`);
  };
  process.on('unhandledRejection', onRejection);
  try {
    const classes: [string, string, (s: number) => Promise<WebhookClassResult>][] = [
      [
        'stripe webhook: bad signatures (random, stale, wrong secret, truncated, other body, v0 only, missing)',
        'answer 400 invalid_signature, nothing stored',
        (s) => runBadSignatures(h, size.signatures, s),
      ],
      ['stripe webhook: replayed deliveries (same event 2–4 times)', '200, then duplicate; stored once', (s) => runReplays(h, size.replays, s)],
      ['stripe webhook: unknown event types', '200 unhandled', (s) => runUnknownTypes(h, size.unknownTypes, s)],
      [
        'stripe webhook: random JSON bodies with a valid signature',
        '200 + documented outcome or 400, never 5xx',
        (s) => runRandomBodies(h, size.randomBodies, s),
      ],
      [
        'stripe webhook: real subscription lives delivered shuffled and duplicated',
        'one subscription.changed per real change, final = newest event',
        (s) => runSubscriptionLives(h, size.lives, s),
      ],
    ];
    for (const [k, [name, property, run]] of classes.entries()) {
      const classSeed = seed + k;
      const before = rejections;
      let r: WebhookClassResult;
      try {
        r = await run(classSeed);
      } catch (e) {
        r = { ...newResult(), tried: 1, crashed: 1, failures: [`class threw: ${e instanceof Error ? e.stack : String(e)}`] };
      }
      const alive = await healthy(h);
      const crashed = r.crashed + (rejections - before) + (alive ? 0 : 1);
      for (const f of r.failures) process.stderr.write(`stripe webhook fuzz (seed ${classSeed}): ${f}\n`);
      rows.push({
        name,
        tried: r.tried,
        lost: r.lost,
        duplicated: r.duplicated,
        crashed,
        recoveryMs: null,
        notes: `seed ${classSeed}; property: ${property}; healthy after: ${alive}${r.failures.length ? `; first: ${r.failures[0]}` : ''}`,
      });
    }
  } finally {
    process.off('unhandledRejection', onRejection);
    await h.close();
  }
  return rows;
}
