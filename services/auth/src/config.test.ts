import { describe, expect, it } from 'vitest';
import { ConfigError } from '@tradewind/contracts';
import { loadAuthConfig } from './config.js';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' };

describe('auth config', () => {
  it('when only the local provider is configured on a developer machine, then it loads with the documented defaults', () => {
    const c = loadAuthConfig({ ...base, LOCAL_OIDC_ISSUER: 'http://localhost:8091' });
    expect(c).toMatchObject({ PORT: 8081, GRPC_PORT: 50051, ADMIN_PORT: 9304, ACCESS_TOKEN_TTL_SECONDS: 900, PUBLIC_URL: 'http://localhost:8080' });
  });

  it.each([
    ['Google is configured', { GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 'secret', LOCAL_OIDC_ISSUER: 'http://localhost:8091' }, 'LOCAL_OIDC_ISSUER'],
    ['NODE_ENV=production', { NODE_ENV: 'production', LOCAL_OIDC_ISSUER: 'http://localhost:8091', AUTH_JWT_PRIVATE_KEY: 'x' }, 'LOCAL_OIDC_ISSUER'],
  ])('when %s, then the local provider is refused', (_what, env, key) => {
    expect(() => loadAuthConfig({ ...base, ...env })).toThrow(new RegExp(`${key}: the local OpenID Connect provider is refused`));
  });

  it('when the account limits are not set, then the documented defaults apply; a page default above the page maximum is refused', () => {
    const c = loadAuthConfig({ ...base, LOCAL_OIDC_ISSUER: 'http://localhost:8091' });
    expect(c).toMatchObject({
      PROFILE_NAME_MAX_CHARS: 100,
      NOTIFICATIONS_MAX_PER_USER: 200,
      NOTIFICATIONS_PAGE_DEFAULT: 20,
      NOTIFICATIONS_PAGE_MAX: 100,
      NOTIFICATIONS_READ_MAX_IDS: 200,
      NEWSLETTER_RATE_LIMIT_PER_MINUTE: 10,
    });
    expect(() =>
      loadAuthConfig({ ...base, LOCAL_OIDC_ISSUER: 'http://localhost:8091', NOTIFICATIONS_PAGE_DEFAULT: '50', NOTIFICATIONS_PAGE_MAX: '40' }),
    ).toThrow(/NOTIFICATIONS_PAGE_DEFAULT: must not exceed NOTIFICATIONS_PAGE_MAX \(40\)/);
  });

  it('when the unsubscribe secret is shorter than 32 characters, then it is refused without echoing it; unset, the signing key is used', () => {
    const local = { ...base, LOCAL_OIDC_ISSUER: 'http://localhost:8091' };
    expect(() => loadAuthConfig({ ...local, NEWSLETTER_UNSUBSCRIBE_SECRET: 'x'.repeat(31) })).toThrow(
      /NEWSLETTER_UNSUBSCRIBE_SECRET: must be at least 32 characters .*\(got hidden\)/,
    );
    expect(loadAuthConfig({ ...local, NEWSLETTER_UNSUBSCRIBE_SECRET: 'x'.repeat(32) }).NEWSLETTER_UNSUBSCRIBE_SECRET).toBe('x'.repeat(32));
    expect(loadAuthConfig({ ...local, NEWSLETTER_UNSUBSCRIBE_SECRET: '' }).NEWSLETTER_UNSUBSCRIBE_SECRET).toBeUndefined();
  });

  it('when DATABASE_URL is missing, then the error names it', () => {
    expect(() => loadAuthConfig({ LOCAL_OIDC_ISSUER: 'http://localhost:8091' })).toThrow(/DATABASE_URL: .*\(got unset\)/);
  });

  it('when Google has no secret and production has no signing key, then both problems are reported at once', () => {
    try {
      loadAuthConfig({ ...base, NODE_ENV: 'production', GOOGLE_CLIENT_ID: 'id' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      expect(problems).toMatch(/GOOGLE_CLIENT_SECRET: required with GOOGLE_CLIENT_ID/);
      expect(problems).toMatch(/AUTH_JWT_PRIVATE_KEY: required in production/);
    }
  });
});
