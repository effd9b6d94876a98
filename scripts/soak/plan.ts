/**
 * Who subscribes to what in the soak: WebSocket clients (half of them with server-side filters,
 * docs/websocket.md §2) and native NATS subscribers (core subscriptions to plan subjects and per-mint
 * subjects, docs/nats.md), each on a plan that allows its subjects (docs/architecture.md §8: starter has
 * basic.*, plus and pro add premium.*). The filters' mints are the busiest ones of the recording the
 * stand-in serves, so they match real traffic.
 *
 * Every distinct (subject, filter or mint) is a *variant* with a bit in the records' masks
 * (scripts/soak/records.ts), computed once per stored trade by the harness; every distinct
 * (subject, variant or none) is an *expectation*: the list of stored sequences a subscription of that
 * kind is owed (scripts/soak/audit.ts).
 */
import { PLANS, mintSubject, type PlanId, type TradeSubject } from '@tradewind/contracts';
import { matchesSoakFilter, perMintSubjectMints, type SoakFilter, type TradeJson } from './filters.js';

/** A filter of WebSocket subscriptions, or the mint of a native per-mint subscription. */
export type Variant = { readonly subject: TradeSubject; readonly filter: SoakFilter } | { readonly subject: TradeSubject; readonly mint: string };

/** Stored sequences of `subject` owed to subscriptions of one kind: all of them (`variant` null) or those variant `variant` passes. */
export interface Expectation {
  readonly key: number;
  readonly subject: TradeSubject;
  readonly variant: number | null;
}

/** One subscription of a subscriber. */
export interface SubscriptionPlan {
  /** The TRADES subject its trades are stored on. */
  readonly subject: TradeSubject;
  /** What a native subscriber subscribes to: the subject or `<subject>.mint.<mint>`; for WebSocket the subject. */
  readonly natsSubject: string;
  /** WebSocket filter, null for none. */
  readonly filter: SoakFilter | null;
  /** Its {@link Expectation}. */
  readonly key: number;
}

/** One subscriber: its plan and subscriptions. */
export interface ClientPlan {
  readonly plan: PlanId;
  readonly subscriptions: readonly SubscriptionPlan[];
  /** Has a filter (WebSocket) or a per-mint subject (native). */
  readonly filtered: boolean;
}

export interface SoakPlan {
  /** At most {@link MAX_VARIANTS}. */
  readonly variants: readonly Variant[];
  readonly expectations: readonly Expectation[];
  readonly ws: readonly ClientPlan[];
  readonly native: readonly ClientPlan[];
}

/** Bits of a record's mask (Uint32Array). */
export const MAX_VARIANTS = 32;

/** The busiest mints of a recording, by subject. */
export interface RecordingMints {
  /** basic.pumpfun `mint`s, busiest first (at least two). */
  readonly pumpfun: readonly string[];
  /** premium.pumpswap base mints, busiest first. */
  readonly pumpswap: readonly string[];
  /** basic.bonk base mints, busiest first. */
  readonly bonk: readonly string[];
}

/**
 * The mints of `trades` (each with its subject) that have per-mint subjects, busiest first per subject.
 * @throws Error when the recording lacks two pump.fun mints or one PumpSwap or LaunchLab mint (the plan's filters need them).
 */
export function recordingMints(trades: ReadonlyArray<{ subject: TradeSubject; trade: TradeJson }>): RecordingMints {
  const busiest = (subject: TradeSubject) => {
    const counts = new Map<string, number>();
    for (const t of trades) if (t.subject === subject) for (const m of perMintSubjectMints(subject, t.trade)) counts.set(m, (counts.get(m) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([m]) => m);
  };
  const mints = { pumpfun: busiest('basic.pumpfun'), pumpswap: busiest('premium.pumpswap'), bonk: busiest('basic.bonk') };
  if (mints.pumpfun.length < 2 || mints.pumpswap.length < 1 || mints.bonk.length < 1) {
    throw new Error('the recording needs two pump.fun mints and one PumpSwap and one LaunchLab mint for the soak filters');
  }
  return mints;
}

type Template = { plan: PlanId; subscriptions: Array<{ subject: TradeSubject; filter?: SoakFilter; mint?: string }> };

/** Unfiltered WebSocket clients, cycled: every subject, alone and in pairs. */
const WS_PLAIN: Template[] = [
  { plan: 'starter', subscriptions: [{ subject: 'basic.pumpfun' }] },
  { plan: 'starter', subscriptions: [{ subject: 'basic.bonk' }] },
  { plan: 'starter', subscriptions: [{ subject: 'basic.pumpfun' }, { subject: 'basic.bonk' }] },
  { plan: 'plus', subscriptions: [{ subject: 'premium.pumpswap' }] },
  { plan: 'plus', subscriptions: [{ subject: 'premium.raydium' }] },
  { plan: 'pro', subscriptions: [{ subject: 'premium.pumpswap' }, { subject: 'premium.raydium' }] },
  { plan: 'starter', subscriptions: [{ subject: 'basic.bonk' }] },
  { plan: 'pro', subscriptions: [{ subject: 'basic.pumpfun' }, { subject: 'premium.pumpswap' }] },
];

/** Filtered WebSocket clients, cycled: by types, by mints of the recording, by min_sol, and combinations. */
function wsFiltered(m: RecordingMints): Template[] {
  return [
    { plan: 'starter', subscriptions: [{ subject: 'basic.pumpfun', filter: { types: ['CREATE'] } }] },
    { plan: 'starter', subscriptions: [{ subject: 'basic.pumpfun', filter: { types: ['BUY', 'SELL'], min_sol: 1 } }] },
    { plan: 'starter', subscriptions: [{ subject: 'basic.pumpfun', filter: { mints: [m.pumpfun[0]!, m.pumpfun[1]!] } }] },
    { plan: 'starter', subscriptions: [{ subject: 'basic.bonk', filter: { types: ['BUY', 'SELL'] } }] },
    { plan: 'plus', subscriptions: [{ subject: 'premium.pumpswap', filter: { min_sol: 0.1 } }] },
    { plan: 'plus', subscriptions: [{ subject: 'premium.pumpswap', filter: { mints: [m.pumpswap[0]!] } }] },
    {
      plan: 'pro',
      subscriptions: [
        { subject: 'basic.pumpfun', filter: { types: ['COMPLETE', 'MIGRATE'] } },
        { subject: 'premium.pumpswap', filter: { types: ['CREATE_POOL'] } },
      ],
    },
    {
      plan: 'pro',
      subscriptions: [
        { subject: 'premium.raydium', filter: { types: ['SWAP'] } },
        { subject: 'basic.pumpfun', filter: { min_sol: 2 } },
      ],
    },
  ];
}

/** Native subscribers, cycled: plain subjects and per-mint subjects of each plan. */
function nativeTemplates(m: RecordingMints): Template[] {
  return [
    { plan: 'starter', subscriptions: [{ subject: 'basic.pumpfun' }] },
    { plan: 'starter', subscriptions: [{ subject: 'basic.bonk' }] },
    { plan: 'plus', subscriptions: [{ subject: 'premium.pumpswap' }] },
    { plan: 'pro', subscriptions: [{ subject: 'premium.raydium' }] },
    { plan: 'starter', subscriptions: [{ subject: 'basic.pumpfun', mint: m.pumpfun[0]! }] },
    { plan: 'plus', subscriptions: [{ subject: 'premium.pumpswap', mint: m.pumpswap[0]! }] },
    { plan: 'starter', subscriptions: [{ subject: 'basic.pumpfun' }, { subject: 'basic.bonk' }] },
    { plan: 'pro', subscriptions: [{ subject: 'basic.bonk', mint: m.bonk[0]! }, { subject: 'premium.raydium' }] },
  ];
}

/**
 * The soak's subscribers: `wsClients` WebSocket clients alternating unfiltered and filtered (so half are
 * filtered), and `nativeClients` native subscribers, each template in turn.
 * @throws Error when a template names a subject its plan lacks (a bug here) or there are more than MAX_VARIANTS variants.
 */
export function buildSoakPlan(wsClients: number, nativeClients: number, mints: RecordingMints): SoakPlan {
  const variants: Variant[] = [];
  const expectations: Expectation[] = [];
  const variantOf = (subject: TradeSubject, filter?: SoakFilter, mint?: string): number | null => {
    if (!filter && !mint) return null;
    const id = JSON.stringify({ subject, filter, mint });
    const i = variants.findIndex(
      (v) => JSON.stringify({ subject: v.subject, filter: 'filter' in v ? v.filter : undefined, mint: 'mint' in v ? v.mint : undefined }) === id,
    );
    if (i >= 0) return i;
    variants.push(mint ? { subject, mint } : { subject, filter: filter! });
    if (variants.length > MAX_VARIANTS) throw new Error(`more than ${MAX_VARIANTS} filter variants`);
    return variants.length - 1;
  };
  const keyOf = (subject: TradeSubject, variant: number | null): number => {
    const found = expectations.find((e) => e.subject === subject && e.variant === variant);
    if (found) return found.key;
    expectations.push({ key: expectations.length, subject, variant });
    return expectations.length - 1;
  };
  const client = (t: Template): ClientPlan => {
    for (const s of t.subscriptions)
      if (!(PLANS[t.plan].subjects as readonly string[]).includes(s.subject)) throw new Error(`${s.subject} is not in ${t.plan}`);
    return {
      plan: t.plan,
      filtered: t.subscriptions.some((s) => s.filter || s.mint),
      subscriptions: t.subscriptions.map((s) => ({
        subject: s.subject,
        natsSubject: s.mint ? mintSubject(s.subject, s.mint) : s.subject,
        filter: s.filter ?? null,
        key: keyOf(s.subject, variantOf(s.subject, s.filter, s.mint)),
      })),
    };
  };
  const filtered = wsFiltered(mints);
  const natives = nativeTemplates(mints);
  const ws = Array.from({ length: wsClients }, (_, i) =>
    client(i % 2 === 0 ? WS_PLAIN[(i / 2) % WS_PLAIN.length]! : filtered[((i - 1) / 2) % filtered.length]!),
  );
  const native = Array.from({ length: nativeClients }, (_, i) => client(natives[i % natives.length]!));
  return { variants, expectations, ws, native };
}

/** The mask bits of the variants that pass `trade`, stored on `subject`. */
export function variantMask(variants: readonly Variant[], subject: TradeSubject, trade: TradeJson): number {
  let mask = 0;
  for (let i = 0; i < variants.length; i++) {
    const v = variants[i]!;
    if (v.subject !== subject) continue;
    const pass = 'mint' in v ? perMintSubjectMints(subject, trade).includes(v.mint) : matchesSoakFilter(subject, v.filter, trade);
    if (pass) mask |= 1 << i;
  }
  return mask >>> 0;
}

/** For the report: what the variant is, e.g. `basic.pumpfun {"types":["CREATE"]}` or `basic.pumpfun.mint.ED5n…`. */
export function describeVariant(v: Variant): string {
  return 'mint' in v ? `${mintSubject(v.subject, v.mint)}` : `${v.subject} ${JSON.stringify(v.filter)}`;
}
