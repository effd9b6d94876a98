/**
 * The Live page's logic, free of React and of the network (web/src/pages/dashboard/Live.tsx shows it,
 * web/src/lib/live-connection.ts runs the WebSocket): which subjects the plan offers, the server-side
 * filter built from the form (docs/websocket.md §2 "Filters"), trades per second, the table's rows,
 * the "Copy as code" snippets, and the page's state as the connection's events arrive.
 */
import { CredentialsRefusedError, type ClientEvent, type TradeFilter } from '@tradewind/client';
import { cheapestPlanFor } from '@tradewind/contracts/plans';
import { TRADE_MINT_FIELDS, TRADE_SUBJECTS, isMintAddress, mintSubject, type TradeSubject } from '@tradewind/contracts/subjects';
import type { WsConnectionHolder } from '@tradewind/contracts/ws-errors';
import { CREDS_FILE_NAME } from './credentials';

/** Rows the trade table keeps: the newest first, older ones dropped (one screen of history, bounded memory). */
export const LIVE_MAX_ROWS = 100;
/** Seconds the trades-per-second sparkline covers. */
export const SPARKLINE_SECONDS = 60;
/** A transaction on the Solana explorer the rows link to: this prefix and the signature. */
export const SOLANA_EXPLORER_TX_URL = 'https://solscan.io/tx/';
/** Entries one filter list may hold: ws-fanout's `WS_FILTER_MAX_ITEMS` default (docs/websocket.md §2). */
export const FILTER_MAX_ITEMS = 1_000;
/** Decimals `min_sol` may have: it is compared in lamports (1 SOL = 10^9 lamports; docs/websocket.md §2). */
const MIN_SOL_DECIMALS = 9;

/**
 * `transaction_type` values per subject, copied from `properties.transaction_type.enum` of
 * packages/contracts/schemas/<subject>.schema.json (web/test/live-stream.test.ts checks they stay equal;
 * the schemas are too large to ship in the page's bundle for four short lists).
 */
export const LIVE_TRANSACTION_TYPES: Readonly<Record<TradeSubject, readonly string[]>> = {
  'basic.pumpfun': ['CREATE', 'BUY', 'SELL', 'COMPLETE', 'MIGRATE'],
  'basic.bonk': ['CREATE', 'BUY', 'SELL', 'MIGRATE'],
  'premium.pumpswap': ['BUY', 'SELL', 'CREATE_POOL', 'DEPOSIT', 'WITHDRAW'],
  'premium.raydium': ['SWAP', 'CREATE_POOL', 'DEPOSIT', 'WITHDRAW'],
};

/**
 * The accounts the server's `accounts` filter looks at per subject (services/ws-fanout/src/domain/trade-filter.ts:
 * the trader, the creator and the pool); the NATS snippet checks the same fields in code.
 */
export const LIVE_ACCOUNT_FIELDS: Readonly<Record<TradeSubject, readonly string[]>> = {
  'basic.pumpfun': ['user', 'creator', 'bonding_curve', 'pool'],
  'basic.bonk': ['payer', 'creator', 'pool_state', 'amm_pool'],
  'premium.pumpswap': ['user', 'creator', 'coin_creator', 'pool'],
  'premium.raydium': ['payer', 'owner', 'creator', 'pool_state'],
};

/** One subject of the picker: whether the plan includes it, else the cheapest plan that does. */
export interface SubjectOption {
  subject: TradeSubject;
  allowed: boolean;
  /** The cheapest plan including it, e.g. "Plus" (shown next to a subject outside the plan); null when allowed. */
  includedIn: string | null;
}

/** Every TRADES subject, those outside `allowed` (the credentials' `subjects`) marked with the plan that includes them. */
export function subjectOptions(allowed: readonly string[]): SubjectOption[] {
  return TRADE_SUBJECTS.map((subject) => {
    const ok = allowed.includes(subject);
    return { subject, allowed: ok, includedIn: ok ? null : (cheapestPlanFor(subject)?.name ?? null) };
  });
}

/** The filter form as typed: lists are free text (one address per line, or separated by commas or spaces). */
export interface FilterForm {
  types: readonly string[];
  mints: string;
  accounts: string;
  /** Minimum SOL as typed; empty for none. */
  minSol: string;
}

export const EMPTY_FILTER_FORM: FilterForm = { types: [], mints: '', accounts: '', minSol: '' };

/** A field of the form and what is wrong with it. */
export interface FilterProblem {
  field: 'types' | 'mints' | 'accounts' | 'minSol';
  message: string;
}

/** The filter to send (null: none), or what must be fixed first. */
export type FilterBuild = { ok: true; filter: TradeFilter | null } | { ok: false; problems: FilterProblem[] };

/** The addresses of a list field: split on white space and commas, empties and repeats dropped, order kept. */
export function addressList(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

/**
 * The server-side filter of `form` for `subject` (docs/websocket.md §2): the same checks the server makes,
 * so a refusal (`bad_filter`) is caught before sending. Types the subject does not have are dropped (the
 * form keeps them when the subject changes); an empty form is no filter (null).
 */
export function buildFilter(subject: TradeSubject, form: FilterForm): FilterBuild {
  const problems: FilterProblem[] = [];
  const filter: { mints?: string[]; accounts?: string[]; types?: string[]; min_sol?: number } = {};
  const types = LIVE_TRANSACTION_TYPES[subject].filter((t) => form.types.includes(t));
  if (types.length > 0) filter.types = types;
  for (const field of ['mints', 'accounts'] as const) {
    const list = addressList(form[field]);
    if (list.length === 0) continue;
    const bad = list.filter((a) => !isMintAddress(a));
    if (bad.length > 0) {
      problems.push({
        field,
        message: `${bad.slice(0, 3).join(', ')}${bad.length > 3 ? ` and ${bad.length - 3} more` : ''}: not a Solana address (32–44 base58 characters)`,
      });
    } else if (list.length > FILTER_MAX_ITEMS) {
      problems.push({ field, message: `at most ${FILTER_MAX_ITEMS.toLocaleString('en-US')} addresses (${list.length.toLocaleString('en-US')} given)` });
    } else {
      filter[field] = list;
    }
  }
  const minSol = form.minSol.trim();
  if (minSol !== '') {
    const decimals = /^\d+(?:\.(\d+))?$/.exec(minSol);
    if (!decimals) problems.push({ field: 'minSol', message: 'a number of SOL, 0 or more (e.g. 0.5)' });
    else if ((decimals[1]?.length ?? 0) > MIN_SOL_DECIMALS) problems.push({ field: 'minSol', message: `at most ${MIN_SOL_DECIMALS} decimals (1 lamport)` });
    else if (Number(minSol) > 0) filter.min_sol = Number(minSol);
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, filter: Object.keys(filter).length > 0 ? filter : null };
}

/** One line naming a filter for people: "types BUY, SELL · 2 mints · min 0.5 SOL", or "no filter". */
export function describeFilter(filter: TradeFilter | null): string {
  if (!filter) return 'no filter';
  const parts: string[] = [];
  if (filter.types) parts.push(`types ${filter.types.join(', ')}`);
  if (filter.mints) parts.push(filter.mints.length === 1 ? `mint ${filter.mints[0]}` : `${filter.mints.length} mints`);
  if (filter.accounts) parts.push(filter.accounts.length === 1 ? `account ${filter.accounts[0]}` : `${filter.accounts.length} accounts`);
  if (filter.min_sol !== undefined) parts.push(`min ${filter.min_sol} SOL`);
  return parts.join(' · ');
}

/**
 * Trades per second over the last `seconds` seconds, counted by arrival (the receiving clock's whole
 * seconds). Memory is one counter per second.
 */
export class TradeRate {
  private readonly counts: number[];
  /** The whole second (ms since epoch / 1000, floored) each slot of `counts` holds. */
  private readonly secondOf: number[];

  constructor(readonly seconds: number = SPARKLINE_SECONDS) {
    this.counts = new Array<number>(seconds).fill(0);
    this.secondOf = new Array<number>(seconds).fill(-1);
  }

  /** Counts `n` trades received at `atMs` (ms since epoch). */
  add(atMs: number, n = 1): void {
    const second = Math.floor(atMs / 1000);
    const i = second % this.seconds;
    if (this.secondOf[i] !== second) {
      this.secondOf[i] = second;
      this.counts[i] = 0;
    }
    this.counts[i]! += n;
  }

  /** Trades in each of the last `seconds` whole seconds up to the one holding `nowMs`, oldest first. */
  series(nowMs: number): number[] {
    const now = Math.floor(nowMs / 1000);
    const out: number[] = [];
    for (let second = now - this.seconds + 1; second <= now; second++) {
      const i = ((second % this.seconds) + this.seconds) % this.seconds;
      out.push(this.secondOf[i] === second ? this.counts[i]! : 0);
    }
    return out;
  }

  /** Forgets every count (a new subscription starts a new series). */
  clear(): void {
    this.counts.fill(0);
    this.secondOf.fill(-1);
  }
}

/**
 * The points of an SVG polyline drawing `series` in a `width` × `height` box (y grows downwards): the
 * first value at x = 0, the last at x = width, 0 at the bottom, the series' maximum (at least 1) at the top.
 */
export function sparklinePoints(series: readonly number[], width: number, height: number): string {
  if (series.length === 0) return '';
  const max = Math.max(1, ...series);
  const step = series.length > 1 ? width / (series.length - 1) : 0;
  const round = (v: number) => Math.round(v * 100) / 100;
  return series.map((v, i) => `${round(i * step)},${round(height - (v / max) * height)}`).join(' ');
}

/** What the trade table shows of one trade. */
export interface TradeRow {
  /** TRADES stream sequence; rows without one are not shown (every trade ws-fanout sends has it). */
  seq: number;
  receivedAtMs: number;
  /** `transaction_type`: BUY, SELL, CREATE, SWAP, … */
  kind: string;
  /** The traded token's mint, when the message names one. */
  mint: string | null;
  symbol: string | null;
  /** SOL moved (`sol_amount_ui`), when the trade has a SOL side. */
  sol: number | null;
  /** Price in SOL per token after the trade (`price_sol`). */
  priceSol: number | null;
  /** The trader (or liquidity provider, or creator). */
  trader: string | null;
  signature: string | null;
  /** Recorded mainnet data replayed by a local or demo deployment (`replayed: true`), not live chain data. */
  replayed: boolean;
  /** The message as received. */
  trade: Readonly<Record<string, unknown>>;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The row of a trade message: the token is `mint` (pump.fun, PumpSwap, Raydium's non-SOL side) or
 * `base_mint` (LaunchLab); the symbol the message's `symbol` or, on a LaunchLab CREATE,
 * `base_mint_param.symbol`; the trader `user`, `payer` or `owner` (whichever the subject has), else `creator`.
 * @returns null when the message has no `seq` (not a trade as ws-fanout sends them).
 */
export function tradeRow(trade: Readonly<Record<string, unknown>>, receivedAtMs: number): TradeRow | null {
  const seq = trade.seq;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq)) return null;
  const param = trade.base_mint_param;
  const paramSymbol = param && typeof param === 'object' ? str((param as Record<string, unknown>).symbol) : null;
  return {
    seq,
    receivedAtMs,
    kind: str(trade.transaction_type) ?? '—',
    mint: str(trade.mint) ?? str(trade.base_mint),
    symbol: str(trade.symbol) ?? paramSymbol,
    sol: num(trade.sol_amount_ui),
    priceSol: num(trade.price_sol),
    trader: str(trade.user) ?? str(trade.payer) ?? str(trade.owner) ?? str(trade.creator),
    signature: str(trade.signature),
    replayed: trade.replayed === true,
    trade,
  };
}

/** An address cut to its first and last four characters: `GPxL1o9P…MGtZs` → `GPxL…GtZs`. */
export function shortAddress(address: string): string {
  return address.length <= 12 ? address : `${address.slice(0, 4)}…${address.slice(-4)}`;
}

/** SOL with up to 4 decimals, trailing zeros kept to 2 (1.349999998 → "1.35", 0.00012 → "0.0001"); null → "—". */
export function formatSol(sol: number | null): string {
  if (sol === null) return '—';
  if (sol > 0 && sol < 0.0001) return '<0.0001';
  return sol.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 });
}

/** A price in SOL in 4 significant digits (3.053191984634232e-8 → "0.00000003053"); null → "—". */
export function formatPrice(priceSol: number | null): string {
  if (priceSol === null) return '—';
  if (priceSol === 0) return '0';
  return priceSol.toLocaleString('en-US', { maximumSignificantDigits: 4, maximumFractionDigits: 20 });
}

/** Time of day in UTC with seconds, e.g. "14:03:07". */
export function formatClock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** The subscription on screen: what the snippets reproduce. */
export interface LiveSubscription {
  subject: TradeSubject;
  filter: TradeFilter | null;
}

/** `value` (JSON data) as TypeScript source in the house style: single-quoted strings, identifier keys unquoted. */
function tsLiteral(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(tsLiteral).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => `${/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? k : tsLiteral(k)}: ${tsLiteral(v)}`);
    return `{ ${entries.join(', ')} }`;
  }
  if (typeof value === 'string') return `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
  return JSON.stringify(value);
}

/**
 * TypeScript for Node.js 22+ with @tradewind/client that opens exactly `sub` over WebSocket: the
 * subject and, when there is one, the same server-side filter. It reads the downloaded .creds file; the
 * seed only signs the challenge (never sent) and no credential is written into the code.
 */
export function websocketCode(sub: LiveSubscription, wsUrl: string): string {
  const options = sub.filter ? `, { filter: ${tsLiteral(sub.filter)} }` : '';
  return [
    '// Node.js 22+, @tradewind/client (shipped with the WebSocket starter template).',
    `// Save ${CREDS_FILE_NAME} with "Download .creds" on the Dashboard first.`,
    "import { readFileSync } from 'node:fs';",
    "import { TradewindClient, parseCredentials } from '@tradewind/client';",
    '',
    `const { jwt, seed } = parseCredentials(readFileSync('./${CREDS_FILE_NAME}', 'utf8'));`,
    `const client = new TradewindClient({ url: '${wsUrl}', jwt, seed });`,
    `client.subscribe('${sub.subject}'${options});`,
    "client.on('gap', (gap) => console.warn('not resumable:', gap));",
    'await client.connect();',
    'for await (const trade of client.trades()) console.log(JSON.stringify(trade));',
  ].join('\n');
}

/**
 * TypeScript for Node.js 22+ with nats.js (@nats-io/transport-node) for `sub` over native NATS. Native
 * NATS has no server-side filter except one mint, through the per-mint subject `<subject>.mint.<mint>`
 * (docs/nats.md "One mint's trades natively"): with exactly one mint the code subscribes to it; every other
 * part of the filter is checked in the code, and the code says so. Reads the downloaded .creds file.
 */
export function natsCode(sub: LiveSubscription, natsUrl: string): string {
  const f = sub.filter;
  const oneMint = f?.mints?.length === 1 ? f.mints[0]! : null;
  const subject = oneMint ? mintSubject(sub.subject, oneMint) : sub.subject;
  const checks: string[] = [];
  const consts: string[] = [];
  if (f?.types) {
    consts.push(`const TYPES = new Set(${tsLiteral(f.types)});`);
    checks.push('  if (!TYPES.has(trade.transaction_type)) continue;');
  }
  if (f?.mints && !oneMint) {
    consts.push(`const MINTS = new Set(${tsLiteral(f.mints)});`);
    checks.push(`  if (!${tsLiteral(TRADE_MINT_FIELDS[sub.subject])}.some((k) => MINTS.has(trade[k]))) continue;`);
  }
  if (f?.accounts) {
    consts.push(`const ACCOUNTS = new Set(${tsLiteral(f.accounts)});`);
    checks.push(`  if (!${tsLiteral(LIVE_ACCOUNT_FIELDS[sub.subject])}.some((k) => ACCOUNTS.has(trade[k]))) continue;`);
  }
  if (f?.min_sol !== undefined) {
    checks.push(`  if (!(trade.sol_amount_ui >= ${f.min_sol})) continue; // SOL moved; absent when the trade has no SOL side`);
  }
  const note: string[] = [];
  if (oneMint) note.push(`// Native NATS filters one mint on the server: ${subject} carries only trades touching it.`);
  if (checks.length > 0) {
    note.push(
      oneMint
        ? '// The rest of the filter has no native form: it is checked below, on every message of that subject.'
        : '// Native NATS has no server-side filter (except one mint, via <subject>.mint.<mint>): the filter is checked below.',
    );
  }
  return [
    '// Node.js 22+, nats.js: npm install @nats-io/transport-node',
    `// Save ${CREDS_FILE_NAME} with "Download .creds" on the Dashboard first.`,
    "import { readFileSync } from 'node:fs';",
    "import { connect, credsAuthenticator } from '@nats-io/transport-node';",
    '',
    `const nc = await connect({ servers: '${natsUrl}', authenticator: credsAuthenticator(readFileSync('./${CREDS_FILE_NAME}')) });`,
    ...note,
    ...consts,
    `for await (const msg of nc.subscribe('${subject}')) {`,
    ...(checks.length > 0
      ? ['  const trade = msg.json<Record<string, any>>();', ...checks, '  console.log(JSON.stringify(trade));']
      : ['  console.log(msg.string());']),
    '}',
  ].join('\n');
}

/** Where the page stands. Every failure names what happens next. */
export type LiveStatus =
  | { kind: 'connecting'; attempt: number }
  | { kind: 'live' }
  | { kind: 'paused' }
  /** The plan's connections are all in use: `holders` (from the refusal) hold them; retried after `retryInMs`. */
  | { kind: 'limit'; message: string; holders: readonly WsConnectionHolder[]; retryInMs: number }
  /** The credentials were refused for good (rotated, revoked, expired, …): new ones are needed. */
  | { kind: 'credentials'; code: string; message: string }
  /** The connection ended for another reason and will not come back by itself (a new start is needed). */
  | { kind: 'failed'; message: string }
  /** The stream cannot be reached (or refused the login for a while): retried after `retryInMs`. */
  | { kind: 'unreachable'; attempt: number; retryInMs: number; closeCode: number; message: string | null }
  /** The server refused the subscription (subject not in the plan, bad filter); the connection stays open. */
  | { kind: 'refused'; code: string; message: string }
  | { kind: 'closed' };

/** What drives {@link nextLiveStatus}: the client's events, the raw error frames (for `holders`), and the page's own pause. */
export type LiveInput =
  | ClientEvent
  | { type: 'refusal'; code: string; message: string; holders: readonly WsConnectionHolder[] | null }
  | { type: 'pause' }
  | { type: 'resume' };

/** Refusals of a subscribe request the page shows (the connection stays open). */
const SUBSCRIPTION_REFUSALS = new Set(['subject_not_in_plan', 'unknown_subject', 'bad_filter', 'bad_request']);

/** Memory of the reducer between inputs: the last refusal frame of the current connection. */
export interface LiveMemory {
  status: LiveStatus;
  paused: boolean;
  lastRefusal: { code: string; message: string; holders: readonly WsConnectionHolder[] | null } | null;
}

export const INITIAL_LIVE_MEMORY: LiveMemory = { status: { kind: 'connecting', attempt: 0 }, paused: false, lastRefusal: null };

/**
 * The page's state after `input` (pure: the unit tests drive it with the events of each failure).
 * A retry (`connecting` with attempt > 0) keeps the failure on screen, so the explanation does not flicker
 * away every attempt; `authenticated` clears it.
 */
export function nextLiveStatus(memory: LiveMemory, input: LiveInput): LiveMemory {
  const m = { ...memory };
  switch (input.type) {
    case 'refusal':
      m.lastRefusal = { code: input.code, message: input.message, holders: input.holders };
      if (SUBSCRIPTION_REFUSALS.has(input.code)) m.status = { kind: 'refused', code: input.code, message: input.message };
      return m;
    case 'pause':
      m.paused = true;
      if (m.status.kind === 'live') m.status = { kind: 'paused' };
      return m;
    case 'resume':
      m.paused = false;
      if (m.status.kind === 'paused') m.status = { kind: 'live' };
      return m;
    case 'connecting':
      m.lastRefusal = null;
      if (input.attempt === 0 || !['limit', 'unreachable'].includes(m.status.kind)) m.status = { kind: 'connecting', attempt: input.attempt };
      return m;
    case 'authenticated':
      m.status = m.paused ? { kind: 'paused' } : { kind: 'connecting', attempt: 0 };
      return m;
    case 'subscribed':
    case 'resumed':
      m.status = m.paused ? { kind: 'paused' } : { kind: 'live' };
      return m;
    case 'reconnecting': {
      const refusal = m.lastRefusal;
      if (input.closeCode === 4429 && refusal?.code === 'connection_limit') {
        m.status = { kind: 'limit', message: refusal.message, holders: refusal.holders ?? [], retryInMs: input.delayMs };
      } else {
        m.status = {
          kind: 'unreachable',
          attempt: input.attempt,
          retryInMs: input.delayMs,
          closeCode: input.closeCode,
          message: refusal?.message ?? null,
        };
      }
      return m;
    }
    case 'unsubscribed':
      // The server ended the subscription (a plan change took the subject away); our own unsubscribe has no reason.
      if (input.reason !== null) m.status = { kind: 'refused', code: input.reason, message: input.message ?? `${input.subject} ended: ${input.reason}` };
      return m;
    case 'closed':
      if (!input.error) m.status = { kind: 'closed' };
      else if (input.error instanceof CredentialsRefusedError) m.status = { kind: 'credentials', code: input.error.code, message: input.error.message };
      else m.status = { kind: 'failed', message: input.error.message };
      return m;
    default:
      return m;
  }
}

/** "Chrome 131 on Windows"-style label of a User-Agent; the raw text when no browser or tool is recognised. */
export function describeUserAgent(userAgent: string | null): string {
  if (!userAgent) return 'no User-Agent (a program)';
  const browser = [
    [/Edg\/(\d+)/, 'Edge'],
    [/Firefox\/(\d+)/, 'Firefox'],
    [/Chrome\/(\d+)/, 'Chrome'],
    [/Version\/(\d+).*Safari/, 'Safari'],
  ] as const;
  const system = [
    [/Windows/, 'Windows'],
    [/Android/, 'Android'],
    [/iPhone|iPad/, 'iOS'],
    [/Mac OS X/, 'macOS'],
    [/Linux/, 'Linux'],
  ] as const;
  const b = browser.find(([re]) => re.test(userAgent));
  if (!b) return userAgent;
  const version = b[0].exec(userAgent)?.[1];
  const os = system.find(([re]) => re.test(userAgent))?.[1];
  return `${b[1]} ${version}${os ? ` on ${os}` : ''}`;
}
