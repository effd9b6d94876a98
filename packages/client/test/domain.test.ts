/**
 * The client's pure parts: backoff schedule, subscription positions and dedupe, frame parsing,
 * credentials files.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, backoffDelayMs, resolveBackoff } from '../src/domain/backoff.js';
import { checkFilter, parseServerFrame, subscribeRequest } from '../src/domain/protocol.js';
import { RequestQueue } from '../src/domain/request-queue.js';
import { SubscriptionTable } from '../src/domain/subscriptions.js';
import { createNonceSigner, parseCredentials } from '../src/credentials.js';
import { subjectOfTrade } from '../src/trades.js';
import { testUser } from './fake-server.js';
import { PUMPFUN_BUY_V2 } from './real-messages.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

describe('backoff', () => {
  it('when attempts go 1..12 with the defaults, then delays are 1 s doubling, capped at 30 s (product spec: 1000 ms doubling, cap 30000 ms, 10 attempts)', () => {
    expect(DEFAULT_BACKOFF).toMatchObject({ initialDelayMs: 1000, maxDelayMs: 30_000, multiplier: 2, maxAttempts: 10, jitter: 0 });
    expect(Array.from({ length: 12 }, (_, i) => backoffDelayMs(DEFAULT_BACKOFF, i + 1))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000, 30000, 30000, 30000,
    ]);
    expect(backoffDelayMs(DEFAULT_BACKOFF, 1e9)).toBe(30_000);
  });

  it('when jitter is set, then each delay is drawn from [delay × (1 − jitter), delay]', () => {
    const policy = resolveBackoff({ jitter: 0.5 });
    expect(backoffDelayMs(policy, 3, () => 0)).toBe(4000);
    expect(backoffDelayMs(policy, 3, () => 0.999999)).toBe(2000);
    expect(backoffDelayMs(policy, 3, () => 0.5)).toBe(3000);
  });

  it('when a policy field is out of range, then resolveBackoff names it', () => {
    expect(() => resolveBackoff({ initialDelayMs: -1 })).toThrow(/initialDelayMs/);
    expect(() => resolveBackoff({ multiplier: 0.5 })).toThrow(/multiplier/);
    expect(() => resolveBackoff({ maxAttempts: -1 })).toThrow(/maxAttempts/);
    expect(() => resolveBackoff({ jitter: 2 })).toThrow(/jitter/);
    expect(resolveBackoff({ maxAttempts: Infinity }).maxAttempts).toBe(Infinity);
    expect(() => backoffDelayMs(DEFAULT_BACKOFF, 0)).toThrow(RangeError);
  });
});

describe('subscription table', () => {
  it('when trades arrive, then seq ≤ the last delivered is refused and the position follows the last seq', () => {
    const t = new SubscriptionTable();
    t.add('basic.pumpfun', null, undefined);
    expect([5, 7, 7, 6, 9].map((seq) => t.accept('basic.pumpfun', seq))).toEqual([true, true, false, false, true]);
    expect(t.positions()).toEqual({ 'basic.pumpfun': 9 });
    expect(t.subscribeRequestFor('basic.pumpfun')).toEqual({ subject: 'basic.pumpfun', resume_after: 9 });
    expect(t.accept('basic.bonk', 10)).toBe(false); // not subscribed
    expect(t.accept('basic.pumpfun', undefined)).toBe(true); // a v1 server: no seq, nothing to compare
  });

  it('when the server reports a later position (heartbeat, live subscribed), then resume starts there but dedupe still compares with the last trade', () => {
    const t = new SubscriptionTable();
    t.add('basic.bonk', { types: ['CREATE'] }, undefined);
    expect(t.subscribeRequestFor('basic.bonk')).toEqual({ subject: 'basic.bonk', filter: { types: ['CREATE'] } });
    t.subscribed('basic.bonk', null, 40);
    t.accept('basic.bonk', 41);
    t.notePosition('basic.bonk', 50);
    t.notePosition('basic.bonk', 45); // never backwards
    expect(t.subscribeRequestFor('basic.bonk')).toEqual({ subject: 'basic.bonk', filter: { types: ['CREATE'] }, resume_after: 50 });
    expect(t.accept('basic.bonk', 42)).toBe(true);
  });

  it('when a resume is refused, then a gap is reported once, the next request is live, and after bad_resume the dedupe watermark is dropped', () => {
    const t = new SubscriptionTable();
    t.add('basic.pumpfun', null, 100);
    t.subscribeRequestFor('basic.pumpfun');
    expect(t.resumeRefused('basic.pumpfun', 'resume_too_old', 150)).toEqual({
      subject: 'basic.pumpfun',
      afterSeq: 100,
      oldestSeq: 150,
      reason: 'resume_too_old',
    });
    expect(t.resumeRefused('basic.pumpfun', 'resume_too_old', 150)).toBeUndefined();
    expect(t.subscribeRequestFor('basic.pumpfun')).toEqual({ subject: 'basic.pumpfun' });
    expect(t.accept('basic.pumpfun', 100)).toBe(false);

    t.add('basic.bonk', null, 900);
    t.subscribeRequestFor('basic.bonk');
    expect(t.resumeRefused('basic.bonk', 'resume_refused', null)).toMatchObject({ afterSeq: 900, reason: 'resume_refused' });
    expect(t.accept('basic.bonk', 3)).toBe(true); // a new stream starts at 1 again
  });

  it('when a resume catches up, then caughtUp returns where it resumed from, once', () => {
    const t = new SubscriptionTable();
    t.add('basic.pumpfun', null, 10);
    t.subscribeRequestFor('basic.pumpfun');
    t.subscribed('basic.pumpfun', 10, null);
    expect(t.get('basic.pumpfun')!.status).toBe('catching_up');
    expect(t.caughtUp('basic.pumpfun', 14)).toBe(10);
    expect(t.caughtUp('basic.pumpfun', 14)).toBeUndefined();
    expect(t.positions()).toEqual({ 'basic.pumpfun': 14 });
    expect(() => t.add('basic.pumpfun', null, undefined)).toThrow(/already subscribed/);
  });
});

describe('request queue', () => {
  it('when requests of one subject pile up, then a queued subscribe covers later subscribes and filter changes, and unsubscribe drops them', () => {
    const q = new RequestQueue();
    expect(q.add({ kind: 'subscribe', subject: 'a', retries: 0 })).toBe(true);
    expect(q.add({ kind: 'filter', subject: 'a', retries: 0 })).toBe(false);
    expect(q.add({ kind: 'subscribe', subject: 'a', retries: 0 })).toBe(false);
    expect(q.add({ kind: 'subscribe', subject: 'b', retries: 0 })).toBe(true);
    expect(q.take()).toMatchObject({ subject: 'a' });
    expect(q.take()).toBeUndefined(); // one in flight
    q.add({ kind: 'unsubscribe', subject: 'b', retries: 0 });
    expect(q.complete()).toMatchObject({ subject: 'a' });
    expect(q.take()).toMatchObject({ kind: 'unsubscribe', subject: 'b' });
    expect(q.length).toBe(0);
  });
});

describe('protocol', () => {
  it('when frames arrive, then trades, control messages and bad frames are told apart without throwing', () => {
    expect(parseServerFrame('{"seq":12,"source":"pumpfun"}')).toEqual({ kind: 'trade', seq: 12, trade: { seq: 12, source: 'pumpfun' } });
    expect(parseServerFrame('{"source":"pumpfun"}')).toMatchObject({ kind: 'trade', seq: undefined });
    expect(parseServerFrame('{"seq":-1,"source":"pumpfun"}')).toMatchObject({ kind: 'invalid' });
    expect(parseServerFrame('not json')).toEqual({ kind: 'invalid', reason: 'not JSON' });
    expect(parseServerFrame('[1]')).toMatchObject({ kind: 'invalid' });
    expect(parseServerFrame('{"type":"challenge"}')).toMatchObject({ kind: 'invalid' });
    expect(parseServerFrame('{"type":"heartbeat","slot":5,"seq":9,"subjects":{"basic.bonk":9,"basic.pumpfun":null}}')).toEqual({
      kind: 'heartbeat',
      slot: 5,
      seq: 9,
      subjects: { 'basic.bonk': 9, 'basic.pumpfun': null },
    });
    expect(
      parseServerFrame('{"type":"error","code":"resume_too_old","message":"… the oldest sequence still held for resume is 23456 …","oldest_seq":23456}'),
    ).toEqual({ kind: 'error', code: 'resume_too_old', message: '… the oldest sequence still held for resume is 23456 …', subject: null, oldestSeq: 23456 });
    // Without oldest_seq the number is read from the message.
    expect(parseServerFrame('{"type":"error","code":"resume_too_old","message":"the oldest sequence still held for resume is 77"}')).toMatchObject({
      oldestSeq: 77,
    });
    expect(parseServerFrame('{"type":"subscribed","subject":"basic.bonk","resume_after":5,"filter":null}')).toEqual({
      kind: 'subscribed',
      subject: 'basic.bonk',
      filter: null,
      resumeAfter: 5,
      seq: null,
    });
    expect(parseServerFrame('{"type":"something_new"}')).toMatchObject({ kind: 'other', type: 'something_new' });
  });

  it('when a real schema_version 2 pump.fun trade arrives with "type": "trade", then it is a trade; heartbeat, error and unknown types stay control messages', () => {
    // The fixture is a message of the committed schema: schema_version 2 and type "trade" are its constants.
    const schema = JSON.parse(readFileSync(join(repoRoot, 'packages/contracts/schemas/basic.pumpfun.schema.json'), 'utf8')) as {
      properties: { type: { const: unknown }; schema_version: { const: unknown }; data: { required: string[] } };
    };
    const message = JSON.parse(PUMPFUN_BUY_V2) as Record<string, unknown>;
    expect(message.type).toBe(schema.properties.type.const);
    expect(message.schema_version).toBe(schema.properties.schema_version.const);
    expect(Object.keys(message.data as object)).toEqual(schema.properties.data.required);

    // As ws-fanout sends it: the stream sequence spliced in first.
    const frame = parseServerFrame(`{"seq":48213,${PUMPFUN_BUY_V2.slice(1)}`);
    expect(frame).toEqual({ kind: 'trade', seq: 48213, trade: { seq: 48213, ...message } });
    expect(subjectOfTrade((frame as { trade: Record<string, unknown> }).trade)).toBe('basic.pumpfun');
    expect(parseServerFrame(PUMPFUN_BUY_V2)).toMatchObject({ kind: 'trade', seq: undefined, trade: { type: 'trade', data: { side: 'buy' } } });
    expect(parseServerFrame(`{"seq":0,${PUMPFUN_BUY_V2.slice(1)}`)).toMatchObject({ kind: 'invalid' });

    expect(parseServerFrame('{"type":"heartbeat","slot":7,"seq":3,"subjects":{"basic.pumpfun":3}}')).toMatchObject({ kind: 'heartbeat', slot: 7, seq: 3 });
    expect(parseServerFrame('{"type":"error","code":"not_subscribed","message":"x","subject":"basic.pumpfun"}')).toMatchObject({
      kind: 'error',
      code: 'not_subscribed',
      subject: 'basic.pumpfun',
    });
    expect(parseServerFrame('{"type":"trades","seq":4}')).toMatchObject({ kind: 'other', type: 'trades' });
    expect(parseServerFrame('{"type":"Trade","seq":4}')).toMatchObject({ kind: 'other', type: 'Trade' });
  });

  it('when building subscribe requests, then null filters are left out unless a filter is being cleared', () => {
    expect(subscribeRequest('basic.bonk', null, undefined)).toEqual({ subject: 'basic.bonk' });
    expect(subscribeRequest('basic.bonk', null, undefined, true)).toEqual({ subject: 'basic.bonk', filter: null });
    expect(subscribeRequest('basic.bonk', { mints: ['m'] }, 3)).toEqual({ subject: 'basic.bonk', filter: { mints: ['m'] }, resume_after: 3 });
    expect(checkFilter({})).toBeNull();
    expect(() => checkFilter({ mint: ['x'] } as never)).toThrow(/filter.mint is not a filter key/);
    expect(() => checkFilter({ types: 'BUY' } as never)).toThrow(/array of strings/);
  });

  it('when a trade names its source, then its subject is found from the schemas’ source constants', () => {
    expect(subjectOfTrade({ source: 'pumpfun' })).toBe('basic.pumpfun');
    expect(subjectOfTrade({ source: 'raydium_cpmm' })).toBe('premium.raydium');
    expect(subjectOfTrade({ source: 'toString' })).toBeUndefined();
    expect(subjectOfTrade({})).toBeUndefined();
  });
});

describe('credentials', () => {
  it('when given a .creds file or the JSON of GET /api/nats, then the JWT, the seed and the WebSocket URL are read', () => {
    const user = testUser();
    const creds = `-----BEGIN NATS USER JWT-----\n${user.jwt}\n------END NATS USER JWT------\n\n************************* IMPORTANT *************************\n\n-----BEGIN USER NKEY SEED-----\n${user.seed}\n------END USER NKEY SEED------\n`;
    expect(parseCredentials(creds)).toEqual({ jwt: user.jwt, seed: user.seed, wsUrl: undefined });
    expect(parseCredentials(JSON.stringify({ user_jwt: user.jwt, user_nkey_seed: user.seed, ws_connection: 'wss://example.test' }))).toEqual({
      jwt: user.jwt,
      seed: user.seed,
      wsUrl: 'wss://example.test',
    });
    expect(() => parseCredentials('{"user_jwt":"x"}')).toThrow(/user_nkey_seed/);
    expect(() => parseCredentials('nothing here')).toThrow(/NKEY SEED/);
  });

  it('when a signer signs a nonce, then the result is unpadded base64url of a 64-byte Ed25519 signature', () => {
    const user = testUser();
    const signer = createNonceSigner(user.jwt, user.seed);
    expect(signer.publicKey).toBe(user.publicKey);
    const sig = signer.sign('abc');
    expect(sig).toMatch(/^[A-Za-z0-9_-]{86}$/);
    expect(Buffer.from(sig, 'base64url')).toHaveLength(64);
  });
});

describe('SlotBook', () => {
  it('when statuses arrive, then waiters settle on the commitment they want, a finalized slot counts as confirmed, and dead rejects', async () => {
    const { SlotBook } = await import('../src/domain/slot-book.js');
    const book = new SlotBook(2);
    const got: string[] = [];
    book.wait(10, 'confirmed', (o) => got.push(`10:${o.status}`));
    book.wait(10, 'finalized', (o) => got.push(`10f:${o.status}`));
    book.wait(11, 'confirmed', (o) => got.push(`11:${o.status}${'reason' in o ? `:${o.reason}` : ''}`));
    book.record({ slot: 10, status: 'processed' });
    expect(got).toEqual([]);
    book.record({ slot: 10, status: 'confirmed' });
    expect(got).toEqual(['10:confirmed']);
    book.record({ slot: 11, status: 'dead', reason: 'skipped' });
    book.record({ slot: 10, status: 'finalized' });
    expect(got).toEqual(['10:confirmed', '11:dead:skipped', '10f:finalized']);
    expect(book.waiting).toBe(0);
    // Known already: settled at once; a lower status never downgrades.
    book.record({ slot: 10, status: 'confirmed' });
    expect(book.status(10)).toBe('finalized');
    book.wait(10, 'confirmed', (o) => got.push(`again:${o.status}`));
    expect(got.at(-1)).toBe('again:finalized');
    // Bounded: the slot least recently moved (11: dead before 10 was finalized) is forgotten.
    book.record({ slot: 12, status: 'confirmed' });
    expect(book.status(11)).toBeUndefined();
    expect(book.status(10)).toBe('finalized');
    // A waiter removed (timeout) is not called.
    const cancel = book.wait(13, 'confirmed', () => got.push('13'));
    cancel();
    book.record({ slot: 13, status: 'confirmed' });
    expect(got).not.toContain('13');
  });
});
