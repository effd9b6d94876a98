/**
 * The NATS subjects a plan reaches natively, in the three places nats-server looks (docs/nats.md, "One mint's
 * trades natively"): TRADEWIND's stream exports, a customer account's stream imports, and its users' subscribe
 * permissions. For each TRADES subject `s` of the plan, both `s` itself and its per-mint subjects
 * `s.mint.>` (ingest copies each trade to `s.mint.<mint>`, lib's mintSubject): a plan that includes a subject
 * includes every mint of it, and nothing of a subject it does not include. Every plan also reaches `slots`, the
 * slot status messages (@tradewind/contracts slots.ts: what became of each slot ingest published trades from).
 */
import type { Export, Import } from '@nats-io/jwt';
import { SLOTS_SUBJECT, TRADE_SUBJECTS, mintSubjectWildcard, type Plan, type TradeSubject } from '@tradewind/contracts';

/** `s` and `s.mint.>` for each of `subjects`, in that order. */
function withMintSubjects(subjects: readonly TradeSubject[]): { name: string; subject: string }[] {
  return subjects.flatMap((s) => [
    { name: s, subject: s },
    { name: `${s}.mint`, subject: mintSubjectWildcard(s) },
  ]);
}

/** `slots`, which every plan reaches (no per-mint copies: a slot is not about one token). */
const SLOTS = { name: SLOTS_SUBJECT, subject: SLOTS_SUBJECT } as const;

/**
 * What TRADEWIND exports as public streams: every TRADES subject and its per-mint wildcard, e.g.
 * `basic.pumpfun` and `basic.pumpfun.mint.>`, and `slots`.
 */
export function tradeExports(): Export[] {
  return [...withMintSubjects(TRADE_SUBJECTS), SLOTS].map(({ name, subject }): Export => ({ name, subject, type: 'stream' }));
}

/**
 * A customer account's stream imports of `plan`'s subjects from TRADEWIND: each TRADES subject and its
 * per-mint wildcard, and `slots` (nats-server delivers nothing an account does not import).
 * @param tradewindAccount TRADEWIND's account public key (`A…`).
 */
export function tradeImports(plan: Plan, tradewindAccount: string): Import[] {
  return [...withMintSubjects(plan.subjects), SLOTS].map(({ name, subject }): Import => ({ name, subject, account: tradewindAccount, type: 'stream' }));
}

/**
 * The subscribe allow list of `plan`'s users: e.g. starter → `basic.pumpfun`, `basic.pumpfun.mint.>`,
 * `basic.bonk`, `basic.bonk.mint.>`, `slots`. Subscribing to `basic.pumpfun.mint.<mint>` or `basic.pumpfun.mint.*`
 * is allowed (a subset of the wildcard), `premium.pumpswap.mint.<mint>` is not on starter.
 */
export function planSubscribeSubjects(plan: Plan): string[] {
  return [...withMintSubjects(plan.subjects), SLOTS].map(({ subject }) => subject);
}
