/**
 * credential-issuer's route declaration (src/http/api.ts, the source of GET /api/openapi.json)
 * against http/routes.ts, which app.ts registers: the same routes, and the query and body schemas
 * accepting exactly what the routes accept (docs/openapi.md). The service behind the routes is one
 * whose calls fail as an unreachable resolver does (503 → the route's 500), so an accepted input
 * shows as a 500 and a refused one as the route's 400.
 */
import { describe, expect, it } from 'vitest';
import { Counter, Registry } from 'prom-client';
import { AppError } from '@tradewind/contracts';
import { buildOpenApiDocument, createHttpApp, createLogger, openApiOperations, recordRoutes, type AccessTokenClaims } from '@tradewind/lib';
import { registerRoutes } from '../src/http/routes.js';
import { NatsQuerySchema, RotateBodySchema, credentialIssuerApi } from '../src/http/api.js';
import type { CredentialService } from '../src/service.js';

const CLAIMS: AccessTokenClaims = { userId: '6f1c1a8e-6d0c-4a53-9d0f-9a2b0c3d4e5f', sessionId: 's', plan: 'starter', email: 'a@example.com', expiresAt: 0 };

/** `?a=1&a=2&b=` as fastify parses it: a repeated key becomes an array. */
function queryObject(query: string): Record<string, string | string[]> {
  const params = new URLSearchParams(query);
  return Object.fromEntries(
    [...new Set(params.keys())].map((k) => {
      const all = params.getAll(k);
      return [k, all.length > 1 ? all : all[0]!];
    }),
  );
}

async function routesApp() {
  const registry = new Registry();
  const http = createHttpApp({ logger: createLogger({ service: 'credential-issuer', level: 'silent' }), registry, service: 'credential-issuer' });
  const registered = recordRoutes(http);
  const unreachable = async () => {
    throw new AppError('unavailable', 'the NATS resolver did not answer');
  };
  registerRoutes(http, {
    service: { credentials: unreachable, rotate: unreachable } as unknown as CredentialService,
    verify: async (authorization) => {
      if (authorization !== 'Bearer t') throw new AppError('unauthenticated', 'No active session');
      return CLAIMS;
    },
    requests: new Counter({ name: 'test_requests_total', help: 'h', labelNames: ['operation', 'outcome'], registers: [registry] }),
    bodyLimitBytes: 4096,
    usage: unreachable,
  });
  await http.ready();
  return { http, registered };
}

describe('credential-issuer OpenAPI declaration', () => {
  it('when routes.ts registers its routes, then they are exactly the declared operations', async () => {
    const { http, registered } = await routesApp();
    expect(registered.sort()).toEqual(openApiOperations(buildOpenApiDocument({ title: 't', version: '0', apis: [credentialIssuerApi()] })));
    await http.close();
  });

  it('when the format schema and GET /api/nats get the same query, then they accept and refuse the same ones', async () => {
    const { http } = await routesApp();
    for (const query of ['', '?format=json', '?format=creds', '?format=xml', '?format=', '?format=JSON', '?format=json&format=creds']) {
      const accepted = NatsQuerySchema.safeParse(queryObject(query)).success;
      const res = await http.inject({ method: 'GET', url: `/api/nats${query}`, headers: { authorization: 'Bearer t' } });
      expect(res.statusCode, `${query}: schema ${accepted ? 'accepts' : 'refuses'}`).toBe(accepted ? 500 : 400);
      if (!accepted) expect(res.json().error).toBe('invalid_argument');
    }
    await http.close();
  });

  it('when the body schema and POST /api/nats get the same body, then they accept and refuse the same ones', async () => {
    const { http } = await routesApp();
    const bodies: Array<{ body: unknown } | undefined> = [
      undefined,
      { body: null },
      { body: {} },
      { body: { plan: 'pro' } },
      { body: [] },
      { body: 'x' },
      { body: 3 },
    ];
    for (const input of bodies) {
      const accepted = RotateBodySchema.safeParse(input?.body).success || input === undefined;
      const res = await http.inject({
        method: 'POST',
        url: '/api/nats',
        headers: { authorization: 'Bearer t', ...(input ? { 'content-type': 'application/json' } : {}) },
        ...(input ? { payload: JSON.stringify(input.body) } : {}),
      });
      expect(res.statusCode, `${JSON.stringify(input?.body)}: schema ${accepted ? 'accepts' : 'refuses'}`).toBe(accepted ? 500 : 400);
      if (!accepted) expect(res.json()).toEqual({ error: 'invalid_argument', message: 'POST /api/nats takes no parameters: send no body or {}' });
    }
    await http.close();
  });
});
