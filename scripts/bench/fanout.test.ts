import { describe, expect, it } from 'vitest';
import { decode, fromPublic, fromSeed } from '@nats-io/jwt';
import { ensureNatsIdentities } from '@tradewind/credential-issuer';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LatencyHistogram, benchMessages, parseBenchFields } from './fanout-message.js';
import { FastKeyPair, legacyPlanUsers, parseCreds } from './fanout-users.js';

const TRADE = { source: 'pumpfun', transaction_type: 'BUY', signature: '2ghH', slot: 356410419, sol_amount_ui: 0.129814469 };

describe('bench message', () => {
  it('when a message is built, then its bench fields read back from the bytes', () => {
    const m = benchMessages(TRADE).make(3, 12345);
    const f = parseBenchFields(Buffer.from(m));
    expect(f).toMatchObject({ step: 3, n: 12345 });
    expect(Math.abs(f!.t - (performance.timeOrigin + performance.now()))).toBeLessThan(1000);
    expect(JSON.parse(m)).toMatchObject({ ...TRADE, bench_s: 3, bench_n: 12345 });
  });

  it('when ws-fanout v2 prepends "seq" (or re-serialises with spaces), then the fields still read back', () => {
    const m = benchMessages(TRADE).make(1, 7);
    const v2 = `{"seq":99,${m.slice(1)}`;
    expect(parseBenchFields(new TextEncoder().encode(v2))).toMatchObject({ step: 1, n: 7 });
    const spaced = JSON.stringify(JSON.parse(m), null, 1);
    expect(parseBenchFields(Buffer.from(spaced))).toMatchObject({ step: 1, n: 7 });
  });

  it('when a control message arrives, then it has no bench fields', () => {
    expect(parseBenchFields(Buffer.from('{"type":"subscribed","subject":"basic.pumpfun"}'))).toBeUndefined();
    expect(parseBenchFields(Buffer.from('{"type":"heartbeat","slot":1,"seq":2}'))).toBeUndefined();
    expect(parseBenchFields(Buffer.from('{"bench_s":1,"bench_n":"x","bench_t":1}'))).toBeUndefined();
  });

  it('when the trade is not a JSON object, then building messages fails clearly', () => {
    expect(() => benchMessages([1, 2])).toThrow(/JSON object/);
  });
});

describe('LatencyHistogram', () => {
  it('when values are recorded, then quantiles are within 1 % and the max is exact', () => {
    const h = new LatencyHistogram();
    for (let i = 1; i <= 1000; i++) h.record(i / 100); // 0.01 .. 10 ms
    expect(h.quantile(0.5)).toBeGreaterThanOrEqual(5);
    expect(h.quantile(0.5)).toBeLessThanOrEqual(5 * 1.01);
    expect(h.quantile(0.99)).toBeGreaterThanOrEqual(9.9);
    expect(h.quantile(0.99)).toBeLessThanOrEqual(9.9 * 1.01);
    expect(h.quantile(1)).toBe(10);
  });

  it('when two histograms are merged, then the result is that of all their values', () => {
    const a = new LatencyHistogram();
    const b = new LatencyHistogram();
    for (let i = 0; i < 99; i++) a.record(1);
    b.record(50);
    a.merge(JSON.parse(JSON.stringify(b.toJSON())) as ReturnType<LatencyHistogram['toJSON']>);
    expect(a.count).toBe(100);
    expect(a.quantile(0.99)).toBeLessThanOrEqual(1.01);
    expect(a.quantile(1)).toBe(50);
    expect(new LatencyHistogram().quantile(0.5)).toBeNaN();
  });
});

describe('FastKeyPair', () => {
  it('when made from an nkeys seed, then it has the same public key and nkeys verifies its signatures', () => {
    const kp = FastKeyPair.create('user');
    const reference = fromSeed(kp.getSeed());
    expect(kp.getPublicKey()).toBe(reference.getPublicKey());
    expect(kp.getPublicKey()).toMatch(/^U[A-Z2-7]{55}$/);
    const data = new TextEncoder().encode('nonce');
    expect(fromPublic(kp.getPublicKey()).verify(data, kp.sign(data))).toBe(true);
    expect(FastKeyPair.create('account').getPublicKey()).toMatch(/^A/);
  });

  it('when a seed is corrupted, then it is refused', () => {
    const seed = new TextDecoder().decode(FastKeyPair.create('user').getSeed());
    const bad = seed.slice(0, 10) + (seed[10] === 'A' ? 'B' : 'A') + seed.slice(11);
    expect(() => FastKeyPair.fromSeed(bad)).toThrow(/checksum/);
  });

  it('when legacy plan users are issued, then their JWTs verify and carry the plan', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tw-bench-test-'));
    try {
      const ids = await ensureNatsIdentities(dir);
      const [u] = await legacyPlanUsers(ids, 'starter', 1, 60);
      const claims = decode<{ tags?: string[]; issuer_account?: string; sub?: { allow?: string[] } }>(u!.jwt);
      expect(claims.iss).toBe(ids.customers.starter.signing!.public_key);
      expect(claims.nats.issuer_account).toBe(ids.customers.starter.identity.public_key);
      expect(claims.nats.tags).toContain('plan:starter');
      expect(claims.sub).toBe(FastKeyPair.fromSeed(u!.seed).getPublicKey());
      expect(parseCreds(ids.service_user_creds).seed).toMatch(/^SU/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
