import { describe, expect, it } from 'vitest';
import { ConfigError } from '@tradewind/lib';
import { loadBillingConfig } from './config.js';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' };

describe('billing config', () => {
  it('when nothing but the database is given on a developer machine, then it loads with the documented defaults and no Stripe key (local stand-in)', () => {
    const c = loadBillingConfig(base);
    expect(c).toMatchObject({
      PORT: 8082, GRPC_PORT: 50052, ADMIN_PORT: 9305, LOCAL_STRIPE_PORT: 8092, STRIPE_WEBHOOK_TOLERANCE_SECONDS: 300, STRIPE_TIMEOUT_MS: 10_000,
      STRIPE_MAX_NETWORK_RETRIES: 2, AUTH_ADDR: '127.0.0.1:50051', WEBHOOK_BODY_LIMIT_BYTES: 512 * 1024,
    });
    expect(c.STRIPE_SECRET_KEY).toBeUndefined();
  });

  it('when NODE_ENV=production has no Stripe key, then it is refused (the stand-in takes no real payments)', () => {
    expect(() => loadBillingConfig({ ...base, NODE_ENV: 'production' })).toThrow(/STRIPE_SECRET_KEY: required in production/);
  });

  it('when a key comes without a webhook secret and is not a Stripe key, then both problems are reported at once', () => {
    try {
      loadBillingConfig({ ...base, STRIPE_SECRET_KEY: 'pk_live_publishable' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      expect(problems).toMatch(/STRIPE_WEBHOOK_SECRET: required with STRIPE_SECRET_KEY/);
      expect(problems).toMatch(/STRIPE_SECRET_KEY: must be a Stripe secret or restricted key/);
    }
  });

  it('when AUTH_ADDR is not host:port or a port is out of range, then the key is named', () => {
    expect(() => loadBillingConfig({ ...base, AUTH_ADDR: 'auth' })).toThrow(/AUTH_ADDR/);
    expect(() => loadBillingConfig({ ...base, LOCAL_STRIPE_PORT: '70000' })).toThrow(/LOCAL_STRIPE_PORT/);
  });
});
