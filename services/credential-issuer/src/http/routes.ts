/**
 * credential-issuer's public HTTP API (through the ingress at PUBLIC_URL), bearer access token:
 *   GET  /api/nats               → 200 NatsCredentialsView (the dashboard's connection details)
 *   GET  /api/nats?format=creds  → 200 text/plain: the standard `.creds` file (JWT + seed)
 *   POST /api/nats               → 200 NatsCredentialsView of the new credentials (rotation)
 *   GET  /api/usage              → 200 UsageReport (@tradewind/contracts usage.ts); errors other than 401 are
 *                                  the shared {status, code, message}
 * Errors are `{error, message}`: 400 for a malformed request, 429 for too many rotations, and
 * 500 "Failed to fetch NATS credentials" / "Failed to rotate NATS credentials" otherwise (the cause
 * is logged, never sent). No valid session: exactly 401 {"status":401,"message":"No active session"},
 * as every Tradewind API. The query and body are validated with the schemas of http/api.ts (the
 * source of GET /api/openapi.json).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Counter } from 'prom-client';
import { AppError, type UsageReport } from '@tradewind/contracts';
import { NO_ACTIVE_SESSION, errorBody, httpAppError, type AccessTokenClaims } from '@tradewind/lib';
import type { CredentialService } from '../service.js';
import { NatsQuerySchema, RotateBodySchema } from './api.js';

export interface RouteDeps {
  service: CredentialService;
  /** Verifies `Authorization: Bearer <access token>`. @throws AppError('unauthenticated'). */
  verify(authorization: string | undefined): Promise<AccessTokenClaims>;
  /** Requests by operation and outcome. */
  requests: Counter<'operation' | 'outcome'>;
  /** The HTTP app's body limit, named in a 400 for a body over it. */
  bodyLimitBytes: number;
  /** The usage report of a signed-in user (usage/usage-report.ts). */
  usage(claims: AccessTokenClaims): Promise<UsageReport>;
}

/** Message of a 500 per operation (the product's wording). */
export const FAILURE_MESSAGES = { fetch: 'Failed to fetch NATS credentials', rotate: 'Failed to rotate NATS credentials' } as const;

type Operation = keyof typeof FAILURE_MESSAGES;

const OPERATION = Symbol('operation');

export function registerRoutes(app: FastifyInstance, deps: RouteDeps): void {
  // GET /api/usage: the shared error body, except the 401 every Tradewind API answers.
  void app.register(async (scope) => {
    scope.setErrorHandler((err, request, reply) => {
      const appErr = httpAppError(err, deps.bodyLimitBytes);
      deps.requests.inc({ operation: 'usage', outcome: appErr.code });
      if (appErr.code === 'unauthenticated') return reply.status(401).send({ status: 401, message: NO_ACTIVE_SESSION });
      if (appErr.code === 'internal') request.log.error({ err }, 'usage request failed');
      const body = errorBody(appErr);
      return reply.status(body.status).send(body);
    });
    scope.get('/api/usage', async (request, reply) => {
      const claims = await deps.verify(request.headers.authorization);
      const report = await deps.usage(claims);
      deps.requests.inc({ operation: 'usage', outcome: 'ok' });
      reply.header('cache-control', 'no-store');
      return report;
    });
  });
  // Encapsulated: these routes answer errors as {error, message}, not the shared {status, code, message}.
  void app.register(async (scope) => {
    scope.setErrorHandler((err, request, reply) => {
      const operation: Operation = (request as unknown as Record<symbol, Operation>)[OPERATION] ?? (request.method === 'POST' ? 'rotate' : 'fetch');
      const appErr = httpAppError(err, deps.bodyLimitBytes);
      deps.requests.inc({ operation, outcome: appErr.code });
      if (appErr.code === 'unauthenticated') return reply.status(401).send({ status: 401, message: NO_ACTIVE_SESSION });
      if (appErr.code === 'invalid_argument') return reply.status(400).send({ error: appErr.code, message: appErr.message });
      if (appErr.code === 'resource_exhausted') return reply.status(429).send({ error: appErr.code, message: appErr.message });
      request.log.error({ err, operation }, 'credentials request failed');
      return reply.status(500).send({ error: appErr.code === 'unavailable' ? 'unavailable' : 'internal', message: FAILURE_MESSAGES[operation] });
    });

    const caller = async (request: FastifyRequest, operation: Operation): Promise<AccessTokenClaims> => {
      (request as unknown as Record<symbol, Operation>)[OPERATION] = operation;
      return deps.verify(request.headers.authorization);
    };
    const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store').header('pragma', 'no-cache');

    scope.get<{ Querystring: Record<string, unknown> }>('/api/nats', async (request, reply) => {
      const claims = await caller(request, 'fetch');
      const query = NatsQuerySchema.safeParse({ format: request.query.format });
      if (!query.success) throw new AppError('invalid_argument', `format must be "json" or "creds", not ${JSON.stringify(request.query.format)}`);
      const format = query.data.format ?? 'json';
      const credentials = await deps.service.credentials(claims.userId, claims.email);
      deps.requests.inc({ operation: 'fetch', outcome: 'ok' });
      noStore(reply);
      if (format === 'creds') {
        return reply
          .type('text/plain; charset=utf-8')
          .header('content-disposition', 'attachment; filename="tradewind.creds"')
          .send(deps.service.credsFile(credentials));
      }
      return credentials;
    });

    scope.post<{ Body: unknown }>('/api/nats', async (request, reply) => {
      const claims = await caller(request, 'rotate');
      const body = request.body;
      if (body !== undefined && !RotateBodySchema.safeParse(body).success) {
        throw new AppError('invalid_argument', 'POST /api/nats takes no parameters: send no body or {}');
      }
      const credentials = await deps.service.rotate(claims.userId, claims.email, request.id);
      deps.requests.inc({ operation: 'rotate', outcome: 'ok' });
      noStore(reply);
      return credentials;
    });
  });
}
