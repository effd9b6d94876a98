import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import {
  CredentialsRotated,
  EVENT_SCHEMA_VERSIONS,
  EVENT_SUBJECTS,
  type SubscriptionChanged,
  UserCreated,
  decodeEvent,
  encodeEvent,
  newEventMeta,
  type EventMeta,
  type EventSubject,
  type EventTypes,
} from './events.js';
import { Timestamp } from './gen/google/protobuf/timestamp.js';

const meta = (eventId: string, occurredAt: Date): EventMeta => ({ eventId, occurredAt, schemaVersion: 1, producer: 'auth', requestId: 'req-1' });

/** One fully populated event per subject; dates chosen to hit ms precision, pre-1970 and year 9999. */
const samples: { [S in EventSubject]: EventTypes[S] } = {
  'user.created': {
    meta: meta('0b9f0d4e-6a55-4c0e-9a44-5b1f8d1f2c01', new Date('2026-03-04T05:06:07.089Z')),
    userId: '7d6c1f5a-0a3c-4c51-8a7e-0f2b6a3f9d10',
    email: 'ada@example.com',
    name: 'Ada Lovelace',
    avatarUrl: 'https://example.com/a.png',
    plan: 'starter',
    billingPeriod: 'indefinite',
    identityProvider: 'google',
  },
  'subscription.changed': {
    meta: meta('1c3e5a7b-9d2f-4b6a-8c1e-3f5a7b9d2f4b', new Date('1969-12-31T23:59:58.500Z')),
    userId: '7d6c1f5a-0a3c-4c51-8a7e-0f2b6a3f9d10',
    plan: 'pro',
    previousPlan: 'plus',
    billingPeriod: 'yearly',
    subscriptionStatus: 'trialing',
    subscriptionType: 'trial',
    trialEndDate: new Date('9999-12-31T23:59:59.999Z'),
    stripeCustomerId: 'cus_123',
    stripeSubscriptionId: 'sub_456',
    previousBillingPeriod: 'monthly',
    previousSubscriptionStatus: 'active',
    version: 18446744073709551615n,
    reason: 'plan_changed',
    currentPeriodEnd: new Date('2030-01-02T03:04:05.678Z'),
    cancelAtPeriodEnd: true,
  },
  'credentials.rotated': {
    meta: meta('2d4f6b8c-0e3a-4c7b-9d2f-4a6c8e0b2d4f', new Date(0)),
    userId: '7d6c1f5a-0a3c-4c51-8a7e-0f2b6a3f9d10',
    userPublicKey: 'UNEWKEY',
    previousUserPublicKey: 'UOLDKEY',
    accountPublicKey: 'AACCOUNT',
  },
  'payment.succeeded': {
    meta: meta('3e5a7c9d-1f4b-4d8c-ae3a-5b7d9f1c3e5a', new Date('2026-05-06T07:08:09.010Z')),
    userId: '7d6c1f5a-0a3c-4c51-8a7e-0f2b6a3f9d10',
    amount: 9_007_199_254_740_993n,
    currency: 'usd',
    stripeInvoiceId: 'in_123',
    stripeEventId: 'evt_123',
    stripeCustomerId: 'cus_123',
    stripeSubscriptionId: 'sub_456',
    plan: 'plus',
    billingPeriod: 'monthly',
    hostedInvoiceUrl: 'https://invoice.stripe.com/i/acct_1/test_1',
    billingReason: 'subscription_cycle',
  },
  'payment.failed': {
    meta: meta('4f6b8d0e-2a5c-4e9d-bf4b-6c8e0a2d4f6b', new Date('2026-05-06T07:08:09.011Z')),
    userId: '7d6c1f5a-0a3c-4c51-8a7e-0f2b6a3f9d10',
    amount: 1500n,
    currency: 'eur',
    stripeInvoiceId: 'in_124',
    stripeEventId: 'evt_124',
    stripeCustomerId: 'cus_123',
    stripeSubscriptionId: 'sub_456',
    plan: 'pro',
    billingPeriod: 'yearly',
    hostedInvoiceUrl: '',
    billingReason: 'subscription_create',
    attemptCount: 3,
    nextPaymentAttempt: new Date('2026-05-09T07:08:09.000Z'),
  },
  'connection.limited': {
    meta: meta('5a7c9e1f-3b6d-4f0e-8c5d-7d9f1b3e5a7c', new Date('2026-05-06T07:08:09.012Z')),
    userId: '7d6c1f5a-0a3c-4c51-8a7e-0f2b6a3f9d10',
    accountPublicKey: 'AACCOUNT',
    userPublicKey: 'UUSER',
    plan: 'starter',
    limit: 1,
    transport: 'websocket',
  },
  'usage.reported': {
    meta: meta('6b8d0f2a-4c7e-4a1f-9d6e-8e0a2c4f6b8d', new Date('2026-05-06T07:08:10.000Z')),
    transport: 'websocket',
    reporter: 'ws-fanout-0/42',
    collectedAt: new Date('2026-05-06T07:08:09.500Z'),
    customers: [
      { limitKey: 'AACCOUNT', messages: 12n, bytes: 3456n },
      { limitKey: 'UUSER', messages: 1n, bytes: 2n ** 53n + 1n },
    ],
  },
};

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('encodeEvent / decodeEvent', () => {
  it.each(EVENT_SUBJECTS.map((s) => [s]))('when a %s event is encoded and decoded, then every field, Dates included, comes back equal', (subject) => {
    const event = samples[subject];
    const bytes = encodeEvent(subject, event);
    expect(bytes).toBeInstanceOf(Uint8Array);
    const decoded = decodeEvent(subject, bytes);
    expect(decoded).toEqual(event);
    expect(decoded.meta?.occurredAt).toBeInstanceOf(Date);
    expect(decoded.meta?.occurredAt?.getTime()).toBe(event.meta?.occurredAt?.getTime());
  });

  it('when EVENT_SUBJECTS is read, then it names every subject of EventTypes once, each with schema version 1', () => {
    expect([...EVENT_SUBJECTS].sort()).toEqual(Object.keys(samples).sort());
    expect(new Set(EVENT_SUBJECTS).size).toBe(EVENT_SUBJECTS.length);
    for (const subject of EVENT_SUBJECTS) expect(EVENT_SCHEMA_VERSIONS[subject]).toBe(1);
  });

  it('when payment.failed has no next attempt, then it decodes as undefined; an int64 amount above 2^53 stays exact', () => {
    const event: EventTypes['payment.failed'] = { ...samples['payment.failed'], nextPaymentAttempt: undefined };
    expect(decodeEvent('payment.failed', encodeEvent('payment.failed', event)).nextPaymentAttempt).toBeUndefined();
    expect(decodeEvent('payment.succeeded', encodeEvent('payment.succeeded', samples['payment.succeeded'])).amount).toBe(9_007_199_254_740_993n);
  });

  it('when subscription.changed has no trial end, then it decodes as undefined rather than the epoch', () => {
    const event: SubscriptionChanged = { ...samples['subscription.changed'], trialEndDate: undefined };
    expect(decodeEvent('subscription.changed', encodeEvent('subscription.changed', event)).trialEndDate).toBeUndefined();
  });

  it('when a Timestamp beyond 2^32 seconds round-trips, then seconds is a bigint (forceLong=bigint) and exact', () => {
    const ts = { seconds: 253_402_300_799n, nanos: 999_000_000 };
    const back = Timestamp.decode(Timestamp.encode(ts).finish());
    expect(typeof back.seconds).toBe('bigint');
    expect(back).toEqual(ts);
  });

  it('when the subject is not an EVENTS subject, then decodeEvent throws AppError invalid_argument', () => {
    const bytes = encodeEvent('user.created', samples['user.created']);
    for (const subject of ['user.deleted', 'basic.pumpfun', '']) {
      const err = catchError(() => decodeEvent(subject, bytes));
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'invalid_argument', message: expect.stringContaining(`"${subject}"`) });
    }
  });

  it.each([
    ['truncated varint', [0xff, 0xff, 0xff]],
    ['length beyond the end', [0x0a, 0x05, 0x01]],
    ['wire type 7', [0x0f]],
  ])('when the payload is garbage (%s), then decodeEvent throws AppError invalid_argument with the cause', (_label, bytes) => {
    const err = catchError(() => decodeEvent('user.created', new Uint8Array(bytes)));
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('not a valid protobuf message') });
    expect((err as AppError).cause).toBeInstanceOf(Error);
  });

  it('when the event has no meta or an empty event id, then decodeEvent throws AppError invalid_argument', () => {
    const noMeta = UserCreated.encode({ ...samples['user.created'], meta: undefined }).finish();
    const emptyId = CredentialsRotated.encode({ ...samples['credentials.rotated'], meta: meta('', new Date()) }).finish();
    for (const [subject, bytes] of [
      ['user.created', noMeta],
      ['credentials.rotated', emptyId],
    ] as const) {
      const err = catchError(() => decodeEvent(subject, bytes));
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('no meta.event_id') });
    }
    // An empty payload is a valid (all-default) message, so it is caught by the same check.
    expect(catchError(() => decodeEvent('subscription.changed', new Uint8Array()))).toMatchObject({ code: 'invalid_argument' });
  });
});

describe('newEventMeta', () => {
  it('when called twice, then each envelope has a fresh UUID v4, now as occurredAt and the subject schema version', () => {
    const before = Date.now();
    const a = newEventMeta('subscription.changed', 'billing', 'req-9');
    const b = newEventMeta('subscription.changed', 'billing');
    expect(a.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b.eventId).not.toBe(a.eventId);
    expect(a.occurredAt!.getTime()).toBeGreaterThanOrEqual(before);
    expect(a.occurredAt!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(a).toMatchObject({ schemaVersion: EVENT_SCHEMA_VERSIONS['subscription.changed'], producer: 'billing', requestId: 'req-9' });
    expect(b.requestId).toBe('');
  });
});
