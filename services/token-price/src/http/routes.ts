/** `GET /api/birdeye/tokens`: the public live-ticker endpoint (no authentication); declared in http/api.ts. */
import type { FastifyInstance } from 'fastify';
import type { Counter } from 'prom-client';
import type { Logger } from '@tradewind/lib';
import type { Ticker } from '../ticker.js';
import { limitSchema } from './api.js';

/** The failure body the web app expects (issue 7 / the product spec), exactly. */
export const FETCH_FAILED_BODY = { status: 500, message: 'Failed to fetch token data' } as const;

/** Registers the route. `?limit=` (1 … maxLimit) overrides `defaultLimit`; anything else is a 400. */
export function registerRoutes(
  http: FastifyInstance,
  deps: { ticker: Ticker; logger: Logger; defaultLimit: number; maxLimit: number; cacheMs: number; requests: Counter<'outcome'> },
): void {
  const limitOk = limitSchema(deps.maxLimit);
  http.get('/api/birdeye/tokens', async (request, reply) => {
    const raw = (request.query as Record<string, unknown>).limit;
    let limit = deps.defaultLimit;
    if (raw !== undefined) {
      if (!limitOk.safeParse(raw).success) {
        deps.requests.inc({ outcome: 'bad_request' });
        return reply.code(400).send({ status: 400, code: 'invalid_argument', message: `limit must be an integer from 1 to ${deps.maxLimit}` });
      }
      limit = Number(raw);
    }
    try {
      const { rows } = await deps.ticker.list(limit);
      deps.requests.inc({ outcome: 'ok' });
      return reply.header('cache-control', `public, max-age=${Math.floor(deps.cacheMs / 1000)}`).send({ success: true, data: rows });
    } catch (err) {
      deps.requests.inc({ outcome: 'error' });
      request.log.error({ err }, 'token data unavailable');
      return reply.code(500).header('cache-control', 'no-store').send(FETCH_FAILED_BODY);
    }
  });
}
