/**
 * token-price through a Redis restart (part of fault 2 of the edge chaos runs, edge.ts): the real
 * app in-process on the private Redis and nats-server, fed the bundled recording of real trades.
 *
 * Policy (docs/token-price.md "Restart and rebuild"): while Redis is down the ticker answers the
 * documented 500 `{"status":500,"message":"Failed to fetch token data"}` at once (never hangs);
 * when Redis comes back empty, the store is rebuilt from TRADES by itself (no restart) and the
 * ticker's answer is again exactly what it was, and stays exactly what a fresh instance would
 * build from the same stream once more trades arrive.
 */
import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { createLogger } from '@tradewind/lib';
import { BUNDLED_RECORDING_DIR, loadRecording, replayCopy, subjectOf } from '@tradewind/ingest';
import { createApp, createRedisClient, TokenPriceConfigSchema } from '@tradewind/token-price';
import type { RestartableRedis } from './redis-server.js';

/** Longest a ticker request may take while Redis is down, ms. */
const ANSWER_DEADLINE_MS = 5_000;
/** How long the ticker may take to be rebuilt after Redis is back, ms. */
const REBUILD_DEADLINE_MS = 20_000;

/** What one round found. */
export interface TokenPriceOutcome {
  /** Time from Redis accepting connections again to the ticker answering its pre-outage answer, ms. */
  readonly recoveryMs: number;
  /** Problems (stale or wrong answers, hangs, 5xx other than the documented one); empty when none. */
  readonly problems: string[];
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs one token-price instance through `restart` (which stops Redis, waits and starts it again).
 * The TRADES stream must exist on `js`; this publishes the recording into it, so the caller's
 * own subjects should not collide (ws-fanout subscribers count their own `seq`s only).
 */
export async function tokenPriceThroughRedisRestart(
  deps: { js: JetStreamClient; jsm: JetStreamManager; redis: RestartableRedis },
  restart: (duringOutage: () => Promise<void>) => Promise<number>,
): Promise<TokenPriceOutcome> {
  const problems: string[] = [];
  const logger = createLogger({ service: 'chaos-token-price', level: 'silent' });
  const { transactions } = await loadRecording(BUNDLED_RECORDING_DIR);
  const recorded = transactions.flatMap((t) => t.trades);
  const clockNow = Date.now();
  const T0 = clockNow - 5_000;
  const publish = async (message: object) => {
    const h = natsHeaders();
    h.set('Nats-Msg-Id', randomUUID());
    await deps.js.publish(subjectOf(message as never), JSON.stringify(message), { headers: h });
  };
  const half = Math.floor(recorded.length / 2);
  for (const m of recorded.slice(0, half)) await publish(replayCopy(m, 'c', 0, T0).message);

  const prefix = `chaos:token-price:${randomUUID().slice(0, 8)}:`;
  // The client token-price's main.ts runs with.
  const redis = createRedisClient(deps.redis.url);
  redis.on('error', () => undefined);
  await redis.connect();
  const config = TokenPriceConfigSchema.parse({
    PORT: '0',
    GRPC_PORT: '0',
    HOST: '127.0.0.1',
    TOKEN_PRICE_REDIS_PREFIX: prefix,
    TOKENS_CACHE_MS: '0',
    SOL_USD_PRICE: '150',
    TOKEN_PRICE_LEASE_MS: '900',
    TOKEN_PRICE_RETRY_DELAY_MS: '200',
    TOKENS_MAX_LIMIT: '100',
  });
  const instances: Array<{ stop(): Promise<void> }> = [];
  const start = async (p: string) => {
    const app = createApp(
      { ...config, TOKEN_PRICE_REDIS_PREFIX: p },
      { logger, registry: new Registry(), redis, js: deps.js, jsm: deps.jsm, now: () => clockNow },
    );
    const { httpPort } = await app.start();
    instances.push(app);
    return { app, tokens: () => ticker(`http://127.0.0.1:${httpPort}/api/birdeye/tokens?limit=100`) };
  };
  try {
    const svc = await start(prefix);
    await svc.app.consumer.caughtUp(10_000);
    const before = await svc.tokens();
    if (before.status !== 200) throw new Error(`ticker before the outage answered ${before.status}`);

    const upAt = await restart(async () => {
      const during = await svc.tokens();
      if (during.status === 'hung') problems.push(`token-price ticker hung over ${ANSWER_DEADLINE_MS} ms while Redis was down`);
      else if (during.status !== 500 && during.status !== 200) problems.push(`token-price ticker answered ${during.status} while Redis was down`);
    });
    // Rebuilt by itself: the same answer as before the outage.
    let after = await svc.tokens();
    while (after.text !== before.text) {
      if (Date.now() - upAt > REBUILD_DEADLINE_MS) {
        problems.push(`token-price ticker not rebuilt ${REBUILD_DEADLINE_MS} ms after Redis was back (status ${after.status}, ${after.text.slice(0, 120)})`);
        break;
      }
      await sleep(50);
      after = await svc.tokens();
    }
    const recoveryMs = Date.now() - upAt;

    // More trades: the answer equals a fresh instance's rebuilt from the whole stream.
    for (const m of recorded.slice(half)) await publish(replayCopy(m, 'c', 0, T0).message);
    await svc.app.consumer.caughtUp(10_000);
    const fresh = await start(`chaos:token-price:${randomUUID().slice(0, 8)}:`);
    await fresh.app.consumer.caughtUp(10_000);
    const [mine, theirs] = [await svc.tokens(), await fresh.tokens()];
    if (mine.text !== theirs.text) problems.push('token-price after the Redis restart answers differently from a fresh rebuild of the same stream');
    return { recoveryMs, problems };
  } finally {
    for (const app of instances.reverse()) await app.stop().catch(() => undefined);
    await redis.quit().catch(() => redis.destroy());
  }
}

/** GET the ticker; `hung` after ANSWER_DEADLINE_MS. */
async function ticker(url: string): Promise<{ status: number | 'hung'; text: string }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(ANSWER_DEADLINE_MS) });
    return { status: res.status, text: await res.text() };
  } catch (err) {
    return { status: 'hung', text: String(err) };
  }
}
