/**
 * The notification bell (pure logic, no I/O): which EVENTS events become a notification for the
 * user, with which title, body and link; the preferences that hide kinds; and the shapes and
 * validation of the `/auth/notifications*` and `/auth/notification-preferences` API.
 */
import { AppError, PLANS, cheapestPlanWhere, isPlanId, isUuid, type EventTypes, type PlanId } from '@tradewind/contracts';

import {
  DEFAULT_PREFERENCES,
  NOTIFICATION_KINDS,
  PREFERENCE_OF_KIND,
  type NotificationKind,
  type NotificationPreferences,
} from '@tradewind/contracts/notifications';

export { DEFAULT_PREFERENCES, NOTIFICATION_KINDS, PREFERENCE_OF_KIND, type NotificationKind, type NotificationPreferences };

const PREFERENCE_KEYS = Object.keys(DEFAULT_PREFERENCES) as Array<keyof NotificationPreferences>;

/** The kinds `prefs` shows. */
export function shownKinds(prefs: NotificationPreferences): NotificationKind[] {
  return NOTIFICATION_KINDS.filter((kind) => prefs[PREFERENCE_OF_KIND[kind]]);
}

/**
 * Validates a `PUT /auth/notification-preferences` body: exactly the four booleans.
 * @throws AppError('invalid_argument') naming the missing, extra or non-boolean fields.
 */
export function parsePreferences(body: unknown): NotificationPreferences {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('invalid_argument', `Send a JSON object with the booleans ${PREFERENCE_KEYS.join(', ')}`);
  }
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => !(PREFERENCE_KEYS as string[]).includes(k));
  if (unknown.length > 0)
    throw new AppError(
      'invalid_argument',
      `Unknown preference${unknown.length === 1 ? '' : 's'} ${unknown
        .slice(0, 5)
        .map((k) => JSON.stringify(k.slice(0, 40)))
        .join(', ')}; expected ${PREFERENCE_KEYS.join(', ')}`,
    );
  const bad = PREFERENCE_KEYS.filter((k) => typeof fields[k] !== 'boolean');
  if (bad.length > 0) throw new AppError('invalid_argument', `${bad.join(', ')} must be true or false`);
  return {
    plan_changes: fields.plan_changes as boolean,
    payments: fields.payments as boolean,
    credentials: fields.credentials as boolean,
    connection_limits: fields.connection_limits as boolean,
  };
}

/** A notification to store for `userId`. `link` is an app path or an https URL; null for none. */
export interface NotificationDraft {
  userId: string;
  kind: NotificationKind;
  title: string;
  body: string;
  link: string | null;
}

/** Where the bell sends the user for each subject (web app paths, docs/auth.md). */
export const NOTIFICATION_LINKS = {
  plan: '/dashboard/plan',
  credentials: '/dashboard/settings?tab=connection',
} as const;

function planName(plan: string): string {
  return isPlanId(plan) ? PLANS[plan].name : plan;
}

/** "Plus (billed monthly)", "Starter (free)", or the bare plan name when the period is unknown. */
function planLabel(plan: string, period: string): string {
  if (plan === 'starter') return 'Starter (free)';
  if (period === 'monthly' || period === 'yearly') return `${planName(plan)} (billed ${period})`;
  return planName(plan);
}

/**
 * `amount` in the currency's smallest unit as text, e.g. 1500n "usd" → "$15.00", 1500n "jpy" → "¥1,500"
 * (fraction digits from Intl's data for the ISO 4217 code). An unknown code gives "1500 XYZ".
 */
export function formatMoney(amount: bigint, currency: string): string {
  const code = currency.toUpperCase();
  try {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: code });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(Number(amount) / 10 ** digits);
  } catch {
    return `${amount.toString()} ${code}`.trim();
  }
}

const DATE = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' });

/** Stripe's hosted invoice page when it is an https URL (it becomes a link in the browser), else the plan page. */
function invoiceLink(url: string): string {
  return /^https:\/\/[^\s]+$/.test(url) ? url : NOTIFICATION_LINKS.plan;
}

/**
 * subscription.changed → `plan_changed` when the plan or its billing period changed; status-only
 * changes (a failed or recovered payment) give none, the payment events speak for those.
 */
export function planChangedNotification(event: EventTypes['subscription.changed']): NotificationDraft | undefined {
  const tierChanged = event.plan !== event.previousPlan;
  const periodChanged = event.billingPeriod !== event.previousBillingPeriod;
  if (!tierChanged && !periodChanged) return undefined;
  const base = { userId: event.userId, kind: 'plan_changed' as const, link: NOTIFICATION_LINKS.plan };
  if (!tierChanged) {
    return {
      ...base,
      title: `${planName(event.plan)} is now billed ${event.billingPeriod}`,
      body: `Your ${planName(event.plan)} plan changed from ${event.previousBillingPeriod} to ${event.billingPeriod} billing.`,
    };
  }
  const title = `Plan changed to ${planName(event.plan)}`;
  if (event.reason === 'subscription_ended' && event.plan === 'starter') {
    return { ...base, title, body: `Your ${planName(event.previousPlan)} subscription ended. You are now on the free Starter plan.` };
  }
  return {
    ...base,
    title,
    body: `Your plan changed from ${planLabel(event.previousPlan, event.previousBillingPeriod)} to ${planLabel(event.plan, event.billingPeriod)}.`,
  };
}

/** payment.succeeded → `payment_succeeded`. */
export function paymentSucceededNotification(event: EventTypes['payment.succeeded']): NotificationDraft {
  const money = formatMoney(event.amount, event.currency);
  return {
    userId: event.userId,
    kind: 'payment_succeeded',
    title: 'Payment received',
    body: event.plan
      ? `We received ${money} for your ${planLabel(event.plan, event.billingPeriod)} plan. Thank you.`
      : `We received your payment of ${money}. Thank you.`,
    link: invoiceLink(event.hostedInvoiceUrl),
  };
}

/** payment.failed → `payment_failed`, with Stripe's next attempt when there is one. */
export function paymentFailedNotification(event: EventTypes['payment.failed']): NotificationDraft {
  const money = formatMoney(event.amount, event.currency);
  const what = event.plan ? `for your ${planLabel(event.plan, event.billingPeriod)} plan` : 'for your subscription';
  const retry = event.nextPaymentAttempt ? ` The next attempt is on ${DATE.format(event.nextPaymentAttempt)}.` : '';
  return {
    userId: event.userId,
    kind: 'payment_failed',
    title: 'Payment failed',
    body: `We could not charge ${money} ${what}. Update your card in the billing portal to keep your plan.${retry}`,
    link: invoiceLink(event.hostedInvoiceUrl),
  };
}

/** credentials.rotated → `credentials_rotated` (also the first issue, which has no previous key). */
export function credentialsRotatedNotification(event: EventTypes['credentials.rotated']): NotificationDraft {
  const first = event.previousUserPublicKey === '';
  return {
    userId: event.userId,
    kind: 'credentials_rotated',
    title: first ? 'Credentials issued' : 'Credentials rotated',
    body: first
      ? 'NATS credentials were issued for your account.'
      : 'New NATS credentials were issued for your account and the previous ones were revoked. Update every client that used them. If this was not you, rotate them again.',
    link: NOTIFICATION_LINKS.credentials,
  };
}

/** connection.limited → `connection_limited`, naming the plan's limit and the plan that allows more. */
export function connectionLimitedNotification(event: EventTypes['connection.limited']): NotificationDraft {
  const plan: PlanId = isPlanId(event.plan) ? event.plan : 'starter';
  const limit = event.limit || PLANS[plan].connections;
  const more = cheapestPlanWhere((p) => p.connections > limit);
  const upgrade = more ? ` or upgrade: the ${more.name} plan allows ${more.connections}` : '';
  return {
    userId: event.userId,
    kind: 'connection_limited',
    title: 'Connection limit reached',
    body: `A ${event.transport === 'websocket' ? 'WebSocket ' : ''}login was refused: your ${PLANS[plan].name} plan allows ${limit} concurrent connection${limit === 1 ? '' : 's'}. Close another connection${upgrade}.`,
    link: NOTIFICATION_LINKS.plan,
  };
}

/** One notification as the API returns it; dates are ISO 8601 strings. */
export interface NotificationJson {
  id: string;
  kind: NotificationKind;
  title: string;
  body: string;
  created_at: string;
  read_at: string | null;
  link: string | null;
}

/** Row → API shape. */
export function notificationJson(row: {
  id: string;
  kind: string;
  title: string;
  body: string;
  link: string | null;
  created_at: Date;
  read_at: Date | null;
}): NotificationJson {
  return {
    id: row.id,
    kind: row.kind as NotificationKind,
    title: row.title,
    body: row.body,
    created_at: row.created_at.toISOString(),
    read_at: row.read_at ? row.read_at.toISOString() : null,
    link: row.link,
  };
}

/**
 * Validates `GET /auth/notifications?limit=&before=`: `limit` an integer 1..`max` (default
 * `defaultLimit`), `before` the id (UUID) of a notification, for the page after it.
 * @throws AppError('invalid_argument') for anything else.
 */
export function parseListQuery(query: Record<string, unknown>, limits: { defaultLimit: number; max: number }): { limit: number; before: string | undefined } {
  const rawLimit = query.limit;
  let limit = limits.defaultLimit;
  if (rawLimit !== undefined && rawLimit !== '') {
    if (typeof rawLimit !== 'string' || !/^\d{1,6}$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > limits.max) {
      throw new AppError('invalid_argument', `limit must be an integer from 1 to ${limits.max}`);
    }
    limit = Number(rawLimit);
  }
  const before = query.before;
  if (before !== undefined && before !== '' && !isUuid(before)) throw new AppError('invalid_argument', 'before must be the id of a notification');
  return { limit, before: before === '' ? undefined : (before as string | undefined) };
}

/**
 * Validates a `POST /auth/notifications/read` body: `{"ids": [string, ...]}` (at most `maxIds`) or
 * `{"all": true}`. Ids that are not UUIDs cannot name a notification and are dropped (unknown ids
 * are ignored, as the API promises).
 * @throws AppError('invalid_argument') for anything else.
 */
export function parseReadBody(body: unknown, maxIds: number): { all: true } | { ids: string[] } {
  const usage = 'Send {"ids": ["<notification id>", ...]} or {"all": true}';
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('invalid_argument', usage);
  const fields = body as Record<string, unknown>;
  const keys = Object.keys(fields);
  if (keys.length !== 1 || (keys[0] !== 'ids' && keys[0] !== 'all')) throw new AppError('invalid_argument', usage);
  if ('all' in fields) {
    if (fields.all !== true) throw new AppError('invalid_argument', usage);
    return { all: true };
  }
  const ids = fields.ids;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))
    throw new AppError('invalid_argument', 'ids must be an array of notification ids (strings)');
  if (ids.length > maxIds) throw new AppError('invalid_argument', `at most ${maxIds} ids at once; use {"all": true} to mark everything read`);
  return { ids: [...new Set((ids as string[]).filter((id) => isUuid(id)).map((id) => id.toLowerCase()))] };
}
