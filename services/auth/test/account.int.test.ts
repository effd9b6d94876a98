/**
 * Issue 21 against the real auth app, PostgreSQL and JetStream: the editable profile name, the
 * notification bell filled from EVENTS, notification preferences and the newsletter sign-up.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { encodeEvent, newEventMeta, type EventSubject, type EventTypes } from '@tradewind/contracts';
import type { Session } from '@tradewind/contracts/session-client';
import type { UserJson } from '../src/index.js';
import { Browser, signIn, startHarness, type Harness } from './support.js';

/** Kept per user in this file (NOTIFICATIONS_MAX_PER_USER): small, so pruning is cheap to reach. */
const MAX_PER_USER = 6;
const NEWSLETTER_PER_MINUTE = 10;

let h: Harness;

beforeAll(async () => {
  h = await startHarness('auth_account', { NOTIFICATIONS_MAX_PER_USER: MAX_PER_USER, NEWSLETTER_RATE_LIMIT_PER_MINUTE: NEWSLETTER_PER_MINUTE });
});

afterAll(async () => {
  await h?.close();
});

const NO_SESSION = { status: 401, message: 'No active session' };

interface NotificationJson {
  id: string;
  kind: string;
  title: string;
  body: string;
  created_at: string;
  read_at: string | null;
  link: string | null;
}
interface NotificationsPage {
  notifications: NotificationJson[];
  unread: number;
}

/** Signs in through the local provider as `name` and exchanges the refresh cookie for a session. */
async function signedIn(email: string, name = `Name of ${email}`): Promise<Session<UserJson>> {
  const browser = new Browser();
  await signIn(h, browser, { email, name });
  const res = await browser.post(`${h.publicUrl}/auth/token`);
  expect(res.status).toBe(200);
  return (await res.json()) as Session<UserJson>;
}

/** A request to auth with the session's bearer token (none when `session` is undefined). */
async function call(
  method: string,
  path: string,
  session: Session<UserJson> | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${h.publicUrl}${path}`, {
    method,
    headers: {
      ...(session ? { authorization: `Bearer ${session.access_token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

async function page(session: Session<UserJson>, query = ''): Promise<NotificationsPage> {
  const res = await call('GET', `/auth/notifications${query}`, session);
  expect(res.status).toBe(200);
  return (await res.json()) as NotificationsPage;
}

/** Publishes `event` on EVENTS `copies` times without a Nats-Msg-Id, so the stream stores every copy and the consumer sees redeliveries of one event id. */
async function publish<S extends EventSubject>(subject: S, event: EventTypes[S], copies = 1): Promise<string> {
  const js = jetstream(h.nc);
  for (let i = 0; i < copies; i++) await js.publish(subject, encodeEvent(subject, event));
  return event.meta!.eventId;
}

/** Waits until the notifications consumer has handled the event `eventId`. */
async function handled(eventId: string): Promise<void> {
  await vi.waitFor(
    async () => {
      const row = await h.db
        .selectFrom('processed_events')
        .select('event_id')
        .where('consumer', '=', 'auth-notifications')
        .where('event_id', '=', eventId)
        .executeTakeFirst();
      if (!row) throw new Error(`event ${eventId} not handled yet`);
    },
    { timeout: 10_000, interval: 25 },
  );
}

async function consumed(outcome: string): Promise<number> {
  const metric = await h.registry.getSingleMetric('tradewind_events_consumed_total')?.get();
  return metric?.values.find((v) => v.labels.consumer === 'auth-notifications' && v.labels.outcome === outcome)?.value ?? 0;
}

const meta = <S extends EventSubject>(subject: S, occurredAt = new Date()) => ({ ...newEventMeta(subject, 'test'), occurredAt });

const planChange = (userId: string, over: Partial<EventTypes['subscription.changed']> = {}): EventTypes['subscription.changed'] => ({
  meta: meta('subscription.changed'),
  userId,
  plan: 'plus',
  previousPlan: 'starter',
  billingPeriod: 'monthly',
  previousBillingPeriod: 'indefinite',
  subscriptionStatus: 'active',
  previousSubscriptionStatus: 'active',
  subscriptionType: 'paid',
  trialEndDate: undefined,
  stripeCustomerId: 'cus_1',
  stripeSubscriptionId: 'sub_1',
  version: 1n,
  reason: 'checkout_completed',
  currentPeriodEnd: undefined,
  cancelAtPeriodEnd: false,
  ...over,
});

const paymentSucceeded = (userId: string, over: Partial<EventTypes['payment.succeeded']> = {}): EventTypes['payment.succeeded'] => ({
  meta: meta('payment.succeeded'),
  userId,
  amount: 1500n,
  currency: 'usd',
  stripeInvoiceId: 'in_1',
  stripeEventId: `evt_${randomUUID()}`,
  stripeCustomerId: 'cus_1',
  stripeSubscriptionId: 'sub_1',
  plan: 'plus',
  billingPeriod: 'monthly',
  hostedInvoiceUrl: '',
  billingReason: 'subscription_create',
  ...over,
});

const paymentFailed = (userId: string, over: Partial<EventTypes['payment.failed']> = {}): EventTypes['payment.failed'] => ({
  meta: meta('payment.failed'),
  userId,
  amount: 14400n,
  currency: 'usd',
  stripeInvoiceId: 'in_2',
  stripeEventId: `evt_${randomUUID()}`,
  stripeCustomerId: 'cus_1',
  stripeSubscriptionId: 'sub_1',
  plan: 'plus',
  billingPeriod: 'yearly',
  hostedInvoiceUrl: 'https://invoice.stripe.com/i/acct_1/test_2',
  billingReason: 'subscription_cycle',
  attemptCount: 1,
  nextPaymentAttempt: new Date('2026-03-04T00:00:00Z'),
  ...over,
});

const rotated = (userId: string, previous = 'UOLD'): EventTypes['credentials.rotated'] => ({
  meta: meta('credentials.rotated'),
  userId,
  userPublicKey: 'UNEW',
  previousUserPublicKey: previous,
  accountPublicKey: 'AACC',
});

const limited = (userId: string): EventTypes['connection.limited'] => ({
  meta: meta('connection.limited'),
  userId,
  accountPublicKey: 'AACC',
  userPublicKey: 'UUSER',
  plan: 'starter',
  limit: 1,
  transport: 'websocket',
});

describe('PATCH /auth/user (profile name)', () => {
  it('when a signed-in user saves a name, then it is trimmed, returned in the GET /auth/user shape and kept', async () => {
    const session = await signedIn('patch-ok@example.com');
    const res = await call('PATCH', '/auth/user', session, { name: '  Ada   Lovelace  ' });
    expect(res.status).toBe(200);
    const user = (await res.json()) as UserJson;
    expect(user).toEqual({ ...session.user, name: 'Ada   Lovelace' });
    const me = await call('GET', '/auth/user', session);
    expect(await me.json()).toEqual(user);
  });

  it('when the name is 100 characters (emoji count as one), then it is accepted', async () => {
    const session = await signedIn('patch-edge@example.com');
    const name = '😀'.repeat(100);
    const res = await call('PATCH', '/auth/user', session, { name });
    expect(res.status).toBe(200);
    expect(((await res.json()) as UserJson).name).toBe(name);
  });

  it.each([
    ['empty', { name: '' }],
    ['only spaces', { name: '   ' }],
    ['101 characters', { name: 'x'.repeat(101) }],
    ['not a string', { name: 42 }],
    ['missing', {}],
  ])('when the name is %s, then 400 invalid_argument "Name must be 1–100 characters" and nothing changes', async (_what, body) => {
    const session = await signedIn(`patch-bad-${randomUUID()}@example.com`, 'Kept Name');
    const res = await call('PATCH', '/auth/user', session, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ status: 400, code: 'invalid_argument', message: 'Name must be 1–100 characters' });
    expect(((await (await call('GET', '/auth/user', session)).json()) as UserJson).name).toBe('Kept Name');
  });

  it.each([
    ['another e-mail', { name: 'X', email: 'someone-else@example.com' }, /cannot be changed/],
    ['an unknown field', { name: 'X', avatar_url: 'https://evil.example/a.png' }, /Only the name can be changed/],
    ['a line break', { name: 'Ada\nLovelace' }, /control characters/],
    ['not an object', '["Ada"]', /JSON object/],
  ])('when the body has %s, then 400 invalid_argument with a clear message', async (_what, body, message) => {
    const session = await signedIn('patch-bad2@example.com');
    const res = await call('PATCH', '/auth/user', session, body);
    expect(res.status).toBe(400);
    const err = (await res.json()) as { status: number; code: string; message: string };
    expect(err).toMatchObject({ status: 400, code: 'invalid_argument' });
    expect(err.message).toMatch(message);
  });

  it('when the body repeats the current e-mail, then only the name changes', async () => {
    const session = await signedIn('patch-same@example.com');
    const res = await call('PATCH', '/auth/user', session, { name: 'Same Mail', email: 'Patch-Same@example.com' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: 'Same Mail', email: 'patch-same@example.com' });
  });

  it("when the user signs in again after saving a name, then the saved name wins over the provider's; without a saved name the provider's is taken", async () => {
    const edited = await signedIn('rename@example.com', 'Google Name');
    expect((await call('PATCH', '/auth/user', edited, { name: 'My Own Name' })).status).toBe(200);
    const again = await signedIn('rename@example.com', 'Google Name Changed');
    expect(again.user).toMatchObject({ id: edited.user.id, name: 'My Own Name' });

    const plain = await signedIn('follow@example.com', 'First Google Name');
    const later = await signedIn('follow@example.com', 'Second Google Name');
    expect(later.user).toMatchObject({ id: plain.user.id, name: 'Second Google Name' });
  });
});

describe('authentication of the account routes', () => {
  it.each([
    ['PATCH', '/auth/user', { name: 'X' }],
    ['GET', '/auth/notifications', undefined],
    ['POST', '/auth/notifications/read', { all: true }],
    ['GET', '/auth/notification-preferences', undefined],
    ['PUT', '/auth/notification-preferences', { plan_changes: true, payments: true, credentials: true, connection_limits: true }],
  ])('when %s %s comes without a valid token, then 401 {"status":401,"message":"No active session"}', async (method, path, body) => {
    const none = await call(method, path, undefined, body);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual(NO_SESSION);
    const forged = await call(method, path, undefined, body, { authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.e30.AAAA' });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toEqual(NO_SESSION);
  });
});

describe('notifications from EVENTS', () => {
  it('when each kind of event arrives twice, then exactly one notification per event, newest first, all unread', async () => {
    const session = await signedIn('bell@example.com');
    const userId = session.user.id;
    const duplicatesBefore = await consumed('duplicate');
    const t0 = Date.now() - 60_000;
    const ids = [
      await publish('subscription.changed', { ...planChange(userId), meta: meta('subscription.changed', new Date(t0)) }, 2),
      await publish('payment.succeeded', { ...paymentSucceeded(userId), meta: meta('payment.succeeded', new Date(t0 + 1000)) }, 2),
      await publish('payment.failed', { ...paymentFailed(userId), meta: meta('payment.failed', new Date(t0 + 2000)) }, 2),
      await publish('credentials.rotated', { ...rotated(userId), meta: meta('credentials.rotated', new Date(t0 + 3000)) }, 2),
      await publish('connection.limited', { ...limited(userId), meta: meta('connection.limited', new Date(t0 + 4000)) }, 2),
    ];
    for (const id of ids) await handled(id);
    await vi.waitFor(async () => expect(await consumed('duplicate')).toBeGreaterThanOrEqual(duplicatesBefore + 5), { timeout: 10_000, interval: 25 });
    const { notifications, unread } = await page(session);
    expect(unread).toBe(5);
    expect(notifications.map((n) => n.id)).toEqual([...ids].reverse());
    expect(notifications.map((n) => n.kind)).toEqual(['connection_limited', 'credentials_rotated', 'payment_failed', 'payment_succeeded', 'plan_changed']);
    const byKind = Object.fromEntries(notifications.map((n) => [n.kind, n]));
    expect(byKind.plan_changed).toMatchObject({
      title: 'Plan changed to Plus',
      body: 'Your plan changed from Starter (free) to Plus (billed monthly).',
      link: '/dashboard/plan',
      read_at: null,
      created_at: new Date(t0).toISOString(),
    });
    expect(byKind.payment_succeeded).toMatchObject({
      title: 'Payment received',
      body: 'We received $15.00 for your Plus (billed monthly) plan. Thank you.',
      link: '/dashboard/plan',
    });
    expect(byKind.payment_failed).toMatchObject({
      title: 'Payment failed',
      link: 'https://invoice.stripe.com/i/acct_1/test_2',
      body: 'We could not charge $144.00 for your Plus (billed yearly) plan. Update your card in the billing portal to keep your plan. The next attempt is on Mar 4, 2026.',
    });
    expect(byKind.credentials_rotated).toMatchObject({ title: 'Credentials rotated', link: '/dashboard/settings?tab=connection' });
    expect(byKind.connection_limited).toMatchObject({
      title: 'Connection limit reached',
      link: '/dashboard/plan',
      body: 'A WebSocket login was refused: your Starter plan allows 1 concurrent connection. Close another connection or upgrade: the Pro plan allows 5.',
    });
    expect(await h.db.selectFrom('notifications').select('id').where('user_id', '=', userId).execute()).toHaveLength(5);
  });

  it('when the consumer stores an event older than NOTIFICATIONS_UNREAD_MAX_AGE_MS (catching up on history), then it arrives already read; a recent one stays unread', async () => {
    const session = await signedIn('history@example.com');
    const userId = session.user.id;
    const old = await publish('subscription.changed', {
      ...planChange(userId),
      meta: meta('subscription.changed', new Date(Date.now() - 86_400_000 - 60_000)),
    });
    const recent = await publish('credentials.rotated', { ...rotated(userId), meta: meta('credentials.rotated', new Date(Date.now() - 86_400_000 + 60_000)) });
    for (const id of [old, recent]) await handled(id);
    const { notifications, unread } = await page(session);
    expect(unread).toBe(1);
    const byId = Object.fromEntries(notifications.map((n) => [n.id, n]));
    expect(byId[old]!.read_at).not.toBeNull();
    expect(byId[recent]!.read_at).toBeNull();
  });

  it('when a subscription change only moves the status, or an event names an unknown user, then no notification; the consumer carries on', async () => {
    const session = await signedIn('quiet@example.com');
    const statusOnly = await publish(
      'subscription.changed',
      planChange(session.user.id, { previousPlan: 'plus', previousBillingPeriod: 'monthly', subscriptionStatus: 'past_due', reason: 'payment_failed' }),
    );
    const stranger = await publish('payment.succeeded', paymentSucceeded(randomUUID()));
    const anonymous = await publish('connection.limited', { ...limited(''), userId: '' });
    const after = await publish('credentials.rotated', rotated(session.user.id, ''));
    for (const id of [statusOnly, stranger, anonymous, after]) await handled(id);
    const { notifications, unread } = await page(session);
    expect(notifications.map((n) => [n.kind, n.title])).toEqual([['credentials_rotated', 'Credentials issued']]);
    expect(unread).toBe(1);
    expect(await h.db.selectFrom('notifications').select('id').where('id', 'in', [statusOnly, stranger, anonymous]).execute()).toHaveLength(0);
  });

  it('when a plan is cancelled to its end, then the notification says the subscription ended', async () => {
    const session = await signedIn('ended@example.com');
    const id = await publish(
      'subscription.changed',
      planChange(session.user.id, {
        plan: 'starter',
        previousPlan: 'pro',
        billingPeriod: 'indefinite',
        previousBillingPeriod: 'yearly',
        subscriptionType: 'free',
        reason: 'subscription_ended',
      }),
    );
    await handled(id);
    expect((await page(session)).notifications[0]).toMatchObject({
      title: 'Plan changed to Starter',
      body: 'Your Pro subscription ended. You are now on the free Starter plan.',
    });
  });

  it(`when a user gets more than ${MAX_PER_USER} notifications, then only the newest ${MAX_PER_USER} are kept`, async () => {
    const session = await signedIn('prune@example.com');
    const t0 = Date.now() - 3_600_000;
    const ids: string[] = [];
    for (let i = 0; i < MAX_PER_USER + 3; i++) {
      ids.push(
        await publish('payment.succeeded', {
          ...paymentSucceeded(session.user.id, { amount: BigInt(100 + i) }),
          meta: meta('payment.succeeded', new Date(t0 + i * 1000)),
        }),
      );
    }
    for (const id of ids) await handled(id);
    const { notifications, unread } = await page(session, '?limit=100');
    expect(notifications.map((n) => n.id)).toEqual(ids.slice(-MAX_PER_USER).reverse());
    expect(unread).toBe(MAX_PER_USER);
    expect(await h.db.selectFrom('notifications').select('id').where('user_id', '=', session.user.id).execute()).toHaveLength(MAX_PER_USER);
  });

  it('when pages are read with limit and before, then they follow on without gaps or repeats; bad values answer 400', async () => {
    const session = await signedIn('pages@example.com');
    const t0 = Date.now() - 7_200_000;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(await publish('connection.limited', { ...limited(session.user.id), meta: meta('connection.limited', new Date(t0 + i * 1000)) }));
    for (const id of ids) await handled(id);
    const first = await page(session, '?limit=2');
    expect(first.notifications.map((n) => n.id)).toEqual([ids[4], ids[3]]);
    const second = await page(session, `?limit=2&before=${first.notifications[1]!.id}`);
    expect(second.notifications.map((n) => n.id)).toEqual([ids[2], ids[1]]);
    const third = await page(session, `?limit=2&before=${second.notifications[1]!.id}`);
    expect(third.notifications.map((n) => n.id)).toEqual([ids[0]]);
    expect(third.unread).toBe(5);
    expect((await page(session, `?before=${randomUUID()}`)).notifications).toEqual([]);
    expect((await page(session)).notifications).toHaveLength(5);
    for (const query of ['?limit=0', '?limit=101', '?limit=abc', '?limit=2.5', '?before=not-an-id']) {
      const res = await call('GET', `/auth/notifications${query}`, session);
      expect(res.status, query).toBe(400);
      expect(await res.json()).toMatchObject({ status: 400, code: 'invalid_argument' });
    }
  });

  it("when notifications are marked read by id, then only the caller's named ones change; foreign and unknown ids are ignored; all:true reads the rest", async () => {
    const mine = await signedIn('reader@example.com');
    const theirs = await signedIn('other-reader@example.com');
    const a = await publish('payment.succeeded', paymentSucceeded(mine.user.id));
    const b = await publish('payment.failed', paymentFailed(mine.user.id));
    const c = await publish('credentials.rotated', rotated(mine.user.id));
    const foreign = await publish('payment.succeeded', paymentSucceeded(theirs.user.id));
    for (const id of [a, b, c, foreign]) await handled(id);
    const res = await call('POST', '/auth/notifications/read', mine, { ids: [a, foreign, randomUUID(), 'nonsense'] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ unread: 2 });
    const listed = await page(mine);
    expect(listed.notifications.find((n) => n.id === a)!.read_at).not.toBeNull();
    expect(
      listed.notifications
        .filter((n) => n.read_at === null)
        .map((n) => n.id)
        .sort(),
    ).toEqual([b, c].sort());
    expect((await page(theirs)).unread).toBe(1);
    const readAt = listed.notifications.find((n) => n.id === a)!.read_at;
    const all = await call('POST', '/auth/notifications/read', mine, { all: true });
    expect(await all.json()).toEqual({ unread: 0 });
    const after = await page(mine);
    expect(after.notifications.every((n) => n.read_at !== null)).toBe(true);
    expect(after.notifications.find((n) => n.id === a)!.read_at).toBe(readAt);
    expect((await page(theirs)).unread).toBe(1);
  });

  it.each([
    ['no body', undefined],
    ['an array', '[1]'],
    ['ids that are not strings', { ids: [1, 2] }],
    ['ids not an array', { ids: 'abc' }],
    ['all false', { all: false }],
    ['ids and all', { ids: [], all: true }],
    ['an unknown key', { read: true }],
    ['too many ids', { ids: Array.from({ length: 201 }, () => randomUUID()) }],
  ])('when POST /auth/notifications/read has %s, then 400 invalid_argument', async (_what, body) => {
    const session = await signedIn('read-bad@example.com');
    const res = await call('POST', '/auth/notifications/read', session, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: 400, code: 'invalid_argument' });
  });
});

describe('notification preferences', () => {
  const ALL_ON = { plan_changes: true, payments: true, credentials: true, connection_limits: true };

  it('when a user never saved preferences, then every kind is on', async () => {
    const session = await signedIn('prefs-default@example.com');
    const res = await call('GET', '/auth/notification-preferences', session);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(ALL_ON);
  });

  it('when payments are switched off, then payment notifications leave the bell and the unread count, and come back (history kept) when switched on', async () => {
    const session = await signedIn('prefs@example.com');
    const pay = await publish('payment.succeeded', paymentSucceeded(session.user.id));
    const fail = await publish('payment.failed', paymentFailed(session.user.id));
    const limit = await publish('connection.limited', limited(session.user.id));
    for (const id of [pay, fail, limit]) await handled(id);
    const off = { ...ALL_ON, payments: false };
    const put = await call('PUT', '/auth/notification-preferences', session, off);
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual(off);
    expect(await (await call('GET', '/auth/notification-preferences', session)).json()).toEqual(off);
    const hidden = await page(session);
    expect(hidden.notifications.map((n) => n.id)).toEqual([limit]);
    expect(hidden.unread).toBe(1);
    // A payment arriving while hidden is still stored.
    const later = await publish('payment.succeeded', paymentSucceeded(session.user.id));
    await handled(later);
    expect((await page(session)).unread).toBe(1);
    expect(await (await call('PUT', '/auth/notification-preferences', session, ALL_ON)).json()).toEqual(ALL_ON);
    const shown = await page(session);
    expect(shown.notifications.map((n) => n.id).sort()).toEqual([pay, fail, limit, later].sort());
    expect(shown.unread).toBe(4);
  });

  it.each([
    ['a missing key', { plan_changes: true, payments: true, credentials: true }],
    ['a string instead of a boolean', { plan_changes: 'yes', payments: true, credentials: true, connection_limits: true }],
    ['an unknown key', { plan_changes: true, payments: true, credentials: true, connection_limits: true, marketing: true }],
    ['an array', '[true]'],
  ])('when PUT has %s, then 400 invalid_argument and nothing is stored', async (_what, body) => {
    const session = await signedIn('prefs-bad@example.com');
    const res = await call('PUT', '/auth/notification-preferences', session, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: 400, code: 'invalid_argument' });
    expect(await (await call('GET', '/auth/notification-preferences', session)).json()).toEqual(ALL_ON);
  });
});

describe('POST /api/newsletter', () => {
  /** A request from client address `ip` (the harness trusts X-Forwarded-For like the ingress). */
  const subscribe = (body: unknown, ip: string) => call('POST', '/api/newsletter', undefined, body, { 'x-forwarded-for': ip });

  it('when a new address signs up, then 201 with the normalised address, stored with its source and time; again (any case) 200 with the same body', async () => {
    const first = await subscribe({ email: '  Reader@Example.COM ' }, '203.0.113.1');
    expect(first.status).toBe(201);
    expect(await first.json()).toEqual({ subscribed: true, email: 'reader@example.com' });
    const again = await subscribe({ email: 'reader@example.com' }, '203.0.113.1');
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ subscribed: true, email: 'reader@example.com' });
    const rows = await h.db.selectFrom('newsletter_subscriptions').selectAll().where('email', '=', 'reader@example.com').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ source: 'blog' });
    expect(Date.now() - rows[0]!.created_at.getTime()).toBeLessThan(60_000);
  });

  it.each([
    ['no @', 'reader.example.com'],
    ['no domain dot', 'reader@localhost'],
    ['a space', 'rea der@example.com'],
    ['two @', 'a@b@example.com'],
    ['empty', ''],
    ['a number', 42],
    ['missing', undefined],
    ['255 characters', `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com`],
    ['a 65-character local part', `${'a'.repeat(65)}@example.com`],
  ])('when the address has %s, then 400 invalid_email "Enter a valid e-mail address."', async (_what, email) => {
    const res = await subscribe(email === undefined ? {} : { email }, '203.0.113.2');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ status: 400, code: 'invalid_email', message: 'Enter a valid e-mail address.' });
  });

  it('when the address is exactly 254 characters, then it is accepted', async () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(email).toHaveLength(254);
    expect((await subscribe({ email }, '203.0.113.3')).status).toBe(201);
  });

  it('when the body is not a JSON object or names an unknown source, then 400 invalid_argument', async () => {
    for (const body of ['"x"', '[1]', { email: 'ok@example.com', source: 'popup' }]) {
      const res = await subscribe(body, '203.0.113.4');
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ status: 400, code: 'invalid_argument' });
    }
  });

  it(`when one address sends more than ${NEWSLETTER_PER_MINUTE} requests in a minute, then 429 rate_limited with Retry-After; another address is not affected`, async () => {
    // Stay inside one fixed window: start early in a minute.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    for (let i = 0; i < NEWSLETTER_PER_MINUTE; i++) {
      expect((await subscribe({ email: `burst${i}@example.com` }, '198.51.100.7')).status).toBe(201);
    }
    const over = await subscribe({ email: 'burst-over@example.com' }, '198.51.100.7');
    expect(over.status).toBe(429);
    const body = (await over.json()) as { status: number; code: string; message: string };
    expect(body).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(await h.db.selectFrom('newsletter_subscriptions').select('email').where('email', '=', 'burst-over@example.com').executeTakeFirst()).toBeUndefined();
    expect((await subscribe({ email: 'burst-other@example.com' }, '198.51.100.8')).status).toBe(201);
    // Only a hash of the address is stored.
    const keys = await h.db.selectFrom('rate_limit_windows').select('key').execute();
    expect(keys.every((k) => /^[0-9a-f]{64}$/.test(k.key))).toBe(true);
  });
});
