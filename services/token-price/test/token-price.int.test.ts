/**
 * token-price end to end: the real service (createApp) against a private nats-server with JetStream
 * and the shared Redis (a key prefix per test), fed the bundled recording of real mainnet trades
 * decoded by ingest's own decoder. Figures are checked against values computed by hand from the
 * recorded events' raw fields.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Registry } from 'prom-client';
import { PriceServiceClient, SLOTS_SUBJECT, UsdSource, type ListTokensResponse } from '@tradewind/contracts';
import { createLogger, ensureTradesStream, grpcCredentials } from '@tradewind/lib';
import { startNatsServer, type TestNatsServer } from '@tradewind/dev';
import { BUNDLED_RECORDING_DIR, loadRecording, replayCopy, subjectOf, type TradeMessage } from '@tradewind/ingest';
import { createApp } from '../src/app.js';
import { createBirdeyeClient } from '../src/birdeye/birdeye.js';
import { TokenPriceConfigSchema } from '../src/config.js';
import type { MetadataResolver } from '../src/metadata/solana-metadata.js';
import type { TokenRow } from '../src/domain/window.js';
import type { Redis, TokenStore } from '../src/store/redis-store.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MINUTE = 60_000;
const SOL_USD = 150;
const ED5 = 'ED5nyyWEzpPPiWimP8vYm7sD7TD3LAt3Q3gRTWHzPJBY';
const PEX = 'AqFe2tk1BRx6czUuRPGUZ8mtvcBGDZYsG6oPvELwzray';
const MOODOG = '5dNYcCZXEGfGgbdUdq7MMR7KLsNJLLLgL83wLH8Fpump';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'; // Tether's mint (ends NYB)
const WSOL = 'So11111111111111111111111111111111111111112';

let nats: TestNatsServer;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
let redis: Redis;
let recorded: TradeMessage[];
const logger = createLogger({ service: 'token-price-test', level: 'silent' });
const running: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  redis = createClient({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
  await redis.connect();
  const { transactions } = await loadRecording(BUNDLED_RECORDING_DIR);
  recorded = transactions.flatMap((t) => t.trades);
});

afterAll(async () => {
  await nc?.close();
  await redis?.quit();
  await nats?.stop();
});

afterEach(async () => {
  for (const app of running.splice(0)) await app.stop();
});

/** A fresh TRADES stream (the previous one deleted) and a fresh key prefix. */
async function freshStream(): Promise<string> {
  await jsm.streams.delete('TRADES').catch(() => undefined);
  await ensureTradesStream(jsm, { maxAgeMs: 2 * DAY, duplicateWindowMs: MINUTE, maxBytes: 64 * 1024 * 1024 });
  return `test:token-price:${randomUUID().slice(0, 8)}:`;
}

async function publish(message: object, subject = subjectOf(message as TradeMessage)): Promise<void> {
  const h = headers();
  h.set('Nats-Msg-Id', randomUUID());
  await js.publish(subject, JSON.stringify(message), { headers: h });
}

async function publishRaw(subject: string, body: string): Promise<void> {
  await js.publish(subject, body);
}

function config(prefix: string, overrides: Record<string, string> = {}) {
  return TokenPriceConfigSchema.parse({
    PORT: '0',
    GRPC_PORT: '0',
    HOST: '127.0.0.1',
    TOKEN_PRICE_REDIS_PREFIX: prefix,
    TOKENS_CACHE_MS: '0',
    SOL_USD_PRICE: String(SOL_USD),
    TOKEN_PRICE_LEASE_MS: '900',
    TOKEN_PRICE_RETRY_DELAY_MS: '200',
    TOKENS_MAX_LIMIT: '100',
    ...overrides,
  });
}

async function start(
  prefix: string,
  options: { clock?: { now: number }; env?: Record<string, string>; metadata?: MetadataResolver; birdeye?: ReturnType<typeof createBirdeyeClient> } = {},
) {
  const registry = new Registry();
  const clock = options.clock ?? { now: Date.now() };
  const app = createApp(config(prefix, options.env), {
    logger,
    registry,
    redis,
    js,
    jsm,
    nc,
    now: () => clock.now,
    metadata: options.metadata,
    birdeye: options.birdeye,
  });
  const ports = await app.start();
  running.push(app);
  const base = `http://127.0.0.1:${ports.httpPort}`;
  return {
    app,
    registry,
    clock,
    ports,
    async tokens(limit = 100): Promise<{ status: number; body: { success: boolean; data: TokenRow[] } & Record<string, unknown> }> {
      const res = await fetch(`${base}/api/birdeye/tokens?limit=${limit}`);
      return { status: res.status, body: (await res.json()) as never };
    },
    base,
    async metric(name: string, labels: Record<string, string>): Promise<number> {
      const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
      const v = m?.values.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val));
      return Number(v?.value ?? 0);
    },
  };
}

/** Names of token-price's consumers on TRADES (prefix TOKEN_PRICE_CONSUMER, default `token-price`), sorted. */
async function tokenPriceConsumers(): Promise<string[]> {
  const names: string[] = [];
  for await (const c of jsm.consumers.list('TRADES')) if (c.name.startsWith('token-price-')) names.push(c.name);
  return names.sort();
}

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms; last value ${JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const byMint = (rows: readonly TokenRow[], mint: string) => rows.find((r) => r.mint === mint);
const ed5Buys = () => recorded.filter((m) => (m as { mint?: string }).mint === ED5);

describe('when the recorded real trades are replayed into TRADES', () => {
  it('then every token is named by what its CREATE (or another message) stated, or not at all, and rows are ranked by volume', async () => {
    const prefix = await freshStream();
    const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
    for (const m of recorded) await publish(replayCopy(m, 'all', 0, T0).message);
    const svc = await start(prefix, { clock: { now: T0 + 5_000 }, env: { SOL_USD_PRICE: '' } });
    await svc.app.consumer.caughtUp(10_000);
    const { body } = await svc.tokens();
    if (process.env.TOKEN_PRICE_PRINT_ROWS) console.log(JSON.stringify(body.data, null, 1));
    expect(body.data.length).toBeGreaterThan(10);
    // The first name and symbol the recording states for each mint (pump.fun CreateEvent, LaunchLab base_mint_param).
    const stated = new Map<string, { name?: string; symbol?: string }>();
    for (const m of recorded as unknown as Array<Record<string, unknown>>) {
      const mint = (m.mint ?? m.base_mint) as string | undefined;
      const param = m.base_mint_param as { name?: string; symbol?: string } | undefined;
      const name = param?.name ?? (m.name as string | undefined);
      if (mint && name !== undefined && !stated.has(mint)) stated.set(mint, { name, symbol: param?.symbol ?? (m.symbol as string | undefined) });
    }
    expect(stated.size).toBeGreaterThan(3);
    for (const r of body.data) {
      expect({ mint: r.mint, name: r.name, symbol: r.symbol }).toEqual({
        mint: r.mint,
        name: stated.get(r.mint)?.name ?? null,
        symbol: stated.get(r.mint)?.symbol ?? null,
      });
      expect(r).toMatchObject({ replayed: true, price: null, usdSource: null });
    }
    const volumes = body.data.map((r) => r.volumeSol!);
    expect(volumes).toEqual([...volumes].sort((a, b) => b - a));
    expect(body.data.some((r) => r.mint === WSOL || r.mint === USDC)).toBe(false);
    // Without ?limit= the answer has TOKENS_LIMIT (20) rows at most.
    const dflt = (await (await fetch(`${svc.base}/api/birdeye/tokens`)).json()) as { data: unknown[] };
    expect(dflt.data.length).toBe(Math.min(20, body.data.length));
  });

  it("then a token's price, market cap, 24 h volume and times match the figures computed by hand from its events", async () => {
    const prefix = await freshStream();
    const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
    // These transactions of the recording (hand-checked figures below); ED5n… has no CREATE among them.
    const picked = recorded.filter((m) => ['JBnr', 'mqSG', '2s39', '2m5n', '1Dnj', '2bhr'].some((p) => m.signature.startsWith(p)));
    for (const m of picked) await publish(replayCopy(m, 'test', 0, T0).message);
    const svc = await start(prefix, { clock: { now: T0 + 5_000 } });
    await svc.app.consumer.caughtUp(10_000);
    const { status, body } = await svc.tokens();
    expect(status).toBe(200);
    expect(body.success).toBe(true);

    // JBnr… (pump.fun, 4 buys in one bundle). Raw fields of the four TradeEvents:
    // sol_amount 386100226 + 386820768 + 393794276 + 404234089 lamports; after the last buy
    // virtual_sol_reserves 33070949359 (9 decimals), virtual_token_reserves 973361836482154 (6 decimals).
    const ed5 = byMint(body.data, ED5)!;
    const priceSol = 33070949359 / 1e9 / (973361836482154 / 1e6);
    const volumeSol = (386100226 + 386820768 + 393794276 + 404234089) / 1e9;
    const marketCapSol = priceSol * 1_000_000_000; // pump.fun supply: 1e15 base units, 6 decimals
    expect(ed5.priceSol).toBeCloseTo(priceSol, 20);
    expect(ed5.priceSol! / priceSol).toBeCloseTo(1, 12);
    expect(ed5.volumeSol).toBe(1.570949359);
    expect(ed5.volumeSol).toBeCloseTo(volumeSol, 12);
    expect(ed5.marketCapSol! / marketCapSol).toBeCloseTo(1, 12);
    expect(ed5.price! / (priceSol * SOL_USD)).toBeCloseTo(1, 12);
    expect(ed5.marketCap! / (marketCapSol * SOL_USD)).toBeCloseTo(1, 12);
    expect(ed5.volume! / (volumeSol * SOL_USD)).toBeCloseTo(1, 12);
    expect(ed5.change).toBeNull(); // the recording holds no ED5n… price from 24 h before its trades
    expect(ed5.timestamp).toBe(T0); // when the copy was replayed
    expect(ed5.recordedAt).toBe(1725989127000); // the bundle's block time (2024-09-10)
    expect(ed5).toMatchObject({ replayed: true, usdSource: 'config', solUsd: SOL_USD, solUsdObservedAt: null });
    // Never seen created and no metadata RPC configured: no name or symbol, only the mint.
    expect(ed5).toMatchObject({ mint: ED5, name: null, symbol: null });

    // LaunchLab mqSG…: CREATE base_mint_param {name PenguX, symbol PEX, decimals 6}, curve supply 1e15;
    // the BUY: amount_in 1 SOL, virtual_quote 10000000000 + real_quote_after 990000000 over
    // virtual_base 1066666666666666 − real_base_after 96087352138307, × 10^(6 − 9).
    const pex = byMint(body.data, PEX)!;
    const pexPrice = ((10000000000 + 990000000) / (1066666666666666 - 96087352138307)) * 1e-3;
    expect(pex).toMatchObject({ name: 'PenguX', symbol: 'PEX', volumeSol: 1 });
    expect(pex.priceSol! / pexPrice).toBeCloseTo(1, 12);
    expect(pex.marketCapSol! / (pexPrice * 1e9)).toBeCloseTo(1, 12);

    // pump.fun 2s39…: the CreateEvent's name and symbol.
    expect(byMint(body.data, MOODOG)).toMatchObject({ name: 'MOO DOG', symbol: 'MOODOG', volumeSol: 1 });
    expect(body.data.map((r) => r.mint).sort()).toEqual(
      [
        ED5,
        PEX,
        MOODOG,
        '7atgF8KQo4wJrD5ATGX7t1V2zVvykPJbFfNeVf1icFv1',
        (recorded.find((m) => m.signature.startsWith('2m5n')) as unknown as { mint: string }).mint,
      ].sort(),
    );
    // The pSo1…-quoted LaunchLab sell (1Dnj…) has no SOL or USD price: skipped, counted.
    expect(body.data.some((r) => r.mint.startsWith('KUCxmmJJ'))).toBe(false);
    expect(await svc.metric('tradewind_token_price_messages_skipped_total', { reason: 'unsupported_quote' })).toBe(1);
    // The USDC-quoted pump.fun curve (2m5n…) is priced through SOL/USD: price_quote / 150.
    const usdcCurve = recorded.find((m) => m.signature.startsWith('2m5n'))! as unknown as { mint: string; price_quote: number; quote_amount_ui: number };
    const usdcRow = byMint(body.data, usdcCurve.mint)!;
    expect(usdcRow.price! / usdcCurve.price_quote).toBeCloseTo(1, 12);
    // Volume is kept in whole lamports: quote_amount_ui / 150 SOL rounded to 1e-9 SOL.
    expect(usdcRow.volumeSol).toBe(Math.round((usdcCurve.quote_amount_ui / SOL_USD) * 1e9) / 1e9);

    // ?limit= narrows the list.
    expect((await svc.tokens(3)).body.data.map((r) => r.mint)).toEqual(body.data.slice(0, 3).map((r) => r.mint));

    // gRPC ListTokens serves the same rows ('' for an unknown name or symbol: proto3 strings have no null).
    const client = new PriceServiceClient(`127.0.0.1:${svc.ports.grpcPort}`, grpcCredentials.createInsecure());
    const grpc = await new Promise<ListTokensResponse>((resolve, reject) => client.listTokens({ limit: 5 }, (err, res) => (err ? reject(err) : resolve(res!))));
    client.close();
    expect(grpc.tokens.map((t) => t.mint)).toEqual(body.data.slice(0, 5).map((r) => r.mint));
    expect(grpc.solUsd).toBe(SOL_USD);
    expect(grpc.solUsdSource).toBe(UsdSource.USD_SOURCE_CONFIG);
    const g = grpc.tokens.find((t) => t.mint === ED5);
    if (g) expect(g).toMatchObject({ volume24hSol: 1.570949359, name: '', symbol: '', replayed: true });
  });

  it('then a replay loop counts each recorded trade once, lists a token for 24 h after its last copy, and no SOL/USD rate means SOL only', async () => {
    const prefix = await freshStream();
    const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
    const clock = { now: T0 + 5_000 };
    const svc = await start(prefix, { clock, env: { SOL_USD_PRICE: '' } });
    for (let loop = 0; loop < 3; loop++) for (const m of recorded) await publish(replayCopy(m, 'loop', loop, T0 + loop * 11_000).message);
    await svc.app.consumer.caughtUp(10_000);
    let rows = (await svc.tokens()).body.data;
    // Three passes, the same figures as one: 4 buys of ED5n… = 1.570949359 SOL, not three times that.
    expect(byMint(rows, ED5)).toMatchObject({
      volumeSol: 1.570949359,
      timestamp: T0 + 22_000,
      price: null,
      marketCap: null,
      volume: null,
      usdSource: null,
      solUsd: null,
    });
    expect(rows.every((r) => r.replayed && r.price === null && r.priceSol !== null)).toBe(true);
    // The bundled recording holds no SOL/USDC or SOL/USDT swap: no rate from the stream.
    expect(await svc.metric('tradewind_token_price_sol_usd', { source: 'stream' })).toBe(0);

    clock.now = T0 + 22_000 + DAY - 1; // the last copies were replayed just under 24 h ago
    rows = (await svc.tokens()).body.data;
    expect(byMint(rows, ED5)).toBeDefined();
    clock.now = T0 + 22_000 + DAY; // now exactly 24 h: no longer listed
    expect((await svc.tokens()).body.data).toEqual([]);

    // Replayed again: listed again with the same figures (its recorded trades are not counted anew).
    for (const m of ed5Buys()) await publish(replayCopy(m, 'loop', 3, clock.now).message);
    await svc.app.consumer.caughtUp(10_000);
    expect(byMint((await svc.tokens()).body.data, ED5)).toMatchObject({ volumeSol: 1.570949359, timestamp: clock.now });
  });

  it("then the change compares with the recording's own price 24 h of chain time before, never with an earlier pass", async () => {
    const prefix = await freshStream();
    const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
    const clock = { now: T0 + 5_000 };
    const svc = await start(prefix, { clock });
    // The four recorded ED5n… buys, their block times moved apart (only block_time_ms changed): b1 25 h
    // before b4, b2 and b3 inside b4's 24 h, and b2 exactly 24 h before b4 (out of the window).
    const [b1, b2, b3, b4] = ed5Buys();
    const t4 = 1725989127000;
    const chain = [
      { ...b1!, block_time_ms: t4 - 25 * HOUR },
      { ...b2!, block_time_ms: t4 - DAY },
      { ...b3!, block_time_ms: t4 - HOUR },
      { ...b4!, block_time_ms: t4 },
    ];
    for (const m of chain) await publish(replayCopy(m as TradeMessage, 'chg', 0, T0).message);
    await svc.app.consumer.caughtUp(10_000);
    const price = (m: TradeMessage) => (m as unknown as { price_sol: number }).price_sol;
    let row = byMint((await svc.tokens()).body.data, ED5)!;
    // Window (t4 − 24 h, t4]: b3 and b4 only; the price 24 h before t4 is b2's (the latest at or before t4 − 24 h).
    expect(row.volumeSol).toBe((393794276 + 404234089) / 1e9);
    expect(row.change!).toBeCloseTo(((price(b4!) - price(b2!)) / price(b2!)) * 100, 9);
    expect(row.recordedAt).toBe(t4);

    // A second pass, hours later by the wall clock: nothing changes (no comparison with the first pass).
    clock.now = T0 + 6 * HOUR;
    for (const m of chain) await publish(replayCopy(m as TradeMessage, 'chg', 1, clock.now).message);
    await svc.app.consumer.caughtUp(10_000);
    row = byMint((await svc.tokens()).body.data, ED5)!;
    expect(row).toMatchObject({ volumeSol: (393794276 + 404234089) / 1e9, timestamp: T0 + 6 * HOUR, recordedAt: t4 });
    expect(row.change!).toBeCloseTo(((price(b4!) - price(b2!)) / price(b2!)) * 100, 9);
  });
});

describe('when the clock moves past 24 h', () => {
  it('then a trade leaves the 24 h volume one window (to one bucket) after it, and the change compares with the price 24 h ago', async () => {
    const prefix = await freshStream();
    const T = Date.UTC(2024, 8, 10, 17, 25, 0); // a bucket start (1-minute buckets)
    const [b1, , , b4] = ed5Buys();
    const clock = { now: T + MINUTE };
    const svc = await start(prefix, { clock });
    await publish({ ...b1, block_time_ms: T });
    await svc.app.consumer.caughtUp(10_000);

    let row = byMint((await svc.tokens()).body.data, ED5)!;
    expect(row.volumeSol).toBe(0.386100226);
    expect(row.change).toBeNull();
    clock.now = T + DAY; // the bucket [T, T + 1 min) still ends after now − 24 h
    expect(byMint((await svc.tokens()).body.data, ED5)!.volumeSol).toBe(0.386100226);
    clock.now = T + DAY + MINUTE; // now it does not
    expect(byMint((await svc.tokens()).body.data, ED5)).toBeUndefined();

    // A later trade: the price 24 h before it is b1's.
    await publish({ ...b4, block_time_ms: T + DAY + 2 * MINUTE });
    clock.now = T + DAY + 3 * MINUTE;
    await svc.app.consumer.caughtUp(10_000);
    row = byMint((await svc.tokens()).body.data, ED5)!;
    const p1 = 31886100226 / 1e9 / (1009530791558799 / 1e6);
    const p4 = 33070949359 / 1e9 / (973361836482154 / 1e6);
    expect(row.volumeSol).toBe(0.404234089); // b1 is out of the window
    expect(row.change!).toBeCloseTo(((p4 - p1) / p1) * 100, 9);
    expect(row.timestamp).toBe(T + DAY + 2 * MINUTE);

    // A trade inside the last 24 h only (no price from before the window) gives null change.
    await publish({ ...b1, mint: PEX, block_time_ms: T + DAY + 2 * MINUTE });
    await svc.app.consumer.caughtUp(10_000);
    expect(byMint((await svc.tokens()).body.data, PEX)!.change).toBeNull();
  });
});

describe('when token-price restarts', () => {
  it('then it continues from its position, and with Redis emptied it rebuilds the same state from the stream', async () => {
    const prefix = await freshStream();
    const clock = { now: Date.UTC(2026, 10, 21, 12, 0, 5) };
    const T0 = clock.now - 5_000;
    for (const m of recorded) await publish(replayCopy(m, 'r', 0, T0).message);
    let svc = await start(prefix, { clock });
    await svc.app.consumer.caughtUp(10_000);
    const before = (await svc.tokens()).body;
    expect(before.data.length).toBeGreaterThan(10);
    await svc.app.stop();
    running.pop();

    // More trades arrive while it is down: the four ED5n… buys again, live this time (block time now).
    for (const m of ed5Buys()) await publish({ ...m, block_time_ms: T0 + 1_000 });
    svc = await start(prefix, { clock });
    await svc.app.consumer.caughtUp(10_000);
    const resumed = (await svc.tokens()).body;
    // ED5n… now has a live row (listed first); its replayed row is not repeated.
    expect(resumed.data[0]).toMatchObject({ mint: ED5, replayed: false, volumeSol: 1.570949359, timestamp: T0 + 1_000 });
    expect(resumed.data.filter((r) => r.mint === ED5)).toHaveLength(1);
    expect(resumed.data.length).toBe(before.data.length);
    expect(await svc.metric('tradewind_token_price_messages_total', { outcome: 'applied' })).toBe(4); // only the new ones
    await svc.app.stop();
    running.pop();

    // Redis loses everything: the next start rebuilds from TRADES.
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}*` })) if ((keys as string[]).length) await redis.unlink(keys as string[]);
    svc = await start(prefix, { clock });
    await svc.app.consumer.caughtUp(10_000);
    expect((await svc.tokens()).body).toEqual(resumed);
  });
});

describe('when a stream sequence is applied twice (a redelivery after a lost ack)', () => {
  it('then the second application changes nothing', async () => {
    const prefix = await freshStream();
    const clock = { now: Date.UTC(2026, 10, 21, 12) };
    const svc = await start(prefix, { clock });
    const [b1] = ed5Buys();
    await publish({ ...b1, block_time_ms: clock.now });
    await svc.app.consumer.caughtUp(10_000);
    const update = {
      kind: 'trade' as const,
      mint: ED5,
      source: 'pumpfun',
      timeMs: clock.now,
      priceSol: 1,
      volumeLamports: 386100226,
      facts: {},
      replayed: false,
      tradeId: 'test:0',
      recordedTimeMs: clock.now,
    };
    expect(await svc.app.store.apply(1, update, clock.now)).toBe('skipped');
    expect(byMint((await svc.tokens()).body.data, ED5)).toMatchObject({ volumeSol: 0.386100226, priceSol: 31886100226 / 1e9 / (1009530791558799 / 1e6) });
    expect(await svc.app.store.apply(2, update, clock.now)).not.toBe('skipped');
    expect(byMint((await svc.tokens()).body.data, ED5)).toMatchObject({ volumeSol: 0.772200452, priceSol: 1 });
  });
});

/** Makes the first application of stream sequence `seq` run `fault` instead; `count` says how often it did. */
function faultAt(store: { apply: TokenStore['apply'] }, seq: number, fault: () => Promise<never>): { count: number } {
  const apply = store.apply.bind(store);
  const seen = { count: 0 };
  store.apply = async (s, update, now) => {
    if (s === seq && seen.count === 0) {
      seen.count += 1;
      return fault();
    }
    return apply(s, update, now);
  };
  return seen;
}

describe('when Redis fails while a trade is applied', () => {
  it('then the loop restarts from the recorded position and the trade is applied exactly once', async () => {
    const prefix = await freshStream();
    const clock = { now: Date.UTC(2026, 10, 21, 12) };
    const svc = await start(prefix, { clock });
    const [b1, b2, b3] = ed5Buys();
    await publish({ ...b1, block_time_ms: clock.now });
    await svc.app.consumer.caughtUp(10_000);
    const failures = faultAt(svc.app.store, 2, () => Promise.reject(new Error('simulated: Redis connection lost')));
    await publish({ ...b2, block_time_ms: clock.now });
    await publish({ ...b3, block_time_ms: clock.now });
    await svc.app.consumer.caughtUp(10_000);
    expect(failures.count).toBe(1);
    expect(await svc.metric('tradewind_token_price_consumer_restarts_total', {})).toBe(1);
    expect(byMint((await svc.tokens()).body.data, ED5)!.volumeSol).toBe((386100226 + 386820768 + 393794276) / 1e9);
  });
});

describe('when the consumer stops applying while TRADES holds newer trades', () => {
  it('then the silence check restarts it from the stored position with a new consumer and every trade is applied exactly once', async () => {
    const prefix = await freshStream();
    const clock = { now: Date.UTC(2026, 10, 21, 12) };
    const svc = await start(prefix, { clock, env: { TOKEN_PRICE_STALL_CHECK_MS: '300' } });
    const [b1, b2, b3] = ed5Buys();
    await publish({ ...b1, block_time_ms: clock.now });
    await svc.app.consumer.caughtUp(10_000);
    // The first attempt at seq 2 never finishes, as a consumer that delivers nothing more.
    const before = await tokenPriceConsumers();
    expect(before).toHaveLength(1);
    const stuck = faultAt(svc.app.store, 2, () => new Promise<never>(() => undefined));
    await publish({ ...b2, block_time_ms: clock.now });
    await publish({ ...b3, block_time_ms: clock.now });
    await svc.app.consumer.caughtUp(15_000);
    expect(stuck.count).toBe(1);
    // A new consumer (token-price's ordered consumers start from the position in Redis), the silent one closed.
    const after = await tokenPriceConsumers();
    expect(after.filter((name) => !before.includes(name))).toHaveLength(1);
    expect(await svc.metric('tradewind_token_price_consumer_restarts_total', {})).toBeGreaterThanOrEqual(1);
    expect(byMint((await svc.tokens()).body.data, ED5)!.volumeSol).toBe((386100226 + 386820768 + 393794276) / 1e9);
  });
});

describe('when the broker says pulls in flight may be lost (a leader elected, a reconnect)', () => {
  it('then the consumer restarts from the stored position at once on the advisory of TRADES (not on a consumer election), and every trade is applied exactly once', async () => {
    const prefix = await freshStream();
    const clock = { now: Date.UTC(2026, 10, 21, 12) };
    const svc = await start(prefix, { clock });
    const [b1, b2, b3] = ed5Buys();
    await publish({ ...b1, block_time_ms: clock.now });
    await svc.app.consumer.caughtUp(10_000);
    const before = await tokenPriceConsumers();
    // nats-server's advisories in the stream's account. A consumer's election is not ours: ours has one replica.
    nc.publish(`$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.TRADES.${before[0]}`, JSON.stringify({ leader: 'n3' }));
    nc.publish('$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.TRADES', JSON.stringify({ leader: 'n2' }));
    await waitFor(
      () => svc.metric('tradewind_token_price_consumer_restarts_total', {}),
      (v) => v >= 1,
    );
    await publish({ ...b2, block_time_ms: clock.now });
    await publish({ ...b3, block_time_ms: clock.now });
    await svc.app.consumer.caughtUp(10_000);
    expect(await svc.metric('tradewind_token_price_consumer_restarts_total', {})).toBe(1);
    // Restarted on a new consumer from the stored position.
    expect((await tokenPriceConsumers()).filter((name) => !before.includes(name))).toHaveLength(1);
    expect(byMint((await svc.tokens()).body.data, ED5)!.volumeSol).toBe((386100226 + 386820768 + 393794276) / 1e9);
  });
});

describe('when TRADES carries bad messages', () => {
  it('then each is counted by reason and skipped, and the trades after it are applied', async () => {
    const prefix = await freshStream();
    const clock = { now: Date.UTC(2026, 10, 21) };
    const svc = await start(prefix, { clock });
    const [b1] = ed5Buys();
    await publishRaw('basic.pumpfun', 'not json {');
    await publishRaw('basic.bonk', '[1,2]');
    await publishRaw('basic.pumpfun', JSON.stringify({ source: 'pumpfun', transaction_type: 'BUY' }));
    await publish({ ...b1, price_sol: -1 });
    await publish({ ...b1, sol_amount_ui: 'a lot' });
    await publishRaw('basic.pumpfun', Buffer.from([0xff, 0xfe, 0x00]).toString('latin1'));
    // A slot status message (TRADES subject `slots`): not a trade and not bad, passed over as ignored.
    await publishRaw(
      SLOTS_SUBJECT,
      JSON.stringify({
        type: 'slot',
        slot: 9,
        parent: 8,
        status: 'processed',
        trades: { 'basic.pumpfun': 1 },
        source: 'yellowstone',
        observed_at_ms: clock.now,
        schema_version: 1,
      }),
    );
    await publish({ ...b1, block_time_ms: clock.now });
    await svc.app.consumer.caughtUp(10_000);
    expect(await svc.metric('tradewind_token_price_messages_total', { outcome: 'invalid' })).toBe(6);
    expect(await svc.metric('tradewind_token_price_messages_skipped_total', { reason: 'slot_status' })).toBe(1);
    expect(await svc.metric('tradewind_token_price_messages_total', { outcome: 'ignored' })).toBe(1);
    expect(await svc.metric('tradewind_token_price_messages_skipped_total', { reason: 'not_json' })).toBe(2);
    expect(await svc.metric('tradewind_token_price_messages_skipped_total', { reason: 'not_object' })).toBe(1);
    expect(await svc.metric('tradewind_token_price_messages_skipped_total', { reason: 'missing_fields' })).toBe(1);
    expect(await svc.metric('tradewind_token_price_messages_skipped_total', { reason: 'bad_number' })).toBe(2);
    expect(await svc.metric('tradewind_token_price_messages_total', { outcome: 'applied' })).toBe(1);
    expect(byMint((await svc.tokens()).body.data, ED5)!.volumeSol).toBe(0.386100226);
  });
});

/**
 * A Raydium CPMM SWAP in a WSOL/USDC pool, in the decoder's message shape. Constructed for the test:
 * the bundled recording has no WSOL/USDC CPMM swap (docs/token-price.md). 500 SOL in for 72 000 USDC
 * against reserves of 20 000 SOL / 3 000 000 USDC: after the swap 20 500 SOL and 2 928 000 USDC,
 * price_sol = 20 500 / 2 928 000 SOL per USDC, i.e. SOL/USD = 2 928 000 / 20 500.
 */
function cpmmSolUsdcSwap(timeMs: number, reserveSol = 20_000) {
  const usdc = reserveSol * 150;
  const inSol = reserveSol / 40;
  const outUsdc = 72_000 * (reserveSol / 20_000);
  return {
    source: 'raydium_cpmm',
    transaction_type: 'SWAP',
    signature: `constructed-${randomUUID()}`,
    slot: 1,
    block_time_ms: timeMs,
    instruction_path: [0],
    program_id: 'CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C',
    input_mint: WSOL,
    output_mint: USDC,
    mint: USDC,
    side: 'buy',
    input_vault_before: String(reserveSol * 1e9),
    output_vault_before: String(usdc * 1e6),
    input_amount: String(inSol * 1e9),
    output_amount: String(outUsdc * 1e6),
    sol_amount_ui: inSol,
    token_amount_ui: outUsdc,
    price_sol: (reserveSol + inSol) / (usdc - outUsdc),
  };
}

/**
 * A PumpSwap BUY in a WSOL/USDC (or USDT) pool. Constructed for the test (the recording has none):
 * the recorded PumpSwap BUY 4Urr… with its mints and derived figures replaced: base WSOL, quote the
 * stablecoin, 2 000 SOL in the pool after the trade, `price_quote` = USD per SOL.
 */
function pumpswapSolUsd(timeMs: number, usdPerSol: number, stablecoin = USDC) {
  const real = recorded.find((m) => m.signature.startsWith('4Urr') && m.transaction_type === 'BUY')! as unknown as Record<string, unknown>;
  const { price_sol: _p, sol_amount_ui: _s, ...rest } = real;
  return {
    ...rest,
    signature: `constructed-${randomUUID()}`,
    block_time_ms: timeMs,
    mint: WSOL,
    base_mint: WSOL,
    quote_mint: stablecoin,
    pool_base_token_reserves_after: '2000000000000',
    pool_quote_token_reserves_after: String(Math.round(2000 * usdPerSol * 1e6)),
    price_quote: usdPerSol,
    token_amount_ui: 0.187224277,
    quote_amount_ui: 0.187224277 * usdPerSol,
  };
}

describe('when SOL/USD can be read from the stream', () => {
  it('then rows use it and say so; a small pool is not trusted; a stale rate falls back to configuration', async () => {
    const prefix = await freshStream();
    const clock = { now: Date.UTC(2026, 10, 21, 12) };
    const svc = await start(prefix, { clock, env: { SOL_USD_MAX_AGE_MS: String(10 * MINUTE), SOL_USD_MIN_POOL_SOL: '100' } });
    const [b1] = ed5Buys();
    await publish(cpmmSolUsdcSwap(clock.now - MINUTE, 50)); // 50 SOL pool: too small to set the rate
    await publish({ ...b1, block_time_ms: clock.now });
    await svc.app.consumer.caughtUp(10_000);
    expect(byMint((await svc.tokens()).body.data, ED5)!.usdSource).toBe('config');
    expect(await svc.metric('tradewind_token_price_messages_skipped_total', { reason: 'rate_pool_too_small' })).toBe(1);

    await publish(cpmmSolUsdcSwap(clock.now - MINUTE));
    await svc.app.consumer.caughtUp(10_000);
    const rate = 2_928_000 / 20_500;
    let row = byMint((await svc.tokens()).body.data, ED5)!;
    expect(row.usdSource).toBe('stream');
    expect(row.price! / (row.priceSol! * rate)).toBeCloseTo(1, 12);
    expect(byMint((await svc.tokens()).body.data, USDC)).toBeUndefined();

    clock.now += 10 * MINUTE; // the observation is now 11 minutes old
    row = byMint((await svc.tokens()).body.data, ED5)!;
    expect(row.usdSource).toBe('config');
    expect(row.price! / (row.priceSol! * SOL_USD)).toBeCloseTo(1, 12);
  });

  it('then a PumpSwap WSOL/USDT pool sets it too', async () => {
    const prefix = await freshStream();
    const clock = { now: Date.UTC(2026, 10, 21, 12) };
    const svc = await start(prefix, { clock, env: { SOL_USD_PRICE: '' } });
    await publish(pumpswapSolUsd(clock.now - MINUTE, 142.5, USDT));
    await publish({ ...ed5Buys()[0], block_time_ms: clock.now });
    await svc.app.consumer.caughtUp(10_000);
    const row = byMint((await svc.tokens()).body.data, ED5)!;
    expect(row).toMatchObject({ usdSource: 'stream', solUsd: 142.5, solUsdObservedAt: clock.now - MINUTE });
    expect(row.price! / (row.priceSol! * 142.5)).toBeCloseTo(1, 12);
    expect(await svc.metric('tradewind_token_price_sol_usd', { source: 'stream' })).toBe(142.5);
  });

  it("then a replayed recording's rate prices only replayed rows recorded up to SOL_USD_MAX_AGE_MS after it, and says when it was observed", async () => {
    const prefix = await freshStream();
    const T0 = Date.UTC(2026, 10, 21, 12);
    const clock = { now: T0 + 1_000 };
    const svc = await start(prefix, { clock, env: { SOL_USD_PRICE: '', SOL_USD_MAX_AGE_MS: String(10 * MINUTE) } });
    const ed5Time = 1725989127000;
    const moodog = recorded.filter((m) => m.signature.startsWith('2s39'));
    const copies = [pumpswapSolUsd(ed5Time - 2 * MINUTE, 134.2), ...ed5Buys(), ...moodog];
    for (const m of copies) await publish(replayCopy(m as TradeMessage, 'usd', 0, T0).message);
    // A live trade at the same time: the replay's rate is not a live rate.
    await publish({ ...ed5Buys()[0], mint: PEX, block_time_ms: T0 });
    await svc.app.consumer.caughtUp(10_000);
    const rows = (await svc.tokens()).body.data;
    const ed5 = byMint(rows, ED5)!;
    expect(ed5).toMatchObject({ replayed: true, usdSource: 'stream', solUsd: 134.2, solUsdObservedAt: ed5Time - 2 * MINUTE, recordedAt: ed5Time });
    expect(ed5.price! / (ed5.priceSol! * 134.2)).toBeCloseTo(1, 12);
    // MOO DOG was recorded 19 days after the rate: SOL only.
    expect(byMint(rows, MOODOG)).toMatchObject({ replayed: true, price: null, usdSource: null, solUsd: null });
    expect(byMint(rows, PEX)).toMatchObject({ replayed: false, price: null, usdSource: null });
    expect(rows.some((r) => r.mint === WSOL || r.mint === USDC)).toBe(false);
  });

  it('then without any rate the USD figures are null and the SOL figures remain', async () => {
    const prefix = await freshStream();
    const clock = { now: Date.UTC(2026, 10, 21, 12) };
    const svc = await start(prefix, { clock, env: { SOL_USD_PRICE: '' } });
    await publish({ ...ed5Buys()[0], block_time_ms: clock.now });
    await svc.app.consumer.caughtUp(10_000);
    expect(byMint((await svc.tokens()).body.data, ED5)).toMatchObject({ price: null, marketCap: null, volume: null, usdSource: null, volumeSol: 0.386100226 });
  });
});

describe('when a token is first seen mid-life', () => {
  it('then its name and symbol come from on-chain metadata when it can be had', async () => {
    const prefix = await freshStream();
    const clock = { now: Date.UTC(2026, 10, 21, 12) };
    const asked: string[] = [];
    const metadata: MetadataResolver = {
      async resolve(mint) {
        asked.push(mint);
        return mint === ED5 ? { mint, name: 'Bundle Token', symbol: 'BNDL', decimals: 6, supplyRaw: 1_000_000_000_000_000n } : null;
      },
    };
    const svc = await start(prefix, { clock, metadata });
    for (const m of ed5Buys()) await publish({ ...m, block_time_ms: clock.now });
    await publish({ ...recorded.find((m) => (m as { mint?: string }).mint === MOODOG && m.transaction_type === 'BUY')!, block_time_ms: clock.now });
    await svc.app.consumer.caughtUp(10_000);
    await svc.app.metadata!.idle();
    const rows = (await svc.tokens()).body.data;
    expect(byMint(rows, ED5)).toMatchObject({ name: 'Bundle Token', symbol: 'BNDL' });
    expect(asked).toEqual([ED5]); // asked once for four trades; MOODOG's trade names it
    expect(await svc.metric('tradewind_token_price_metadata_lookups_total', { outcome: 'found' })).toBe(1);
  });
});

describe('when the ticker is asked often', () => {
  it('then answers are reused for at most the cache time and concurrent requests share one computation', async () => {
    const prefix = await freshStream();
    const clock = { now: Date.UTC(2026, 10, 21, 12) };
    const svc = await start(prefix, { clock, env: { TOKENS_CACHE_MS: '1000' } });
    await publish({ ...ed5Buys()[0], block_time_ms: clock.now });
    await svc.app.consumer.caughtUp(10_000);
    const store = svc.app.store;
    let calls = 0;
    const top = store.top.bind(store);
    store.top = async (...args) => {
      calls += 1;
      return top(...args);
    };
    // The service clock stands still while 200 requests arrive (however long a loaded machine takes
    // to serve them), then steps: the answer is reused until exactly the cache time has passed.
    const answers = await Promise.all(Array.from({ length: 200 }, () => svc.tokens(20)));
    expect(answers.every((a) => a.status === 200 && a.body.data.length === 1)).toBe(true);
    expect(calls).toBe(1);
    clock.now += 999;
    await svc.tokens(20);
    expect(calls).toBe(1);
    clock.now += 1;
    await svc.tokens(20);
    expect(calls).toBe(2);
  });

  it('then a bad limit is a 400 and a Redis failure is the 500 the web app expects', async () => {
    const prefix = await freshStream();
    const own = createClient({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
    await own.connect();
    const registry = new Registry();
    const app = createApp(config(prefix), { logger, registry, redis: own, js, jsm });
    const { httpPort } = await app.start();
    running.push(app);
    const bad = await fetch(`http://127.0.0.1:${httpPort}/api/birdeye/tokens?limit=0`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ status: 400, code: 'invalid_argument', message: 'limit must be an integer from 1 to 100' });
    expect((await fetch(`http://127.0.0.1:${httpPort}/api/birdeye/tokens?limit=101`)).status).toBe(400);
    own.destroy();
    const res = await fetch(`http://127.0.0.1:${httpPort}/api/birdeye/tokens`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ status: 500, message: 'Failed to fetch token data' });
  });
});

describe('when BIRDEYE_API_KEY is set', () => {
  let server: Server;
  let mode: 'ok' | 'fail' | 'hang' = 'ok';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (mode === 'hang') return;
      if (mode === 'fail') {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ success: false, message: 'Internal server error' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          success: true,
          data: {
            updateUnixTime: 1732190000,
            updateTime: '2024-11-21T12:33:20',
            total: 1,
            tokens: [
              {
                address: WSOL,
                decimals: 9,
                price: 241.5,
                lastTradeUnixTime: 1732190000,
                liquidity: 1e10,
                logoURI: '',
                mc: 1.1e11,
                name: 'Wrapped SOL',
                symbol: 'SOL',
                v24hChangePercent: 3.2,
                v24hUSD: 2.5e9,
              },
            ],
          },
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("then Birdeye's list is served, and on its failure or timeout our own figures are", async () => {
    const prefix = await freshStream();
    const clock = { now: Date.UTC(2026, 10, 21, 12) };
    const birdeye = createBirdeyeClient({ apiKey: 'test-key', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, timeoutMs: 300 });
    const svc = await start(prefix, { clock, birdeye });
    await publish({ ...ed5Buys()[0], block_time_ms: clock.now });
    await svc.app.consumer.caughtUp(10_000);
    mode = 'ok';
    const up = (await svc.tokens()).body.data;
    expect(up).toHaveLength(1);
    expect(up[0]).toMatchObject({ symbol: 'SOL', price: 241.5, marketCap: 1.1e11, volume: 2.5e9, timestamp: 1732190000_000, usdSource: 'birdeye' });
    mode = 'fail';
    expect(byMint((await svc.tokens()).body.data, ED5)).toMatchObject({ usdSource: 'config' });
    mode = 'hang';
    const started = Date.now();
    expect(byMint((await svc.tokens()).body.data, ED5)).toMatchObject({ usdSource: 'config' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await svc.metric('tradewind_token_price_upstream_requests_total', { upstream: 'birdeye', outcome: 'http' })).toBe(1);
    expect(await svc.metric('tradewind_token_price_upstream_requests_total', { upstream: 'birdeye', outcome: 'timeout' })).toBe(1);
  });
});

describe('when two replicas run', () => {
  it('then one applies trades and the other takes over when it stops', async () => {
    const prefix = await freshStream();
    const clock = { now: Date.UTC(2026, 10, 21, 12) };
    const a = await start(prefix, { clock });
    const b = await start(prefix, { clock });
    expect([a.app.consumer.leading, b.app.consumer.leading].filter(Boolean)).toHaveLength(1);
    const [leader, follower] = a.app.consumer.leading ? [a, b] : [b, a];
    const [b1, b2] = ed5Buys();
    await publish({ ...b1, block_time_ms: clock.now });
    await leader.app.consumer.caughtUp(10_000);
    await leader.app.stop();
    running.splice(running.indexOf(leader.app), 1);
    await waitFor(async () => follower.app.consumer.leading, Boolean, 5_000);
    await publish({ ...b2, block_time_ms: clock.now });
    await follower.app.consumer.caughtUp(10_000);
    expect(byMint((await follower.tokens()).body.data, ED5)!.volumeSol).toBe((386100226 + 386820768) / 1e9);
  });
});
