import { describe, expect, it } from 'vitest';
import { Counter, Registry } from 'prom-client';
import { AppError } from '@tradewind/contracts';
import { createHttpApp, createLogger, type AccessTokenClaims } from '@tradewind/lib';
import { registerRoutes } from './routes.js';
import type { CredentialService } from '../service.js';

const CLAIMS: AccessTokenClaims = { userId: '6f1c1a8e-6d0c-4a53-9d0f-9a2b0c3d4e5f', sessionId: 's', plan: 'starter', email: 'a@example.com', expiresAt: 0 };

function appWith(failure: Error) {
  const registry = new Registry();
  const http = createHttpApp({ logger: createLogger({ service: 'credential-issuer', level: 'silent' }), registry, service: 'credential-issuer' });
  const service = {
    credentials: async () => {
      throw failure;
    },
    rotate: async () => {
      throw failure;
    },
  } as unknown as CredentialService;
  registerRoutes(http, {
    service,
    verify: async (authorization) => {
      if (!authorization) throw new AppError('unauthenticated', 'No active session');
      return CLAIMS;
    },
    requests: new Counter({ name: 'test_requests_total', help: 'h', labelNames: ['operation', 'outcome'], registers: [registry] }),
    bodyLimitBytes: 4096,
    usage: async () => {
      throw failure;
    },
  });
  return http;
}

describe('/api/nats error mapping', () => {
  it('when the resolver or the database fails, then GET answers 500 "Failed to fetch NATS credentials" and POST "Failed to rotate NATS credentials", without the cause', async () => {
    for (const failure of [new AppError('unavailable', 'the NATS resolver did not take the account: TIMEOUT'), new Error('connection terminated')]) {
      const http = appWith(failure);
      const get = await http.inject({ method: 'GET', url: '/api/nats', headers: { authorization: 'Bearer t' } });
      expect(get.statusCode).toBe(500);
      expect(get.json()).toEqual({ error: failure instanceof AppError ? 'unavailable' : 'internal', message: 'Failed to fetch NATS credentials' });
      const post = await http.inject({ method: 'POST', url: '/api/nats', headers: { authorization: 'Bearer t' } });
      expect(post.statusCode).toBe(500);
      expect(post.json().message).toBe('Failed to rotate NATS credentials');
      await http.close();
    }
  });

  it('when the usage figures cannot be read, then GET /api/usage answers {status, code, message}, an unknown error as "internal error"', async () => {
    for (const [failure, body] of [
      [new AppError('unavailable', 'database unreachable'), { status: 503, code: 'unavailable', message: 'database unreachable' }],
      [new Error('connection terminated'), { status: 500, code: 'internal', message: 'internal error' }],
    ] as const) {
      const http = appWith(failure);
      const res = await http.inject({ method: 'GET', url: '/api/usage', headers: { authorization: 'Bearer t' } });
      expect(res.statusCode).toBe(body.status);
      expect(res.json()).toEqual(body);
      await http.close();
    }
  });

  it('when GET /api/usage has no session, then 401 {"status":401,"message":"No active session"}', async () => {
    const http = appWith(new Error('unreached'));
    const res = await http.inject({ method: 'GET', url: '/api/usage' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ status: 401, message: 'No active session' });
    await http.close();
  });

  it('when there is no session, then 401 comes before anything else', async () => {
    const http = appWith(new Error('unreached'));
    const res = await http.inject({ method: 'GET', url: '/api/nats?format=xml' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ status: 401, message: 'No active session' });
    await http.close();
  });
});
