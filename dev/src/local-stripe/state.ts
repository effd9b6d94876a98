/**
 * The in-memory Stripe account behind the local Stripe stand-in: objects in the shapes of API
 * version 2026-10-28.endive (typed with stripe-node's own interfaces), the billing operations the
 * REST API, the hosted pages and the test clock share (so each produces identical events), and
 * the event log.
 *
 * Time: objects and events not tied to a subscription use `now()`. Each subscription has its own
 * clock (like a Stripe test clock per subscription): it starts at the subscription's creation and
 * runs with `now()`, and `advanceToPeriodEnd` moves it forward to the end of the current period.
 * Everything about a subscription (its invoices, cancellations, prorations, event `created`)
 * is timed by that clock.
 */
import { randomBytes } from 'node:crypto';
import { PLANS } from '@tradewind/contracts';
import Stripe from 'stripe';
import { expectedPrice, paidPlans, priceLookupKey, type PaidPeriod, type PaidTier } from '@tradewind/billing';
import { periodEnd, toInterval } from './clock.js';
import { parameterInvalid, resourceMissing, StripeApiError } from './errors.js';
import { applyMetadata } from './form.js';
import { formatLineDate, formatPrice } from './format.js';

/** The API version every object and event is shaped for (stripe-node 23.1.0's pinned version). */
export const API_VERSION = '2026-10-28.endive';
/** Checkout Sessions expire 24 h after creation unless `expires_at` says otherwise (Stripe's default). */
const CHECKOUT_SESSION_TTL_SECONDS = 24 * 3600;
/** Stripe's allowed range for `expires_at`: 30 minutes to 24 hours after creation. */
const CHECKOUT_EXPIRES_MIN_SECONDS = 30 * 60;

/** The API request that caused an event (`event.request`); both null for page actions and the test clock. */
export interface RequestInfo {
  id: string | null;
  idempotencyKey: string | null;
}

/** Events caused by no API request (hosted pages, test clock, lazy expiry). */
export const NO_REQUEST: RequestInfo = { id: null, idempotencyKey: null };

/** Stripe's proration behaviours (https://docs.stripe.com/billing/subscriptions/prorations). */
export type ProrationBehavior = 'always_invoice' | 'create_prorations' | 'none';
/** Every ProrationBehavior, in the order Stripe's error message lists them. */
export const PRORATION_BEHAVIORS: readonly ProrationBehavior[] = ['always_invoice', 'create_prorations', 'none'];

/** Input of `createCheckoutSession`, already parsed; ids are checked here. */
export interface CheckoutSessionInput {
  priceId: string;
  quantity: number;
  customer: string | undefined;
  customerEmail: string | undefined;
  clientReferenceId: string | undefined;
  successUrl: string;
  cancelUrl: string;
  metadata: Record<string, string>;
  subscriptionMetadata: Record<string, string>;
  allowPromotionCodes: boolean | undefined;
  /** Unix seconds; default created + 24 h. */
  expiresAt: number | undefined;
}

/** What `updateSubscription` may change (the parsed `POST /v1/subscriptions/:id` parameters). */
export interface SubscriptionChanges {
  /** `items[0]`: the existing item's id and its new price and/or quantity. */
  item?: { id: string; price?: string; quantity?: number };
  /** Default `create_prorations`, as at Stripe. */
  prorationBehavior?: ProrationBehavior;
  /** Unix seconds used instead of the subscription clock's now for proration amounts. */
  prorationDate?: number;
  cancelAtPeriodEnd?: boolean;
  /** The raw `metadata` parameter (merged with Stripe's rules). */
  metadata?: unknown;
  description?: string;
  cancellationDetails?: { comment?: string; feedback?: string };
}

/** Filters of `GET /v1/prices`. */
export interface PriceFilter {
  lookupKeys?: string[];
  active?: boolean;
  product?: string;
  currency?: string;
  type?: string;
}

/** Filters of `GET /v1/subscriptions`; status `undefined` = every status but canceled (Stripe's default). */
export interface SubscriptionFilter {
  customer?: string;
  price?: string;
  status?: string;
}

/** A line to put on an invoice (a subscription period or a proration). */
interface LineSpec {
  amount: number;
  description: string;
  price: Stripe.Price;
  quantity: number;
  period: { start: number; end: number };
  proration: boolean;
  /** `ii_...` for prorations (Stripe creates an invoice item for each), null for the period charge. */
  invoiceItem: string | null;
  subscriptionItem: string;
}

/** What switching a subscription's single item would do (see `planItemChange`); nothing is changed yet. */
interface ItemChangePlan {
  item: Stripe.SubscriptionItem;
  newPrice: Stripe.Price;
  newQuantity: number;
  /** Credit for unused time on the old price, then (same interval) the charge for the rest of the period. */
  prorations: LineSpec[];
  /** The time prorations are computed for, Unix seconds. */
  prorationDate: number;
  /** Set when the billing interval changes: the new first period, starting now. */
  reset?: { start: number; end: number };
}

/** Stripe's answer to a preview with nothing to invoice (code `invoice_upcoming_none`, 404). */
function upcomingNone(customerId: string): StripeApiError {
  return new StripeApiError(404, `No upcoming invoices for customer: ${customerId}`, { code: 'invoice_upcoming_none' });
}

/** Per-subscription test clock and billing bookkeeping not visible on the Subscription object. */
interface SubscriptionClock {
  /** Subscription time = now() + offsetMs. */
  offsetMs: number;
  /** Billing cycle anchor (Unix seconds) periods are counted from. */
  anchor: number;
  /** Index of the current period since the anchor (0 = first). */
  periodIndex: number;
  /** Prorations from `create_prorations` waiting for the next invoice. */
  pending: LineSpec[];
}

/** Checkout Session fields Stripe keeps server-side (its line items and subscription_data). */
interface CheckoutSessionExtra {
  priceId: string;
  quantity: number;
  subscriptionMetadata: Record<string, string>;
}

const ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A Stripe-looking id: `prefix` + `length` random base-62 characters (e.g. `cus_` + 14). */
export function randomId(prefix: string, length: number): string {
  const bytes = randomBytes(length);
  let id = prefix;
  for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
  return id;
}

/** A deep copy through JSON: what a client would see of the object at this moment (Decimals become strings). */
function snapshot<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Top-level fields whose JSON differs, with their old values: Stripe's `previous_attributes`. */
function previousAttributes(before: object, after: object): Record<string, unknown> {
  const old = before as Record<string, unknown>;
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(after)) {
    if (JSON.stringify(old[key]) !== JSON.stringify(value)) changed[key] = old[key] === undefined ? null : snapshot(old[key]);
  }
  return changed;
}

type CancellationDetails = Stripe.Subscription.CancellationDetails;

/** `cancellation_details` with some fields replaced (`undefined` keeps the current value). */
function cancellationDetails(
  current: CancellationDetails | null,
  changes: { comment?: string | undefined; feedback?: string | undefined; reason?: Stripe.Subscription.CancellationDetails.Reason | null },
): CancellationDetails {
  return {
    comment: changes.comment ?? current?.comment ?? null,
    feedback: (changes.feedback ?? current?.feedback ?? null) as Stripe.Subscription.CancellationDetails.Feedback | null,
    feedback_option: current?.feedback_option ?? null,
    reason: changes.reason === undefined ? (current?.reason ?? null) : changes.reason,
  };
}

/** Stripe rounds each proration line to a whole cent; half away from zero. */
function roundCents(amount: number): number {
  return Math.sign(amount) * Math.round(Math.abs(amount));
}

function unitAmount(price: Stripe.Price): number {
  return price.unit_amount ?? 0;
}

/** The in-memory account. All mutations are synchronous, so concurrent requests never interleave. */
export class LocalStripeState {
  readonly customers = new Map<string, Stripe.Customer>();
  readonly products = new Map<string, Stripe.Product>();
  readonly prices = new Map<string, Stripe.Price>();
  readonly checkoutSessions = new Map<string, Stripe.Checkout.Session>();
  readonly portalSessions = new Map<string, Stripe.BillingPortal.Session>();
  readonly subscriptions = new Map<string, Stripe.Subscription>();
  readonly invoices = new Map<string, Stripe.Invoice>();
  /** Every event, oldest first. */
  readonly events: Stripe.Event[] = [];
  private readonly eventsById = new Map<string, Stripe.Event>();
  private readonly clocks = new Map<string, SubscriptionClock>();
  private readonly sessionExtras = new Map<string, CheckoutSessionExtra>();

  /**
   * @param options.now wall clock in ms since the epoch.
   * @param options.publicUrl origin of the hosted pages (session `url`s point there).
   * @param options.onEvent called with each new event and its exact JSON text (for delivery).
   */
  constructor(private readonly options: { now: () => number; publicUrl: string; onEvent: (event: Stripe.Event, payload: string) => void }) {
    this.seedCatalogue();
  }

  // ---- time -------------------------------------------------------------------------------

  private nowSeconds(): number {
    return Math.floor(this.options.now() / 1000);
  }

  private clockOf(subscriptionId: string): SubscriptionClock {
    const clock = this.clocks.get(subscriptionId);
    if (!clock) throw new Error(`local stripe: no clock for ${subscriptionId}`);
    return clock;
  }

  /** The subscription clock's now, Unix seconds. */
  subscriptionNow(subscriptionId: string): number {
    return Math.floor((this.options.now() + this.clockOf(subscriptionId).offsetMs) / 1000);
  }

  // ---- events -------------------------------------------------------------------------------

  private emit(type: Stripe.Event.Type, object: object, created: number, request: RequestInfo, previous?: Record<string, unknown>): void {
    const data: Stripe.Event.Data = { object: snapshot(object) };
    if (previous !== undefined) data.previous_attributes = previous;
    const event = {
      id: randomId('evt_', 24),
      object: 'event',
      api_version: API_VERSION,
      created,
      data,
      livemode: false,
      pending_webhooks: 1,
      request: { id: request.id, idempotency_key: request.idempotencyKey },
      type,
    } as Stripe.Event;
    this.events.push(event);
    this.eventsById.set(event.id, event);
    // Stripe sends events pretty-printed with two spaces; signatures cover these exact bytes.
    this.options.onEvent(event, JSON.stringify(event, null, 2));
  }

  /** An event by id. @throws StripeApiError 404 resource_missing. */
  getEvent(id: string): Stripe.Event {
    const event = this.eventsById.get(id);
    if (!event) throw resourceMissing('event', id);
    return event;
  }

  // ---- catalogue ----------------------------------------------------------------------------

  /** One Product per paid tier and one recurring Price per (tier, period), from the plans catalogue. */
  private seedCatalogue(): void {
    const created = this.nowSeconds();
    const productByTier = new Map<PaidTier, Stripe.Product>();
    for (const { tier, period } of paidPlans()) {
      let product = productByTier.get(tier);
      if (!product) {
        product = {
          id: randomId('prod_', 14),
          object: 'product',
          active: true,
          created,
          default_price: null,
          description: null,
          images: [],
          livemode: false,
          marketing_features: [],
          metadata: { tier },
          name: `Tradewind ${PLANS[tier].name}`,
          package_dimensions: null,
          shippable: null,
          statement_descriptor: null,
          tax_code: null,
          tax_details: null,
          type: 'service',
          unit_label: null,
          updated: created,
          url: null,
        };
        productByTier.set(tier, product);
        this.products.set(product.id, product);
      }
      const price = this.makePrice(product, tier, period, created);
      this.prices.set(price.id, price);
      if (period === 'monthly') product.default_price = price.id;
    }
  }

  private makePrice(product: Stripe.Product, tier: PaidTier, period: PaidPeriod, created: number): Stripe.Price {
    const expected = expectedPrice(tier, period);
    return {
      id: randomId('price_', 24),
      object: 'price',
      active: true,
      billing_scheme: 'per_unit',
      created,
      currency: expected.currency,
      custom_unit_amount: null,
      livemode: false,
      lookup_key: priceLookupKey(tier, period),
      metadata: { tier, period },
      nickname: `${product.name} ${period}`,
      product: product.id,
      recurring: { interval: expected.interval, interval_count: 1, meter: null, trial_period_days: null, usage_type: 'licensed' },
      tax_behavior: 'unspecified',
      tiers_mode: null,
      transform_quantity: null,
      type: 'recurring',
      unit_amount: expected.unitAmountCents,
      unit_amount_decimal: Stripe.Decimal.from(String(expected.unitAmountCents)),
    };
  }

  /** A price by id. @throws StripeApiError resource_missing (404 for `param` id, else 400 naming the parameter). */
  getPrice(id: string, param = 'id'): Stripe.Price {
    const price = this.prices.get(id);
    if (!price) throw resourceMissing('price', id, param);
    return price;
  }

  /** A product by id. @throws StripeApiError 404 resource_missing. */
  getProduct(id: string): Stripe.Product {
    const product = this.products.get(id);
    if (!product) throw resourceMissing('product', id);
    return product;
  }

  private productOf(price: Stripe.Price): Stripe.Product {
    return this.getProduct(typeof price.product === 'string' ? price.product : price.product.id);
  }

  /** Prices matching the filter, newest first (Stripe's list order). */
  listPrices(filter: PriceFilter): Stripe.Price[] {
    return [...this.prices.values()]
      .reverse()
      .filter(
        (p) =>
          (filter.lookupKeys === undefined || (p.lookup_key !== null && filter.lookupKeys.includes(p.lookup_key))) &&
          (filter.active === undefined || p.active === filter.active) &&
          (filter.product === undefined || p.product === filter.product) &&
          (filter.currency === undefined || p.currency === filter.currency) &&
          (filter.type === undefined || p.type === filter.type),
      );
  }

  // ---- customers ----------------------------------------------------------------------------

  /** Creates a Customer; event `customer.created`. */
  createCustomer(input: { email?: string; name?: string; description?: string; phone?: string; metadata?: unknown }, request: RequestInfo): Stripe.Customer {
    const customer: Stripe.Customer = {
      id: randomId('cus_', 14),
      object: 'customer',
      address: null,
      balance: 0,
      created: this.nowSeconds(),
      currency: null,
      default_source: null,
      delinquent: false,
      description: input.description ?? null,
      discount: null,
      email: input.email ?? null,
      invoice_prefix: randomId('', 8).toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: false,
      metadata: applyMetadata({}, input.metadata),
      name: input.name ?? null,
      next_invoice_sequence: 1,
      phone: input.phone ?? null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: 'none',
      test_clock: null,
    };
    this.customers.set(customer.id, customer);
    this.emit('customer.created', customer, customer.created, request);
    return customer;
  }

  /** A customer by id. @throws StripeApiError resource_missing (404 for the path id, else 400 naming `param`). */
  getCustomer(id: string, param = 'id'): Stripe.Customer {
    const customer = this.customers.get(id);
    if (!customer) throw resourceMissing('customer', id, param);
    return customer;
  }

  // ---- checkout -----------------------------------------------------------------------------

  /** Creates an open subscription-mode Checkout Session whose `url` is the hosted page. @throws StripeApiError for unknown price/customer or bad values. */
  createCheckoutSession(input: CheckoutSessionInput): Stripe.Checkout.Session {
    const price = this.getPrice(input.priceId, 'line_items[0][price]');
    if (price.type !== 'recurring') {
      throw parameterInvalid('line_items[0][price]', 'You must provide at least one recurring price in `subscription` mode when using prices.');
    }
    if (!price.active) throw parameterInvalid('line_items[0][price]', `The price specified is inactive. This field only accepts active prices.`);
    if (input.customer !== undefined) this.getCustomer(input.customer, 'customer');
    const created = this.nowSeconds();
    let expiresAt = created + CHECKOUT_SESSION_TTL_SECONDS;
    if (input.expiresAt !== undefined) {
      if (input.expiresAt < created + CHECKOUT_EXPIRES_MIN_SECONDS || input.expiresAt > created + CHECKOUT_SESSION_TTL_SECONDS) {
        throw parameterInvalid('expires_at', 'The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.');
      }
      expiresAt = input.expiresAt;
    }
    const amount = unitAmount(price) * input.quantity;
    const id = randomId('cs_test_a1', 56);
    const session: Stripe.Checkout.Session = {
      id,
      object: 'checkout.session',
      adaptive_pricing: null,
      after_expiration: null,
      allow_promotion_codes: input.allowPromotionCodes ?? null,
      allowed_payment_method_types: null,
      amount_subtotal: amount,
      amount_total: amount,
      automatic_tax: { enabled: false, liability: null, provider: null, status: null },
      billing_address_collection: null,
      cancel_url: input.cancelUrl,
      client_reference_id: input.clientReferenceId ?? null,
      client_secret: null,
      collected_information: null,
      consent: null,
      consent_collection: null,
      created,
      currency: price.currency,
      currency_conversion: null,
      custom_fields: [],
      custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
      customer: input.customer ?? null,
      customer_account: null,
      customer_creation: null,
      customer_details: null,
      customer_email: input.customerEmail ?? null,
      discounts: [],
      expires_at: expiresAt,
      integration_identifier: null,
      invoice: null,
      invoice_creation: null,
      livemode: false,
      locale: null,
      managed_payments: null,
      metadata: input.metadata,
      mode: 'subscription',
      origin_context: null,
      payment_intent: null,
      payment_link: null,
      payment_method_collection: 'always',
      payment_method_configuration_details: null,
      payment_method_options: null,
      payment_method_types: ['card'],
      payment_status: 'unpaid',
      permissions: null,
      recovered_from: null,
      saved_payment_method_options: null,
      setup_intent: null,
      shipping_address_collection: null,
      shipping_cost: null,
      shipping_options: [],
      status: 'open',
      submit_type: null,
      subscription: null,
      success_url: input.successUrl,
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
      ui_mode: 'hosted_page',
      url: `${this.options.publicUrl}/checkout/${id}`,
      wallet_options: null,
    };
    this.checkoutSessions.set(id, session);
    this.sessionExtras.set(id, { priceId: price.id, quantity: input.quantity, subscriptionMetadata: input.subscriptionMetadata });
    return session;
  }

  /**
   * A Checkout Session by id; an open session past `expires_at` expires on this read (event
   * `checkout.session.expired`), standing in for Stripe's background expiry.
   * @throws StripeApiError 404 resource_missing.
   */
  getCheckoutSession(id: string): Stripe.Checkout.Session {
    const session = this.checkoutSessions.get(id);
    if (!session) throw resourceMissing('checkout.session', id);
    if (session.status === 'open' && this.nowSeconds() >= session.expires_at) this.expire(session, NO_REQUEST);
    return session;
  }

  /** The price and quantity a session sells. */
  checkoutSessionLine(id: string): { price: Stripe.Price; product: Stripe.Product; quantity: number } {
    const extra = this.sessionExtras.get(id);
    if (!extra) throw resourceMissing('checkout.session', id);
    const price = this.getPrice(extra.priceId);
    return { price, product: this.productOf(price), quantity: extra.quantity };
  }

  /** The session's line items as Stripe lists them (`expand[]=line_items`). */
  checkoutSessionLineItems(id: string): Stripe.ApiList<Stripe.LineItem> {
    const { price, product, quantity } = this.checkoutSessionLine(id);
    const amount = unitAmount(price) * quantity;
    return {
      object: 'list',
      data: [
        {
          id: `li_${id.slice(-24)}`,
          object: 'item',
          adjustable_quantity: null,
          amount_discount: 0,
          amount_subtotal: amount,
          amount_tax: 0,
          amount_total: amount,
          currency: price.currency,
          description: product.name,
          metadata: null,
          price: snapshot(price),
          quantity,
        },
      ],
      has_more: false,
      url: `/v1/checkout/sessions/${id}/line_items`,
    };
  }

  /** `POST /v1/checkout/sessions/:id/expire`. @throws StripeApiError 404 unknown, 400 when not open. */
  expireCheckoutSession(id: string, request: RequestInfo): Stripe.Checkout.Session {
    const session = this.getCheckoutSession(id);
    if (session.status !== 'open') {
      throw new StripeApiError(400, `Only Checkout Sessions with a status in ["open"] can be expired. This session has a status of "${session.status}".`);
    }
    this.expire(session, request);
    return session;
  }

  private expire(session: Stripe.Checkout.Session, request: RequestInfo): void {
    session.status = 'expired';
    session.url = null;
    this.emit('checkout.session.expired', session, this.nowSeconds(), request);
  }

  /**
   * Pays an open subscription-mode session with a successful test card: creates the customer
   * when there is none (from the session's e-mail, else `email`), the active Subscription and its
   * paid first Invoice, and completes the session. Events: [customer.created],
   * customer.subscription.created, invoice.finalized, invoice.paid, invoice.payment_succeeded,
   * checkout.session.completed.
   * @returns the new subscription id and the success URL with `{CHECKOUT_SESSION_ID}` replaced.
   * @throws StripeApiError 404 for an unknown session, 400 for one that is not open.
   */
  completeCheckoutSession(id: string, options: { email?: string } = {}): { subscriptionId: string; successUrl: string } {
    const session = this.getCheckoutSession(id);
    if (session.status !== 'open') throw new StripeApiError(400, `Checkout Session ${id} is ${session.status ?? 'not open'}, not open.`);
    const extra = this.sessionExtras.get(id);
    if (!extra) throw resourceMissing('checkout.session', id);
    const request = NO_REQUEST;
    const email = session.customer_email ?? options.email;
    const customer =
      typeof session.customer === 'string' ? this.getCustomer(session.customer) : this.createCustomer(email === undefined ? {} : { email }, request);
    const price = this.getPrice(extra.priceId);
    const interval = toInterval(price.recurring?.interval ?? 'month');
    const intervalCount = price.recurring?.interval_count ?? 1;
    const start = this.nowSeconds();
    const end = periodEnd(start, interval, intervalCount, 0);
    const subscriptionId = randomId('sub_', 24);
    const item = this.makeItem(subscriptionId, price, extra.quantity, start, start, end);
    const subscription: Stripe.Subscription = {
      id: subscriptionId,
      object: 'subscription',
      application: null,
      application_fee_percent: null,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null },
      billing_cycle_anchor: start,
      billing_cycle_anchor_config: null,
      // Flexible is the default for new subscriptions since 2025-09-30.clover.
      billing_mode: { flexible: { proration_discounts: 'included' }, type: 'flexible' },
      billing_schedules: [],
      billing_thresholds: null,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      cancellation_details: cancellationDetails(null, {}),
      collection_method: 'charge_automatically',
      created: start,
      currency: price.currency,
      customer: customer.id,
      customer_account: null,
      days_until_due: null,
      default_payment_method: null,
      default_source: null,
      default_tax_rates: [],
      description: null,
      discounts: [],
      ended_at: null,
      invoice_settings: { account_tax_ids: null, custom_fields: null, description: null, footer: null, issuer: { type: 'self' } },
      items: { object: 'list', data: [item], has_more: false, url: `/v1/subscription_items?subscription=${subscriptionId}` },
      latest_invoice: null,
      livemode: false,
      managed_payments: null,
      metadata: { ...extra.subscriptionMetadata },
      next_pending_invoice_item_invoice: null,
      on_behalf_of: null,
      pause_collection: null,
      payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: 'off' },
      pending_invoice_item_interval: null,
      pending_setup_intent: null,
      pending_update: null,
      schedule: null,
      start_date: start,
      status: 'active',
      test_clock: null,
      transfer_data: null,
      trial_end: null,
      trial_settings: { end_behavior: { billing_cycle_anchor: null, missing_payment_method: 'create_invoice' } },
      trial_start: null,
    };
    this.subscriptions.set(subscriptionId, subscription);
    this.clocks.set(subscriptionId, { offsetMs: 0, anchor: start, periodIndex: 0, pending: [] });

    // A first invoice's own period is its creation instant; the line carries the service period.
    const invoice = this.createInvoice(
      subscription,
      customer,
      'subscription_create',
      [this.periodLine(price, extra.quantity, item.id, start, end)],
      { start, end: start },
      start,
    );
    subscription.latest_invoice = invoice.id;
    this.emit('customer.subscription.created', subscription, start, request);
    this.settleInvoice(invoice, start, request);

    session.status = 'complete';
    session.payment_status = 'paid';
    session.subscription = subscriptionId;
    session.customer = customer.id;
    session.invoice = invoice.id;
    session.url = null;
    session.customer_details = {
      address: null,
      business_name: null,
      email: customer.email,
      individual_name: null,
      name: customer.name ?? null,
      phone: null,
      tax_exempt: 'none',
      tax_ids: [],
    };

    this.emit('checkout.session.completed', session, start, request);
    return { subscriptionId, successUrl: (session.success_url ?? '').replaceAll('{CHECKOUT_SESSION_ID}', id) };
  }

  // ---- billing portal -----------------------------------------------------------------------

  /** Creates a portal session whose `url` is the hosted portal page. @throws StripeApiError 400 for an unknown customer. */
  createPortalSession(input: { customer: string; returnUrl: string | undefined }): Stripe.BillingPortal.Session {
    this.getCustomer(input.customer, 'customer');
    const id = randomId('bps_', 24);
    const session: Stripe.BillingPortal.Session = {
      id,
      object: 'billing_portal.session',
      configuration: 'bpc_local',
      created: this.nowSeconds(),
      customer: input.customer,
      customer_account: null,
      flow: null,
      livemode: false,
      locale: null,
      on_behalf_of: null,
      return_url: input.returnUrl ?? null,
      url: `${this.options.publicUrl}/portal/${id}`,
    };
    this.portalSessions.set(id, session);
    return session;
  }

  /** A portal session by id, or undefined. */
  findPortalSession(id: string): Stripe.BillingPortal.Session | undefined {
    return this.portalSessions.get(id);
  }

  // ---- subscriptions ------------------------------------------------------------------------

  /** A subscription by id. @throws StripeApiError 404 resource_missing. */
  getSubscription(id: string): Stripe.Subscription {
    const subscription = this.subscriptions.get(id);
    if (!subscription) throw resourceMissing('subscription', id);
    return subscription;
  }

  /** Subscriptions matching the filter, newest first. */
  listSubscriptions(filter: SubscriptionFilter): Stripe.Subscription[] {
    return [...this.subscriptions.values()]
      .reverse()
      .filter(
        (s) =>
          (filter.customer === undefined || s.customer === filter.customer) &&
          (filter.price === undefined || s.items.data.some((i) => i.price.id === filter.price)) &&
          (filter.status === undefined
            ? s.status !== 'canceled'
            : filter.status === 'all'
              ? true
              : filter.status === 'ended'
                ? s.status === 'canceled' || s.status === 'incomplete_expired'
                : s.status === filter.status),
      );
  }

  /** The customer's newest subscription that is not canceled, or undefined. */
  currentSubscription(customerId: string): Stripe.Subscription | undefined {
    return this.listSubscriptions({ customer: customerId })[0];
  }

  /** The subscription's open (unpaid) invoices, oldest first. */
  openInvoices(subscriptionId: string): Stripe.Invoice[] {
    return [...this.invoices.values()].filter((i) => i.status === 'open' && i.parent?.subscription_details?.subscription === subscriptionId);
  }

  /**
   * `POST /v1/subscriptions/:id`: price/quantity switch with Stripe's proration
   * (https://docs.stripe.com/billing/subscriptions/prorations), cancel_at_period_end, metadata.
   * Events: customer.subscription.updated (with previous_attributes) when anything visible
   * changed, then for an immediate invoice invoice.finalized, invoice.paid, invoice.payment_succeeded.
   * @throws StripeApiError 404 unknown subscription, 400 bad item/price or a change to a canceled subscription.
   */
  updateSubscription(id: string, changes: SubscriptionChanges, request: RequestInfo): Stripe.Subscription {
    const subscription = this.getSubscription(id);
    const onlyMetadata =
      changes.item === undefined && changes.cancelAtPeriodEnd === undefined && changes.description === undefined && changes.prorationBehavior === undefined;
    if (subscription.status === 'canceled' && !onlyMetadata) {
      throw new StripeApiError(400, 'A canceled subscription can only update its cancellation_details and metadata.');
    }
    const now = this.subscriptionNow(id);
    const before = snapshot(subscription);
    const customer = this.getCustomer(this.customerId(subscription));
    let invoice: Stripe.Invoice | undefined;

    if (changes.item !== undefined)
      invoice = this.changeItem(subscription, customer, changes.item, changes.prorationBehavior ?? 'create_prorations', changes.prorationDate, now);
    if (changes.metadata !== undefined) subscription.metadata = applyMetadata(subscription.metadata, changes.metadata);
    if (changes.description !== undefined) subscription.description = changes.description === '' ? null : changes.description;
    if (changes.cancellationDetails !== undefined) {
      subscription.cancellation_details = cancellationDetails(subscription.cancellation_details, changes.cancellationDetails);
    }
    if (changes.cancelAtPeriodEnd !== undefined && changes.cancelAtPeriodEnd !== subscription.cancel_at_period_end) {
      subscription.cancel_at_period_end = changes.cancelAtPeriodEnd;
      subscription.cancel_at = changes.cancelAtPeriodEnd ? this.itemOf(subscription).current_period_end : null;
      subscription.canceled_at = changes.cancelAtPeriodEnd ? now : null;
      subscription.cancellation_details = cancellationDetails(subscription.cancellation_details, {
        reason: changes.cancelAtPeriodEnd ? 'cancellation_requested' : null,
      });
    }
    if (invoice !== undefined) {
      subscription.latest_invoice = invoice.id;
      // The new invoice is paid below; a past_due subscription recovers when nothing else is unpaid.
      const newInvoice = invoice;
      if (subscription.status === 'past_due' && this.openInvoices(id).every((i) => i.id === newInvoice.id)) subscription.status = 'active';
    }

    const previous = previousAttributes(before, subscription);
    if (Object.keys(previous).length > 0) this.emit('customer.subscription.updated', subscription, now, request, previous);
    if (invoice !== undefined) this.settleInvoice(invoice, now, request);
    return subscription;
  }

  /**
   * What switching the single item to `change` would do at `prorationDate` (subscription clock,
   * Unix seconds), computed without changing anything: the proration lines (credit for unused time
   * on the old price, then — same billing interval — the charge for the remaining time on the new
   * price, each by the second and rounded to a cent) and, for another interval, the new period
   * starting now. Shared by `POST /v1/subscriptions/:id` and `POST /v1/invoices/create_preview`, so
   * a preview and the update it previews produce the same amounts for the same proration date.
   * @returns undefined when price and quantity stay the same.
   * @throws StripeApiError 400 for an unknown item or price, a one-time/inactive/other-currency
   *   price, or a proration date outside the current period (Stripe refuses those too).
   */
  private planItemChange(
    subscription: Stripe.Subscription,
    change: NonNullable<SubscriptionChanges['item']>,
    behavior: ProrationBehavior,
    prorationDate: number | undefined,
    now: number,
    params: { item: string; prorationDate: string },
  ): ItemChangePlan | undefined {
    const item = this.itemOf(subscription);
    if (change.id !== item.id) {
      throw new StripeApiError(400, `No such subscription item: '${change.id}'`, { code: 'resource_missing', param: `${params.item}[id]` });
    }
    const oldPrice = item.price;
    const oldQuantity = item.quantity ?? 1;
    const newPrice = change.price === undefined ? oldPrice : this.getPrice(change.price, `${params.item}[price]`);
    const newQuantity = change.quantity ?? oldQuantity;
    if (newPrice.id === oldPrice.id && newQuantity === oldQuantity) return undefined;
    if (newPrice.type !== 'recurring' || newPrice.recurring === null) {
      throw parameterInvalid(
        `${params.item}[price]`,
        'The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.',
      );
    }
    if (!newPrice.active) throw parameterInvalid(`${params.item}[price]`, 'The price specified is inactive. This field only accepts active prices.');
    if (newPrice.currency !== subscription.currency)
      throw parameterInvalid(
        `${params.item}[price]`,
        `The price specified uses currency ${newPrice.currency}, but this subscription is in ${subscription.currency}.`,
      );

    const start = item.current_period_start;
    const end = item.current_period_end;
    if (prorationDate !== undefined && (prorationDate < start || prorationDate > end)) {
      throw parameterInvalid(
        params.prorationDate,
        `The proration date ${prorationDate} must be within the subscription's current period (${start} to ${end}).`,
      );
    }
    // Stripe renews on time, so its own now is always inside the period; the stand-in renews only
    // when its test clock is advanced, so a clock that ran past the period end prorates at the end.
    const at = prorationDate ?? Math.min(Math.max(now, start), end);
    // Stripe prorates by the second: the unused fraction of the current period.
    const fraction = end > start ? (end - at) / (end - start) : 0;
    const oldRecurring = oldPrice.recurring;
    const sameCycle =
      oldRecurring !== null && oldRecurring.interval === newPrice.recurring.interval && oldRecurring.interval_count === newPrice.recurring.interval_count;
    const prorations: LineSpec[] = [];
    if (behavior !== 'none' && fraction > 0) {
      prorations.push({
        amount: -roundCents(unitAmount(oldPrice) * oldQuantity * fraction),
        description: `Unused time on ${oldQuantity > 1 ? `${oldQuantity} × ` : ''}${this.productOf(oldPrice).name} after ${formatLineDate(at)}`,
        price: oldPrice,
        quantity: oldQuantity,
        period: { start: at, end },
        proration: true,
        invoiceItem: randomId('ii_', 24),
        subscriptionItem: item.id,
      });
      if (sameCycle) {
        prorations.push({
          amount: roundCents(unitAmount(newPrice) * newQuantity * fraction),
          description: `Remaining time on ${newQuantity > 1 ? `${newQuantity} × ` : ''}${this.productOf(newPrice).name} after ${formatLineDate(at)}`,
          price: newPrice,
          quantity: newQuantity,
          period: { start: at, end },
          proration: true,
          invoiceItem: randomId('ii_', 24),
          subscriptionItem: item.id,
        });
      }
    }
    // A different billing interval resets the billing cycle anchor to now: the new price is
    // charged in full for a new period starting now, minus the credit for unused time.
    const reset = sameCycle ? undefined : { start: now, end: periodEnd(now, toInterval(newPrice.recurring.interval), newPrice.recurring.interval_count, 0) };
    return { item, newPrice, newQuantity, prorations, prorationDate: at, ...(reset ? { reset } : {}) };
  }

  /**
   * Whether the change is invoiced at once: always when the billing interval changes (Stripe
   * resets the cycle and bills the new period now), else with `always_invoice` when there is
   * something to prorate.
   */
  private invoicesNow(plan: ItemChangePlan, behavior: ProrationBehavior): boolean {
    return plan.reset !== undefined || (behavior === 'always_invoice' && plan.prorations.length > 0);
  }

  /** Switches the single item's price/quantity; returns the invoice to charge now (finalized, open), if any. */
  private changeItem(
    subscription: Stripe.Subscription,
    customer: Stripe.Customer,
    change: NonNullable<SubscriptionChanges['item']>,
    behavior: ProrationBehavior,
    prorationDate: number | undefined,
    now: number,
  ): Stripe.Invoice | undefined {
    const plan = this.planItemChange(subscription, change, behavior, prorationDate, now, { item: 'items[0]', prorationDate: 'proration_date' });
    if (plan === undefined) return undefined;
    const clock = this.clockOf(subscription.id);
    const { item, newPrice, newQuantity, prorations, reset } = plan;
    if (reset === undefined) {
      this.setItemPrice(item, newPrice, newQuantity, item.current_period_start, item.current_period_end);
      if (behavior === 'create_prorations') {
        clock.pending.push(...prorations);
        return undefined;
      }
      if (!this.invoicesNow(plan, behavior)) return undefined;
      // always_invoice also sweeps up prorations left pending by earlier create_prorations updates.
      const invoiceLines = [...clock.pending, ...prorations];
      clock.pending = [];
      return this.createInvoice(subscription, customer, 'subscription_update', invoiceLines, { start: now, end: now }, now);
    }
    clock.anchor = reset.start;
    clock.periodIndex = 0;
    subscription.billing_cycle_anchor = reset.start;
    this.setItemPrice(item, newPrice, newQuantity, reset.start, reset.end);
    if (subscription.cancel_at_period_end) subscription.cancel_at = reset.end;
    const invoiceLines = [...clock.pending, ...prorations, this.periodLine(newPrice, newQuantity, item.id, reset.start, reset.end)];
    clock.pending = [];
    return this.createInvoice(subscription, customer, 'subscription_update', invoiceLines, { start: now, end: now }, now);
  }

  /**
   * `POST /v1/invoices/create_preview` for an existing subscription: the invoice an update with
   * `change` would produce, built by the same code as the update and stored nowhere (no event,
   * no invoice number, the customer's balance read but not moved).
   * - An item change invoiced at once (`always_invoice`, or another billing interval) previews
   *   that invoice: pending prorations, the new prorations and, for a new interval, the new period.
   * - Otherwise it previews the next renewal invoice: pending prorations, the new ones under
   *   `create_prorations`, and the next period at the (new) price.
   * `parent.subscription_details.subscription_proration_date` is the time prorations were
   * computed for, when any were previewed.
   * @throws StripeApiError 404 invoice_upcoming_none for a canceled subscription or one ending at
   *   period end with nothing to invoice now; 400 as {@link planItemChange}.
   */
  previewInvoice(input: {
    subscriptionId: string;
    item?: NonNullable<SubscriptionChanges['item']>;
    prorationBehavior?: ProrationBehavior;
    prorationDate?: number;
  }): Stripe.Invoice {
    const subscription = this.getSubscription(input.subscriptionId);
    const customer = this.getCustomer(this.customerId(subscription));
    if (subscription.status === 'canceled') throw upcomingNone(customer.id);
    const now = this.subscriptionNow(subscription.id);
    const behavior = input.prorationBehavior ?? 'create_prorations';
    const clock = this.clockOf(subscription.id);
    const plan =
      input.item === undefined
        ? undefined
        : this.planItemChange(subscription, input.item, behavior, input.prorationDate, now, {
            item: 'subscription_details[items][0]',
            prorationDate: 'subscription_details[proration_date]',
          });
    const prorationDate = plan !== undefined && plan.prorations.length > 0 ? plan.prorationDate : undefined;
    if (plan !== undefined && this.invoicesNow(plan, behavior)) {
      const lines = [...clock.pending, ...plan.prorations];
      if (plan.reset !== undefined) lines.push(this.periodLine(plan.newPrice, plan.newQuantity, plan.item.id, plan.reset.start, plan.reset.end));
      return this.invoiceObject(subscription, customer, 'subscription_update', lines, { start: now, end: now }, now, { preview: true, prorationDate });
    }
    if (subscription.cancel_at_period_end) throw upcomingNone(customer.id);
    const item = this.itemOf(subscription);
    const price = plan?.newPrice ?? item.price;
    const quantity = plan?.newQuantity ?? item.quantity ?? 1;
    const recurring = price.recurring;
    const end = item.current_period_end;
    const nextEnd = periodEnd(clock.anchor, toInterval(recurring?.interval ?? 'month'), recurring?.interval_count ?? 1, clock.periodIndex + 1);
    const lines = [
      ...clock.pending,
      ...(plan !== undefined && behavior === 'create_prorations' ? plan.prorations : []),
      this.periodLine(price, quantity, item.id, end, nextEnd),
    ];
    return this.invoiceObject(subscription, customer, 'subscription_cycle', lines, { start: item.current_period_start, end }, end, {
      preview: true,
      prorationDate,
    });
  }

  /**
   * `DELETE /v1/subscriptions/:id`: cancels at once (no proration, no final invoice: Stripe's
   * defaults `prorate=false`, `invoice_now=false`). Event customer.subscription.deleted.
   * @throws StripeApiError 404 for an unknown or already canceled subscription (Stripe treats a canceled one as gone).
   */
  cancelSubscription(id: string, request: RequestInfo, details?: { comment?: string; feedback?: string }): Stripe.Subscription {
    const subscription = this.getSubscription(id);
    if (subscription.status === 'canceled') throw resourceMissing('subscription', id);
    const now = this.subscriptionNow(id);
    subscription.status = 'canceled';
    subscription.canceled_at = now;
    subscription.ended_at = now;
    subscription.cancellation_details = cancellationDetails(subscription.cancellation_details, { ...details, reason: 'cancellation_requested' });
    this.clockOf(id).pending = [];
    this.emit('customer.subscription.deleted', subscription, now, request);
    return subscription;
  }

  /**
   * Test clock: moves the subscription's clock to the end of its current period. With
   * cancel_at_period_end the subscription ends (customer.subscription.deleted). Otherwise a new
   * period starts at the old end and its invoice (with any pending prorations) is charged:
   * invoice.finalized, then invoice.paid + invoice.payment_succeeded, or invoice.payment_failed
   * (invoice stays open, status past_due); then customer.subscription.updated.
   * @throws Error for an unknown or canceled subscription.
   */
  advanceToPeriodEnd(id: string, options: { paymentSucceeds?: boolean } = {}): void {
    const subscription = this.getSubscription(id);
    if (subscription.status === 'canceled') throw new Error(`Subscription ${id} is canceled; its clock cannot advance.`);
    const clock = this.clockOf(id);
    const item = this.itemOf(subscription);
    const oldStart = item.current_period_start;
    const end = item.current_period_end;
    clock.offsetMs = end * 1000 - this.options.now();
    const request = NO_REQUEST;

    if (subscription.cancel_at_period_end) {
      subscription.status = 'canceled';
      subscription.ended_at = end;
      clock.pending = [];
      this.emit('customer.subscription.deleted', subscription, end, request);
      return;
    }

    const before = snapshot(subscription);
    const recurring = item.price.recurring;
    clock.periodIndex += 1;
    const newEnd = periodEnd(clock.anchor, toInterval(recurring?.interval ?? 'month'), recurring?.interval_count ?? 1, clock.periodIndex);
    item.current_period_start = end;
    item.current_period_end = newEnd;
    const lines = [...clock.pending, this.periodLine(item.price, item.quantity ?? 1, item.id, end, newEnd)];
    clock.pending = [];
    const customer = this.getCustomer(this.customerId(subscription));
    // A renewal invoice's own period is the one just ended (items could be added to it until then).
    const invoice = this.createInvoice(subscription, customer, 'subscription_cycle', lines, { start: oldStart, end }, end);
    subscription.latest_invoice = invoice.id;
    // With nothing to charge (a credit balance covers it) the failing card is never tried.
    if ((options.paymentSucceeds ?? true) || invoice.amount_due === 0) {
      if (subscription.status === 'past_due' && this.openInvoices(id).every((i) => i.id === invoice.id)) subscription.status = 'active';
      this.settleInvoice(invoice, end, request);
    } else {
      this.emit('invoice.finalized', invoice, end, request);
      invoice.attempted = true;
      invoice.attempt_count = 1;
      subscription.status = 'past_due';
      this.emit('invoice.payment_failed', invoice, end, request);
    }
    this.emit('customer.subscription.updated', subscription, end, request, previousAttributes(before, subscription));
  }

  /**
   * Pays the subscription's open invoices (the customer updated their card): invoice.paid +
   * invoice.payment_succeeded for each, then past_due → active (customer.subscription.updated).
   * @throws Error for an unknown subscription or one without an open invoice.
   */
  payOpenInvoice(id: string): void {
    const subscription = this.getSubscription(id);
    const open = this.openInvoices(id);
    if (open.length === 0) throw new Error(`Subscription ${id} has no open invoice to pay.`);
    const now = this.subscriptionNow(id);
    const before = snapshot(subscription);
    for (const invoice of open) {
      this.markPaid(invoice, now);
      this.emit('invoice.paid', invoice, now, NO_REQUEST);
      this.emit('invoice.payment_succeeded', invoice, now, NO_REQUEST);
    }
    if (subscription.status === 'past_due' || subscription.status === 'unpaid') subscription.status = 'active';
    const previous = previousAttributes(before, subscription);
    if (Object.keys(previous).length > 0) this.emit('customer.subscription.updated', subscription, now, NO_REQUEST, previous);
  }

  // ---- invoices -----------------------------------------------------------------------------

  /** An invoice by id. @throws StripeApiError 404 resource_missing. */
  getInvoice(id: string): Stripe.Invoice {
    const invoice = this.invoices.get(id);
    if (!invoice) throw resourceMissing('invoice', id);
    return invoice;
  }

  /** Charges a just-finalized invoice with the test card: invoice.finalized (open), then invoice.paid and invoice.payment_succeeded. */
  private settleInvoice(invoice: Stripe.Invoice, at: number, request: RequestInfo): void {
    this.emit('invoice.finalized', invoice, at, request);
    this.markPaid(invoice, at);
    this.emit('invoice.paid', invoice, at, request);
    this.emit('invoice.payment_succeeded', invoice, at, request);
  }

  private periodLine(price: Stripe.Price, quantity: number, subscriptionItem: string, start: number, end: number): LineSpec {
    return {
      amount: unitAmount(price) * quantity,
      description: `${quantity} × ${this.productOf(price).name} (at ${formatPrice(price)})`,
      price,
      quantity,
      period: { start, end },
      proration: false,
      invoiceItem: null,
      subscriptionItem,
    };
  }

  /**
   * A finalized (open) invoice for the subscription, with the customer's balance applied the way
   * Stripe does: a credit (negative balance) reduces amount_due; a negative total leaves
   * amount_due 0 and adds the rest to the customer's credit balance. Stored (no event yet).
   */
  private createInvoice(
    subscription: Stripe.Subscription,
    customer: Stripe.Customer,
    billingReason: Stripe.Invoice.BillingReason,
    specs: LineSpec[],
    period: { start: number; end: number },
    at: number,
  ): Stripe.Invoice {
    const invoice = this.invoiceObject(subscription, customer, billingReason, specs, period, at, { preview: false });
    customer.balance = invoice.ending_balance ?? customer.balance;
    customer.next_invoice_sequence = (customer.next_invoice_sequence ?? 1) + 1;
    this.invoices.set(invoice.id, invoice);
    return invoice;
  }

  /**
   * The Invoice object for `specs`, changing nothing. A finalized one is `open` with a number and
   * an ending balance; a preview (`create_preview`) is a `draft` with an `upcoming_in_…` id, no
   * number and `ending_balance` null, as Stripe answers previews.
   */
  private invoiceObject(
    subscription: Stripe.Subscription,
    customer: Stripe.Customer,
    billingReason: Stripe.Invoice.BillingReason,
    specs: LineSpec[],
    period: { start: number; end: number },
    at: number,
    options: { preview: boolean; prorationDate?: number | undefined },
  ): Stripe.Invoice {
    const preview = options.preview;
    const id = randomId(preview ? 'upcoming_in_' : 'in_', 24);
    const total = specs.reduce((sum, line) => sum + line.amount, 0);
    const startingBalance = customer.balance;
    const withBalance = total + startingBalance;
    const amountDue = Math.max(0, withBalance);
    const endingBalance = Math.min(0, withBalance);
    const sequence = customer.next_invoice_sequence ?? 1;
    const lines: Stripe.InvoiceLineItem[] = specs.map((spec) => ({
      id: randomId(preview ? 'il_tmp_' : 'il_', 24),
      object: 'line_item',
      amount: spec.amount,
      currency: subscription.currency,
      description: spec.description,
      discount_amounts: [],
      discountable: !spec.proration,
      discounts: [],
      invoice: id,
      livemode: false,
      metadata: spec.proration ? {} : { ...subscription.metadata },
      parent: {
        type: 'subscription_item_details',
        invoice_item_details: null,
        subscription_item_details: {
          invoice_item: spec.invoiceItem,
          proration: spec.proration,
          proration_details: { credited_items: null },
          subscription: subscription.id,
          subscription_item: spec.subscriptionItem,
        },
      },
      period: { ...spec.period },
      pretax_credit_amounts: [],
      pricing: {
        type: 'price_details',
        price_details: { price: spec.price.id, product: this.productOf(spec.price).id },
        unit_amount_decimal: Stripe.Decimal.from(String(spec.amount / spec.quantity)),
      },
      quantity: spec.quantity,
      quantity_decimal: Stripe.Decimal.from(String(spec.quantity)),
      subscription: subscription.id,
      subtotal: spec.amount,
      taxes: [],
    }));
    const invoice: Stripe.Invoice = {
      id,
      object: 'invoice',
      account_country: 'US',
      account_name: 'Tradewind (local Stripe)',
      account_tax_ids: null,
      amount_due: amountDue,
      amount_overpaid: 0,
      amount_paid: 0,
      amount_remaining: amountDue,
      amount_shipping: 0,
      application: null,
      attempt_count: 0,
      attempted: false,
      auto_advance: false,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
      automatically_finalizes_at: null,
      billing_reason: billingReason,
      collection_method: 'charge_automatically',
      created: at,
      currency: subscription.currency,
      custom_fields: null,
      customer: customer.id,
      customer_account: null,
      customer_address: null,
      customer_email: customer.email,
      customer_name: customer.name ?? null,
      customer_phone: customer.phone ?? null,
      customer_shipping: null,
      customer_tax_exempt: 'none',
      customer_tax_ids: [],
      default_payment_method: null,
      default_source: null,
      default_tax_rates: [],
      description: null,
      discounts: [],
      due_date: null,
      effective_at: preview ? null : at,
      ending_balance: preview ? null : endingBalance,
      footer: null,
      from_invoice: null,
      hosted_invoice_url: null,
      invoice_pdf: null,
      issuer: { type: 'self' },
      last_finalization_error: null,
      latest_revision: null,
      lines: { object: 'list', data: lines, has_more: false, url: `/v1/invoices/${id}/lines` },
      livemode: false,
      metadata: {},
      next_payment_attempt: null,
      number: preview ? null : `${customer.invoice_prefix ?? 'LOCAL'}-${String(sequence).padStart(4, '0')}`,
      on_behalf_of: null,
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: {
          metadata: { ...subscription.metadata },
          subscription: subscription.id,
          ...(options.prorationDate !== undefined ? { subscription_proration_date: options.prorationDate } : {}),
        },
      },
      payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
      period_end: period.end,
      period_start: period.start,
      post_payment_credit_notes_amount: 0,
      pre_payment_credit_notes_amount: 0,
      receipt_number: null,
      rendering: null,
      shipping_cost: null,
      shipping_details: null,
      starting_balance: startingBalance,
      statement_descriptor: null,
      status: preview ? 'draft' : 'open',
      status_transitions: { finalized_at: preview ? null : at, marked_uncollectible_at: null, paid_at: null, voided_at: null },
      subtotal: total,
      subtotal_excluding_tax: total,
      test_clock: null,
      total,
      total_discount_amounts: [],
      total_excluding_tax: total,
      total_pretax_credit_amounts: [],
      total_taxes: [],
      webhooks_delivered_at: preview ? null : at,
    };
    return invoice;
  }

  private markPaid(invoice: Stripe.Invoice, at: number): void {
    invoice.status = 'paid';
    invoice.amount_paid = invoice.amount_due;
    invoice.amount_remaining = 0;
    invoice.attempted = true;
    if (invoice.amount_due > 0) invoice.attempt_count += 1;
    invoice.status_transitions = { ...invoice.status_transitions, paid_at: at };
  }

  // ---- helpers ------------------------------------------------------------------------------

  private makeItem(subscriptionId: string, price: Stripe.Price, quantity: number, created: number, start: number, end: number): Stripe.SubscriptionItem {
    const item: Stripe.SubscriptionItem = {
      id: randomId('si_', 14),
      object: 'subscription_item',
      billing_thresholds: null,
      created,
      current_period_end: end,
      current_period_start: start,
      current_trial: null,
      discounts: [],
      metadata: {},
      plan: this.planOf(price),
      price: snapshot(price),
      quantity,
      subscription: subscriptionId,
      tax_rates: [],
    };
    return item;
  }

  private setItemPrice(item: Stripe.SubscriptionItem, price: Stripe.Price, quantity: number, start: number, end: number): void {
    item.price = snapshot(price);
    item.plan = this.planOf(price);
    item.quantity = quantity;
    item.current_period_start = start;
    item.current_period_end = end;
  }

  /** The legacy Plan view of a recurring price, still embedded in subscription items. */
  private planOf(price: Stripe.Price): Stripe.Plan {
    return {
      id: price.id,
      object: 'plan',
      active: price.active,
      amount: price.unit_amount,
      amount_decimal: price.unit_amount_decimal,
      billing_scheme: 'per_unit',
      created: price.created,
      currency: price.currency,
      interval: price.recurring?.interval ?? 'month',
      interval_count: price.recurring?.interval_count ?? 1,
      livemode: false,
      metadata: { ...price.metadata },
      meter: null,
      nickname: price.nickname,
      product: typeof price.product === 'string' ? price.product : price.product.id,
      tiers_mode: null,
      transform_usage: null,
      trial_period_days: null,
      usage_type: 'licensed',
    };
  }

  /** The only item: the stand-in keeps one item per subscription. */
  itemOf(subscription: Stripe.Subscription): Stripe.SubscriptionItem {
    const item = subscription.items.data[0];
    if (!item) throw new Error(`local stripe: subscription ${subscription.id} has no item`);
    return item;
  }

  private customerId(subscription: Stripe.Subscription): string {
    return typeof subscription.customer === 'string' ? subscription.customer : subscription.customer.id;
  }

  /** The stored object with this id (any kind the API can expand), or undefined. */
  lookup(id: string): object | undefined {
    if (id.startsWith('cus_')) return this.customers.get(id);
    if (id.startsWith('sub_')) return this.subscriptions.get(id);
    if (id.startsWith('in_')) return this.invoices.get(id);
    if (id.startsWith('price_')) return this.prices.get(id);
    if (id.startsWith('prod_')) return this.products.get(id);
    if (id.startsWith('cs_')) return this.checkoutSessions.get(id);
    if (id.startsWith('bps_')) return this.portalSessions.get(id);
    return undefined;
  }
}
