/**
 * billing's use cases, between the thin HTTP/gRPC/event edges and the pure domain:
 * checkout, plan change with proration, billing portal, Stripe webhook processing, and the
 * starter subscription of a new user. Every state change is written with its
 * `subscription.changed` event in one PostgreSQL transaction (outbox).
 */
import type Stripe from 'stripe';
import type { Counter } from 'prom-client';
import { AppError, SubscriptionChanged, isUuid, newEventMeta, type PlanId } from '@tradewind/contracts';
import { appendEvent, type AccessTokenClaims, type Kysely, type Logger, type OutboxRelay, type Transaction } from '@tradewind/lib';
import type { BillingDatabase } from './db/schema.js';
import {
  ensureCustomer,
  findCustomer,
  findSubscription,
  linkStripeCustomer,
  lockSubscription,
  saveSubscription,
  userOfStripeCustomer,
} from './db/subscriptions.js';
import {
  applyCheckoutCompleted,
  applyInvoiceOutcome,
  applySubscriptionSnapshot,
  effectivePlan,
  hasLivePaidSubscription,
  starterState,
  type Decision,
  type SubscriptionState,
} from './domain/subscription.js';
import { paidPlanOf, parsePaidPlan, type PaidPeriod, type PaidTier } from './domain/prices.js';
import { checkPlanChange, checkProrationDate, checkoutPreview, prorationPreview, type UpgradePreviewJson } from './domain/upgrade.js';
import { fromStripeError, type StripeGateway } from './stripe/gateway.js';
import { idOf, snapshotOfSubscription, subscriptionOfInvoice } from './stripe/objects.js';

/** A user as billing needs it (from user.created or auth's GetUser). */
export interface BillingUser {
  userId: string;
  email: string;
  name: string;
}

export interface BillingServiceDeps {
  db: Kysely<BillingDatabase>;
  stripe: StripeGateway;
  relay: Pick<OutboxRelay, 'kick'>;
  logger: Logger;
  /** Origin of the web app (no trailing slash). */
  publicUrl: string;
  /** Asks auth for a user billing has not heard of yet; undefined when auth does not know them. */
  lookupUser(userId: string, requestId: string): Promise<BillingUser | undefined>;
  /**
   * Counts each subscription.changed event written, once its transaction committed, by the effective
   * plan before and after (`tradewind_billing_subscription_changes_total`).
   */
  subscriptionChanges?: Counter<'from_plan' | 'to_plan'>;
  /** How old a confirmed upgrade preview may be, s (UPGRADE_PREVIEW_MAX_AGE_SECONDS). */
  upgradePreviewMaxAgeSeconds: number;
  /** Billing's clock, ms since the epoch (default Date.now): proration dates of previews. */
  now?: () => number;
}

/** The effective plans (starter unless the status keeps the tier, see effectivePlan) around one subscription.changed event. */
interface PlanTransition {
  from: PlanId;
  to: PlanId;
}

/** What applying one change did; `transition` is set when a subscription.changed event was written. */
interface ChangeResult {
  outcome: WebhookOutcome;
  detail: string;
  transition?: PlanTransition;
  /** Set when a payment.succeeded / payment.failed event was written (invoice webhooks). */
  paymentEvent?: 'payment.succeeded' | 'payment.failed';
}

/** Outcome of one webhook event, stored with it and counted. */
export type WebhookOutcome = 'applied' | 'unchanged' | 'stale' | 'ignored' | 'unhandled' | 'duplicate';

/** Event types billing acts on; every other type is acknowledged and recorded as `unhandled`. */
export const HANDLED_EVENT_TYPES = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
] as const;

/** Where Stripe sends the browser after a successful checkout (the dashboard shows the return toast). */
export function checkoutSuccessUrl(publicUrl: string): string {
  return `${publicUrl}/dashboard?checkout=success&session_id={CHECKOUT_SESSION_ID}`;
}

/** The `/api/get-subscription` body. Dates are ISO 8601 strings. */
export interface SubscriptionJson {
  tier: string;
  billing_period: string;
  status: string;
  /** Next renewal, or null on the free plan and when the subscription ends at period end. */
  next_billing_date: string | null;
  cancel_at_period_end: boolean;
  /** When a cancelled subscription ends (then the user is on starter), else null. */
  cancel_at: string | null;
  subscription_type: string;
  /** Plan whose limits apply now (starter while a payment is unpaid/incomplete). */
  effective_plan: string;
}

export function subscriptionJson(s: SubscriptionState): SubscriptionJson {
  const end = s.currentPeriodEnd ? s.currentPeriodEnd.toISOString() : null;
  return {
    tier: s.tier,
    billing_period: s.billingPeriod,
    status: s.status,
    next_billing_date: s.cancelAtPeriodEnd ? null : end,
    cancel_at_period_end: s.cancelAtPeriodEnd,
    cancel_at: s.cancelAtPeriodEnd ? end : null,
    subscription_type: s.subscriptionType,
    effective_plan: effectivePlan(s).id,
  };
}

export function createBillingService(deps: BillingServiceDeps) {
  const { db, stripe, logger } = deps;

  /** Counts a written subscription.changed event; call once its transaction committed. */
  function counted(transition: PlanTransition | undefined): void {
    if (transition) deps.subscriptionChanges?.inc({ from_plan: transition.from, to_plan: transition.to });
  }

  /**
   * Saves `decision` for `userId` and writes subscription.changed when tier, period or status changed.
   * @returns the outcome, and the effective plans around the event when one was written.
   */
  async function commit(
    trx: Transaction<BillingDatabase>,
    userId: string,
    prev: SubscriptionState,
    decision: Decision,
    requestId: string,
  ): Promise<{ outcome: WebhookOutcome; transition?: PlanTransition }> {
    if (decision.kind !== 'apply') return { outcome: decision.kind };
    await saveSubscription(trx, userId, decision.next);
    if (!decision.changed) return { outcome: 'unchanged' };
    const customer = await findCustomer(trx, userId);
    const next = decision.next;
    await appendEvent(
      trx,
      'subscription.changed',
      SubscriptionChanged.create({
        meta: newEventMeta('subscription.changed', 'billing', requestId),
        userId,
        plan: next.tier,
        previousPlan: prev.tier,
        billingPeriod: next.billingPeriod,
        previousBillingPeriod: prev.billingPeriod,
        subscriptionStatus: next.status,
        previousSubscriptionStatus: prev.status,
        subscriptionType: next.subscriptionType,
        trialEndDate: next.trialEnd ?? undefined,
        stripeCustomerId: customer?.stripe_customer_id ?? '',
        stripeSubscriptionId: next.tier === 'starter' ? '' : (next.stripeSubscriptionId ?? ''),
        version: BigInt(next.version),
        reason: decision.reason ?? 'status_changed',
        currentPeriodEnd: next.currentPeriodEnd ?? undefined,
        cancelAtPeriodEnd: next.cancelAtPeriodEnd,
      }),
      requestId ? { 'x-request-id': requestId } : {},
    );
    logger.info(
      {
        user_id: userId,
        tier: next.tier,
        previous_tier: prev.tier,
        billing_period: next.billingPeriod,
        status: next.status,
        reason: decision.reason,
        version: next.version,
      },
      'subscription changed',
    );
    return { outcome: 'applied', transition: { from: effectivePlan(prev).id, to: effectivePlan(next).id } };
  }

  /** Runs `decide` on the locked subscription of `userId` and commits the result. */
  async function change(
    trx: Transaction<BillingDatabase>,
    userId: string,
    decideFn: (current: SubscriptionState) => Decision,
    requestId: string,
  ): Promise<ChangeResult> {
    const current = await lockSubscription(trx, userId);
    if (!current) return { outcome: 'ignored', detail: `user ${userId} has no billing record` };
    const decision = decideFn(current);
    const { outcome, transition } = await commit(trx, userId, current, decision, requestId);
    return { outcome, detail: decision.kind === 'apply' ? (decision.reason ?? '') : decision.detail, ...(transition ? { transition } : {}) };
  }

  /** The billing record of `userId`, created from auth's record when user.created has not been applied yet. */
  async function requireUser(userId: string, requestId: string): Promise<NonNullable<Awaited<ReturnType<typeof findCustomer>>>> {
    if (!isUuid(userId)) throw new AppError('invalid_argument', 'userId must be a user id (UUID)');
    const known = await findCustomer(db, userId);
    if (known) return known;
    const user = await deps.lookupUser(userId, requestId);
    if (!user) throw new AppError('not_found', `No user ${userId}`);
    await db.transaction().execute((trx) => ensureCustomer(trx, user));
    return (await findCustomer(db, userId))!;
  }

  /** The user's Stripe customer, created (idempotently) on first use. */
  async function stripeCustomerOf(customer: { user_id: string; email: string; name: string; stripe_customer_id: string | null }): Promise<string> {
    if (customer.stripe_customer_id) return customer.stripe_customer_id;
    let created: Stripe.Customer;
    try {
      created = await stripe.client.customers.create(
        { email: customer.email, ...(customer.name ? { name: customer.name } : {}), metadata: { user_id: customer.user_id } },
        { idempotencyKey: `tradewind-customer-${customer.user_id}` },
      );
    } catch (err) {
      throw fromStripeError(err, 'creating the customer');
    }
    return linkStripeCustomer(db, customer.user_id, created.id);
  }

  const nowSeconds = (): number => Math.floor((deps.now ?? Date.now)() / 1000);

  /**
   * Switches a live subscription to another plan now, with proration invoiced at once, computed
   * at `prorationDate` (the preview's, so the charge equals the amount shown).
   * @returns the stored state after the change, and what the proration invoice charged (US cents).
   */
  async function changePlan(
    userId: string,
    current: SubscriptionState,
    plan: { tier: PaidTier; period: PaidPeriod },
    prorationDate: number,
    requestId: string,
  ): Promise<{ state: SubscriptionState; amountPaidCents: number | null }> {
    const price = await stripe.priceFor(plan.tier, plan.period);
    let updated: Stripe.Subscription;
    try {
      updated = await stripe.client.subscriptions.update(
        current.stripeSubscriptionId!,
        {
          items: [{ id: current.stripeSubscriptionItemId!, price: price.id }],
          // The change takes effect now; the difference for the rest of the period is invoiced and
          // charged at once (https://docs.stripe.com/billing/subscriptions/prorations).
          proration_behavior: 'always_invoice',
          // Prorated as of the preview the user confirmed (https://docs.stripe.com/api/invoices/create_preview).
          proration_date: prorationDate,
          // The new plan only applies if that invoice is paid (https://docs.stripe.com/billing/subscriptions/pending-updates).
          payment_behavior: 'pending_if_incomplete',
          expand: ['latest_invoice'],
        },
        { idempotencyKey: `tradewind-plan-${current.stripeSubscriptionId}-${current.version}-${price.id}-${prorationDate}` },
      );
    } catch (err) {
      throw fromStripeError(err, 'changing the plan');
    }
    if (updated.pending_update)
      throw new AppError(
        'invalid_argument',
        'The payment for the plan change did not go through, so your plan was not changed. Update your card in the billing portal and try again.',
      );
    // Stripe's own clock for this change: the proration invoice it created. Without one, the
    // customer.subscription.updated webhook brings the change.
    const invoice = typeof updated.latest_invoice === 'object' ? updated.latest_invoice : null;
    const observedAt = invoice && invoice.billing_reason === 'subscription_update' ? invoice.created : undefined;
    if (observedAt === undefined) return { state: current, amountPaidCents: null };
    const snapshot = snapshotOfSubscription(updated, stripe.planOfPrice);
    const result = await db.transaction().execute((trx) => change(trx, userId, (latest) => applySubscriptionSnapshot(latest, snapshot, observedAt), requestId));
    counted(result.transition);
    deps.relay.kick();
    logger.info(
      { user_id: userId, tier: plan.tier, period: plan.period, proration_date: prorationDate, amount_paid_cents: invoice!.amount_paid, request_id: requestId },
      'plan changed with proration',
    );
    return { state: (await findSubscription(db, userId)) ?? current, amountPaidCents: invoice!.amount_paid };
  }

  return {
    /**
     * `POST /api/upgrade-preview`: what confirming `{tier, period}` would charge the caller now.
     * Without a live paid subscription: the plan's first charge from the catalogue (kind
     * `checkout`). With one: Stripe's invoice preview of the item's price change with
     * `proration_behavior: always_invoice` at `proration_date` = billing's now (kind `proration`).
     * @throws AppError invalid_argument (bad tier/period, starter), not_found (unknown user),
     *   conflict (same plan, or a downgrade: "Use Manage billing to downgrade."), unavailable (Stripe).
     */
    async previewUpgrade(input: { tier: unknown; period: unknown; userId: string; requestId: string }): Promise<UpgradePreviewJson> {
      const plan = parsePaidPlan(input.tier, input.period);
      await requireUser(input.userId, input.requestId);
      const current = await findSubscription(db, input.userId);
      if (!current || !hasLivePaidSubscription(current)) return checkoutPreview(plan);
      checkPlanChange(current, plan);
      const price = await stripe.priceFor(plan.tier, plan.period);
      const prorationDate = nowSeconds();
      let invoice: Stripe.Invoice;
      try {
        invoice = await stripe.client.invoices.createPreview({
          subscription: current.stripeSubscriptionId!,
          subscription_details: {
            items: [{ id: current.stripeSubscriptionItemId!, price: price.id }],
            proration_behavior: 'always_invoice',
            proration_date: prorationDate,
          },
        });
      } catch (err) {
        throw fromStripeError(err, 'previewing the plan change');
      }
      return prorationPreview(plan, invoice, prorationDate);
    },

    /**
     * `POST /api/checkout-sessions`: a Stripe Checkout Session (subscription mode) for the plan,
     * tied to the user through `client_reference_id`, the customer and metadata. A user with a live
     * paid subscription is switched to the new plan at once instead (proration), which needs their
     * own access token and the `proration_date` of the preview they confirmed
     * (`POST /api/upgrade-preview`), so Stripe charges the amount shown.
     * @returns `{url}`: Stripe's hosted page, or the dashboard after an immediate plan change (with
     *   what the proration invoice charged, US cents).
     * @throws AppError invalid_argument (bad tier/period/cancelUrl/proration_date, starter, a plan
     *   change without proration_date), not_found (unknown user), unauthenticated/permission_denied
     *   (plan change without the user's token), conflict (same plan, a downgrade, a preview older
     *   than UPGRADE_PREVIEW_MAX_AGE_SECONDS), unavailable (Stripe).
     */
    async createCheckout(input: {
      tier: unknown;
      period: unknown;
      userId: unknown;
      cancelUrl: unknown;
      prorationDate?: unknown;
      caller: AccessTokenClaims | undefined;
      requestId: string;
    }): Promise<{ url: string; plan_changed?: boolean; subscription?: SubscriptionJson; amount_paid_cents?: number | null }> {
      const plan = parsePaidPlan(input.tier, input.period);
      if (typeof input.userId !== 'string' || input.userId === '') throw new AppError('invalid_argument', 'userId is required');
      if (input.caller && input.caller.userId !== input.userId) throw new AppError('permission_denied', 'The access token belongs to another user');
      const cancelUrl = sameOriginUrl(input.cancelUrl, deps.publicUrl, 'cancelUrl') ?? `${deps.publicUrl}/pricing`;
      const customer = await requireUser(input.userId, input.requestId);
      const current = await findSubscription(db, input.userId);
      if (current && hasLivePaidSubscription(current)) {
        // The token comes first: the answers below tell what plan the user is on.
        if (!input.caller) throw new AppError('unauthenticated', 'Sign in to change your current plan');
        checkPlanChange(current, plan);
        if (input.prorationDate === undefined || input.prorationDate === null) {
          throw new AppError(
            'invalid_argument',
            'Changing a paid plan needs the proration_date of the price preview (POST /api/upgrade-preview), so the amount charged is the amount shown.',
          );
        }
        const prorationDate = checkProrationDate(input.prorationDate, nowSeconds(), deps.upgradePreviewMaxAgeSeconds);
        const next = await changePlan(input.userId, current, plan, prorationDate, input.requestId);
        return {
          url: `${deps.publicUrl}/dashboard?checkout=success&plan_changed=true`,
          plan_changed: true,
          subscription: subscriptionJson(next.state),
          amount_paid_cents: next.amountPaidCents,
        };
      }
      const stripeCustomerId = await stripeCustomerOf(customer);
      const price = await stripe.priceFor(plan.tier, plan.period);
      const metadata = { user_id: input.userId, tier: plan.tier, period: plan.period };
      let session: Stripe.Checkout.Session;
      try {
        session = await stripe.client.checkout.sessions.create({
          mode: 'subscription',
          line_items: [{ price: price.id, quantity: 1 }],
          customer: stripeCustomerId,
          client_reference_id: input.userId,
          success_url: checkoutSuccessUrl(deps.publicUrl),
          cancel_url: cancelUrl,
          metadata,
          subscription_data: { metadata },
          allow_promotion_codes: true,
        });
      } catch (err) {
        throw fromStripeError(err, 'creating the checkout session');
      }
      if (!session.url) throw new AppError('internal', `checkout session ${session.id} has no url`);
      await db
        .insertInto('checkout_sessions')
        .values({
          id: session.id,
          user_id: input.userId,
          tier: plan.tier,
          billing_period: plan.period,
          stripe_customer_id: stripeCustomerId,
          completed_at: null,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      logger.info(
        { user_id: input.userId, tier: plan.tier, period: plan.period, checkout_session: session.id, request_id: input.requestId },
        'checkout session created',
      );
      return { url: session.url };
    },

    /**
     * `POST /api/create-portal-session`: Stripe's billing portal for the caller's customer.
     * @throws AppError not_found when the user never started a checkout (no Stripe customer).
     */
    async createPortal(userId: string, requestId: string): Promise<{ url: string }> {
      const customer = await requireUser(userId, requestId);
      if (!customer.stripe_customer_id) throw new AppError('not_found', 'No billing account yet: choose a paid plan first.');
      try {
        const portal = await stripe.client.billingPortal.sessions.create({
          customer: customer.stripe_customer_id,
          return_url: `${deps.publicUrl}/dashboard/plan`,
        });
        return { url: portal.url };
      } catch (err) {
        throw fromStripeError(err, 'opening the billing portal');
      }
    },

    /** `GET /api/get-subscription`: the caller's subscription; starter/indefinite/active when billing has no paid one. */
    async getSubscription(userId: string): Promise<SubscriptionJson> {
      const found = await findSubscription(db, userId);
      if (found) return subscriptionJson(found);
      return subscriptionJson(starterState());
    },

    /** user.created: the new user gets a starter subscription (no event: nothing changed for them). */
    async onUserCreated(trx: Transaction<BillingDatabase>, user: BillingUser): Promise<void> {
      await ensureCustomer(trx, user);
    },

    /**
     * Processes one verified webhook event exactly once (the event id is stored in the same
     * transaction as its effect; a redelivery is answered `duplicate`).
     */
    async processEvent(event: Stripe.Event, requestId: string): Promise<{ outcome: WebhookOutcome; detail: string }> {
      const result = await db.transaction().execute(async (trx): Promise<ChangeResult> => {
        const inserted = await trx
          .insertInto('stripe_events')
          .values({
            id: event.id,
            type: event.type,
            created: String(event.created),
            livemode: event.livemode,
            payload: JSON.stringify(event),
            outcome: 'pending',
            detail: '',
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .returning('id')
          .executeTakeFirst();
        if (!inserted) return { outcome: 'duplicate' as const, detail: 'event already processed' };
        const applied = await apply(trx, event, requestId);
        await trx
          .updateTable('stripe_events')
          .set({ outcome: applied.outcome, detail: applied.detail.slice(0, 500) })
          .where('id', '=', event.id)
          .execute();
        return applied;
      });
      counted(result.transition);
      if (result.outcome === 'applied' || result.paymentEvent) deps.relay.kick();
      return { outcome: result.outcome, detail: result.detail };
    },
  };

  async function userOfEvent(
    trx: Transaction<BillingDatabase>,
    customerId: string | null,
    metadata: Stripe.Metadata | null | undefined,
  ): Promise<string | undefined> {
    if (customerId) {
      const user = await userOfStripeCustomer(trx, customerId);
      if (user) return user;
    }
    const fromMetadata = metadata?.user_id;
    if (fromMetadata && isUuid(fromMetadata) && (await findCustomer(trx, fromMetadata))) {
      if (customerId) await linkStripeCustomer(trx, fromMetadata, customerId);
      return fromMetadata;
    }
    return undefined;
  }

  async function apply(trx: Transaction<BillingDatabase>, event: Stripe.Event, requestId: string): Promise<ChangeResult> {
    switch (event.type) {
      case 'checkout.session.completed': {
        const session = event.data.object;
        if (session.mode !== 'subscription' || !session.subscription)
          return { outcome: 'ignored', detail: `checkout session ${session.id} is not a subscription checkout` };
        const customerId = idOf(session.customer);
        const userId =
          session.client_reference_id && isUuid(session.client_reference_id) && (await findCustomer(trx, session.client_reference_id))
            ? session.client_reference_id
            : await userOfEvent(trx, customerId, session.metadata);
        if (!userId) return { outcome: 'ignored', detail: `checkout session ${session.id} belongs to no Tradewind user` };
        if (customerId) await linkStripeCustomer(trx, userId, customerId);
        await trx.updateTable('checkout_sessions').set({ completed_at: new Date() }).where('id', '=', session.id).execute();
        const stored = await trx.selectFrom('checkout_sessions').select(['tier', 'billing_period']).where('id', '=', session.id).executeTakeFirst();
        const plan = stored ? paidPlanOf(stored.tier, stored.billing_period) : paidPlanOf(session.metadata?.tier, session.metadata?.period);
        if (!plan) return { outcome: 'ignored', detail: `checkout session ${session.id} names no Tradewind plan` };
        const subscriptionId = idOf(session.subscription)!;
        return change(
          trx,
          userId,
          (current) => applyCheckoutCompleted(current, { subscriptionId, plan, paid: session.payment_status !== 'unpaid' }),
          requestId,
        );
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted': {
        const sub = event.data.object;
        const userId = await userOfEvent(trx, idOf(sub.customer), sub.metadata);
        if (!userId) return { outcome: 'ignored', detail: `customer ${idOf(sub.customer)} is not linked to a Tradewind user` };
        const snapshot = snapshotOfSubscription(sub, stripe.planOfPrice);
        return change(trx, userId, (current) => applySubscriptionSnapshot(current, snapshot, event.created), requestId);
      }
      case 'invoice.paid':
      case 'invoice.payment_failed': {
        const invoice = event.data.object;
        const subscriptionId = subscriptionOfInvoice(invoice);
        if (!subscriptionId) return { outcome: 'ignored', detail: `invoice ${invoice.id} bills no subscription` };
        const userId = await userOfEvent(trx, idOf(invoice.customer), invoice.parent?.subscription_details?.metadata);
        if (!userId) return { outcome: 'ignored', detail: `customer ${idOf(invoice.customer)} is not linked to a Tradewind user` };
        const result = await change(
          trx,
          userId,
          (current) => applyInvoiceOutcome(current, subscriptionId, event.type === 'invoice.paid', event.created),
          requestId,
        );
        // The payment is a fact whatever the subscription decision (a renewal paid changes no status; a late event is stale).
        const paymentEvent = await appendPaymentEvent(trx, event, userId, subscriptionId, requestId);
        return paymentEvent ? { ...result, detail: `${result.detail}${result.detail ? '; ' : ''}${paymentEvent} written`, paymentEvent } : result;
      }
      default:
        return { outcome: 'unhandled', detail: `event type ${event.type} is not used by billing` };
    }
  }

  /**
   * The plan an invoice bills: the price of its largest positive line (the only line of a
   * creation or renewal; the new plan's debit in a proration invoice), else billing's subscription
   * when it is that invoice's subscription (the price cache may not know the price id yet).
   */
  async function planOfInvoice(
    trx: Transaction<BillingDatabase>,
    invoice: Stripe.Invoice,
    userId: string,
    subscriptionId: string,
  ): Promise<{ tier: string; period: string } | undefined> {
    const top = [...(invoice.lines?.data ?? [])].filter((l) => l.amount > 0).sort((a, b) => b.amount - a.amount)[0];
    const fromPrice = stripe.planOfPrice(top?.pricing?.price_details?.price);
    if (fromPrice) return fromPrice;
    const current = await findSubscription(trx, userId);
    return current && current.stripeSubscriptionId === subscriptionId && current.tier !== 'starter'
      ? { tier: current.tier, period: current.billingPeriod }
      : undefined;
  }

  /**
   * Writes payment.succeeded (invoice.paid: amount_paid) or payment.failed (invoice.payment_failed:
   * amount_due, attempt count, next attempt) to the outbox in `trx`, the transaction that records
   * the Stripe event, so one Stripe event id gives at most one payment event (a redelivery is a
   * `duplicate` before this runs). An invoice.paid that charged nothing (a downgrade paid from the
   * customer's credit) writes none.
   * @returns the subject written, or undefined.
   */
  async function appendPaymentEvent(
    trx: Transaction<BillingDatabase>,
    event: Stripe.InvoicePaidEvent | Stripe.InvoicePaymentFailedEvent,
    userId: string,
    subscriptionId: string,
    requestId: string,
  ): Promise<'payment.succeeded' | 'payment.failed' | undefined> {
    const invoice = event.data.object;
    const paid = event.type === 'invoice.paid';
    const amount = paid ? invoice.amount_paid : invoice.amount_due;
    if (!(amount > 0)) return undefined;
    const plan = await planOfInvoice(trx, invoice, userId, subscriptionId);
    const common = {
      userId,
      amount: BigInt(amount),
      currency: invoice.currency,
      stripeInvoiceId: invoice.id ?? '',
      stripeEventId: event.id,
      stripeCustomerId: idOf(invoice.customer) ?? '',
      stripeSubscriptionId: subscriptionId,
      plan: plan?.tier ?? '',
      billingPeriod: plan?.period ?? '',
      hostedInvoiceUrl: invoice.hosted_invoice_url ?? '',
      billingReason: invoice.billing_reason ?? '',
    };
    const headers: Record<string, string> = requestId ? { 'x-request-id': requestId } : {};
    if (paid) {
      await appendEvent(trx, 'payment.succeeded', { meta: newEventMeta('payment.succeeded', 'billing', requestId), ...common }, headers);
    } else {
      await appendEvent(
        trx,
        'payment.failed',
        {
          meta: newEventMeta('payment.failed', 'billing', requestId),
          ...common,
          attemptCount: invoice.attempt_count,
          nextPaymentAttempt: invoice.next_payment_attempt ? new Date(invoice.next_payment_attempt * 1000) : undefined,
        },
        headers,
      );
    }
    const subject = paid ? 'payment.succeeded' : 'payment.failed';
    logger.info({ user_id: userId, invoice: invoice.id, stripe_event: event.id, amount, currency: invoice.currency, subject }, 'payment event written');
    return subject;
  }
}

export type BillingService = ReturnType<typeof createBillingService>;

/**
 * `value` as an absolute URL on `origin` (no open redirects), undefined when absent.
 * @throws AppError('invalid_argument') for anything else.
 */
export function sameOriginUrl(value: unknown, origin: string, name: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || value.length > 2048) throw new AppError('invalid_argument', `${name} must be a URL on ${origin}`);
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    throw new AppError('invalid_argument', `${name} must be a URL on ${origin}`);
  }
  if (url.origin !== new URL(origin).origin) throw new AppError('invalid_argument', `${name} must be a URL on ${origin}`);
  return url.toString();
}
