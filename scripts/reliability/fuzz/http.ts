/**
 * Fuzzing of the HTTP APIs (issue 24): every route of web/server/openapi.json served by a service
 * started in-process gets random JSON and wrong types, bodies above HTTP_BODY_LIMIT_BYTES, bad content
 * types, bad and missing bearer tokens, path traversal and header injection, over a raw socket (bytes as
 * sent). Property: a 4xx with the error body `{status, code, message}` (services/lib/src/http.ts) — or,
 * for requests Node's HTTP parser itself refuses, its bare 400/431; the documented exceptions: auth's
 * 401 `{"status":401,"message":"No active session"}` and credential-issuer's `{error, message}` on
 * /api/nats — or a 2xx for valid-looking input;
 * never a 5xx, never a hang; and a valid request is still answered afterwards.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import type { ReliabilityRow, ReliabilityScale } from '../report.js';
import { rawRequest, type RawResponse } from './http-raw.js';
import { startAuthTarget, startBillingTarget, startCredentialIssuerTarget, startTokenPriceTarget, type HttpTarget } from './http-targets.js';

/** Longest wait for one answer before the request counts as a hang, ms. */
export const HTTP_DEADLINE_MS = 5_000;

/**
 * One operation of the OpenAPI document; `open`: the route accepts no credentials at all (security
 * absent, empty, or with an `{}` alternative).
 */
export type { HttpTargetRoute as HttpRoute } from './http-targets.js';
import type { HttpTargetRoute as HttpRoute } from './http-targets.js';

/** The operations of web/server/openapi.json whose path starts with `prefix` (the Stripe webhook excluded: helper A covers it). */
export function openApiRoutes(prefix: string, file = resolve(import.meta.dirname, '..', '..', '..', 'web', 'server', 'openapi.json')): HttpRoute[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as {
    paths: Record<string, Record<string, { security?: Array<Record<string, unknown>>; requestBody?: unknown }>>;
  };
  const routes: HttpRoute[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!path.startsWith(prefix) || path === '/api/stripe/webhook') continue;
    for (const [method, op] of Object.entries(ops)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const security = op.security ?? [];
      routes.push({
        method: method.toUpperCase(),
        path,
        open: security.length === 0 || security.some((s) => Object.keys(s).length === 0 || !('bearer' in s)),
        hasBody: op.requestBody !== undefined,
      });
    }
  }
  return routes;
}

/** Requests per class and service at each scale (four services: 'full' makes 24,000 requests). */
const SIZES = {
  test: { json: 50, oversize: 6, contentType: 20, bearer: 30, traversal: 20, headers: 20 },
  full: { json: 2_400, oversize: 250, contentType: 800, bearer: 1_000, traversal: 750, headers: 800 },
} as const;

/** Requests in flight at once. */
const CONCURRENCY = 8;

/** What one class counted. */
export interface HttpTally {
  tried: number;
  crashed: number;
  failures: string[];
}

/** A fresh tally. */
export const newHttpTally = (): HttpTally => ({ tried: 0, crashed: 0, failures: [] });

function crash(tally: HttpTally, what: string): void {
  tally.crashed += 1;
  if (tally.failures.length < 5) tally.failures.push(what);
  process.stderr.write(`[fuzz http] ${what}\n`);
}

async function pool<T>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/**
 * Judges one answer. @returns what is wrong, or undefined when it is a 2xx/3xx, a 4xx with the error
 * body `{status, code, message}` whose status equals the answer's, or (`parserMayRefuse`) Node's bare
 * 400 / 413 / 414 / 431 for a request its HTTP parser refuses.
 */
export function judgeHttp(
  res: RawResponse,
  options: { parserMayRefuse?: boolean; expectStatus?: number; head?: boolean; credentialErrors?: boolean } = {},
): string | undefined {
  if (res.timedOut) return `no answer within ${HTTP_DEADLINE_MS} ms (hang)`;
  if (res.status === 0) return options.parserMayRefuse ? undefined : 'connection closed without an answer';
  if (res.status >= 500) return `${res.status}: ${res.body.slice(0, 200)}`;
  if (options.expectStatus !== undefined && res.status !== options.expectStatus)
    return `${res.status} where ${options.expectStatus} was expected: ${res.body.slice(0, 200)}`;
  if (res.status < 400) return undefined;
  if (options.parserMayRefuse && res.body === '' && [400, 413, 414, 431].includes(res.status)) return undefined;
  // A HEAD answer never has a body (RFC 9110 §9.3.2).
  if (options.head && res.body === '') return undefined;
  // auth's documented 401 without a session (services/auth/src/http/api.ts, NO_SESSION): no `code`.
  if (res.status === 401 && res.body === AUTH_NO_SESSION) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `${res.status} without a JSON error body: ${JSON.stringify(res.body.slice(0, 200))}`;
  }
  const b = body as { status?: unknown; code?: unknown; message?: unknown; error?: unknown };
  // credential-issuer's documented CredentialError (services/credential-issuer/src/http/api.ts) on /api/nats.
  if (options.credentialErrors && typeof b.error === 'string' && typeof b.message === 'string' && Object.keys(b).length === 2) return undefined;
  if (b.status !== res.status || typeof b.code !== 'string' || typeof b.message !== 'string')
    return `${res.status} with a body that is not {status, code, message}: ${res.body.slice(0, 200)}`;
  return undefined;
}

/** The e-mail of every service's fuzz user: an answer without credentials must never contain it. */
const FUZZ_EMAIL = 'fuzz@example.com';

/** auth's 401 without a valid session, exactly (documented in services/auth/src/http/api.ts). */
const AUTH_NO_SESSION = '{"status":401,"message":"No active session"}';

/** A request head: request line, Host, then `headers` as given (names and values unchecked). */
function head(method: string, path: string, headers: ReadonlyArray<readonly [string, string]>): string {
  return [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...headers.map(([k, v]) => `${k}: ${v}`)].join('\r\n');
}

// ---------------------------------------------------------------------------------------------------
// Input generators

const junk = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ maxLength: 60 }),
  fc.integer(),
  fc.double(),
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom('', '__proto__', 'constructor', '\u0000', 'é'.repeat(100), -1, 2 ** 63, '1e999', [], {}),
);
/** Bodies around the routes' fields, with wrong types and random extras. */
const bodyArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .record(
        {
          name: junk,
          email: junk,
          plan: junk,
          interval: junk,
          ids: junk,
          all: junk,
          preferences: junk,
          email_enabled: junk,
          kinds: junk,
          promo: junk,
          account: junk,
          refresh_token: junk,
          success_url: junk,
          cancel_url: junk,
          target_plan: junk,
        },
        { requiredKeys: [] },
      )
      .map((o) => JSON.stringify(o)),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '{',
      '{"a":',
      'null',
      '[]',
      '{"__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{"x":1}}}',
      `{"a":${'['.repeat(5000)}`,
    ),
  },
);
const queryArb = fc.oneof(
  fc.constant(''),
  fc.webQueryParameters().map((q) => `?${q}`),
  fc.constantFrom('?limit=-1', '?limit=1e9', '?cursor=%00', '?limit=abc&limit=2', '?before=9999-99-99', '?a[b]=1', '?%ZZ'),
);
const contentTypes = [
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/jsonx',
  'application/',
  '*/*',
  ';;;',
  'application/json\u00ff',
  'APPLICATION/JSON',
  'application/json, text/plain',
  'application/octet-stream',
];
const bearerArb = fc.oneof(
  fc.constantFrom(
    undefined,
    '',
    'Bearer',
    'Bearer ',
    'bearer x',
    'Basic Zm9vOmJhcg==',
    'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
    'Bearer eyJhbGciOiJFUzI1NiJ9.e30.AAAA',
    'Bearer a.b.c',
    `Bearer ${'A'.repeat(8000)}`,
    'Bearer \u00ff\u00fe',
  ),
  fc.string({ maxLength: 80 }).map((s) => `Bearer ${s.replace(/[\r\n]/g, '')}`),
  fc.base64String({ maxLength: 120 }).map((s) => `Bearer ${s}.${s}.${s}`),
);
const traversalArb = fc.tuple(
  fc.constantFrom(
    '/api/../auth/user',
    '/auth/../api/nats',
    '/auth/%2e%2e/api/nats',
    '/api/%2e%2e/auth/session',
    '/auth/..%2fuser',
    '/auth/%2E%2E%2Fuser',
    '//auth/user',
    '/auth//user',
    '/auth/./user',
    '/auth/user/..;/',
    '/auth/user%00',
    '/auth/%00',
    '/auth/user/../../../../etc/passwd',
    '/auth/..\\user',
    '/auth/%5c..%5cuser',
    '/auth/%252e%252e/user',
    '/auth/notifications/read/../../user',
    '/AUTH/USER',
    '/auth/user?x=../../',
    '/auth/user#frag',
    `/auth/${'a/'.repeat(2000)}`,
    '/auth/%ff%fe',
    '/auth/user;jsessionid=1',
    '*',
    'http://evil/auth/user',
    '/auth/user/',
  ),
  fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND'),
  fc.boolean(),
);
const headerArb = fc.constantFrom(
  ['X-A', 'b\r\nX-Injected: 1'],
  ['X-A', 'b\nX-Injected: 1'],
  ['X-A', 'b\rc'],
  ['X-A\r\nX-B', 'c'],
  ['Content-Type', 'application/json\r\nX-I: 1'],
  ['X-Big', 'x'.repeat(20_000)],
  ['X-Big', 'x'.repeat(70_000)],
  ['Cookie', `tw_refresh=${'a'.repeat(10_000)}`],
  ['Cookie', 'tw_refresh=\u0000'],
  ['Bad Name', 'x'],
  ['', 'x'],
  [':', 'x'],
  ['Content-Length', '5\r\nContent-Length: 7'],
  ['Transfer-Encoding', 'chunked\r\nContent-Length: 3'],
  ['Transfer-Encoding', 'gzip, chunked'],
  ['Content-Length', '-1'],
  ['Content-Length', '99999999999999999999'],
  ['Host', 'evil.example'],
  ['X-Forwarded-For', '1.2.3.4\r\n'],
  ['Authorization', 'Bearer x\r\nX-I: 1'],
  ['X-Unicode', 'é€𝄞'],
  ['Expect', '100-continue'],
  ['Content-Encoding', 'gzip'],
) as fc.Arbitrary<[string, string]>;

// ---------------------------------------------------------------------------------------------------

/**
 * Runs every HTTP input class at `scale` against the services started in-process and returns one row
 * per class (plus the health row). Never throws for a finding (counted; reproduction on stderr and in notes).
 * @param seed fast-check seed; input i of a class is `fc.sample(arbitrary, { seed, numRuns })[i]`.
 * @throws Error only when a service cannot start.
 */
export async function runHttpFuzz(scale: ReliabilityScale, seed: number): Promise<ReliabilityRow[]> {
  const size = SIZES[scale];
  const classes: Record<string, HttpTally> = {};
  const classTally = (name: string): HttpTally => {
    classes[name] ??= newHttpTally();
    return classes[name];
  };
  let unhandled = 0;
  const onUnhandled = (reason: unknown) => {
    unhandled += 1;
    process.stderr.write(`[fuzz http] unhandled rejection: ${String(reason instanceof Error ? reason.stack : reason)}\n`);
  };
  process.on('unhandledRejection', onUnhandled);
  const targets: HttpTarget[] = [];
  const health = newHttpTally();
  try {
    for (const start of [startAuthTarget, startBillingTarget, startCredentialIssuerTarget, startTokenPriceTarget]) targets.push(await start());
    for (const target of targets) {
      const send = async (
        tally: HttpTally,
        label: string,
        method: string,
        path: string,
        headers: ReadonlyArray<readonly [string, string]>,
        body: string | Buffer,
        options: Parameters<typeof judgeHttp>[1] & { noCredentials?: boolean } = {},
      ) => {
        tally.tried += 1;
        const res = await rawRequest(
          target.port,
          head(method, path, [...headers, ...(body.length > 0 || method !== 'GET' ? [['Content-Length', String(Buffer.byteLength(body))] as const] : [])]),
          body,
          HTTP_DEADLINE_MS,
        );
        const leaked =
          options.noCredentials && res.status < 300 && res.body.includes(FUZZ_EMAIL)
            ? `${res.status} without credentials showed the signed-in user's data`
            : undefined;
        const wrong = leaked ?? judgeHttp(res, { ...options, head: method === 'HEAD', credentialErrors: path.startsWith('/api/nats') });
        if (wrong) crash(tally, `${target.name} ${label} (seed ${seed}) ${method} ${JSON.stringify(path.slice(0, 100))}: ${wrong}`);
      };
      const auth = (route: HttpRoute) => (route.open ? [] : [['Authorization', target.bearer] as const]);
      // Never end the fuzzing session itself: logout is fuzzed without its bearer token.
      const withBearer = (route: HttpRoute) => (route.path === '/auth/logout' ? [] : [['Authorization', target.bearer] as const]);
      const routes = target.prefixes.flatMap((prefix) => openApiRoutes(prefix));
      const bodyRoutes = routes.filter((r) => r.hasBody);
      const anyRoute = <T>(list: readonly T[], r: number): T => list[r % list.length] as T;

      const json = classTally('HTTP: random JSON, wrong types, random queries');
      const inputs = fc.sample(fc.tuple(fc.nat(), bodyArb, queryArb), { seed, numRuns: size.json });
      await pool(inputs, CONCURRENCY, ([r, body, query], i) => {
        const route = anyRoute(routes, r);
        const data = route.hasBody || route.method !== 'GET' ? body : '';
        return send(
          json,
          `json #${i} ${JSON.stringify(data.slice(0, 80))}`,
          route.method,
          `${route.path}${query}`,
          [...withBearer(route), ['Content-Type', 'application/json']],
          data,
        );
      });

      const oversize = classTally('HTTP: bodies above HTTP_BODY_LIMIT_BYTES');
      const extras = fc.sample(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 256 * 1024 })), { seed: seed + 1, numRuns: size.oversize });
      await pool(extras, 4, ([r, extra], i) => {
        const route = anyRoute(bodyRoutes.length > 0 ? bodyRoutes : routes, r);
        const body = `{"name":"${'x'.repeat(target.bodyLimitBytes + extra)}"}`;
        return send(oversize, `oversize #${i} +${extra} B`, route.method, route.path, [...withBearer(route), ['Content-Type', 'application/json']], body);
      });

      const ctype = classTally('HTTP: bad content types');
      const ctInputs = fc.sample(
        fc.tuple(
          fc.nat(),
          fc.oneof(
            fc.constantFrom(...contentTypes),
            fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, '')),
          ),
          bodyArb,
          fc.boolean(),
        ),
        { seed: seed + 2, numRuns: size.contentType },
      );
      await pool(ctInputs, CONCURRENCY, ([r, type, body, omit], i) => {
        const route = anyRoute(bodyRoutes.length > 0 ? bodyRoutes : routes, r);
        return send(
          ctype,
          `content-type #${i} ${JSON.stringify(type)}`,
          route.method,
          route.path,
          [...withBearer(route), ...(omit ? [] : [['Content-Type', type] as const])],
          body,
          { parserMayRefuse: true },
        );
      });

      const bearer = classTally('HTTP: bad and missing bearer tokens');
      const bearerInputs = fc.sample(fc.tuple(fc.nat(), bearerArb), { seed: seed + 3, numRuns: size.bearer });
      await pool(bearerInputs, CONCURRENCY, ([r, value], i) => {
        const route = anyRoute(routes, r);
        return send(
          bearer,
          `bearer #${i} ${JSON.stringify(value?.slice(0, 60))}`,
          route.method,
          route.path,
          [...(value === undefined ? [] : [['Authorization', value] as const]), ...(route.hasBody ? [['Content-Type', 'application/json'] as const] : [])],
          route.hasBody ? '{}' : '',
          route.open ? { parserMayRefuse: true } : { expectStatus: 401, parserMayRefuse: true },
        );
      });

      const traversal = classTally('HTTP: path traversal and odd paths');
      await pool(fc.sample(traversalArb, { seed: seed + 4, numRuns: size.traversal }), CONCURRENCY, ([path, method, withAuth], i) =>
        send(traversal, `traversal #${i}${withAuth ? '' : ' without credentials'}`, method, path, withAuth ? [['Authorization', target.bearer]] : [], '', {
          parserMayRefuse: true,
          noCredentials: !withAuth,
        }),
      );

      const headers = classTally('HTTP: header injection and oversized headers');
      await pool(fc.sample(fc.tuple(fc.nat(), headerArb), { seed: seed + 5, numRuns: size.headers }), CONCURRENCY, ([r, header], i) => {
        const route = anyRoute(routes, r);
        return send(
          headers,
          `header #${i} ${JSON.stringify(header.map((h) => h.slice(0, 40)))}`,
          route.method,
          route.path,
          [...auth(route), header, ['Content-Type', 'application/json']],
          route.hasBody ? '{}' : '',
          { parserMayRefuse: true },
        );
      });

      for (const check of target.healthChecks) {
        health.tried += 1;
        const res = await rawRequest(target.port, head(check.method, check.path, check.auth ? [['Authorization', target.bearer]] : []), '', HTTP_DEADLINE_MS);
        if (res.status !== 200)
          crash(health, `${target.name} health after the run: ${check.method} ${check.path} answered ${res.status} ${res.body.slice(0, 200)}`);
      }
    }
  } finally {
    for (const target of targets) await target.stop().catch((err: unknown) => process.stderr.write(`[fuzz http] stopping ${target.name}: ${String(err)}\n`));
    await new Promise((r) => setTimeout(r, 50));
    process.off('unhandledRejection', onUnhandled);
  }
  if (unhandled > 0) crash(health, `${unhandled} unhandled rejection(s) in the process`);
  const note = (t: HttpTally) =>
    `seed ${seed}, ${scale} size, services: ${targets.map((t) => t.name).join(', ')}${t.failures.length > 0 ? `; first failures: ${t.failures.join(' / ')}` : ''}`;
  return [
    ...Object.entries(classes).map(([name, t]) => ({ name, tried: t.tried, lost: 0, duplicated: 0, crashed: t.crashed, recoveryMs: null, notes: note(t) })),
    {
      name: 'HTTP: services healthy after the run',
      tried: health.tried,
      lost: 0,
      duplicated: 0,
      crashed: health.crashed,
      recoveryMs: null,
      notes: `${note(health)}; a valid request answered 200 after the run; unhandled rejections ${unhandled}`,
    },
  ];
}
