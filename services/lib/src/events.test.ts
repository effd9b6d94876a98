import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import {
  CredentialsRotated, EVENT_SCHEMA_VERSIONS, EVENT_SUBJECTS, SubscriptionChanged, UserCreated,
  decodeEvent, encodeEvent, newEventMeta, type EventMeta, type EventSubject, type EventTypes,
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
    for (const [subject, bytes] of [['user.created', noMeta], ['credentials.rotated', emptyId]] as const) {
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
