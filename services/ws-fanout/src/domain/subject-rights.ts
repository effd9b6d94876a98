/**
 * Which TRADES subjects a verified user may receive, and the protocol errors when it may not
 * (docs/websocket.md §2, §7). Pure: no I/O.
 */
import { PLANS, TRADE_SUBJECTS, cheapestPlanFor, isTradeSubject, type TradeSubject } from '@tradewind/contracts';
import { maySubscribe, type VerifiedUser } from './verifier.js';
import { WsProtocolError } from './errors.js';

/** Subjects `user` may subscribe to, in catalogue order (the `subjects` of `authenticated` and `plan_changed`). */
export function subjectsOf(user: VerifiedUser): string[] {
  return [...PLANS[user.plan ?? 'starter'].subjects].filter((s) => maySubscribe(user, s));
}

/** The value as a TRADES subject. @throws WsProtocolError unknown_subject (connection stays open). */
export function tradeSubject(subject: unknown): TradeSubject {
  if (!isTradeSubject(subject)) {
    throw new WsProtocolError('invalid_argument', 'unknown_subject', `unknown subject ${JSON.stringify(subject)}; subjects are ${TRADE_SUBJECTS.join(', ')}`);
  }
  return subject;
}

/**
 * `subject`, when `user` may receive it.
 * @throws WsProtocolError subject_not_in_plan naming the cheapest plan that includes it (connection stays open).
 */
export function allowedSubject(user: VerifiedUser, subject: TradeSubject): TradeSubject {
  if (!maySubscribe(user, subject)) {
    const plan = cheapestPlanFor(subject);
    throw new WsProtocolError(
      'permission_denied',
      'subject_not_in_plan',
      `${subject} is not in your ${user.plan ?? 'current'} plan; it is included in the ${plan?.name ?? 'paid'} plan and above`,
    );
  }
  return subject;
}

/** Why `subject` ended on a live connection whose plan changed (the `message` of `unsubscribed`). */
export function notInPlanAnyMore(subject: string, planName: string): string {
  return `${subject} is not in your ${planName} plan any more; it is included in the ${cheapestPlanFor(subject)?.name ?? 'paid'} plan and above`;
}
