/**
 * Fuzzing of ws-fanout's WebSocket endpoint (issue 24, docs/websocket.md): hostile frames before and
 * after authentication, binary and invalid UTF-8 frames, oversize frames, control-request floods,
 * forged / expired / revoked / foreign credentials, nonce replay across connections and subscribe
 * storms — while one well-behaved Pro subscriber on the same app must receive every trade published
 * to TRADES during the run, once, in order. Inputs come from fast-check (`fc.sample` with the run's
 * seed: input i of a class is reproducible from the seed and i, both printed on a failure).
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import bs58 from 'bs58';
import { jetstream } from '@nats-io/jetstream';
import { createAccount, createOperator, createUser, fromSeed } from '@nats-io/nkeys';
import { encodeAccount, encodeUser } from '@nats-io/jwt';
import { TRADE_SUBJECTS } from '@tradewind/contracts';
import { WS_ERROR_CODES } from '@tradewind/contracts/ws-errors';
import { keyPairFromSeed } from '@tradewind/credential-issuer';
import type { ReliabilityRow, ReliabilityScale } from '../report.js';
import { FuzzClient, WS_FUZZ_CONFIG, startWsFuzzEnv, type WsFrame, type WsFuzzCustomer, type WsFuzzEnv } from './ws-support.js';

/** Longest wait for any one answer (a frame or a close) before the case counts as a hang, ms. */
export const WS_CASE_DEADLINE_MS = 5_000;

/** Cases per class at each scale. */
const SIZES = {
  test: { preAuth: 24, mutated: 16, binary: 12, postAuth: 40, oversize: 4, credentials: 14, nonce: 2, floods: 1, floodSize: 110, storms: 1 },
  full: {
    preAuth: 6_000,
    mutated: 4_000,
    binary: 2_000,
    postAuth: 6_000,
    oversize: 400,
    credentials: 1_100,
    nonce: 300,
    floods: 20,
    floodSize: 150,
    storms: 20,
  },
} as const;

/** WebSocket pings sent back to back in each flood. */
const FLOOD_PINGS = 40;

/** Cases run at once per class. */
const CONCURRENCY = 8;

/** What one class counted. */
/** What one class counted: cases tried, lost, duplicated, crashed, and the first failures' reproductions. */
export interface Tally {
  tried: number;
  lost: number;
  duplicated: number;
  crashed: number;
  failures: string[];
}

/** A fresh tally (all counts 0). */
export const newTally = (): Tally => ({ tried: 0, lost: 0, duplicated: 0, crashed: 0, failures: [] });

/** Counts one crash of `tally` and keeps its reproduction (the first 5 go into the row's notes; all to stderr). */
function crash(tally: Tally, what: string): void {
  tally.crashed += 1;
  if (tally.failures.length < 5) tally.failures.push(what);
  process.stderr.write(`[fuzz websocket] ${what}\n`);
}

/** Runs `fn` on every item, at most `concurrency` at once. */
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

/** Close codes documented for error `code` (null: the connection stays open); empty for an undocumented code. */
export function documentedCloses(code: string, authenticated: boolean): Set<number | null> {
  if (code === 'bad_json' || code === 'bad_request') return new Set([authenticated ? null : 4400]);
  return new Set(WS_ERROR_CODES.filter((e) => e.code === code).map((e) => e.close));
}

/**
 * Judges an error frame against docs/websocket.md §7 and then the connection's close: the code must be
 * documented and not `internal`, and the close must be one documented for it (waiting for it when the
 * code closes). @returns a description of what is wrong, or undefined when the answer is as documented.
 */
export async function judgeError(
  client: FuzzClient,
  frame: WsFrame,
  authenticated: boolean,
  allowed?: ReadonlySet<string>,
  deadlineMs = WS_CASE_DEADLINE_MS,
): Promise<string | undefined> {
  const code = String(frame.code);
  if (code === 'internal') return `internal error: ${JSON.stringify(frame)}`;
  const closes = documentedCloses(code, authenticated);
  if (closes.size === 0) return `undocumented error code: ${JSON.stringify(frame)}`;
  if (typeof frame.message !== 'string' || frame.message === '') return `error frame without message: ${JSON.stringify(frame)}`;
  if (allowed && !allowed.has(code)) return `error ${code} where ${[...allowed].join('|')} was expected: ${frame.message}`;
  const closing = [...closes].some((c) => c !== null);
  if (!closing) return undefined;
  const closed = await client.closeCode(closes.has(null) ? 300 : deadlineMs);
  if (closed === undefined) return closes.has(null) ? undefined : `error ${code} not followed by a close within ${deadlineMs} ms`;
  return closes.has(closed) ? undefined : `error ${code} followed by close ${closed}, documented: ${[...closes].join('|')}`;
}

/**
 * Compares the stream sequences `published` (acknowledged by JetStream) with those a subscriber
 * `received` (others ignored): lost = published and never received, duplicated = received more than
 * once (extra copies), reordered = received below the one before it.
 */
export function countDelivery(published: readonly number[], received: readonly number[]): { lost: number; duplicated: number; reordered: number } {
  const all = new Set(published);
  const got = received.filter((s) => all.has(s));
  const unique = new Set(got);
  return {
    lost: published.filter((s) => !unique.has(s)).length,
    duplicated: got.length - unique.size,
    reordered: got.filter((s, i) => i > 0 && s < (got[i - 1] as number)).length,
  };
}

/** A fake address per case (the app trusts X-Forwarded-For in the fuzz config), so failed logins of one case never throttle another. */
const address = (cls: number, i: number) => `10.${cls}.${(i >> 8) & 255}.${i & 255}`;

/** A realistic pump.fun BUY (schema-shaped; `fuzz_n` numbers it) as published by ingest. */
function tradeBody(n: number): string {
  const key = () => bs58.encode(randomBytes(32));
  return JSON.stringify({
    source: 'pumpfun',
    transaction_type: 'BUY',
    signature: `fuzz${n}`,
    slot: 1_000 + n,
    commitment: 'confirmed',
    schema_version: 2,
    mint: key(),
    user: key(),
    bonding_curve: key(),
    sol_amount: String(1_000_000 * (n % 5_000)),
    token_amount: '1',
    is_buy: true,
    side: 'buy',
    fuzz_n: n,
  });
}

// ---------------------------------------------------------------------------------------------------
// Input generators

const base58Key = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => bs58.encode(b));
const junk = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(-1, 0, 1, 2 ** 53, Number.MAX_SAFE_INTEGER, '1', '', 'null', '__proto__', 'constructor', '\u0000', 'é'.repeat(50)),
);
const subjectArb = fc.oneof(fc.constantFrom(...TRADE_SUBJECTS, 'basic.*', '>', 'basic.pumpfun.x', 'BASIC.PUMPFUN', 'premium.>', '', ' basic.pumpfun'), junk);
const listArb = fc.oneof(fc.array(fc.oneof(base58Key, fc.string({ maxLength: 50 }), junk), { maxLength: 5 }), junk);
const filterArb = fc.oneof(
  junk,
  fc.record(
    {
      mints: listArb,
      accounts: listArb,
      types: fc.oneof(fc.array(fc.constantFrom('BUY', 'SELL', 'CREATE', 'MIGRATE', 'SWAP', 'buy', ''), { maxLength: 4 }), junk),
      min_sol: fc.oneof(fc.double(), fc.constantFrom(0, 0.5, -1, 1e-10, '1', 1e300), junk),
      extra: junk,
    },
    { requiredKeys: [] },
  ),
);
const replayArb = fc.oneof(
  junk,
  fc.record(
    {
      from: fc.oneof(
        fc.integer({ min: -5, max: 10_000 }),
        fc.constantFrom('2020-01-01T00:00:00Z', '2999-01-01T00:00:00Z', 'yesterday', '2026-11-21T10:00:00', '1'),
        junk,
      ),
      to: junk,
    },
    { requiredKeys: [] },
  ),
);
/** A control request with random keys and values around the documented ones. */
export const wsRequestArb: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    fc.record(
      {
        subject: subjectArb,
        filter: filterArb,
        replay: replayArb,
        resume_after: fc.oneof(fc.integer({ min: -2, max: 100_000 }), junk),
        unsubscribe: subjectArb,
        jwt: junk,
        nkey: junk,
        sig: junk,
      },
      { requiredKeys: [] },
    ),
    fc.dictionary(fc.string({ maxLength: 10 }), junk, { maxKeys: 2 }),
    fc.boolean(),
  )
  .map(([known, extra, withExtra]) => (withExtra ? { ...extra, ...known } : known));
/** Any text frame: a random request, random JSON, or random text. */
export const wsTextArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: wsRequestArb.map((r) => JSON.stringify(r)) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '{',
      '[]',
      'null',
      '0',
      '"x"',
      '{"subject":',
      '{"__proto__":{"subject":"basic.pumpfun"}}',
      '{"subject":"basic.pumpfun","subject":"premium.raydium"}',
    ),
  },
);

type Mutation = { op: 'flip' | 'delete' | 'insert' | 'truncate' | 'duplicate'; at: number; ch: string };
const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('flip', 'delete', 'insert', 'truncate', 'duplicate'),
  at: fc.nat(),
  ch: fc.string({ minLength: 1, maxLength: 3 }),
}) as fc.Arbitrary<Mutation>;

/** `text` with `mutations` applied in order (positions taken modulo the current length). */
export function mutate(text: string, mutations: readonly Mutation[]): string {
  let s = text;
  for (const m of mutations) {
    const at = s.length === 0 ? 0 : m.at % s.length;
    if (m.op === 'flip') s = s.slice(0, at) + String.fromCharCode(s.charCodeAt(at) ^ (1 + (m.at % 31))) + s.slice(at + 1);
    else if (m.op === 'delete') s = s.slice(0, at) + s.slice(at + 1 + (m.at % 4));
    else if (m.op === 'insert') s = s.slice(0, at) + m.ch + s.slice(at);
    else if (m.op === 'truncate') s = s.slice(0, at);
    else s = s.slice(0, at) + s.slice(at, at + 8) + s.slice(at);
  }
  return s;
}

// ---------------------------------------------------------------------------------------------------
// Cases

/** Where cases connect (`url`) and the run's seed; `env` is absent when probing a stand-in server. */
export interface WsFuzzCtx {
  url: string;
  seed: number;
  env?: WsFuzzEnv;
  deadlineMs?: number;
}
type Ctx = WsFuzzCtx & { env: WsFuzzEnv };

/** Connects, takes the challenge; undefined (and a crash counted) when that fails. */
async function connect(ctx: WsFuzzCtx, tally: Tally, addr: string, label: string): Promise<{ client: FuzzClient; nonce: string } | undefined> {
  const client = new FuzzClient(ctx.url, addr);
  if (!(await client.opened)) {
    crash(tally, `${label}: could not connect (${client.closed?.code ?? 'no close'})`);
    return undefined;
  }
  const challenge = await client.nextControl(ctx.deadlineMs ?? WS_CASE_DEADLINE_MS);
  if (challenge?.type !== 'challenge' || typeof challenge.nonce !== 'string') {
    crash(tally, `${label}: no challenge (${JSON.stringify(challenge)})`);
    await client.close();
    return undefined;
  }
  return { client, nonce: challenge.nonce };
}

/** Connects and logs in with `creds`; undefined (crash counted) when the login is refused. */
async function login(ctx: Ctx, tally: Tally, addr: string, creds: { jwt: string; seed: string }, label: string): Promise<FuzzClient | undefined> {
  const c = await connect(ctx, tally, addr, label);
  if (!c) return undefined;
  c.client.send(JSON.stringify({ jwt: creds.jwt, nkey: creds.seed }));
  const answer = await c.client.nextControl(WS_CASE_DEADLINE_MS);
  if (answer?.type !== 'authenticated') {
    crash(tally, `${label}: valid login refused: ${JSON.stringify(answer)} close ${c.client.closed?.code}`);
    await c.client.close();
    return undefined;
  }
  return c.client;
}

/**
 * One frame on a fresh, unauthenticated connection. Documented answers: an error frame with its close,
 * `authenticated` only when `validAuth` says the frame still carries a valid login, or (oversize: 1009,
 * invalid UTF-8 text: 1007, RFC 6455) a close without a frame.
 */
export async function preAuthCase(
  ctx: WsFuzzCtx,
  tally: Tally,
  label: string,
  addr: string,
  data: string | Buffer,
  options: { binary?: boolean; closeWithoutFrame?: number; validAuth?: boolean } = {},
): Promise<void> {
  tally.tried += 1;
  const c = await connect(ctx, tally, addr, label);
  if (!c) return;
  const { client } = c;
  try {
    const deadline = ctx.deadlineMs ?? WS_CASE_DEADLINE_MS;
    client.send(data, { binary: options.binary });
    const answer = await client.nextControl(deadline);
    if (answer === undefined) {
      const code = client.closed?.code;
      if (code === undefined) crash(tally, `${label}: no answer within ${deadline} ms (hang)`);
      else if (code !== options.closeWithoutFrame) crash(tally, `${label}: closed ${code} without an error frame`);
    } else if (options.closeWithoutFrame !== undefined) {
      crash(tally, `${label}: expected close ${options.closeWithoutFrame}, got ${JSON.stringify(answer)}`);
    } else if (answer.type === 'error') {
      const wrong = await judgeError(client, answer, false, undefined, deadline);
      if (wrong) crash(tally, `${label}: ${wrong}`);
    } else if (answer.type === 'authenticated') {
      if (!options.validAuth) crash(tally, `${label}: authenticated by a frame without valid credentials`);
    } else {
      crash(tally, `${label}: unexpected answer before authentication: ${JSON.stringify(answer)}`);
    }
    if (client.malformed.length > 0) crash(tally, `${label}: non-JSON frame from the server: ${client.malformed[0]}`);
  } finally {
    await client.close();
  }
}

/**
 * Frames on authenticated connections (one Pro customer and connection per chunk): each must be
 * answered by `subscribed`, `unsubscribed` or a documented error, the connection staying open unless
 * the error's close says otherwise (then the chunk continues on a new connection).
 */
async function postAuthFrames(
  ctx: Ctx,
  tally: Tally,
  label: string,
  frames: readonly { data: string | Buffer; binary?: boolean; closeWithoutFrame?: number }[],
  cls: number,
): Promise<void> {
  const chunk = 100;
  const chunks = Array.from({ length: Math.ceil(frames.length / chunk) }, (_, k) => frames.slice(k * chunk, (k + 1) * chunk));
  await pool(chunks, 4, async (items, k) => {
    const customer = await ctx.env.customer('pro');
    const creds = await customer.user();
    let client: FuzzClient | undefined;
    try {
      for (const [j, frame] of items.entries()) {
        const where = `${label} #${k * chunk + j} (seed ${ctx.seed}) ${JSON.stringify(String(frame.data).slice(0, 120))}`;
        if (!client?.isOpen) {
          await client?.close();
          client = await login(ctx, tally, address(cls, k), creds, where);
          if (!client) return;
        }
        tally.tried += 1;
        client.send(frame.data, { binary: frame.binary });
        const answer = await client.nextControl(WS_CASE_DEADLINE_MS);
        if (answer === undefined) {
          const code = client.closed?.code;
          if (code === undefined) crash(tally, `${where}: no answer within ${WS_CASE_DEADLINE_MS} ms (hang)`);
          else if (code !== frame.closeWithoutFrame) crash(tally, `${where}: closed ${code} without an error frame`);
        } else if (frame.closeWithoutFrame !== undefined) {
          crash(tally, `${where}: expected close ${frame.closeWithoutFrame}, got ${JSON.stringify(answer)}`);
        } else if (answer.type === 'error') {
          const wrong = await judgeError(client, answer, true);
          if (wrong) crash(tally, `${where}: ${wrong}`);
        } else if (answer.type !== 'subscribed' && answer.type !== 'unsubscribed') {
          crash(tally, `${where}: unexpected answer: ${JSON.stringify(answer)}`);
        }
        if (client.malformed.length > 0) crash(tally, `${where}: non-JSON frame from the server: ${client.malformed[0]}`);
      }
    } finally {
      await client?.close();
    }
  });
}

/** Forged, expired, revoked and foreign credentials, each with the error codes it may get (all close 4401; login throttling 4429). */
async function credentialCases(
  ctx: Ctx,
  customer: WsFuzzCustomer,
  revoked: WsFuzzCustomer,
): Promise<Array<{ name: string; frame: (nonce: string) => Promise<string>; codes: string[] }>> {
  const ids = ctx.env.nats.identities;
  const good = await customer.user();
  const other = await customer.user();
  const expired = await customer.user({ nowMs: Date.now() - 2 * 3600_000, ttlSeconds: 60 });
  const gone = await revoked.user({ nowMs: Date.now() - 60_000 });
  await revoked.revoke({ [gone.publicKey]: Math.floor(Date.now() / 1000) });
  const signer = keyPairFromSeed(ids.customer_signing.seed);
  const notYet = await encodeUser(
    'fuzz',
    createUser(),
    customer.spec.accountPublicKey,
    { subs: -1, data: -1, payload: -1 },
    { signer, nbf: Math.floor(Date.now() / 1000) + 3600, exp: Math.floor(Date.now() / 1000) + 7200 },
  );
  // A whole foreign operator → account → user chain, and a user of a known account signed by a foreign key.
  const foreignOperator = createOperator();
  const foreignAccount = createAccount();
  await encodeAccount('foreign', foreignAccount, {}, { signer: foreignOperator });
  const foreignUser = createUser();
  const foreignJwt = await encodeUser('foreign', foreignUser, foreignAccount);
  const forgedUser = createUser();
  const forgedJwt = await encodeUser('forged', forgedUser, customer.spec.accountPublicKey, { subs: -1, data: -1, payload: -1 }, { signer: createAccount() });
  const accountJwt = await encodeAccount('not-a-user', foreignAccount, {}, { signer: foreignOperator });
  const seedOf = (kp: { getSeed(): Uint8Array }) => new TextDecoder().decode(kp.getSeed());
  const tamper = (jwt: string, part: number, salt: number) => {
    const parts = jwt.split('.');
    const p = parts[part] ?? '';
    const at = 1 + (salt % Math.max(1, p.length - 2)); // never the last character: its padding bits may not count
    const ch = p[at] === 'A' ? 'B' : 'A';
    parts[part] = p.slice(0, at) + ch + p.slice(at + 1);
    return parts.join('.');
  };
  const sign = (seed: string, nonce: string) =>
    Buffer.from(fromSeed(new TextEncoder().encode(seed)).sign(new TextEncoder().encode(nonce))).toString('base64url');
  const J = (v: unknown) => Promise.resolve(JSON.stringify(v));
  return [
    { name: 'expired user JWT', frame: () => J({ jwt: expired.jwt, nkey: expired.seed }), codes: ['expired'] },
    { name: 'revoked user JWT', frame: () => J({ jwt: gone.jwt, nkey: gone.seed }), codes: ['revoked'] },
    { name: 'user JWT not valid yet (nbf)', frame: () => J({ jwt: notYet, nkey: good.seed }), codes: ['invalid_jwt'] },
    { name: 'foreign operator chain', frame: () => J({ jwt: foreignJwt, nkey: seedOf(foreignUser) }), codes: ['unknown_account', 'invalid_signature'] },
    { name: 'known account, foreign signer', frame: () => J({ jwt: forgedJwt, nkey: seedOf(forgedUser) }), codes: ['invalid_signature'] },
    {
      name: 'account JWT as user JWT',
      frame: () => J({ jwt: accountJwt, nkey: seedOf(foreignAccount) }),
      codes: ['invalid_jwt', 'invalid_signature', 'unknown_account'],
    },
    { name: 'tampered header', frame: async () => JSON.stringify({ jwt: tamper(good.jwt, 0, Date.now()), nkey: good.seed }), codes: ['invalid_jwt'] },
    { name: 'tampered claims', frame: async () => JSON.stringify({ jwt: tamper(good.jwt, 1, Date.now()), nkey: good.seed }), codes: ['invalid_jwt'] },
    { name: 'tampered signature', frame: async () => JSON.stringify({ jwt: tamper(good.jwt, 2, Date.now()), nkey: good.seed }), codes: ['invalid_jwt'] },
    { name: "another user's seed", frame: () => J({ jwt: good.jwt, nkey: other.seed }), codes: ['nkey_mismatch'] },
    {
      name: 'seed that is not a seed',
      frame: () => J({ jwt: good.jwt, nkey: 'SUAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
      codes: ['nkey_mismatch'],
    },
    { name: "signature by another user's key", frame: (nonce) => J({ jwt: good.jwt, sig: sign(other.seed, nonce) }), codes: ['nkey_mismatch'] },
    { name: 'random signature', frame: () => J({ jwt: good.jwt, sig: randomBytes(64).toString('base64url') }), codes: ['nkey_mismatch'] },
    {
      name: 'garbage JWT',
      frame: () => J({ jwt: `${randomBytes(20).toString('base64url')}.${randomBytes(40).toString('base64url')}.x`, nkey: good.seed }),
      codes: ['invalid_jwt'],
    },
  ];
}

/** What the runner returns per class, before rows. */
type Classes = Record<string, Tally>;

/**
 * Runs every WebSocket input class at `scale` against a private ws-fanout (own nats-server, the real
 * Redis) and returns one row per class plus the well-behaved subscriber's row. Never throws for a
 * finding (counted in the rows, reproductions on stderr and in `notes`).
 * @param seed fast-check seed: input i of each class is `fc.sample(arbitrary, { seed, numRuns })[i]`.
 * @throws Error only when the environment (nats-server, Redis, the app) cannot start.
 */
export async function runWebSocketFuzz(scale: ReliabilityScale, seed: number): Promise<ReliabilityRow[]> {
  const size = SIZES[scale];
  let unhandled = 0;
  const onUnhandled = (reason: unknown) => {
    unhandled += 1;
    process.stderr.write(`[fuzz websocket] unhandled rejection: ${String(reason instanceof Error ? reason.stack : reason)}\n`);
  };
  process.on('unhandledRejection', onUnhandled);
  const env = await startWsFuzzEnv();
  const ctx: Ctx = { env, url: env.url, seed };
  const classes: Classes = {};
  const classTally = (name: string): Tally => {
    const t = newTally();
    classes[name] = t;
    return t;
  };
  const started = Date.now();
  const subscriber = newTally();
  const subscriberNotes: string[] = [];
  let publishing = true;
  let publisher: Promise<void> = Promise.resolve();
  let good: FuzzClient | undefined;
  try {
    // The well-behaved subscriber and the publisher running beside every class.
    const goodCustomer = await env.customer('pro');
    good = await login(ctx, subscriber, address(0, 1), await goodCustomer.user(), 'well-behaved subscriber');
    if (!good) throw new Error('the well-behaved subscriber could not log in');
    good.send(JSON.stringify({ subject: 'basic.pumpfun' }));
    const subscribed = await good.nextControl(WS_CASE_DEADLINE_MS);
    if (subscribed?.type !== 'subscribed') throw new Error(`the well-behaved subscriber could not subscribe: ${JSON.stringify(subscribed)}`);
    const received = good.tradeSeqs;
    const acked: number[] = [];
    const js = jetstream(env.nc);
    publisher = (async () => {
      let n = 0;
      while (publishing) {
        n += 1;
        try {
          acked.push((await js.publish('basic.pumpfun', tradeBody(n), { msgID: `fuzz-${seed}-${n}-${started}` })).seq);
        } catch (err) {
          subscriberNotes.push(`publish ${n} failed: ${String(err)}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    // 1. Random frames before authentication.
    const preAuth = classTally('WebSocket: random frames before authentication');
    const texts = fc.sample(wsTextArb, { seed, numRuns: size.preAuth });
    await pool(texts, CONCURRENCY, (text, i) =>
      preAuthCase(ctx, preAuth, `pre-auth #${i} (seed ${seed}) ${JSON.stringify(text.slice(0, 120))}`, address(1, i), text),
    );

    // 2. Mutations of a valid login (may still be one: then `authenticated` is right).
    const mutated = classTally('WebSocket: mutated login frames');
    const mutCustomer = await env.customer('pro');
    const mutUser = await mutCustomer.user();
    const validLogin = JSON.stringify({ jwt: mutUser.jwt, nkey: mutUser.seed });
    const mutations = fc.sample(fc.array(mutationArb, { minLength: 1, maxLength: 4 }), { seed: seed + 1, numRuns: size.mutated });
    await pool(mutations, 4, (ms, i) => {
      const text = mutate(validLogin, ms);
      let validAuth = false;
      try {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        validAuth = parsed.jwt === mutUser.jwt && parsed.nkey === mutUser.seed;
      } catch {
        /* not JSON: not a login */
      }
      return preAuthCase(ctx, mutated, `mutated login #${i} (seed ${seed + 1}) ${JSON.stringify(text.slice(0, 120))}`, address(2, i), text, { validAuth });
    });

    // 3. Binary frames (parsed as UTF-8 JSON) and text frames that are not UTF-8 (RFC 6455: 1007).
    const binary = classTally('WebSocket: binary frames and invalid UTF-8 text');
    const blobs = fc.sample(
      fc.tuple(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          wsTextArb.map((t) => new TextEncoder().encode(t)),
        ),
        fc.nat(3),
      ),
      { seed: seed + 2, numRuns: size.binary },
    );
    await pool(blobs, CONCURRENCY, ([bytes, kind], i) => {
      const label = `binary #${i} (seed ${seed + 2}) ${Buffer.from(bytes).toString('hex').slice(0, 80)}`;
      if (kind === 0) {
        const invalid = Buffer.concat([Buffer.from(bytes), Buffer.from([0xc3, 0x28, 0xff])]);
        return preAuthCase(ctx, binary, `${label} as text`, address(3, i), invalid, { binary: false, closeWithoutFrame: 1007 });
      }
      return preAuthCase(ctx, binary, label, address(3, i), Buffer.from(bytes), { binary: true });
    });
    await postAuthFrames(
      ctx,
      binary,
      'binary after auth',
      blobs.slice(0, Math.ceil(blobs.length / 2)).map(([bytes]) => ({ data: Buffer.from(bytes), binary: true })),
      13,
    );

    // 4. Random frames after authentication.
    const postAuth = classTally('WebSocket: random frames after authentication');
    await postAuthFrames(
      ctx,
      postAuth,
      'post-auth',
      fc.sample(wsTextArb, { seed: seed + 3, numRuns: size.postAuth }).map((data) => ({ data })),
      4,
    );

    // 5. Frames above WS_MAX_FRAME_BYTES: closed 1009, before and after authentication.
    const oversize = classTally('WebSocket: frames above WS_MAX_FRAME_BYTES');
    const sizes = fc.sample(fc.tuple(fc.integer({ min: 1, max: 64 * 1024 }), fc.boolean()), { seed: seed + 4, numRuns: size.oversize });
    const big = (extra: number) => Buffer.alloc(WS_FUZZ_CONFIG.WS_MAX_FRAME_BYTES + extra, 0x20);
    await pool(
      sizes.filter((_, i) => i % 2 === 0),
      4,
      ([extra, asBinary], i) =>
        preAuthCase(
          ctx,
          oversize,
          `oversize +${extra} B ${asBinary ? 'binary' : 'text'} before auth`,
          address(5, i),
          asBinary ? big(extra) : big(extra).toString(),
          { binary: asBinary, closeWithoutFrame: 1009 },
        ),
    );
    await postAuthFrames(
      ctx,
      oversize,
      'oversize after auth',
      sizes
        .filter((_, i) => i % 2 === 1)
        .map(([extra, asBinary]) => ({ data: asBinary ? big(extra) : big(extra).toString(), binary: asBinary, closeWithoutFrame: 1009 })),
      15,
    );

    // 6. Forged / expired / revoked / foreign credentials.
    const creds = classTally('WebSocket: forged, expired, revoked, foreign-operator credentials');
    const cases = await credentialCases(ctx, await env.customer('pro'), await env.customer('pro'));
    await pool(
      Array.from({ length: size.credentials }, (_, i) => cases[i % cases.length]!),
      4,
      async (kase, i) => {
        creds.tried += 1;
        const label = `credentials #${i} ${kase.name}`;
        const c = await connect(ctx, creds, address(6, i), label);
        if (!c) return;
        try {
          c.client.send(await kase.frame(c.nonce));
          const answer = await c.client.nextControl(WS_CASE_DEADLINE_MS);
          if (answer?.type !== 'error') crash(creds, `${label}: answered ${JSON.stringify(answer)} close ${c.client.closed?.code}`);
          else {
            const wrong = await judgeError(c.client, answer, false, new Set([...kase.codes, 'rate_limited']));
            if (wrong) crash(creds, `${label}: ${wrong}`);
          }
        } finally {
          await c.client.close();
        }
      },
    );

    // 7. Nonce replay: a valid signature of another connection's challenge.
    const nonce = classTally('WebSocket: nonce replay from another connection');
    const nonceCustomer = await env.customer('pro');
    await pool(
      Array.from({ length: size.nonce }, (_, i) => i),
      2,
      async (i) => {
        nonce.tried += 1;
        const user = await nonceCustomer.user();
        const label = `nonce replay #${i}`;
        const a = await connect(ctx, nonce, address(7, 2 * i), label);
        const b = await connect(ctx, nonce, address(7, 2 * i + 1), label);
        try {
          if (!a || !b) return;
          const sigA = Buffer.from(fromSeed(new TextEncoder().encode(user.seed)).sign(new TextEncoder().encode(a.nonce))).toString('base64url');
          b.client.send(JSON.stringify({ jwt: user.jwt, sig: sigA }));
          const answer = await b.client.nextControl(WS_CASE_DEADLINE_MS);
          if (answer?.type !== 'error') crash(nonce, `${label}: replayed signature answered ${JSON.stringify(answer)}`);
          else {
            const wrong = await judgeError(b.client, answer, false, new Set(['nkey_mismatch']));
            if (wrong) crash(nonce, `${label}: ${wrong}`);
          }
          // The signature is good on its own connection (control: the case is not refused for another reason).
          a.client.send(JSON.stringify({ jwt: user.jwt, sig: sigA }));
          const own = await a.client.nextControl(WS_CASE_DEADLINE_MS);
          if (own?.type !== 'authenticated' && !(own?.type === 'error' && own.code === 'connection_limit'))
            crash(nonce, `${label}: the signature was refused on its own connection: ${JSON.stringify(own)}`);
        } finally {
          await a?.client.close();
          await b?.client.close();
        }
      },
    );

    // 8. Floods of control requests on one Starter connection (100 a minute): every one answered, rate_limited past the budget.
    const flood = classTally('WebSocket: control-request floods');
    for (let f = 0; f < size.floods; f += 1) {
      const customer = await env.customer('starter');
      const client = await login(ctx, flood, address(8, f), await customer.user(), `flood #${f}`);
      if (!client) continue;
      try {
        const requests = [
          { subject: 'basic.pumpfun' },
          { unsubscribe: 'basic.pumpfun' },
          { subject: 'premium.pumpswap' },
          { subject: 'basic.bonk', replay: { from: 1 } },
          { unsubscribe: 'basic.bonk' },
        ];
        let pongs = 0;
        client.ws.on('pong', () => {
          pongs += 1;
        });
        // Pings stay below ~70 back to back: past that the ws library (8.23.0) itself drops the
        // connection (1006), also on a plain WebSocketServer; that ends only the flooding client.
        for (let i = 0; i < size.floodSize; i += 1) {
          client.send(JSON.stringify(requests[i % requests.length]));
          if (i < FLOOD_PINGS) client.ws.ping();
        }
        flood.tried += size.floodSize;
        const answers: WsFrame[] = [];
        for (let i = 0; i < size.floodSize; i += 1) {
          const answer = await client.nextControl(WS_CASE_DEADLINE_MS);
          if (!answer) break;
          answers.push(answer);
        }
        if (answers.length !== size.floodSize)
          crash(flood, `flood #${f}: ${answers.length} of ${size.floodSize} requests answered (close ${client.closed?.code})`);
        for (const a of answers) {
          if (a.type === 'error') {
            const wrong = await judgeError(client, a, true);
            if (wrong) crash(flood, `flood #${f}: ${wrong}`);
          } else if (a.type !== 'subscribed' && a.type !== 'unsubscribed') crash(flood, `flood #${f}: unexpected ${JSON.stringify(a)}`);
        }
        const limited = answers.filter((a) => a.code === 'rate_limited').length;
        if (limited === 0) crash(flood, `flood #${f}: ${size.floodSize} requests past a 100/min budget and none refused rate_limited`);
        if (!(await client.until(() => pongs === FLOOD_PINGS, WS_CASE_DEADLINE_MS))) crash(flood, `flood #${f}: ${pongs} of ${FLOOD_PINGS} pings answered`);
        if (!client.isOpen) crash(flood, `flood #${f}: connection closed (${client.closed?.code})`);
      } finally {
        await client.close();
      }
    }

    // 9. Subscribe storms: 6 Pro connections (5 allowed) log in at once, each subscribing to every subject
    // with replay, resume and filters, then unsubscribing.
    const storm = classTally('WebSocket: subscribe storms');
    for (let s = 0; s < size.storms; s += 1) {
      const customer = await env.customer('pro');
      const users = await Promise.all(Array.from({ length: 6 }, () => customer.user()));
      const conns = await Promise.all(
        users.map((u, i) =>
          connect(ctx, storm, address(9, s * 8 + i), `storm #${s}`).then((c) => {
            c?.client.send(JSON.stringify({ jwt: u.jwt, nkey: u.seed }));
            return c?.client;
          }),
        ),
      );
      try {
        const logins = await Promise.all(conns.map((c) => c?.nextControl(WS_CASE_DEADLINE_MS)));
        storm.tried += conns.length;
        const authed = conns.filter((_, i) => logins[i]?.type === 'authenticated');
        const refused = logins.filter((l) => l?.type === 'error' && l.code === 'connection_limit').length;
        if (authed.length !== 5 || refused !== 1)
          crash(storm, `storm #${s}: ${authed.length} logged in, ${refused} refused connection_limit of 6 (Pro allows 5): ${JSON.stringify(logins)}`);
        await Promise.all(
          authed.map(async (client, k) => {
            if (!client) return;
            const variants = [{}, { resume_after: 0 }, { replay: { from: 1 } }, { filter: { min_sol: 0.001 } }];
            for (const [j, subject] of TRADE_SUBJECTS.entries()) client.send(JSON.stringify({ subject, ...variants[(j + k) % variants.length] }));
            for (const subject of TRADE_SUBJECTS) client.send(JSON.stringify({ unsubscribe: subject }));
            storm.tried += 2 * TRADE_SUBJECTS.length;
            // Answers in request order: `subscribed` per subject (a replay announces it just before its
            // first message, so one unsubscribed before that has none), then `unsubscribed` per subject.
            const replays = TRADE_SUBJECTS.filter((_, j) => (j + k) % variants.length === 2).length;
            const got: string[] = [];
            while (got.filter((t) => t === 'unsubscribed').length < TRADE_SUBJECTS.length) {
              const a = await client.nextControl(WS_CASE_DEADLINE_MS);
              if (!a) break;
              if (a.type === 'error') {
                const wrong = await judgeError(client, a, true);
                if (wrong) crash(storm, `storm #${s}: ${wrong}`);
              }
              got.push(String(a.type));
            }
            const subscribed = got.filter((t) => t === 'subscribed').length;
            const unsubscribed = got.filter((t) => t === 'unsubscribed').length;
            if (unsubscribed !== TRADE_SUBJECTS.length || subscribed < TRADE_SUBJECTS.length - replays || subscribed + unsubscribed !== got.length) {
              crash(storm, `storm #${s} connection ${k}: answers ${got.join(',')}`);
            }
          }),
        );
      } finally {
        await Promise.all(conns.map((c) => c?.close()));
      }
    }

    // The subscriber: every trade published during the run, once, in order; then the app still logs in.
    publishing = false;
    await publisher;
    const all = new Set(acked);
    await good.until(() => received.filter((s) => all.has(s)).length >= acked.length, 10_000);
    subscriber.tried = acked.length;
    const { lost, duplicated, reordered } = countDelivery(acked, received);
    subscriber.lost = lost;
    subscriber.duplicated = duplicated;
    if (reordered > 0) crash(subscriber, `well-behaved subscriber: ${reordered} trades out of order`);
    if (!good.isOpen) crash(subscriber, `well-behaved subscriber closed ${good.closed?.code}`);
    const healthy = await login(ctx, subscriber, address(0, 2), await (await env.customer('starter')).user(), 'healthy after the run');
    if (healthy) {
      healthy.send(JSON.stringify({ subject: 'basic.bonk' }));
      const a = await healthy.nextControl(WS_CASE_DEADLINE_MS);
      if (a?.type !== 'subscribed') crash(subscriber, `healthy after the run: subscribe answered ${JSON.stringify(a)}`);
      await healthy.close();
    }
    if (!env.app.feedsReady()) crash(subscriber, 'feeds not ready after the run');
  } finally {
    publishing = false;
    await publisher.catch(() => undefined);
    await good?.close();
    await env.stop();
    // Rejections of the last turn are reported on the next ticks.
    await new Promise((r) => setTimeout(r, 50));
    process.off('unhandledRejection', onUnhandled);
  }
  if (unhandled > 0) crash(subscriber, `${unhandled} unhandled rejection(s) in the process`);
  const elapsed = Math.round((Date.now() - started) / 1000);
  const note = (t: Tally) => `seed ${seed}, ${scale} size${t.failures.length > 0 ? `; first failures: ${t.failures.join(' / ')}` : ''}`;
  return [
    ...Object.entries(classes).map(([name, t]) => ({
      name,
      tried: t.tried,
      lost: t.lost,
      duplicated: t.duplicated,
      crashed: t.crashed,
      recoveryMs: null,
      notes: note(t),
    })),
    {
      name: 'WebSocket: well-behaved subscriber during the fuzz run',
      tried: subscriber.tried,
      lost: subscriber.lost,
      duplicated: subscriber.duplicated,
      crashed: subscriber.crashed,
      recoveryMs: null,
      notes: `${note(subscriber)}; trades published to basic.pumpfun every 20 ms over ${elapsed} s, counted by seq; unhandled rejections ${unhandled}; healthy = a new login and subscribe answered after the run${subscriberNotes.length > 0 ? `; ${subscriberNotes.slice(0, 3).join(' / ')}` : ''}`,
    },
  ];
}
