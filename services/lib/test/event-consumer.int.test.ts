/**
 * The EVENTS consumer helper against a real PostgreSQL (scratch database) and a private
 * nats-server: a `plans` projection fed through the outbox relay, idempotency by event id,
 * poison and failing events dead-lettered, rebuild from the stream, and restarts.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Registry } from 'prom-client';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { createDb, migrate, sql, type Kysely, type Migration, type Transaction } from '../src/db.js';
import { DEAD_LETTER_STREAM, EVENTS_STREAM, deadLetterSubject, encodeEvent, newEventMeta, type EventSubject, type EventTypes } from '@tradewind/contracts';
import { ensureEventsStreams } from '../src/events.js';
import {
  consumerMigration,
  createEventConsumer,
  type ConsumerTables,
  type EventConsumer,
  type EventConsumerOptions,
  type EventHandlers,
} from '../src/event-consumer.js';
import { createLogger } from '../src/logger.js';
import { appendEvent, createOutboxRelay, outboxMigration, type OutboxDatabase, type OutboxRelay } from '../src/outbox.js';
import { startNatsServer, type TestNatsServer } from '@tradewind/dev';
import { createTestDatabase, type TestDatabase } from '@tradewind/dev';

const SCHEMA = 'consumer_test';
const logger = createLogger({ service: 'event-consumer-test', level: 'silent' });
const GARBAGE = new Uint8Array([0xff, 0xff, 0xff]);

/** The test projection: a user's current plan and how many events were applied to the row. */
interface PlansTable {
  user_id: string;
  email: string;
  plan: string;
  changes: number;
}
interface TestDatabaseSchema extends OutboxDatabase, ConsumerTables {
  plans: PlansTable;
}

const plansMigration: Migration = {
  async up(db) {
    await sql`CREATE TABLE plans (user_id uuid PRIMARY KEY, email text NOT NULL, plan text NOT NULL, changes integer NOT NULL)`.execute(db);
  },
};

let nats: TestNatsServer;
let testDb: TestDatabase;
let db: Kysely<TestDatabaseSchema>;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
let relay: OutboxRelay;
/** One registry for the file, as one process has one registry. */
const registry = new Registry();
const running: EventConsumer[] = [];

beforeAll(async () => {
  [nats, testDb] = await Promise.all([startNatsServer(), createTestDatabase('event_consumer')]);
  db = createDb<TestDatabaseSchema>({ url: testDb.url, schema: SCHEMA });
  await migrate(db, SCHEMA, { '0001_outbox': outboxMigration, '0002_consumer': consumerMigration, '0003_plans': plansMigration });
  nc = await connect({ servers: nats.url });
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  await ensureEventsStreams(jsm);
  relay = createOutboxRelay({ db, js, schema: SCHEMA, logger });
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()));
});

afterAll(async () => {
  await nc?.close();
  await db?.destroy();
  await testDb?.drop();
  await nats?.stop();
});

beforeEach(async () => {
  await jsm.streams.purge(EVENTS_STREAM);
  await jsm.streams.purge(DEAD_LETTER_STREAM);
  await sql`TRUNCATE outbox, processed_events, projection_checkpoints, plans`.execute(db);
});

const userCreated = (userId = randomUUID(), plan = 'starter'): EventTypes['user.created'] => ({
  meta: newEventMeta('user.created', 'auth'),
  userId,
  email: `${userId}@example.com`,
  name: '',
  avatarUrl: '',
  plan,
  billingPeriod: 'indefinite',
  identityProvider: 'local-oidc',
});
const subscriptionChanged = (userId: string, plan: string, previousPlan: string): EventTypes['subscription.changed'] => ({
  meta: newEventMeta('subscription.changed', 'billing'),
  userId,
  plan,
  previousPlan,
  billingPeriod: 'monthly',
  subscriptionStatus: 'active',
  subscriptionType: 'paid',
  trialEndDate: undefined,
  stripeCustomerId: 'cus_1',
  stripeSubscriptionId: 'sub_1',
  previousBillingPeriod: 'indefinite',
  previousSubscriptionStatus: 'active',
  version: 1n,
  reason: 'checkout_completed',
  currentPeriodEnd: undefined,
  cancelAtPeriodEnd: false,
});
const credentialsRotated = (userId: string): EventTypes['credentials.rotated'] => ({
  meta: newEventMeta('credentials.rotated', 'auth'),
  userId,
  userPublicKey: 'UNEW',
  previousUserPublicKey: '',
  accountPublicKey: 'AACC',
});

/** Writes each event through the outbox in its own transaction and relays them to EVENTS. */
async function publish(...events: { [S in EventSubject]: [S, EventTypes[S]] }[EventSubject][]): Promise<void> {
  for (const [subject, event] of events) {
    await db.transaction().execute((trx) => appendEvent(trx, subject, event as never));
  }
  await relay.drain();
}

const plansHandlers: EventHandlers = {
  'user.created': async (e, { trx }) => {
    await (trx as Transaction<TestDatabaseSchema>)
      .insertInto('plans')
      .values({ user_id: e.userId, email: e.email, plan: e.plan, changes: 1 })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ changes: sql`plans.changes + 1` }))
      .execute();
  },
  'subscription.changed': async (e, { trx }) => {
    await (trx as Transaction<TestDatabaseSchema>)
      .updateTable('plans')
      .set({ plan: e.plan, changes: sql`changes + 1` })
      .where('user_id', '=', e.userId)
      .execute();
  },
};

async function resetPlans(trx: Transaction<any>): Promise<void> {
  await sql`TRUNCATE plans`.execute(trx);
}

async function startConsumer(name: string, overrides: Partial<EventConsumerOptions> = {}): Promise<EventConsumer> {
  const consumer = createEventConsumer({
    name,
    js,
    jsm,
    db,
    handlers: plansHandlers,
    logger,
    registry,
    resetProjection: resetPlans,
    nakDelayMs: 100,
    maxDeliver: 3,
    ...overrides,
  });
  await consumer.start();
  running.push(consumer);
  return consumer;
}

async function plans() {
  return db.selectFrom('plans').select(['user_id', 'plan', 'changes']).orderBy('user_id').execute();
}

async function processedIds(consumer: string): Promise<string[]> {
  const rows = await db.selectFrom('processed_events').select('event_id').where('consumer', '=', consumer).orderBy('stream_seq').execute();
  return rows.map((r) => r.event_id);
}

async function outcomes(consumer: string): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric('tradewind_events_consumed_total')?.get();
  const result: Record<string, number> = {};
  for (const v of metric?.values ?? []) if (v.labels.consumer === consumer) result[String(v.labels.outcome)] = v.value;
  return result;
}

/** `tradewind_events_consumer_pending_messages{consumer}`, undefined before the consumer's first delivery. */
async function pendingMessages(consumer: string): Promise<number | undefined> {
  const metric = await registry.getSingleMetric('tradewind_events_consumer_pending_messages')?.get();
  return metric?.values.find((v) => v.labels.consumer === consumer)?.value;
}

async function deadLetters(consumer: string) {
  const { state } = await jsm.streams.info(DEAD_LETTER_STREAM, { subjects_filter: deadLetterSubject(consumer) });
  const found = [];
  for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq += 1) {
    const m = await jsm.streams.getMessage(DEAD_LETTER_STREAM, { seq });
    if (m?.subject !== deadLetterSubject(consumer)) continue;
    found.push({
      data: m.data,
      reason: m.header.get('Tradewind-Dead-Letter-Reason'),
      subject: m.header.get('Tradewind-Original-Subject'),
      seq: Number(m.header.get('Tradewind-Original-Sequence')),
      eventId: m.header.get('Tradewind-Event-Id'),
    });
  }
  return found;
}

async function lastStreamSeq(): Promise<number> {
  return (await jsm.streams.info(EVENTS_STREAM)).state.last_seq;
}

const eventually = { timeout: 10_000, interval: 50 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('createEventConsumer', () => {
  it('when user.created then subscription.changed arrive through the outbox, then the plans projection, processed_events and the checkpoint follow; other subjects are skipped', async () => {
    const ada = randomUUID();
    const bob = randomUUID();
    const adaCreated = userCreated(ada);
    const adaRotated = credentialsRotated(ada);
    await publish(['user.created', adaCreated], ['credentials.rotated', adaRotated]);
    await startConsumer('plans');
    const adaUpgraded = subscriptionChanged(ada, 'pro', 'starter');
    const bobCreated = userCreated(bob);
    await publish(['subscription.changed', adaUpgraded], ['user.created', bobCreated]);

    const expected = [
      { user_id: ada, plan: 'pro', changes: 2 },
      { user_id: bob, plan: 'starter', changes: 1 },
    ].sort((a, b) => a.user_id.localeCompare(b.user_id));
    await vi.waitFor(async () => expect(await plans()).toEqual(expected), eventually);
    await vi.waitFor(async () => {
      expect(await processedIds('plans')).toEqual([adaCreated, adaUpgraded, bobCreated].map((e) => e.meta!.eventId));
      const checkpoint = await db.selectFrom('projection_checkpoints').select('last_stream_seq').where('consumer', '=', 'plans').executeTakeFirst();
      expect(checkpoint?.last_stream_seq).toBe(String(await lastStreamSeq()));
    }, eventually);
    expect(await outcomes('plans')).toMatchObject({ applied: 3 });
    expect(await deadLetters('plans')).toEqual([]);
  });

  it('when the same event is stored twice under different Nats-Msg-Ids, then it is applied once and the second is counted as a duplicate', async () => {
    const event = userCreated();
    const payload = encodeEvent('user.created', event);
    await js.publish('user.created', payload, { msgID: `${event.meta!.eventId}-a` });
    await js.publish('user.created', payload, { msgID: `${event.meta!.eventId}-b` });
    expect((await jsm.streams.info(EVENTS_STREAM)).state.messages).toBe(2);

    await startConsumer('dedupe');
    await vi.waitFor(async () => expect(await outcomes('dedupe')).toMatchObject({ applied: 1, duplicate: 1 }), eventually);
    expect(await plans()).toEqual([{ user_id: event.userId, plan: 'starter', changes: 1 }]);
    expect(await processedIds('dedupe')).toEqual([event.meta!.eventId]);
  });

  it('when garbage bytes are published to user.created, then each consumer dead-letters them with a reason, and later good events are still applied', async () => {
    const garbageAck = await js.publish('user.created', GARBAGE, { msgID: randomUUID() });
    const seen: string[] = [];
    await startConsumer('poison_a');
    await startConsumer('poison_b', {
      handlers: {
        'user.created': async (e) => {
          seen.push(e.meta!.eventId);
        },
      },
    });

    for (const name of ['poison_a', 'poison_b']) {
      await vi.waitFor(async () => expect(await deadLetters(name)).toHaveLength(1), eventually);
      const [letter] = await deadLetters(name);
      expect(letter).toMatchObject({ subject: 'user.created', seq: garbageAck.seq, reason: expect.stringMatching(/^poison: .*not a valid protobuf/) });
      expect(Buffer.from(letter!.data)).toEqual(Buffer.from(GARBAGE));
    }

    const good = userCreated();
    await publish(['user.created', good]);
    await vi.waitFor(async () => {
      expect(await plans()).toEqual([{ user_id: good.userId, plan: 'starter', changes: 1 }]);
      expect(seen).toEqual([good.meta!.eventId]);
    }, eventually);
    expect(await outcomes('poison_a')).toMatchObject({ dead_lettered: 1, applied: 1 });
    expect(await deadLetters('poison_a')).toHaveLength(1);
  });

  it('when a handler throws a plain Error once, then the event is redelivered after the nak and applied on the second delivery', async () => {
    const deliveries: number[] = [];
    await startConsumer('flaky', {
      handlers: {
        ...plansHandlers,
        'user.created': async (e, ctx) => {
          deliveries.push(ctx.deliveryCount);
          if (ctx.deliveryCount === 1) throw new Error('database hiccup');
          await plansHandlers['user.created']!(e, ctx);
        },
      },
    });
    const event = userCreated();
    await publish(['user.created', event]);

    await vi.waitFor(async () => expect(await plans()).toEqual([{ user_id: event.userId, plan: 'starter', changes: 1 }]), eventually);
    expect(deliveries).toEqual([1, 2]);
    expect(await outcomes('flaky')).toMatchObject({ retried: 1, applied: 1 });
    expect(await processedIds('flaky')).toEqual([event.meta!.eventId]);
    expect(await deadLetters('flaky')).toEqual([]);
  });

  it('when a handler always throws, then the event is dead-lettered after maxDeliver attempts and not redelivered again', async () => {
    const deliveries: number[] = [];
    await startConsumer('always_fails', {
      maxDeliver: 3,
      nakDelayMs: 50,
      handlers: {
        'subscription.changed': async (_e, ctx) => {
          deliveries.push(ctx.deliveryCount);
          throw new Error('downstream down');
        },
      },
    });
    const event = subscriptionChanged(randomUUID(), 'plus', 'starter');
    await publish(['subscription.changed', event]);

    await vi.waitFor(async () => expect(await deadLetters('always_fails')).toHaveLength(1), eventually);
    const [letter] = await deadLetters('always_fails');
    expect(letter).toMatchObject({ subject: 'subscription.changed', eventId: event.meta!.eventId, reason: 'failed 3 times: downstream down' });
    await sleep(500);
    expect(deliveries).toEqual([1, 2, 3]);
    expect(await outcomes('always_fails')).toMatchObject({ retried: 2, dead_lettered: 1 });
    expect(await processedIds('always_fails')).toEqual([]);
  });

  it('when the database is unreachable for more than maxDeliver attempts, then the event is retried until it comes back and is never dead-lettered', async () => {
    const deliveries: number[] = [];
    await startConsumer('outage', {
      maxDeliver: 2,
      nakDelayMs: 20,
      handlers: {
        ...plansHandlers,
        'user.created': async (e, ctx) => {
          deliveries.push(ctx.deliveryCount);
          // What pg raises when the server is gone (SQLSTATE 57P01 admin_shutdown).
          if (ctx.deliveryCount <= 4) throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
          await plansHandlers['user.created']!(e, ctx);
        },
      },
    });
    const event = userCreated();
    await publish(['user.created', event]);

    await vi.waitFor(async () => expect(await plans()).toEqual([{ user_id: event.userId, plan: 'starter', changes: 1 }]), eventually);
    expect(deliveries).toEqual([1, 2, 3, 4, 5]);
    expect(await deadLetters('outage')).toEqual([]);
  });

  it('when the projection is corrupted and rebuild() runs, then it equals the original, the applied count excludes poison and other subjects, and live consumption continues', async () => {
    const [ada, bob, cy] = [randomUUID(), randomUUID(), randomUUID()];
    const handled = [
      userCreated(ada),
      userCreated(bob),
      subscriptionChanged(ada, 'plus', 'starter'),
      userCreated(cy),
      subscriptionChanged(bob, 'pro', 'starter'),
    ];
    await publish(
      ['user.created', handled[0] as EventTypes['user.created']],
      ['user.created', handled[1] as EventTypes['user.created']],
      ['credentials.rotated', credentialsRotated(ada)],
    );
    await js.publish('user.created', GARBAGE, { msgID: randomUUID() });
    await publish(
      ['subscription.changed', handled[2] as EventTypes['subscription.changed']],
      ['user.created', handled[3] as EventTypes['user.created']],
      ['subscription.changed', handled[4] as EventTypes['subscription.changed']],
    );

    const rebuilding: boolean[] = [];
    const consumer = await startConsumer('rebuild', {
      handlers: {
        ...plansHandlers,
        'user.created': async (e, ctx) => {
          rebuilding.push(ctx.rebuilding);
          await plansHandlers['user.created']!(e, ctx);
        },
      },
    });
    await vi.waitFor(async () => expect(await processedIds('rebuild')).toHaveLength(5), eventually);
    const original = await plans();
    expect(original.map((p) => [p.user_id, p.plan])).toEqual(
      [
        [ada, 'plus'],
        [bob, 'pro'],
        [cy, 'starter'],
      ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
    );
    const checkpointBefore = await db
      .selectFrom('projection_checkpoints')
      .select('last_stream_seq')
      .where('consumer', '=', 'rebuild')
      .executeTakeFirstOrThrow();

    await db.deleteFrom('plans').where('user_id', '=', ada).execute();
    await db.updateTable('plans').set({ plan: 'corrupt', changes: 99 }).where('user_id', '=', bob).execute();
    await db.insertInto('plans').values({ user_id: randomUUID(), email: 'ghost@example.com', plan: 'pro', changes: 1 }).execute();
    await db.deleteFrom('processed_events').where('consumer', '=', 'rebuild').execute();

    expect(await consumer.rebuild()).toEqual({ applied: 5 });
    expect(await plans()).toEqual(original);
    expect(await processedIds('rebuild')).toEqual(handled.map((e) => e.meta!.eventId));
    expect(await db.selectFrom('projection_checkpoints').select('last_stream_seq').where('consumer', '=', 'rebuild').executeTakeFirstOrThrow()).toEqual(
      checkpointBefore,
    );
    expect(rebuilding).toEqual([false, false, false, true, true, true]);

    const dan = userCreated();
    await publish(['user.created', dan]);
    await vi.waitFor(async () => expect((await plans()).map((p) => p.user_id)).toContain(dan.userId), eventually);
    expect(rebuilding.at(-1)).toBe(false);
    expect(await processedIds('rebuild')).toHaveLength(6);
  });

  it('when rebuild() hits a failing handler, then it throws and the old projection stays', async () => {
    const event = userCreated();
    await publish(['user.created', event]);
    const consumer = await startConsumer('rebuild_fails');
    await vi.waitFor(async () => expect(await plans()).toHaveLength(1), eventually);
    const before = await plans();
    await consumer.stop();

    const failing = createEventConsumer({
      name: 'rebuild_fails',
      js,
      jsm,
      db,
      logger,
      registry,
      resetProjection: resetPlans,
      handlers: {
        'user.created': async () => {
          throw new Error('handler bug');
        },
      },
    });
    await expect(failing.rebuild()).rejects.toThrow('handler bug');
    expect(await plans()).toEqual(before);
    expect(await processedIds('rebuild_fails')).toEqual([event.meta!.eventId]);
  });

  it('when a consumer is stopped and a new one with the same name starts, then events it already acked are not delivered or applied again', async () => {
    const first = await startConsumer('restart', { ackWaitMs: 1_000 });
    const before = [userCreated(), userCreated(), userCreated()];
    await publish(...before.map((e) => ['user.created', e] as ['user.created', EventTypes['user.created']]));
    await vi.waitFor(async () => expect(await processedIds('restart')).toHaveLength(3), eventually);
    // Acks are asynchronous: wait until the server has recorded them before stopping.
    const last = await lastStreamSeq();
    await vi.waitFor(async () => expect((await jsm.consumers.info(EVENTS_STREAM, 'restart')).ack_floor.stream_seq).toBe(last), eventually);
    await first.stop();
    running.splice(running.indexOf(first), 1);

    const seen: string[] = [];
    await startConsumer('restart', {
      ackWaitMs: 1_000,
      handlers: {
        ...plansHandlers,
        'user.created': async (e, ctx) => {
          seen.push(e.meta!.eventId);
          await plansHandlers['user.created']!(e, ctx);
        },
      },
    });
    const after = userCreated();
    await publish(['user.created', after]);
    await vi.waitFor(() => expect(seen).toEqual([after.meta!.eventId]), eventually);
    // Longer than ack_wait: anything unacked by the first instance would be redelivered by now.
    await sleep(1_500);
    expect(seen).toEqual([after.meta!.eventId]);
    expect(await outcomes('restart')).toMatchObject({ applied: 4 });
    expect((await outcomes('restart')).duplicate ?? 0).toBe(0);
    expect((await plans()).map((p) => p.changes)).toEqual([1, 1, 1, 1]);
  });

  it('when a consumer starts behind a backlog, then its pending-messages gauge shows what is left after the message in hand, down to 0', async () => {
    const backlog = [userCreated(), userCreated(), userCreated(), userCreated()];
    await publish(...backlog.map((e) => ['user.created', e] as ['user.created', EventTypes['user.created']]));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await startConsumer('backlog', {
      // Only user.created: the consumer filters on it, so `pending` counts the backlog alone.
      handlers: {
        'user.created': async (e, ctx) => {
          if (e.meta!.eventId === backlog[0]!.meta!.eventId) await gate;
          await plansHandlers['user.created']!(e, ctx);
        },
      },
    });
    // The first message is held in its handler: three are still to be delivered.
    await vi.waitFor(async () => expect(await pendingMessages('backlog')).toBe(3), eventually);
    release();
    await vi.waitFor(async () => expect(await processedIds('backlog')).toHaveLength(4), eventually);
    expect(await pendingMessages('backlog')).toBe(0);
  });
});
