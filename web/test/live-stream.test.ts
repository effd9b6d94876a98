// @vitest-environment node
/**
 * The Live page's logic (web/src/lib/live-stream.ts, live-connection.ts): the filter built from the form,
 * trades per second, rows, the "Copy as code" snippets, the page's state from the stream's events and
 * error frames, and the connection itself against a scripted WebSocket (the seed never sent, pause and
 * resume by `seq`). In node: tweetnacl's Uint8Array checks fail across jsdom's realm, and nothing here needs a DOM.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createUser } from '@nats-io/nkeys';
import { CredentialsRefusedError, type WebSocketLike } from '@tradewind/client';
import { TRADE_SUBJECTS } from '@tradewind/contracts/subjects';
import { describe, expect, it } from 'vitest';
import { LiveConnection, observingWebSocket, parseErrorFrame } from '../src/lib/live-connection';
import {
  EMPTY_FILTER_FORM,
  INITIAL_LIVE_MEMORY,
  LIVE_TRANSACTION_TYPES,
  TradeRate,
  buildFilter,
  describeUserAgent,
  natsCode,
  nextLiveStatus,
  sparklinePoints,
  subjectOptions,
  tradeRow,
  websocketCode,
  type LiveInput,
  type LiveMemory,
} from '../src/lib/live-stream';

const ROOT = resolve(import.meta.dirname, '../..');
const MINT = '5qDerhe7hTPFHjjRYoWbiWKGpwyBLPM85dzQnkd3pump';
const MINT2 = 'ED5nyyWEzpPPiWimP8vYm7sD7TD3LAt3Q3gRTWHzPJBY';
const WALLET = 'GPxL1o9PT8cBe5xYCnDr3RdBZanPS9cNPSco2zWMGtZs';

describe('the Live page filter', () => {
  it("when the schemas' transaction types are read, then the page offers exactly them per subject", () => {
    for (const subject of TRADE_SUBJECTS) {
      const schema = JSON.parse(readFileSync(resolve(ROOT, `packages/contracts/schemas/${subject}.schema.json`), 'utf8')) as {
        properties: { transaction_type: { enum: string[] } };
      };
      expect(LIVE_TRANSACTION_TYPES[subject], subject).toEqual(schema.properties.transaction_type.enum);
    }
  });

  it('when the form is empty, then there is no filter; when it has values, then they become the server filter, normalised', () => {
    expect(buildFilter('basic.pumpfun', EMPTY_FILTER_FORM)).toEqual({ ok: true, filter: null });
    expect(buildFilter('basic.pumpfun', { types: ['SELL', 'BUY'], mints: ` ${MINT}\n${MINT2}, ${MINT} `, accounts: WALLET, minSol: '0.5' })).toEqual({
      ok: true,
      filter: { types: ['BUY', 'SELL'], mints: [MINT, MINT2], accounts: [WALLET], min_sol: 0.5 },
    });
    // A type of another subject (kept in the form when the subject changes) is not sent; min 0 is no minimum.
    expect(buildFilter('premium.raydium', { ...EMPTY_FILTER_FORM, types: ['BUY', 'SWAP'], minSol: '0' })).toEqual({ ok: true, filter: { types: ['SWAP'] } });
  });

  it('when a value is malformed, then the field says why and nothing is sent', () => {
    const bad = buildFilter('basic.pumpfun', { types: [], mints: 'not-a-mint', accounts: Array(1001).fill(WALLET).join('\n'), minSol: '0.0000000001' });
    expect(bad.ok).toBe(false);
    const problems = bad.ok ? [] : bad.problems;
    expect(problems.map((p) => p.field)).toEqual(['mints', 'minSol']); // 1,001 copies of one wallet are one address
    expect(problems[0]!.message).toContain('not-a-mint: not a Solana address');
    expect(problems[1]!.message).toContain('at most 9 decimals');
    const many = Array.from({ length: 1001 }, (_, i) => `${'1'.repeat(28)}${String(i + 1000).replace(/0/g, 'A')}`);
    const tooMany = buildFilter('basic.pumpfun', { ...EMPTY_FILTER_FORM, accounts: many.join(' ') });
    expect(tooMany).toMatchObject({ ok: false, problems: [{ field: 'accounts', message: 'at most 1,000 addresses (1,001 given)' }] });
    expect(buildFilter('basic.pumpfun', { ...EMPTY_FILTER_FORM, minSol: '-1' })).toMatchObject({ ok: false, problems: [{ field: 'minSol' }] });
  });

  it('when the plan is Starter, then the premium subjects are offered disabled, naming the plan that includes them', () => {
    expect(subjectOptions(['basic.pumpfun', 'basic.bonk'])).toEqual([
      { subject: 'basic.pumpfun', allowed: true, includedIn: null },
      { subject: 'basic.bonk', allowed: true, includedIn: null },
      { subject: 'premium.pumpswap', allowed: false, includedIn: 'Plus' },
      { subject: 'premium.raydium', allowed: false, includedIn: 'Plus' },
    ]);
  });
});

describe('trades per second', () => {
  it('when trades arrive over time, then each whole second is counted once and seconds older than the window drop out', () => {
    const rate = new TradeRate(60);
    const t0 = 1_800_000_000_000;
    rate.add(t0);
    rate.add(t0 + 999);
    rate.add(t0 + 1000, 3);
    let series = rate.series(t0 + 1500);
    expect(series).toHaveLength(60);
    expect(series.slice(-2)).toEqual([2, 3]);
    expect(series.slice(0, 58).every((n) => n === 0)).toBe(true);
    // 59 s later the first second is the oldest still shown; one more and it is gone (its slot is not reused as stale).
    expect(rate.series(t0 + 59_000)[0]).toBe(2);
    series = rate.series(t0 + 60_000);
    expect(series[0]).toBe(3);
    expect(series.reduce((a, b) => a + b, 0)).toBe(3);
    rate.add(t0 + 60_000); // the same ring slot as t0: the old count is not added to
    expect(rate.series(t0 + 60_000).at(-1)).toBe(1);
    rate.clear();
    expect(rate.series(t0 + 60_000).every((n) => n === 0)).toBe(true);
  });

  it('when a series is drawn, then 0 is at the bottom and the maximum at the top, from left to right', () => {
    expect(sparklinePoints([0, 2, 1], 100, 50)).toBe('0,50 50,0 100,25');
    expect(sparklinePoints([0, 0], 10, 10)).toBe('0,10 10,10');
  });
});

describe('rows', () => {
  it('when a pump.fun trade arrives, then its row has the kind, token, SOL, price and trader; a frame without seq is no row', () => {
    const trade = {
      seq: 48213,
      transaction_type: 'BUY',
      signature: '661yA5s6uxUsggTcT4cZ6yyMfNmF4mCZzxLnCb1zBrSY3YhAiouYXBitiPvkngBEKxaeGcpXiek6qXDajiRr9wuY',
      mint: MINT,
      user: WALLET,
      symbol: 'LEDOG',
      sol_amount_ui: 1.349999998,
      price_sol: 3.053191984634232e-8,
      replayed: true,
    };
    expect(tradeRow(trade, 5)).toMatchObject({ seq: 48213, kind: 'BUY', mint: MINT, symbol: 'LEDOG', sol: 1.349999998, trader: WALLET, replayed: true });
    expect(tradeRow({ transaction_type: 'SWAP', base_mint: MINT, payer: WALLET, seq: 1, base_mint_param: { symbol: 'BONK2' } }, 5)).toMatchObject({
      mint: MINT,
      trader: WALLET,
      symbol: 'BONK2',
      sol: null,
      priceSol: null,
      replayed: false,
    });
    expect(tradeRow({ type: 'heartbeat' }, 5)).toBeNull();
  });

  it('when a holder names a browser, then it reads as that browser and system; a program is named by its User-Agent', () => {
    expect(describeUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36')).toBe(
      'Chrome 131 on Windows',
    );
    expect(describeUserAgent('python-websockets/12.0')).toBe('python-websockets/12.0');
    expect(describeUserAgent(null)).toBe('no User-Agent (a program)');
  });
});

describe('Copy as code', () => {
  const WS = 'ws://localhost:9223';
  const NATS = 'nats://localhost:4223';

  it('when the subscription has a filter, then the WebSocket code subscribes to that subject with exactly that filter and reads the .creds file', () => {
    const code = websocketCode({ subject: 'basic.bonk', filter: { types: ['BUY'], min_sol: 0.5 } }, WS);
    expect(code).toContain(`new TradewindClient({ url: '${WS}', jwt, seed })`);
    expect(code).toContain("client.subscribe('basic.bonk', { filter: { types: ['BUY'], min_sol: 0.5 } });");
    expect(code).toContain("readFileSync('./tradewind.creds', 'utf8')");
    expect(websocketCode({ subject: 'basic.pumpfun', filter: null }, WS)).toContain("client.subscribe('basic.pumpfun');");
  });

  it('when exactly one mint is filtered, then the NATS code subscribes to its per-mint subject and checks the rest in code, saying so', () => {
    const code = natsCode({ subject: 'basic.pumpfun', filter: { mints: [MINT], types: ['BUY', 'SELL'], accounts: [WALLET], min_sol: 1 } }, NATS);
    expect(code).toContain(`nc.subscribe('basic.pumpfun.mint.${MINT}')`);
    expect(code).toContain('Native NATS filters one mint on the server');
    expect(code).toContain('checked below');
    expect(code).toContain("const TYPES = new Set(['BUY', 'SELL']);");
    expect(code).toContain(`const ACCOUNTS = new Set(['${WALLET}']);`);
    expect(code).toContain("['user', 'creator', 'bonding_curve', 'pool'].some((k) => ACCOUNTS.has(trade[k]))");
    expect(code).toContain('if (!(trade.sol_amount_ui >= 1)) continue;');
    expect(code).not.toContain('MINTS');
    expect(code).toContain("credsAuthenticator(readFileSync('./tradewind.creds'))");
  });

  it('when two mints are filtered, then the NATS code reads the whole subject and matches the mints of that subject in code; without a filter it prints every message', () => {
    const code = natsCode({ subject: 'premium.raydium', filter: { mints: [MINT, MINT2] } }, NATS);
    expect(code).toContain("nc.subscribe('premium.raydium')");
    expect(code).toContain('Native NATS has no server-side filter');
    expect(code).toContain("['input_mint', 'output_mint', 'token_0_mint', 'token_1_mint', 'vault_0_mint', 'vault_1_mint'].some((k) => MINTS.has(trade[k]))");
    const plain = natsCode({ subject: 'basic.bonk', filter: null }, NATS);
    expect(plain).toContain("nc.subscribe('basic.bonk')");
    expect(plain).toContain('console.log(msg.string());');
    expect(plain).not.toContain('Native NATS');
  });
});

/** Feeds `inputs` to the reducer from the start. */
function run(...inputs: LiveInput[]): LiveMemory {
  return inputs.reduce(nextLiveStatus, INITIAL_LIVE_MEMORY);
}

describe('the Live page state', () => {
  const holder = { connected_at: '2026-11-30T05:00:00.000Z', address: '203.0.113.7', user_agent: 'bot/1.0', origin: null };

  it('when the login is refused with connection_limit and closed 4429, then the state is the plan limit with the holders, kept while retrying, until authenticated', () => {
    const frame = parseErrorFrame(
      JSON.stringify({ type: 'error', code: 'connection_limit', message: 'connection limit reached', holders: [holder, { bad: 1 }] }),
    );
    expect(frame).toEqual({ code: 'connection_limit', message: 'connection limit reached', holders: [holder] });
    const limited = run(
      { type: 'connecting', url: 'ws://x', attempt: 0 },
      { type: 'refusal', ...frame! },
      { type: 'error', code: 'connection_limit', message: 'connection limit reached', subject: null },
      { type: 'reconnecting', attempt: 1, delayMs: 1000, closeCode: 4429, reason: 'connection_limit' },
    );
    expect(limited.status).toEqual({ kind: 'limit', message: 'connection limit reached', holders: [holder], retryInMs: 1000 });
    const retrying = nextLiveStatus(limited, { type: 'connecting', url: 'ws://x', attempt: 1 });
    expect(retrying.status.kind).toBe('limit');
    expect(
      nextLiveStatus(nextLiveStatus(retrying, { type: 'authenticated', plan: 'starter', subjects: [], expiresAtMs: null }), {
        type: 'subscribed',
        subject: 'basic.pumpfun',
        filter: null,
        resumeAfter: null,
      }).status,
    ).toEqual({
      kind: 'live',
    });
  });

  it('when the credentials are revoked, then the state says so with the code; when the stream cannot be reached, then it says it retries', () => {
    const revoked = run({ type: 'closed', error: new CredentialsRefusedError('revoked', 'credentials revoked', 4401) });
    expect(revoked.status).toEqual({ kind: 'credentials', code: 'revoked', message: 'credentials revoked' });
    const down = run({ type: 'reconnecting', attempt: 3, delayMs: 4000, closeCode: 1006, reason: '' });
    expect(down.status).toEqual({ kind: 'unreachable', attempt: 3, retryInMs: 4000, closeCode: 1006, message: null });
    const unavailable = run(
      { type: 'refusal', code: 'unavailable', message: 'login is unavailable right now', holders: null },
      { type: 'reconnecting', attempt: 1, delayMs: 1000, closeCode: 4503, reason: 'unavailable' },
    );
    expect(unavailable.status).toMatchObject({ kind: 'unreachable', closeCode: 4503, message: 'login is unavailable right now' });
  });

  it('when a subject is refused or taken away by a plan change, then the state names the reason; pause and resume switch between paused and live', () => {
    expect(run({ type: 'refusal', code: 'subject_not_in_plan', message: 'not in your starter plan', holders: null }).status).toEqual({
      kind: 'refused',
      code: 'subject_not_in_plan',
      message: 'not in your starter plan',
    });
    expect(
      run({ type: 'unsubscribed', subject: 'premium.raydium', reason: 'plan_changed', message: 'not in your Starter plan any more' }).status,
    ).toMatchObject({
      kind: 'refused',
      code: 'plan_changed',
    });
    const live = run({ type: 'subscribed', subject: 'basic.pumpfun', filter: null, resumeAfter: null });
    const paused = nextLiveStatus(live, { type: 'pause' });
    expect(paused.status).toEqual({ kind: 'paused' });
    expect(nextLiveStatus(paused, { type: 'unsubscribed', subject: 'basic.pumpfun', reason: null, message: null }).status).toEqual({ kind: 'paused' });
    expect(nextLiveStatus(paused, { type: 'resume' }).status).toEqual({ kind: 'live' });
  });
});

/** A scripted server: records what the client sends and lets the test push frames and closes. */
class ScriptedSocket implements WebSocketLike {
  static last: ScriptedSocket | undefined;
  onopen: WebSocketLike['onopen'] = null;
  onmessage: WebSocketLike['onmessage'] = null;
  onclose: WebSocketLike['onclose'] = null;
  onerror: WebSocketLike['onerror'] = null;
  readonly sent: string[] = [];
  constructor(readonly url: string) {
    ScriptedSocket.last = this;
    queueMicrotask(() => this.onopen?.({}));
  }
  send(data: string) {
    this.sent.push(data);
  }
  close() {}
  push(frame: object | string) {
    this.onmessage?.({ data: typeof frame === 'string' ? frame : JSON.stringify(frame) });
  }
}

/** A user JWT whose `sub` is the key of `seed` (the client checks they match; the scripted server verifies nothing). */
function credentials() {
  const kp = createUser();
  const seed = new TextDecoder().decode(kp.getSeed());
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return { jwt: `${part({ typ: 'JWT', alg: 'ed25519-nkey' })}.${part({ sub: kp.getPublicKey() })}.sig`, seed };
}

describe('the Live connection', () => {
  it('when it connects, pauses and resumes, then it signs the challenge without sending the seed, and resumes after the last seq shown', async () => {
    const { jwt, seed } = credentials();
    const trades: number[] = [];
    const inputs: LiveInput[] = [];
    const conn = new LiveConnection({
      url: 'ws://localhost:9223',
      jwt,
      seed,
      subject: 'basic.pumpfun',
      filter: { types: ['BUY'] },
      onTrade: (t) => trades.push(t.seq as number),
      onInput: (i) => inputs.push(i),
      WebSocket: ScriptedSocket,
    });
    conn.start();
    await expect.poll(() => ScriptedSocket.last).toBeDefined();
    const server = ScriptedSocket.last!;
    server.push({ type: 'challenge', nonce: 'bm9uY2Vub25jZW5vbmNlbm9uY2Vub25jZQ' });
    const login = JSON.parse(server.sent[0]!) as Record<string, unknown>;
    expect(Object.keys(login).sort()).toEqual(['jwt', 'sig']);
    expect(server.sent.join('\n')).not.toContain(seed);
    server.push({ type: 'authenticated', plan: 'starter', subjects: ['basic.pumpfun', 'basic.bonk'], expires_at_ms: null });
    expect(JSON.parse(server.sent[1]!)).toEqual({ subject: 'basic.pumpfun', filter: { types: ['BUY'] } });
    server.push({ type: 'subscribed', subject: 'basic.pumpfun', filter: { types: ['BUY'] }, seq: 10 });
    server.push('{"seq":11,"source":"pumpfun","transaction_type":"BUY"}');
    server.push('{"seq":14,"source":"pumpfun","transaction_type":"BUY"}');
    await expect.poll(() => trades).toEqual([11, 14]);

    conn.pause();
    expect(JSON.parse(server.sent.at(-1)!)).toEqual({ unsubscribe: 'basic.pumpfun' });
    server.push('{"seq":15,"source":"pumpfun","transaction_type":"BUY"}'); // in flight before the unsubscribe: not shown
    server.push({ type: 'unsubscribed', subject: 'basic.pumpfun' });
    conn.resume();
    expect(JSON.parse(server.sent.at(-1)!)).toEqual({ subject: 'basic.pumpfun', filter: { types: ['BUY'] }, resume_after: 14 });
    server.push({ type: 'subscribed', subject: 'basic.pumpfun', filter: { types: ['BUY'] }, resume_after: 14 });
    server.push('{"seq":15,"source":"pumpfun","transaction_type":"BUY"}');
    await expect.poll(() => trades).toEqual([11, 14, 15]);
    expect(inputs.map((i) => i.type)).toEqual(expect.arrayContaining(['connecting', 'authenticated', 'subscribed', 'pause', 'resume']));
    conn.close();
  });

  it('when the filter changes, then trades still in flight under the old one are not shown, and those after the answer are', async () => {
    const { jwt, seed } = credentials();
    const trades: number[] = [];
    const conn = new LiveConnection({
      url: 'ws://localhost:9223',
      jwt,
      seed,
      subject: 'basic.pumpfun',
      filter: null,
      onTrade: (t) => trades.push(t.seq as number),
      onInput: () => undefined,
      WebSocket: ScriptedSocket,
    });
    conn.start();
    await expect.poll(() => ScriptedSocket.last).toBeDefined();
    const server = ScriptedSocket.last!;
    server.push({ type: 'challenge', nonce: 'bm9uY2Vub25jZW5vbmNlbm9uY2Vub25jZQ' });
    server.push({ type: 'authenticated', plan: 'starter', subjects: ['basic.pumpfun', 'basic.bonk'], expires_at_ms: null });
    server.push({ type: 'subscribed', subject: 'basic.pumpfun', filter: null, seq: 10 });
    server.push('{"seq":11,"source":"pumpfun","transaction_type":"CREATE"}');
    await expect.poll(() => trades).toEqual([11]);

    conn.setFilter({ types: ['BUY'] });
    expect(JSON.parse(server.sent.at(-1)!)).toEqual({ subject: 'basic.pumpfun', filter: { types: ['BUY'] } });
    server.push('{"seq":12,"source":"pumpfun","transaction_type":"MIGRATE"}'); // judged by the old filter, in flight
    server.push({ type: 'subscribed', subject: 'basic.pumpfun', filter: { types: ['BUY'] } });
    server.push('{"seq":13,"source":"pumpfun","transaction_type":"BUY"}');
    await expect.poll(() => trades).toEqual([11, 13]);
    expect(conn.lastSeq).toBe(13);
    conn.close();
  });

  it("when an error frame arrives, then the page hears it with its holders before the client's own error event", () => {
    const seen: string[] = [];
    const Observed = observingWebSocket((f) => seen.push(`frame:${f.code}:${f.holders?.length}`), ScriptedSocket);
    const ws = new Observed('ws://x');
    ws.onmessage = () => seen.push('client');
    ScriptedSocket.last!.push({ type: 'error', code: 'connection_limit', message: 'm', holders: [] });
    ScriptedSocket.last!.push('{"seq":1}');
    expect(seen).toEqual(['frame:connection_limit:0', 'client', 'client']);
  });
});
