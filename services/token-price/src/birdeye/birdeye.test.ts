/**
 * The Birdeye token-list client against a local node:http stand-in that speaks Birdeye's documented
 * protocol for `GET /defi/tokenlist`:
 * - request: headers `X-API-KEY`, `x-chain`, `accept`; query `sort_by`, `sort_type`, `offset`,
 *   `limit` (1..50) — https://docs.birdeye.so/reference/get-defi-tokenlist (read via
 *   https://github.com/kaseonedge/birdeye-api-docs/blob/bf43ff15f217d0afc20935d0c50ae1582dda20d3/docs/defi/get-defi-tokenlist.md)
 * - errors: `{ success: false, message }` with 400 "Invalid request parameters or payload." and
 *   401 "Unauthorized. Authentication required." — https://docs.birdeye.so/docs/error-handling
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BIRDEYE_API_URL, BIRDEYE_TOKENLIST_MAX_LIMIT, BirdeyeError, createBirdeyeClient, type UpstreamToken } from './birdeye.js';

const API_KEY = 'be-test-key-5f0c9a1e7d2b4c68';

/**
 * The example token from Birdeye's "Token - List (V1)" reference (example response,
 * updateUnixTime 1754885276), verbatim.
 */
const DOC_SOL = {
  isScaledUiToken: false,
  multiplier: null,
  address: 'So11111111111111111111111111111111111111112',
  decimals: 9,
  price: 185.45023454574132,
  lastTradeUnixTime: 1754885221,
  liquidity: 23349538049.2037,
  logoURI: 'https://raw.githubusercontent.com/solana-labs/token-list/main/assets/mainnet/So11111111111111111111111111111111111111112/logo.png',
  mc: 100058305776.50261,
  name: 'Wrapped SOL',
  symbol: 'SOL',
  v24hChangePercent: -1.4820129368250423,
  v24hUSD: 9515832024.915321,
};

/** Further tokens in the same shape (values made up for the test; edge cases Birdeye can return). */
const PUMP_NO_METADATA = {
  address: '7i8BvxErtapzc4Cf6vTC9uUri8pAFprXhNdiAMs1pump',
  decimals: 6,
  price: 0.000012345,
  lastTradeUnixTime: 1754885100,
  liquidity: 772.2477156153459,
  logoURI: null,
  mc: null,
  name: '',
  symbol: '   ',
  v24hChangePercent: null,
  v24hUSD: 1234.5,
};
const NO_PRICE = { ...PUMP_NO_METADATA, address: 'NoPrice1111111111111111111111111111111111111', price: null, name: 'No Price', symbol: 'NOP' };
const NO_VOLUME = { ...PUMP_NO_METADATA, address: 'NoVolume111111111111111111111111111111111111', v24hUSD: null, name: 'No Volume', symbol: 'NOV' };
const NO_TRADE_TIME = {
  address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  decimals: 6,
  price: 0.9999,
  liquidity: 500000000,
  logoURI: null,
  mc: 9000000000,
  name: 'USD Coin',
  symbol: 'USDC',
  v24hChangePercent: 3.2,
  v24hUSD: 800000000,
};

function documentedBody(tokens: readonly object[], limit: number): unknown {
  return {
    success: true,
    data: { updateUnixTime: 1754885276, updateTime: '2025-08-11T04:07:56.945Z', tokens: tokens.slice(0, limit), total: 298068 },
  };
}

type Mode =
  | { kind: 'ok'; tokens: readonly object[] }
  | { kind: 'status'; status: number; body: string }
  | { kind: 'raw200'; body: string }
  | { kind: 'hang' }
  | { kind: 'hang-body' };

interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

interface StandIn {
  url: string;
  mode: Mode;
  seen: SeenRequest[];
  close(): Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function sendJson(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/** A Birdeye stand-in on 127.0.0.1, port 0. Auth and query are checked before `mode` applies. */
async function startBirdeye(initial: Mode = { kind: 'ok', tokens: [DOC_SOL] }): Promise<StandIn> {
  const standIn: StandIn = { url: '', mode: initial, seen: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    standIn.seen.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers });
    if (req.method !== 'GET' || url.pathname !== '/defi/tokenlist') {
      sendJson(res, 404, { success: false, message: 'Not found' });
      return;
    }
    if (req.headers['x-api-key'] !== API_KEY) {
      sendJson(res, 401, { success: false, message: 'Unauthorized. Authentication required.' });
      return;
    }
    const q = url.searchParams;
    const limit = Number(q.get('limit') ?? '50');
    const valid =
      req.headers['x-chain'] === 'solana' &&
      q.get('sort_by') === 'v24hUSD' &&
      q.get('sort_type') === 'desc' &&
      q.get('offset') === '0' &&
      Number.isInteger(limit) &&
      limit >= 1 &&
      limit <= 50;
    if (!valid) {
      sendJson(res, 400, { success: false, message: 'Invalid request parameters or payload.' });
      return;
    }
    const mode = standIn.mode;
    switch (mode.kind) {
      case 'ok':
        sendJson(res, 200, documentedBody(mode.tokens, limit));
        return;
      case 'status':
        res.writeHead(mode.status, { 'content-type': 'application/json' }).end(mode.body);
        return;
      case 'raw200':
        res.writeHead(200, { 'content-type': 'application/json' }).end(mode.body);
        return;
      case 'hang':
        return; // never answers
      case 'hang-body':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"success":true,"data":{"tokens":['); // headers and a partial body, then nothing
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  cleanups.push(standIn.close);
  return standIn;
}

function client(standIn: StandIn, overrides: { apiKey?: string; timeoutMs?: number } = {}) {
  return createBirdeyeClient({ apiKey: overrides.apiKey ?? API_KEY, baseUrl: standIn.url, timeoutMs: overrides.timeoutMs ?? 2_000 });
}

/** Awaits a rejection and returns it as a BirdeyeError (fails the test otherwise). */
async function birdeyeError(promise: Promise<unknown>): Promise<BirdeyeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BirdeyeError);
  return error as BirdeyeError;
}

function expectNoKey(error: BirdeyeError, key = API_KEY): void {
  expect(error.message).not.toContain(key);
  expect(String(error)).not.toContain(key);
  expect(error.stack ?? '').not.toContain(key);
  if (error.cause !== undefined) expect(String(error.cause)).not.toContain(key);
}

describe('createBirdeyeClient().listTokens', () => {
  it('exports the documented base URL and cap', () => {
    expect(BIRDEYE_API_URL).toBe('https://public-api.birdeye.so');
    expect(BIRDEYE_TOKENLIST_MAX_LIMIT).toBe(50);
  });

  it('sends the documented request and maps the documented example response', async () => {
    const birdeye = await startBirdeye({ kind: 'ok', tokens: [DOC_SOL] });
    const rows = await client(birdeye).listTokens(10);

    expect(rows).toEqual<UpstreamToken[]>([
      {
        mint: 'So11111111111111111111111111111111111111112',
        symbol: 'SOL',
        name: 'Wrapped SOL',
        price: 185.45023454574132,
        marketCap: 100058305776.50261,
        volume: 9515832024.915321,
        change: null, // v24hChangePercent is the 24 h volume change, not a price change
        timestamp: 1754885221000,
      },
    ]);

    expect(birdeye.seen).toHaveLength(1);
    const [req] = birdeye.seen;
    expect(req?.method).toBe('GET');
    expect(req?.path).toBe('/defi/tokenlist');
    expect(Object.fromEntries(req?.query ?? [])).toEqual({ sort_by: 'v24hUSD', sort_type: 'desc', offset: '0', limit: '10' });
    expect(req?.headers['x-api-key']).toBe(API_KEY);
    expect(req?.headers['x-chain']).toBe('solana');
    expect(req?.headers.accept).toBe('application/json');
  });

  it('converts lastTradeUnixTime seconds to ms, gives null for blank names and symbols (never the address), drops unpriced tokens', async () => {
    const birdeye = await startBirdeye({ kind: 'ok', tokens: [DOC_SOL, NO_PRICE, PUMP_NO_METADATA, NO_VOLUME, NO_TRADE_TIME] });
    const rows = await client(birdeye).listTokens(50);

    expect(rows.map((r) => r.mint)).toEqual([DOC_SOL.address, PUMP_NO_METADATA.address, NO_TRADE_TIME.address]);
    const [sol, pump, usdc] = rows;
    expect(sol?.timestamp).toBe(1754885221 * 1000);
    expect(pump).toEqual<UpstreamToken>({
      mint: PUMP_NO_METADATA.address,
      symbol: null,
      name: null,
      price: 0.000012345,
      marketCap: null,
      volume: 1234.5,
      change: null,
      timestamp: 1754885100000,
    });
    expect(usdc?.timestamp).toBeNull(); // no lastTradeUnixTime
    expect(usdc?.marketCap).toBe(9000000000);
  });

  it('reports change as null whether or not Birdeye sends v24hChangePercent', async () => {
    const birdeye = await startBirdeye({ kind: 'ok', tokens: [DOC_SOL, PUMP_NO_METADATA, NO_TRADE_TIME] });
    const rows = await client(birdeye).listTokens(3);
    expect(rows.map((r) => r.change)).toEqual([null, null, null]);
  });

  it('caps limit at 50 (Birdeye answers 400 above that) and never returns more than asked', async () => {
    const many = Array.from({ length: 60 }, (_, i) => ({ ...DOC_SOL, address: `Mint${String(i).padStart(40, '0')}`, v24hUSD: 1e6 - i }));
    const birdeye = await startBirdeye({ kind: 'ok', tokens: many });
    const api = client(birdeye);

    const capped = await api.listTokens(200);
    expect(birdeye.seen.at(-1)?.query.get('limit')).toBe('50');
    expect(capped).toHaveLength(50);

    const small = await api.listTokens(7);
    expect(birdeye.seen.at(-1)?.query.get('limit')).toBe('7');
    expect(small.map((r) => r.mint)).toEqual(many.slice(0, 7).map((t) => t.address));
  });

  it('rejects a non-positive or fractional limit before any request', async () => {
    const birdeye = await startBirdeye();
    const api = client(birdeye);
    await expect(api.listTokens(0)).rejects.toBeInstanceOf(RangeError);
    await expect(api.listTokens(2.5)).rejects.toBeInstanceOf(RangeError);
    expect(birdeye.seen).toHaveLength(0);
  });

  it('throws http/401 with Birdeye’s message on a wrong key', async () => {
    const birdeye = await startBirdeye();
    const wrongKey = 'be-wrong-key-0000000000000000';
    const error = await birdeyeError(client(birdeye, { apiKey: wrongKey }).listTokens(10));
    expect(error.reason).toBe('http');
    expect(error.status).toBe(401);
    expect(error.message).toContain('401');
    expect(error.message).toContain('Unauthorized. Authentication required.');
    expect(birdeye.seen[0]?.headers['x-api-key']).toBe(wrongKey);
    expectNoKey(error, wrongKey);
  });

  it('throws http/500 on a server error', async () => {
    const birdeye = await startBirdeye({ kind: 'status', status: 500, body: JSON.stringify({ success: false, message: 'Internal Server Error' }) });
    const error = await birdeyeError(client(birdeye).listTokens(10));
    expect(error.reason).toBe('http');
    expect(error.status).toBe(500);
    expect(error.message).toContain('Internal Server Error');
  });

  it('throws http with the status on a non-JSON error page', async () => {
    const birdeye = await startBirdeye({ kind: 'status', status: 502, body: '<html>Bad Gateway</html>' });
    const error = await birdeyeError(client(birdeye).listTokens(10));
    expect(error.reason).toBe('http');
    expect(error.status).toBe(502);
  });

  it('throws unsuccessful on a 200 with success: false', async () => {
    const birdeye = await startBirdeye({ kind: 'raw200', body: JSON.stringify({ success: false, message: 'Too many requests' }) });
    const error = await birdeyeError(client(birdeye).listTokens(10));
    expect(error.reason).toBe('unsuccessful');
    expect(error.status).toBe(200);
    expect(error.message).toContain('Too many requests');
  });

  it.each([
    ['a body that is not JSON', 'not json at all'],
    ['a truncated JSON body', '{"success":true,"data":{"tokens":['],
    ['no success field', JSON.stringify({ data: { tokens: [] } })],
    ['no data', JSON.stringify({ success: true })],
    ['tokens not an array', JSON.stringify({ success: true, data: { tokens: {} } })],
    ['a price that is a string', JSON.stringify(documentedBody([{ ...DOC_SOL, price: '185.45' }], 50))],
    ['a token without address', JSON.stringify(documentedBody([{ ...DOC_SOL, address: undefined }], 50))],
    ['a JSON array', '[]'],
  ])('throws malformed on %s', async (_label, body) => {
    const birdeye = await startBirdeye({ kind: 'raw200', body });
    const error = await birdeyeError(client(birdeye).listTokens(10));
    expect(error.reason).toBe('malformed');
    expect(error.status).toBe(200);
  });

  it('throws timeout when Birdeye never answers (timeoutMs 200)', async () => {
    const birdeye = await startBirdeye({ kind: 'hang' });
    const started = Date.now();
    const error = await birdeyeError(client(birdeye, { timeoutMs: 200 }).listTokens(10));
    const elapsed = Date.now() - started;
    expect(error.reason).toBe('timeout');
    expect(error.status).toBeUndefined();
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(2_000);
    expectNoKey(error);
  });

  it('throws timeout when the body stalls after the headers', async () => {
    const birdeye = await startBirdeye({ kind: 'hang-body' });
    const error = await birdeyeError(client(birdeye, { timeoutMs: 200 }).listTokens(10));
    expect(error.reason).toBe('timeout');
  });

  it('throws unreachable on a closed port', async () => {
    const probe = await startBirdeye();
    const closedUrl = probe.url;
    await probe.close();
    const error = await birdeyeError(createBirdeyeClient({ apiKey: API_KEY, baseUrl: closedUrl, timeoutMs: 2_000 }).listTokens(10));
    expect(error.reason).toBe('unreachable');
    expect(error.status).toBeUndefined();
    expect(error.cause).toBeDefined();
    expectNoKey(error);
  });

  it('accepts a base URL with a trailing slash', async () => {
    const birdeye = await startBirdeye();
    const rows = await createBirdeyeClient({ apiKey: API_KEY, baseUrl: `${birdeye.url}/`, timeoutMs: 2_000 }).listTokens(1);
    expect(rows).toHaveLength(1);
    expect(birdeye.seen[0]?.path).toBe('/defi/tokenlist');
  });

  it('uses the injected fetch', async () => {
    const calls: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      calls.push(String(input));
      return new Response(JSON.stringify(documentedBody([DOC_SOL], 1)), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const rows = await createBirdeyeClient({ apiKey: API_KEY, timeoutMs: 1_000, fetch: fakeFetch }).listTokens(1);
    expect(calls).toEqual(['https://public-api.birdeye.so/defi/tokenlist?sort_by=v24hUSD&sort_type=desc&offset=0&limit=1']);
    expect(rows[0]?.symbol).toBe('SOL');
  });

  it('never puts the API key in an error message, even when Birdeye echoes it', async () => {
    const birdeye = await startBirdeye();
    const errors: BirdeyeError[] = [];
    const api = client(birdeye, { timeoutMs: 200 });
    const modes: Mode[] = [
      { kind: 'status', status: 403, body: JSON.stringify({ success: false, message: `Access Denied for key ${API_KEY}` }) },
      { kind: 'status', status: 429, body: `rate limited: ${API_KEY}` },
      { kind: 'raw200', body: JSON.stringify({ success: false, message: `key ${API_KEY} suspended` }) },
      { kind: 'raw200', body: `oops ${API_KEY}` },
      { kind: 'raw200', body: JSON.stringify({ success: true, data: { tokens: [{ address: API_KEY, price: 'x' }] } }) },
      { kind: 'hang' },
    ];
    for (const mode of modes) {
      birdeye.mode = mode;
      errors.push(await birdeyeError(api.listTokens(5)));
    }
    expect(errors.map((e) => e.reason)).toEqual(['http', 'http', 'unsuccessful', 'malformed', 'malformed', 'timeout']);
    for (const error of errors) expectNoKey(error);
    expect(errors[0]?.message).toContain('[redacted]');
  });
});
