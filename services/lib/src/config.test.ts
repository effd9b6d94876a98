import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CommonConfig, PositiveInt, loadConfig, urlWithScheme } from './config.js';
import { ConfigError } from './errors.js';

const Schema = CommonConfig.extend({
  NATS_URL: urlWithScheme(['nats']).default('nats://127.0.0.1:4223'),
  LIMIT: PositiveInt.default(5),
  STRIPE_SECRET_KEY: z.string().startsWith('sk_').optional(),
});

describe('loadConfig', () => {
  it('when values are unset, then defaults apply and the result is frozen', () => {
    const c = loadConfig(Schema, { ADMIN_PORT: '0' });
    expect(c).toMatchObject({ LOG_LEVEL: 'info', ADMIN_PORT: 0, NATS_URL: 'nats://127.0.0.1:4223', LIMIT: 5 });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('when several values are bad, then one ConfigError lists every key, hiding secrets', () => {
    let caught: unknown;
    try {
      loadConfig(Schema, { ADMIN_PORT: '70000', LOG_LEVEL: 'loud', NATS_URL: 'http://x', LIMIT: '-1', STRIPE_SECRET_KEY: 'pk_live_oops' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems;
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['ADMIN_PORT', 'LIMIT', 'LOG_LEVEL', 'NATS_URL', 'STRIPE_SECRET_KEY']);
    expect(problems.find((p) => p.startsWith('NATS_URL'))).toContain('nats://');
    expect(problems.find((p) => p.startsWith('STRIPE_SECRET_KEY'))).toContain('(got hidden)');
    expect((caught as Error).message).not.toContain('pk_live_oops');
  });
});

describe('loadConfig with a URL holding credentials', () => {
  it('when a URL key is invalid, then its user:password part is masked in the error', () => {
    const schema = z.object({ DATABASE_URL: urlWithScheme(['postgres']) });
    expect(() => loadConfig(schema, { DATABASE_URL: 'mysql://admin:hunter2@db:3306/x' })).toThrow(/got "mysql:\/\/\*\*\*@db:3306\/x"/);
  });
});
