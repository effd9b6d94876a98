/**
 * The transactional outbox and its relay against a real PostgreSQL (scratch database) and a
 * private nats-server: commit/rollback, order, a relay killed between publish and mark, NATS
 * outages and two relays on one schema.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Registry } from 'prom-client';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { createDb, migrate, sql, type Kysely } from '../src/db.js';
import { EVENTS_STREAM, decodeEvent, newEventMeta, type EventSubject, type EventTypes } from '@tradewind/contracts';
import { ensureEventsStreams } from '../src/events.js';
import { createLogger } from '../src/logger.js';
import { appendEvent, createOutboxRelay, outboxMigration, type OutboxDatabase, type OutboxRelayOptions } from '../src/outbox.js';
import { startNatsServer, type TestNatsServer } from '@tradewind/dev';
import { createTestDatabase, type TestDatabase } from '@tradewind/dev';

const SCHEMA = 'outbox_test';
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RELAY_PROCESS = fileURLToPath(new URL('./fixtures/relay-process.ts', import.meta.url));
const logger = createLogger({ service: 'outbox-test', level: 'silent' });

let nats: TestNatsServer;
let testDb: TestDatabase;
let db: Kysely<OutboxDatabase>;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;

beforeAll(async () => {
  [nats, testDb] = await Promise.all([startNatsServer(), createTestDatabase('outbox')]);
  db = createDb<OutboxDatabase>({ url: testDb.url, schema: SCHEMA });
  await migrate(db, SCHEMA, { '0001_outbox': outboxMigration });
  // Reconnect forever and quickly: one test stops the server and starts it again on the same port.
  nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
  js = jetstream(nc, { timeout: 1_000 });
  jsm = await jetstreamManager(nc);
  await ensureEventsStreams(jsm);
});

afterAll(async () => {
  await nc?.close();
  await db?.destroy();
  await testDb?.drop();
  await nats?.stop();
});

beforeEach(async () => {
  await jsm.streams.purge(EVENTS_STREAM);
  await sql`TRUNCATE outbox`.execute(db);
});

function relay(overrides: Partial<OutboxRelayOptions> = {}) {
  return createOutboxRelay({ db, js, schema: SCHEMA, logger, ...overrides });
}

const SUBJECTS: EventSubject[] = ['user.created', 'subscription.changed', 'credentials.rotated'];

function sampleEvent<S extends EventSubject>(subject: S): EventTypes[S] {
  const meta = newEventMeta(subject, 'outbox-test', randomUUID());
  const userId = randomUUID();
  const events: { [K in EventSubject]: EventTypes[K] } = {
    'user.created': {
      meta,
      userId,
      email: `${userId}@example.com`,
      name: 'Test',
      avatarUrl: '',
      plan: 'starter',
      billingPeriod: 'indefinite',
      identityProvider: 'local-oidc',
    },
    'subscription.changed': {
      meta,
      userId,
      plan: 'pro',
      previousPlan: 'starter',
      billingPeriod: 'monthly',
      subscriptionStatus: 'trialing',
      subscriptionType: 'trial',
      trialEndDate: new Date('2030-01-02T03:04:05.678Z'),
      stripeCustomerId: 'cus_1',
      stripeSubscriptionId: 'sub_1',
      previousBillingPeriod: 'indefinite',
      previousSubscriptionStatus: 'active',
      version: 1n,
      reason: 'checkout_completed',
      currentPeriodEnd: new Date('2030-02-02T03:04:05.678Z'),
      cancelAtPeriodEnd: false,
    },
    'credentials.rotated': { meta, userId, userPublicKey: 'UNEW', previousUserPublicKey: 'UOLD', accountPublicKey: 'AACC' },
    'payment.succeeded': {
      meta,
      userId,
      amount: 1500n,
      currency: 'usd',
      stripeInvoiceId: 'in_1',
      stripeEventId: 'evt_1',
      stripeCustomerId: 'cus_1',
      stripeSubscriptionId: 'sub_1',
      plan: 'plus',
      billingPeriod: 'monthly',
      hostedInvoiceUrl: '',
      billingReason: 'subscription_cycle',
    },
    'payment.failed': {
      meta,
      userId,
      amount: 1500n,
      currency: 'usd',
      stripeInvoiceId: 'in_1',
      stripeEventId: 'evt_2',
      stripeCustomerId: 'cus_1',
      stripeSubscriptionId: 'sub_1',
      plan: 'plus',
      billingPeriod: 'monthly',
      hostedInvoiceUrl: '',
      billingReason: 'subscription_cycle',
      attemptCount: 1,
      nextPaymentAttempt: undefined,
    },
    'connection.limited': { meta, userId, accountPublicKey: 'AACC', userPublicKey: 'UNEW', plan: 'starter', limit: 1, transport: 'websocket' },
    'usage.reported': {
      meta,
      transport: 'websocket',
      reporter: 'host/1',
      collectedAt: new Date(),
      customers: [{ limitKey: 'AACC', messages: 3n, bytes: 120n }],
    },
  };
  return events[subject];
}

/** Appends `count` events, each in its own committed transaction; returns their ids in order. */
async function appendCommitted(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const subject = SUBJECTS[i % SUBJECTS.length]!;
    const event = sampleEvent(subject);
    await db.transaction().execute((trx) => appendEvent(trx, subject, event));
    ids.push(event.meta!.eventId);
  }
  return ids;
}

/** Every message in EVENTS, in stream order. */
async function readStream() {
  const { state } = await jsm.streams.info(EVENTS_STREAM);
  const messages = [];
  for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq += 1) {
    const m = await jsm.streams.getMessage(EVENTS_STREAM, { seq });
    if (!m) throw new Error(`stream message ${seq} missing`);
    messages.push({
      seq: m.seq,
      subject: m.subject,
      msgId: m.header.get('Nats-Msg-Id'),
      eventId: m.header.get('Tradewind-Event-Id'),
      requestId: m.header.get('x-request-id'),
      data: m.data,
    });
  }
  return messages;
}

async function outboxRows() {
  return db.selectFrom('outbox').selectAll().orderBy('seq').execute();
}

async function metricValue(registry: Registry, name: string): Promise<number> {
  const metric = await registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => v.labels.schema === SCHEMA)?.value ?? 0;
}

/** Runs test/fixtures/relay-process.ts in a child process. */
function runRelayProcess(crashAfterPublishes: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', RELAY_PROCESS], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, DATABASE_URL: testDb.url, NATS_URL: nats.url, SCHEMA, CRASH_AFTER_PUBLISHES: String(crashAfterPublishes) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe('appendEvent + outbox relay', () => {
  it('when the appending transaction rolls back, then nothing is published; when it commits, then the event is published once with Nats-Msg-Id = event id and a payload that decodes to it', async () => {
    const rolledBack = sampleEvent('user.created');
    await expect(
      db.transaction().execute(async (trx) => {
        await appendEvent(trx, 'user.created', rolledBack);
        throw new Error('abort the producer transaction');
      }),
    ).rejects.toThrow('abort the producer transaction');
    const committed = sampleEvent('subscription.changed');
    await db.transaction().execute((trx) => appendEvent(trx, 'subscription.changed', committed, { 'x-request-id': 'req-42' }));

    const registry = new Registry();
    const r = relay({ registry });
    expect(await r.drain()).toBe(1);
    expect(await r.drain()).toBe(0);

    const id = committed.meta!.eventId;
    const stream = await readStream();
    expect(stream.map(({ subject, msgId, eventId, requestId }) => ({ subject, msgId, eventId, requestId }))).toEqual([
      { subject: 'subscription.changed', msgId: id, eventId: id, requestId: 'req-42' },
    ]);
    expect(decodeEvent('subscription.changed', stream[0]!.data)).toEqual(committed);
    const rows = await outboxRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id, stream_seq: String(stream[0]!.seq), attempts: 1, last_error: null });
    expect(rows[0]!.published_at).toBeInstanceOf(Date);
    expect(await metricValue(registry, 'tradewind_outbox_published_total')).toBe(1);
  });

  it('when an event has no meta.eventId, then appendEvent refuses it with invalid_argument', async () => {
    const event = { ...sampleEvent('user.created'), meta: undefined };
    await expect(appendEvent(db, 'user.created', event)).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(await outboxRows()).toEqual([]);
  });

  it('when 50 events are appended in sequence, then the stream stores them in the same order across several batches', async () => {
    const ids = await appendCommitted(50);
    expect(await relay({ batchSize: 7 }).drain()).toBe(50);
    const stream = await readStream();
    expect(stream.map((m) => m.msgId)).toEqual(ids);
    expect(stream.map((m) => m.subject)).toEqual(ids.map((_, i) => SUBJECTS[i % SUBJECTS.length]));
    const rows = await outboxRows();
    expect(rows.map((r) => Number(r.stream_seq))).toEqual(stream.map((m) => m.seq));
  });

  it('when a relay process is killed after publishing but before marking, then a new relay republishes those rows as duplicates: 20 stored exactly once, all marked', async () => {
    const ids = await appendCommitted(20);
    const crashAfter = 7;

    const crashed = await runRelayProcess(crashAfter);
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    // The crash window: published to the stream, yet the outbox still says unpublished.
    expect((await readStream()).map((m) => m.msgId)).toEqual(ids.slice(0, crashAfter));
    expect((await outboxRows()).filter((r) => r.published_at !== null)).toEqual([]);

    expect(await relay().drain()).toBe(20);

    const stream = await readStream();
    expect(stream).toHaveLength(20);
    expect(stream.map((m) => m.msgId)).toEqual(ids);
    const rows = await outboxRows();
    expect(rows.every((r) => r.published_at instanceof Date)).toBe(true);
    // stream_seq is null exactly when JetStream acked the publish as a duplicate.
    expect(rows.filter((r) => r.stream_seq === null).map((r) => r.id)).toEqual(ids.slice(0, crashAfter));
  });

  it('when a relay process runs without crashing, then it drains the outbox and exits 0', async () => {
    const ids = await appendCommitted(3);
    const result = await runRelayProcess(0);
    expect({ code: result.code, stdout: result.stdout.trim() }, result.stderr).toEqual({ code: 0, stdout: '{"drained":3}' });
    expect((await readStream()).map((m) => m.msgId)).toEqual(ids);
  });

  it('when NATS is down, then rows stay pending with attempts and last_error; when the server is back on the same port and store, then they are published in order', async () => {
    const registry = new Registry();
    const r = relay({ registry, pollIntervalMs: 50, retryDelayMs: 100 });
    const { port, storeDir } = nats;
    await nats.stop({ keepStore: true });
    let restarted = false;
    try {
      const ids = await appendCommitted(3);
      r.start();
      await vi.waitFor(
        async () => {
          const first = (await outboxRows())[0];
          expect(first?.attempts).toBeGreaterThanOrEqual(2);
          expect(first?.last_error).toEqual(expect.any(String));
        },
        { timeout: 10_000, interval: 100 },
      );
      const pending = await outboxRows();
      expect(pending.map((row) => row.published_at)).toEqual([null, null, null]);
      expect(await metricValue(registry, 'tradewind_outbox_publish_failures_total')).toBeGreaterThanOrEqual(2);
      expect(await metricValue(registry, 'tradewind_outbox_pending')).toBe(3);

      nats = await startNatsServer({ port, storeDir });
      restarted = true;
      await vi.waitFor(
        async () => {
          expect((await outboxRows()).every((row) => row.published_at !== null)).toBe(true);
        },
        { timeout: 15_000, interval: 100 },
      );
      expect((await readStream()).map((m) => m.msgId)).toEqual(ids);
      await vi.waitFor(async () => expect(await metricValue(registry, 'tradewind_outbox_pending')).toBe(0), { timeout: 2_000, interval: 50 });
    } finally {
      await r.stop();
      // Later tests need a server even when this one failed before restarting it.
      if (!restarted) {
        nats = await startNatsServer({ port, storeDir });
        await nc.flush();
      }
    }
  });

  it('when two relays drain the same schema at once, then each event is stored exactly once and in order', async () => {
    const ids = await appendCommitted(30);
    const otherDb = createDb<OutboxDatabase>({ url: testDb.url, schema: SCHEMA });
    try {
      const a = relay({ batchSize: 4 });
      const b = createOutboxRelay({ db: otherDb, js, schema: SCHEMA, logger, batchSize: 4 });
      const [byA, byB] = await Promise.all([a.drain(), b.drain()]);
      expect(byA + byB).toBe(30);
    } finally {
      await otherDb.destroy();
    }
    const stream = await readStream();
    expect(stream.map((m) => m.msgId)).toEqual(ids);
    // No row was published twice (a second publish of a row would be acked as duplicate: stream_seq null).
    expect((await outboxRows()).map((r) => Number(r.stream_seq))).toEqual(stream.map((m) => m.seq));
  });
});
