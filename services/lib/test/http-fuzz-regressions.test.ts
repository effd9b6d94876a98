/**
 * Regressions found by the HTTP fuzzer (scripts/reliability/fuzz/http.ts, issue 24): requests refused
 * before routing (a path that does not decode) or by Node's HTTP parser (CR/LF in a header, oversized
 * headers) answer with the shared error body `{status, code, message}`, not fastify's own shape.
 */
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { createHttpApp } from '../src/http.js';
import { createLogger } from '../src/logger.js';

const app = createHttpApp({ logger: createLogger({ service: 'http-fuzz-test', level: 'silent' }), registry: new Registry(), service: 'http-fuzz-test' });
app.get('/auth/user', async () => ({ ok: true }));
let port: number;

beforeAll(async () => {
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await app.close();
});

/** Sends `request` as bytes and returns the status and body of the answer. */
function raw(request: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), body: split < 0 ? '' : text.slice(split + 4) });
    });
  });
}

describe('error bodies of requests refused before a route runs', () => {
  it.each([
    ['a CR inside a header value', 'GET /auth/user HTTP/1.1\r\nHost: a\r\nX-A: b\rc\r\nConnection: close\r\n\r\n', 400],
    ['a header name with a space', 'GET /auth/user HTTP/1.1\r\nHost: a\r\nBad Name: x\r\nConnection: close\r\n\r\n', 400],
    ['two Content-Length values', 'POST /auth/user HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 7\r\nConnection: close\r\n\r\n', 400],
    ['headers above the size limit', `GET /auth/user HTTP/1.1\r\nHost: a\r\nX-Big: ${'x'.repeat(20_000)}\r\nConnection: close\r\n\r\n`, 431],
    ['a path that does not decode', 'GET /auth/%ff%fe HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n', 400],
  ])('when a request has %s, then it is answered %i with {status, code, message}', async (_what, request, status) => {
    const res = await raw(request);
    expect(res.status).toBe(status);
    expect(JSON.parse(res.body)).toEqual({ status, code: 'invalid_argument', message: expect.any(String) });
  });

  it('when a valid request follows, then it is still answered 200', async () => {
    const res = await raw('GET /auth/user HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(200);
  });
});
