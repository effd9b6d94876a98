/**
 * The public endpoints (no authentication), declared in http/api.ts: `GET /api/birdeye/tokens`, the live
 * ticker, and `GET /api/trades/tape`, the live trade tape (Server-Sent Events, http/tape-hub.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Counter } from 'prom-client';
import { lastForwardedFor, type Logger } from '@tradewind/lib';
import type { Ticker } from '../ticker.js';
import { limitSchema, TAPE_PATH } from './api.js';
import type { TapeHub } from './tape-hub.js';

/** The failure body the web app expects (issue 7 / the product spec), exactly. */
export const FETCH_FAILED_BODY = { status: 500, message: 'Failed to fetch token data' } as const;

/**
 * The client's address for the tape's per-address limit: the last X-Forwarded-For entry, which the ingress
 * appended (the local proxy and ingress-nginx alike; entries before it are the client's own claims, as
 * ws-fanout's WS_TRUST_FORWARDED_FOR rule says), else the TCP peer. IPv4-mapped IPv6 is written as IPv4.
 */
export function clientAddress(req: IncomingMessage): string {
  return (lastForwardedFor(req.headers['x-forwarded-for']) || req.socket.remoteAddress || 'unknown').replace(/^::ffff:/, '');
}

/** Dependencies of {@link registerRoutes}. */
export interface RouteDeps {
  ticker: Ticker;
  logger: Logger;
  /** TOKENS_LIMIT and TOKENS_MAX_LIMIT. */
  defaultLimit: number;
  maxLimit: number;
  /** TOKENS_CACHE_MS. */
  cacheMs: number;
  requests: Counter<'outcome'>;
  /** The tape's fan-out. */
  tape: TapeHub;
  /** TAPE_RETRY_AFTER_S: Retry-After of a refused tape connection, s. */
  tapeRetryAfterS: number;
}

/**
 * Registers the routes. Tokens: `?limit=` (1 … maxLimit) overrides `defaultLimit`; anything else is a 400.
 * Tape: 200 `text/event-stream` that stays open, or 429 `{status, code: "resource_exhausted", message}` with
 * Retry-After over TAPE_MAX_CONNECTIONS or TAPE_MAX_CONNECTIONS_PER_IP.
 */
export function registerRoutes(http: FastifyInstance, deps: RouteDeps): void {
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

  http.get(TAPE_PATH, async (request, reply) => {
    const sseHeaders = {
      'content-type': 'text/event-stream; charset=utf-8',
      // Every event is new: nothing may be cached or transformed on the way (RFC 9111 §5.2.2).
      'cache-control': 'no-store, no-transform',
      // ingress-nginx (and any nginx) passes the events on as they come instead of buffering the answer.
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    };
    if (request.method === 'HEAD') return reply.headers(sseHeaders).code(200).send();
    const address = clientAddress(request.raw);
    const refusal = deps.tape.refusal(address);
    if (refusal !== null) {
      deps.tape.countRefusal(refusal);
      const message =
        refusal === 'address'
          ? `Too many live trade tapes open from your address. Close one or try again in ${deps.tapeRetryAfterS} s.`
          : `The live trade tape is at capacity. Try again in ${deps.tapeRetryAfterS} s.`;
      return reply
        .code(429)
        .header('retry-after', String(deps.tapeRetryAfterS))
        .header('cache-control', 'no-store')
        .send({ status: 429, code: 'resource_exhausted', message });
    }
    // The stream is written by hand from here: fastify's reply lifecycle ends now.
    reply.hijack();
    const res = reply.raw;
    // A client gone before this point would never fire 'close' below: its slot would leak.
    if (res.destroyed || request.raw.socket.destroyed) return;
    res.writeHead(200, { ...sseHeaders, connection: 'keep-alive' });
    res.write(': open\n\n');
    const release = deps.tape.add(address, res);
    const done = (): void => {
      release();
      request.log.info({ route: TAPE_PATH, ms: Math.round(reply.elapsedTime) }, 'tape closed');
    };
    // The response closes when the client goes away (or the stream is ended): the slot is released then.
    res.once('close', done);
    res.once('error', () => res.destroy());
  });
}
