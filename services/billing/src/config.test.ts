import { describe, expect, it } from 'vitest';
import { ConfigError } from '@tradewind/contracts';
import { loadBillingConfig } from './config.js';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' };

describe('billing config', () => {
  it('when the database and the Stripe keys are given, then it loads with the documented defaults', () => {
    const c = loadBillingConfig(base);
    expect(c).toMatchObject({
      PORT: 8082,
      GRPC_PORT: 50052,
      ADMIN_PORT: 9305,
      STRIPE_WEBHOOK_TOLERANCE_SECONDS: 300,
      STRIPE_TIMEOUT_MS: 10_000,
      STRIPE_MAX_NETWORK_RETRIES: 2,
      AUTH_ADDR: '127.0.0.1:50051',
      WEBHOOK_BODY_LIMIT_BYTES: 512 * 1024,
    });
    expect(c.STRIPE_API_URL).toBeUndefined();
  });

  it('when no Stripe key is given, then it is refused in every environment and the message says how a developer gets one (billing holds no stand-in)', () => {
    for (const NODE_ENV of ['development', 'production']) {
      try {
        loadBillingConfig({ DATABASE_URL: base.DATABASE_URL, NODE_ENV });
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        const problems = (err as ConfigError).problems.join('\n');
        expect(problems).toMatch(/STRIPE_SECRET_KEY: required: a Stripe secret key .*npm start/);
        expect(problems).toMatch(/STRIPE_WEBHOOK_SECRET: required/);
      }
    }
  });

  it('when the key is not a Stripe secret key and the webhook secret is empty, then both problems are reported at once', () => {
    try {
      loadBillingConfig({ ...base, STRIPE_SECRET_KEY: 'pk_live_publishable', STRIPE_WEBHOOK_SECRET: '' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      expect(problems).toMatch(/STRIPE_WEBHOOK_SECRET: required/);
      expect(problems).toMatch(/STRIPE_SECRET_KEY: must be a Stripe secret or restricted key/);
    }
  });

  it('when AUTH_ADDR is not host:port or a port is out of range, then the key is named', () => {
    expect(() => loadBillingConfig({ ...base, AUTH_ADDR: 'auth' })).toThrow(/AUTH_ADDR/);
    expect(() => loadBillingConfig({ ...base, GRPC_PORT: '70000' })).toThrow(/GRPC_PORT/);
  });
});
