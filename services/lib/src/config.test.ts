import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CommonConfig, Port, PositiveInt, loadConfig, natsServerUrls, urlWithScheme } from './config.js';
import { ConfigError } from '@tradewind/contracts';

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

describe('CommonConfig shutdown timings', () => {
  // As services extend it: overriding ADMIN_PORT must keep working (zod refuses that on a refined object).
  const Service = CommonConfig.extend({ ADMIN_PORT: Port.default(9399) });

  it('when unset, then no readiness delay and a 10 s deadline', () => {
    expect(loadConfig(Service, {})).toMatchObject({ ADMIN_PORT: 9399, SHUTDOWN_READINESS_DELAY_MS: 0, SHUTDOWN_DEADLINE_MS: 10_000 });
  });

  it('when set with the deadline past the delay, then both are numbers', () => {
    expect(loadConfig(Service, { SHUTDOWN_READINESS_DELAY_MS: '5000', SHUTDOWN_DEADLINE_MS: '25000' })).toMatchObject({
      SHUTDOWN_READINESS_DELAY_MS: 5000,
      SHUTDOWN_DEADLINE_MS: 25_000,
    });
  });

  it('when the deadline is not past the delay, then SHUTDOWN_DEADLINE_MS is refused naming the delay', () => {
    const problems = (delay: string, deadline: string | undefined) => {
      try {
        loadConfig(Service, { SHUTDOWN_READINESS_DELAY_MS: delay, ...(deadline === undefined ? {} : { SHUTDOWN_DEADLINE_MS: deadline }) });
      } catch (err) {
        return (err as ConfigError).problems;
      }
      return [];
    };
    expect(problems('5000', '5000')).toEqual([expect.stringMatching(/^SHUTDOWN_DEADLINE_MS: must be greater than SHUTDOWN_READINESS_DELAY_MS \(5000 ms\)/)]);
    expect(problems('5000', '4000')).toHaveLength(1);
    // The default deadline (10 s) applies to a long delay too.
    expect(problems('10000', undefined)).toHaveLength(1);
  });

  it('when a timing is negative, zero (deadline) or not an integer, then that key is refused', () => {
    const keys = (env: NodeJS.ProcessEnv) => {
      try {
        loadConfig(Service, env);
      } catch (err) {
        return (err as ConfigError).problems.map((p) => p.split(':')[0]);
      }
      return [];
    };
    expect(keys({ SHUTDOWN_READINESS_DELAY_MS: '-1' })).toEqual(['SHUTDOWN_READINESS_DELAY_MS']);
    expect(keys({ SHUTDOWN_DEADLINE_MS: '0' })).toEqual(['SHUTDOWN_DEADLINE_MS']);
    expect(keys({ SHUTDOWN_DEADLINE_MS: '1.5' })).toEqual(['SHUTDOWN_DEADLINE_MS']);
  });
});

describe('natsServerUrls (NATS_URL)', () => {
  const schema = z.object({ NATS_URL: natsServerUrls('nats://127.0.0.1:4223') });
  it('when unset, one URL or a comma-separated list, then it is accepted as given', () => {
    expect(loadConfig(schema, {}).NATS_URL).toBe('nats://127.0.0.1:4223');
    expect(loadConfig(schema, { NATS_URL: 'tls://nats.example:4222' }).NATS_URL).toBe('tls://nats.example:4222');
    const list = 'nats://127.0.0.1:4222, nats://127.0.0.1:4223,nats://127.0.0.1:4224';
    expect(loadConfig(schema, { NATS_URL: list }).NATS_URL).toBe(list);
  });

  it('when any entry is not a nats:// or tls:// URL (or is empty), then the error names NATS_URL', () => {
    for (const bad of ['nats://a:4222,http://b:4222', 'nats://a:4222,', 'nats://a:4222,,nats://b:4222', 'a:4222']) {
      expect(() => loadConfig(schema, { NATS_URL: bad }), bad).toThrow(/NATS_URL: must be one or more comma-separated URLs with scheme nats:\/\/ or tls:\/\//);
    }
  });
});
