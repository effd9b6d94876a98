/**
 * Fault 3 of the edge chaos runs: PostgreSQL stopped and restarted under auth and billing (both
 * in-process, real apps, on a private embedded PostgreSQL and a private nats-server).
 *
 * Policy (docs/reliability.md): while the database is down, every request that needs it is
 * answered at once `503 {"status":503,"code":"unavailable","message":"the database is unavailable
 * right now; try again shortly"}` — never 500, never held past ANSWER_DEADLINE_MS; Stripe retries
 * a webhook answered 503, and the retry after recovery is applied exactly once; outbox rows
 * committed before the outage are published after it, in order, once each; events consumed during
 * the outage are redelivered and applied. Nothing is restarted.
 */
import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import Stripe from 'stripe';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { EVENTS_STREAM, newEventMeta, type EventTypes } from '@tradewind/contracts';
import {
  appendEvent,
  createDb,
  createLogger,
  createOutboxRelay,
  ensureEventsStreams,
  migrate,
  outboxMigration,
  type Kysely,
  type OutboxDatabase,
} from '@tradewind/lib';
import { freePort, startLocalOidcProvider, startLocalStripe, startNatsServer } from '@tradewind/dev';
import { createApp as createAuthApp, AUTH_SCHEMA, type AuthDatabase } from '@tradewind/auth';
import { createApp as createBillingApp, BILLING_SCHEMA, type BillingDatabase } from '@tradewind/billing';
import type { ReliabilityRow } from '../report.js';
import { startRestartablePostgres } from './postgres-server.js';

/** Longest a request may take while the database is down before it counts as hung, ms. */
export const ANSWER_DEADLINE_MS = 5_000;
const SECRET_KEY = 'sk_test_tradewind_chaos';
const WEBHOOK_SECRET = 'whsec_tradewind_chaos';
/** Outbox rows committed just before each outage. */
const OUTBOX_ROWS = 20;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const errText = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200);

/** An HTTP answer: its status (`hung`: none within ANSWER_DEADLINE_MS; `refused`: no connection) and JSON body. */
export interface HttpAnswer {
  readonly status: number | 'hung' | 'refused';
  readonly body: Record<string, unknown>;
}

/**
 * What is wrong with an answer given while PostgreSQL is down, or undefined when it is the
 * policy's: 503 with a JSON body `{code: "unavailable", message}` (a hang is already `hung`).
 */
export function outageAnswerProblem(a: HttpAnswer): string | undefined {
  if (a.status === 503 && a.body.code === 'unavailable' && typeof a.body.message === 'string' && a.body.message !== '') return undefined;
  return `answered ${a.status} ${JSON.stringify(a.body).slice(0, 160)} (want 503 unavailable within ${ANSWER_DEADLINE_MS} ms)`;
}

/** One HTTP answer, or `hung` after ANSWER_DEADLINE_MS. */
async function answer(url: string, init: RequestInit): Promise<HttpAnswer> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_DEADLINE_MS) });
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = { text };
    }
    return { status: res.status, body };
  } catch (err) {
    return { status: (err as Error).name === 'TimeoutError' ? 'hung' : 'refused', body: { error: errText(err) } };
  }
}

/**
 * Stops and restarts PostgreSQL `rounds` times under running auth and billing apps.
 * @param seed recorded in the notes.
 * @returns one row: tried = outages; lost = webhooks never applied + outbox rows never published
 *   + user.created events never applied; duplicated = webhooks applied twice + outbox rows
 *   published twice or out of order; crashed = 500s, hangs, wrong answers; recoveryMs = longest
 *   time from PostgreSQL accepting connections again to both services answering 2xx.
 * @throws Error only when the stack cannot be started.
 */
export async function runPostgresChaos(rounds: number, seed: number): Promise<ReliabilityRow> {
  const notes: string[] = [];
  let tried = 0;
  let lost = 0;
  let duplicated = 0;
  let crashed = 0;
  let recoveryMs = 0;
  const fail = (why: string) => {
    crashed++;
    if (notes.length < 8) notes.push(why);
  };
  const cleanup: Array<() => Promise<unknown>> = [];
  const logger = createLogger({ service: 'chaos-edge', level: 'silent' });
  const pg = await startRestartablePostgres();
  cleanup.push(() => pg.destroy());
  try {
    const nats = await startNatsServer();
    cleanup.push(() => nats.stop());
    const nc = await connect({ servers: nats.url });
    cleanup.push(() => nc.close());
    const jsm: JetStreamManager = await jetstreamManager(nc);
    const js = jetstream(nc);
    await ensureEventsStreams(jsm);

    // auth
    const oidc = await startLocalOidcProvider({ port: 0, host: '127.0.0.1', publicHost: '127.0.0.1' });
    cleanup.push(() => oidc.stop());
    const authDb = createDb<AuthDatabase>({ url: pg.url, schema: AUTH_SCHEMA });
    cleanup.push(() => authDb.destroy());
    const authPort = await freePort();
    const authUrl = `http://127.0.0.1:${authPort}`;
    const auth = createAuthApp(
      {
        PORT: authPort,
        HOST: '127.0.0.1',
        GRPC_PORT: 0,
        PUBLIC_URL: authUrl,
        GOOGLE_CLIENT_ID: undefined,
        GOOGLE_CLIENT_SECRET: undefined,
        LOCAL_OIDC_ISSUER: oidc.issuer,
        AUTH_JWT_PRIVATE_KEY: undefined,
        AUTH_JWT_PRIVATE_KEY_FILE: undefined,
        ACCESS_TOKEN_TTL_SECONDS: 900,
        REFRESH_TOKEN_TTL_SECONDS: 3600,
        LOGIN_ATTEMPT_TTL_SECONDS: 600,
        OUTBOX_POLL_MS: 100,
        OUTBOX_BATCH_SIZE: 100,
        HTTP_BODY_LIMIT_BYTES: 16 * 1024,
        PROFILE_NAME_MAX_CHARS: 100,
        NOTIFICATIONS_MAX_PER_USER: 200,
        NOTIFICATIONS_PAGE_DEFAULT: 20,
        NOTIFICATIONS_PAGE_MAX: 100,
        NOTIFICATIONS_UNREAD_MAX_AGE_MS: 86_400_000,
        NOTIFICATIONS_READ_MAX_IDS: 200,
        NEWSLETTER_RATE_LIMIT_PER_MINUTE: 10_000,
      },
      { db: authDb, js, jsm, logger, registry: new Registry() },
    );
    await auth.start();
    cleanup.push(() => auth.stop());

    // billing (Stripe: the local stand-in; auth's JWKS and gRPC are not needed by the webhook)
    const billingDb = createDb<BillingDatabase>({ url: pg.url, schema: BILLING_SCHEMA });
    cleanup.push(() => billingDb.destroy());
    const billingPort = await freePort();
    const billingUrl = `http://127.0.0.1:${billingPort}`;
    const localStripe = await startLocalStripe({
      port: 0,
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
      webhookUrl: `${billingUrl}/api/stripe/webhook`,
    });
    cleanup.push(() => localStripe.stop());
    const billing = createBillingApp(
      {
        PORT: billingPort,
        HOST: '127.0.0.1',
        GRPC_PORT: 0,
        PUBLIC_URL: 'http://localhost:8080',
        AUTH_JWKS_URL: `http://127.0.0.1:${await freePort()}/jwks.json`,
        AUTH_ISSUER: undefined,
        AUTH_ADDR: `127.0.0.1:${await freePort()}`,
        STRIPE_SECRET_KEY: SECRET_KEY,
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_API_URL: localStripe.apiUrl,
        STRIPE_TIMEOUT_MS: 5_000,
        STRIPE_MAX_NETWORK_RETRIES: 0,
        STRIPE_WEBHOOK_TOLERANCE_SECONDS: 300,
        STRIPE_PRICE_CACHE_SECONDS: 600,
        UPGRADE_PREVIEW_MAX_AGE_SECONDS: 1800,
        OUTBOX_POLL_MS: 50,
        OUTBOX_BATCH_SIZE: 100,
        HTTP_BODY_LIMIT_BYTES: 16 * 1024,
        WEBHOOK_BODY_LIMIT_BYTES: 512 * 1024,
      },
      { db: billingDb, js, jsm, logger, registry: new Registry() },
    );
    await billing.start();
    cleanup.push(() => billing.stop());

    // An outbox of our own (the lib relay every service runs), emitting user.created, which billing consumes.
    const outboxDb: Kysely<OutboxDatabase> = createDb<OutboxDatabase>({ url: pg.url, schema: 'chaos_outbox' });
    cleanup.push(() => outboxDb.destroy());
    await migrate(outboxDb, 'chaos_outbox', { '0001_outbox': outboxMigration });
    const relay = createOutboxRelay({ db: outboxDb, js, schema: 'chaos_outbox', logger, pollIntervalMs: 50, retryDelayMs: 200 });
    relay.start();
    cleanup.push(() => relay.stop());

    const newsletter = () =>
      answer(`${authUrl}/api/newsletter`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `chaos-${randomUUID().slice(0, 8)}@example.com` }),
      });
    const deliver = (event: object) => {
      const payload = JSON.stringify(event);
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp: Math.floor(Date.now() / 1000) });
      return answer(`${billingUrl}/api/stripe/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
        body: payload,
      });
    };
    const outageAnswer = (who: string, a: HttpAnswer, round: number) => {
      const problem = outageAnswerProblem(a);
      if (problem) fail(`round ${round}: ${who} during the PostgreSQL outage ${problem}`);
    };

    for (let round = 0; round < rounds; round++) {
      try {
        const before = await newsletter();
        if (before.status !== 201) throw new Error(`auth not healthy before the outage: ${before.status}`);
        // Outbox rows committed just before the outage: user.created for new users.
        const users = Array.from({ length: OUTBOX_ROWS }, () => randomUUID());
        const eventIds: string[] = [];
        await outboxDb.transaction().execute(async (trx) => {
          for (const userId of users) {
            const event: EventTypes['user.created'] = {
              meta: newEventMeta('user.created', 'auth'),
              userId,
              email: `${userId.slice(0, 8)}@example.com`,
              name: 'Chaos',
              avatarUrl: '',
              plan: 'starter',
              billingPeriod: 'indefinite',
              identityProvider: 'local-oidc',
            };
            eventIds.push(event.meta!.eventId);
            await appendEvent(trx, 'user.created', event);
          }
        });
        relay.kick();
        tried++;
        await pg.stop();

        // During the outage: 503 unavailable at once, from both services.
        outageAnswer('auth POST /api/newsletter', await newsletter(), round);
        const stripeEvent = {
          id: `evt_chaos_${seed}_${round}_${randomUUID().slice(0, 8)}`,
          object: 'event',
          type: 'customer.created',
          created: Math.floor(Date.now() / 1000),
          livemode: false,
          api_version: '2025-01-27',
          data: { object: { id: `cus_chaos_${round}`, object: 'customer' } },
        };
        outageAnswer('billing POST /api/stripe/webhook', await deliver(stripeEvent), round);

        await pg.start();
        const upAt = Date.now();
        // Recovered: both answer 2xx again by themselves; the webhook retry (as Stripe sends it) is applied.
        let authBack = false;
        let webhook: HttpAnswer | undefined;
        while (!authBack || !webhook) {
          if (Date.now() - upAt > 30_000) throw new Error(`not recovered 30 s after PostgreSQL was back (auth ${authBack}, webhook ${webhook?.status})`);
          if (!authBack) {
            const a = await newsletter();
            if (a.status === 201) authBack = true;
            else if (a.status !== 503) fail(`round ${round}: auth while PostgreSQL came back answered ${a.status} ${JSON.stringify(a.body).slice(0, 160)}`);
          }
          if (!webhook) {
            const w = await deliver(stripeEvent);
            if (w.status === 200) webhook = w;
            else if (w.status !== 503)
              fail(`round ${round}: webhook retry while PostgreSQL came back answered ${w.status} ${JSON.stringify(w.body).slice(0, 160)}`);
          }
          if (!authBack || !webhook) await sleep(50);
        }
        recoveryMs = Math.max(recoveryMs, Date.now() - upAt);
        if (webhook.body.outcome === 'duplicate') {
          duplicated++;
          notes.push(`round ${round}: webhook answered 503 was nevertheless applied`);
        }
        const again = await deliver(stripeEvent);
        if (again.status !== 200 || again.body.outcome !== 'duplicate') {
          duplicated++;
          notes.push(`round ${round}: second retry answered ${again.status} ${JSON.stringify(again.body)}`);
        }
        const stored = await billingDb.selectFrom('stripe_events').select('id').where('id', '=', stripeEvent.id).execute();
        if (stored.length !== 1) {
          lost++;
          notes.push(`round ${round}: webhook ${stripeEvent.id} stored ${stored.length} times`);
        }

        // The outbox drains in order, once each; billing applies every user.created.
        const deadline = Date.now() + 20_000;
        while ((await outboxDb.selectFrom('outbox').select('seq').where('published_at', 'is', null).execute()).length > 0 && Date.now() < deadline)
          await sleep(100);
        const published = await streamedEventIds(jsm, new Set(eventIds));
        const wanted = new Set(eventIds);
        const missing = eventIds.filter((id) => !published.includes(id)).length;
        const copies = published.length - new Set(published).size;
        const inOrder = published.filter((id, i) => published.indexOf(id) === i).every((id, i) => id === eventIds.filter((e) => published.includes(e))[i]);
        lost += missing;
        duplicated += copies + (inOrder ? 0 : 1);
        if (missing || copies || !inOrder)
          notes.push(`round ${round}: outbox published ${published.length}/${wanted.size}, missing ${missing}, copies ${copies}, in order ${inOrder}`);
        let applied = 0;
        while (Date.now() < deadline) {
          applied = (await billingDb.selectFrom('subscriptions').select('user_id').where('user_id', 'in', users).execute()).length;
          if (applied === users.length) break;
          await sleep(100);
        }
        if (applied < users.length) {
          lost += users.length - applied;
          notes.push(`round ${round}: billing applied ${applied}/${users.length} user.created`);
        }
      } catch (err) {
        fail(`round ${round}: ${errText(err)}`);
        if (!pg.running()) await pg.start().catch((e: unknown) => fail(`PostgreSQL restart: ${errText(e)}`));
      }
    }
  } finally {
    for (const step of cleanup.reverse()) await step().catch((err: unknown) => process.stderr.write(`[chaos-edge] cleanup: ${errText(err)}\n`));
  }
  return {
    name: 'PostgreSQL stopped and restarted under auth and billing',
    tried,
    lost,
    duplicated,
    crashed,
    recoveryMs,
    notes: `seed ${seed}; ${OUTBOX_ROWS} outbox rows committed before each outage; recovered = auth and billing answer 2xx again after PostgreSQL accepts connections (no service restarted)${notes.length ? `; ${notes.join('; ')}` : ''}`,
  };
}

/** Tradewind-Event-Id of every user.created message on EVENTS that is in `ids`, in stream order. */
async function streamedEventIds(jsm: JetStreamManager, ids: ReadonlySet<string>): Promise<string[]> {
  const info = await jsm.streams.info(EVENTS_STREAM);
  const out: string[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const msg = await jsm.streams.getMessage(EVENTS_STREAM, { seq }).catch(() => null);
    const id = msg?.header?.get('Tradewind-Event-Id');
    if (msg && msg.subject === 'user.created' && id && ids.has(id)) out.push(id);
  }
  return out;
}
