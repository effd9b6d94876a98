/**
 * Public HTTP APIs (auth, billing, credential-issuer, token-price) on fastify: request ids from
 * `x-request-id` (or a new UUID) echoed in the response, pino child logging without payloads,
 * one error shape `{status, code, message}`, and a request-duration histogram labelled by route
 * pattern (never the raw path).
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { Histogram, type Registry } from 'prom-client';
import { AppError, toAppError, type ErrorCode } from '@tradewind/contracts';
import type { Logger } from './logger.js';

/** AppError code → HTTP status. */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  conflict: 409,
  resource_exhausted: 429,
  unavailable: 503,
  internal: 500,
};

/** JSON body of every error response. */
export interface ErrorBody {
  status: number;
  code: ErrorCode;
  message: string;
}

/** The body for `err`: internal errors never leak their message. */
export function errorBody(err: AppError): ErrorBody {
  return { status: HTTP_STATUS[err.code], code: err.code, message: err.code === 'internal' ? 'internal error' : err.message };
}

/**
 * The AppError for anything a route or fastify threw: AppErrors as they are; fastify's own 4xx
 * (bad JSON, a body over `bodyLimitBytes`, ...) as invalid_argument; anything else via toAppError.
 */
export function httpAppError(err: unknown, bodyLimitBytes: number): AppError {
  if (err instanceof AppError) return err;
  const fastifyErr = err as { statusCode?: number; message?: string };
  if (fastifyErr.statusCode === 413) return new AppError('invalid_argument', `request body larger than ${bodyLimitBytes} bytes`);
  if (typeof fastifyErr.statusCode === 'number' && fastifyErr.statusCode >= 400 && fastifyErr.statusCode < 500)
    return new AppError('invalid_argument', fastifyErr.message ?? 'bad request');
  return toAppError(err);
}

/**
 * Answers a request Node's HTTP parser refused (CR/LF or bad characters in a header, a bad request
 * line, headers over the size limit, a request timeout) with the shared error shape instead of
 * fastify's `{error, message, statusCode}`: 431 for oversized headers, 408 for a timeout, else 400,
 * `code` invalid_argument, then closes the socket. Nothing is written to a reset or destroyed socket.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message = status === 431 ? 'request headers too large' : status === 408 ? 'request timed out' : 'malformed HTTP request';
  const body = JSON.stringify({ status, code: 'invalid_argument', message } satisfies ErrorBody);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * The last entry of a request's X-Forwarded-For, trimmed: the address the proxy in front of us (the ingress, the
 * local ingress proxy) appended; the entries before it are the client's own claims. Undefined when the header is
 * absent or its last entry empty. `header` is Node's `req.headers['x-forwarded-for']` (a repeated header may
 * arrive as an array: its last one counts).
 */
export function lastForwardedFor(header: string | string[] | undefined): string | undefined {
  const last = (Array.isArray(header) ? header.at(-1) : header)?.split(',').at(-1)?.trim();
  return last || undefined;
}

/** Options of {@link createHttpApp}. */
export interface HttpAppOptions {
  logger: Logger;
  registry: Registry;
  /** Service name for the metric name: `tradewind_<service>_http_request_duration_seconds`. */
  service: string;
  /** Largest accepted request body in bytes (default 64 KiB). */
  bodyLimitBytes?: number;
  /** Set when running behind the ingress / local proxy so `request.ip` and protocol come from X-Forwarded-*. */
  trustProxy?: boolean;
}

/**
 * A fastify instance with the shared conventions. Routes throw AppError; the error handler
 * maps it (and fastify's own validation/body errors) to `{status, code, message}`. Every answer
 * carries `x-request-id`, and `cache-control: no-store` unless the route set its own.
 */
export function createHttpApp(options: HttpAppOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    // One line per request from the onResponse hook below instead of fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimitBytes ?? 64 * 1024,
    trustProxy: options.trustProxy ?? false,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // Errors before routing (a path that does not decode, e.g. `/auth/%ff`) and requests Node's parser
    // refuses answer with the shared error shape too (found by scripts/reliability/fuzz/http.ts).
    frameworkErrors: (err, _request, reply) => {
      void (reply as unknown as FastifyReply).status(400).send(errorBody(new AppError('invalid_argument', err.message)));
    },
    clientErrorHandler,
  });
  const duration = new Histogram({
    name: `tradewind_${options.service.replace(/-/g, '_')}_http_request_duration_seconds`,
    help: 'HTTP request duration by route pattern, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [options.registry],
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // An answer is private unless its route says otherwise: most carry something per user (a session,
  // credentials, a subscription), and a shared or browser cache must keep none of them. Public
  // answers (the JWKS) set their own Cache-Control (docs/web.md, "Browser security").
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    duration.observe({ route: request.routeOptions.url ?? 'unmatched', method: request.method, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    request.log.info(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });
  app.setErrorHandler((err, request, reply) => {
    const appErr = httpAppError(err, options.bodyLimitBytes ?? 64 * 1024);
    if (appErr.code === 'internal') request.log.error({ err }, 'request failed');
    // A too-large body keeps HTTP's own 413; everything else takes its code's status.
    const body = { ...errorBody(appErr), ...((err as { statusCode?: number }).statusCode === 413 ? { status: 413 } : {}) };
    void reply.status(body.status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send(errorBody(new AppError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`)));
  });
  return app;
}
