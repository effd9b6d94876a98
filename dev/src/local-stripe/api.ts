/**
 * The Stripe v1 REST endpoints of the local Stripe stand-in: routing, parameter validation in
 * Stripe's manner (unknown parameter → `parameter_unknown`, missing → `parameter_missing`,
 * unknown id → `resource_missing`), `expand[]`, and list pagination. Parameter names accepted per
 * endpoint are the real ones of stripe-node 23.1.0's *Params types; those the stand-in does not
 * act on are accepted and logged, except a few that would change Stripe's behaviour, which are
 * refused (400) rather than silently ignored.
 */
import type { Logger } from '@tradewind/lib';
import { parameterInvalid, parameterMissing, parameterUnknown, parameterUnsupported, resourceMissing, StripeApiError } from './errors.js';
import {
  checkParamNames,
  expandParam,
  optionalBoolean,
  optionalEnum,
  optionalInteger,
  optionalObject,
  optionalObjectList,
  optionalString,
  optionalStringList,
  optionalUrl,
  requiredString,
  type ParamSpec,
  type Params,
} from './form.js';
import { PRORATION_BEHAVIORS, type LocalStripeState, type RequestInfo, type SubscriptionChanges } from './state.js';

/** One API call, already authenticated; `params` merges the query string and the form body. */
export interface ApiRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/customers/cus_123`. */
  path: string;
  params: Params;
  request: RequestInfo;
}

/** HTTP status and JSON body of the answer. */
export interface ApiResponse {
  status: number;
  body: unknown;
}

type Handler = (match: string[], params: Params, request: RequestInfo) => ApiResponse;

const PAGINATION = ['limit', 'starting_after', 'ending_before'];
/** Stripe refuses expansions deeper than four levels (https://docs.stripe.com/expand). */
const MAX_EXPAND_DEPTH = 4;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

const SPECS = {
  customerCreate: {
    known: [
      'address',
      'balance',
      'business_name',
      'cash_balance',
      'description',
      'email',
      'expand',
      'individual_name',
      'invoice_prefix',
      'invoice_settings',
      'metadata',
      'name',
      'next_invoice_sequence',
      'payment_method',
      'phone',
      'preferred_locales',
      'shipping',
      'source',
      'tax',
      'tax_exempt',
      'tax_id_data',
      'test_clock',
      'validate',
    ],
    unsupported: ['balance', 'cash_balance', 'payment_method', 'source', 'test_clock'],
  },
  retrieve: { known: ['expand'] },
  priceList: { known: ['active', 'created', 'currency', 'expand', 'lookup_keys', 'product', 'recurring', 'type', ...PAGINATION] },
  checkoutCreate: {
    known: [
      'adaptive_pricing',
      'after_expiration',
      'allow_promotion_codes',
      'allowed_payment_method_types',
      'automatic_tax',
      'billing_address_collection',
      'branding_settings',
      'cancel_url',
      'client_reference_id',
      'consent_collection',
      'currency',
      'custom_fields',
      'custom_text',
      'customer',
      'customer_account',
      'customer_creation',
      'customer_email',
      'customer_update',
      'discounts',
      'excluded_payment_method_types',
      'expand',
      'expires_at',
      'integration_identifier',
      'invoice_creation',
      'line_items',
      'locale',
      'managed_payments',
      'metadata',
      'mode',
      'name_collection',
      'optional_items',
      'origin_context',
      'payment_intent_data',
      'payment_method_collection',
      'payment_method_configuration',
      'payment_method_data',
      'payment_method_options',
      'permissions',
      'phone_number_collection',
      'redirect_on_completion',
      'return_url',
      'saved_payment_method_options',
      'setup_intent_data',
      'shipping_address_collection',
      'shipping_options',
      'submit_type',
      'subscription_data',
      'success_url',
      'tax_id_collection',
      'ui_mode',
      'wallet_options',
    ],
    unsupported: ['customer_account', 'discounts', 'optional_items', 'automatic_tax', 'shipping_options', 'after_expiration'],
  },
  subscriptionData: {
    known: [
      'application_fee_percent',
      'billing_cycle_anchor',
      'billing_cycle_anchor_config',
      'billing_mode',
      'default_tax_rates',
      'description',
      'invoice_settings',
      'metadata',
      'on_behalf_of',
      'pending_invoice_item_interval',
      'proration_behavior',
      'transfer_data',
      'trial_end',
      'trial_period_days',
      'trial_settings',
    ],
    unsupported: [
      'application_fee_percent',
      'billing_cycle_anchor',
      'billing_cycle_anchor_config',
      'default_tax_rates',
      'on_behalf_of',
      'transfer_data',
      'trial_end',
      'trial_period_days',
      'trial_settings',
    ],
  },
  checkoutLineItem: {
    known: ['adjustable_quantity', 'dynamic_tax_rates', 'metadata', 'price', 'price_data', 'quantity', 'tax_rates'],
    unsupported: ['adjustable_quantity', 'dynamic_tax_rates', 'price_data', 'tax_rates'],
  },
  portalCreate: {
    known: ['after_expiration', 'configuration', 'customer', 'customer_account', 'expand', 'flow_data', 'locale', 'on_behalf_of', 'return_url'],
    unsupported: ['customer_account', 'flow_data', 'on_behalf_of'],
  },
  subscriptionList: {
    known: [
      'automatic_tax',
      'collection_method',
      'created',
      'current_period_end',
      'current_period_start',
      'customer',
      'customer_account',
      'expand',
      'plan',
      'price',
      'status',
      'test_clock',
      ...PAGINATION,
    ],
    unsupported: ['automatic_tax', 'collection_method', 'created', 'current_period_end', 'current_period_start', 'customer_account', 'test_clock'],
  },
  subscriptionUpdate: {
    known: [
      'add_invoice_items',
      'application_fee_percent',
      'automatic_tax',
      'billing_cycle_anchor',
      'billing_schedules',
      'billing_thresholds',
      'cancel_at',
      'cancel_at_period_end',
      'cancellation_details',
      'collection_method',
      'days_until_due',
      'default_payment_method',
      'default_source',
      'default_tax_rates',
      'description',
      'discounts',
      'expand',
      'invoice_settings',
      'items',
      'metadata',
      'off_session',
      'on_behalf_of',
      'pause_collection',
      'payment_behavior',
      'payment_settings',
      'pending_invoice_item_interval',
      'proration_behavior',
      'proration_date',
      'transfer_data',
      'trial_end',
      'trial_from_plan',
      'trial_settings',
    ],
    unsupported: [
      'add_invoice_items',
      'application_fee_percent',
      'automatic_tax',
      'billing_cycle_anchor',
      'billing_schedules',
      'billing_thresholds',
      'cancel_at',
      'collection_method',
      'days_until_due',
      'default_tax_rates',
      'discounts',
      'on_behalf_of',
      'pause_collection',
      'pending_invoice_item_interval',
      'transfer_data',
      'trial_end',
      'trial_from_plan',
      'trial_settings',
    ],
  },
  subscriptionItem: {
    known: [
      'billing_thresholds',
      'clear_usage',
      'current_trial',
      'deleted',
      'discounts',
      'id',
      'metadata',
      'plan',
      'price',
      'price_data',
      'quantity',
      'tax_rates',
    ],
    unsupported: ['billing_thresholds', 'current_trial', 'deleted', 'discounts', 'metadata', 'price_data', 'tax_rates'],
  },
  subscriptionCancel: { known: ['cancellation_details', 'expand', 'invoice_now', 'prorate'] },
  invoicePreview: {
    known: [
      'automatic_tax',
      'currency',
      'customer',
      'customer_account',
      'customer_details',
      'discounts',
      'expand',
      'invoice_items',
      'issuer',
      'on_behalf_of',
      'preview_mode',
      'schedule',
      'schedule_details',
      'subscription',
      'subscription_details',
    ],
    unsupported: [
      'automatic_tax',
      'customer_account',
      'customer_details',
      'discounts',
      'invoice_items',
      'issuer',
      'on_behalf_of',
      'schedule',
      'schedule_details',
    ],
  },
  previewSubscriptionDetails: {
    known: [
      'billing_cycle_anchor',
      'billing_mode',
      'billing_schedules',
      'cancel_at',
      'cancel_at_period_end',
      'cancel_now',
      'default_tax_rates',
      'items',
      'metadata',
      'pause',
      'proration_behavior',
      'proration_date',
      'resume_at',
      'start_date',
      'trial_end',
    ],
    unsupported: [
      'billing_cycle_anchor',
      'billing_mode',
      'billing_schedules',
      'cancel_at',
      'cancel_at_period_end',
      'cancel_now',
      'default_tax_rates',
      'pause',
      'resume_at',
      'start_date',
      'trial_end',
    ],
  },
  cancellationDetails: { known: ['comment', 'feedback'] },
} satisfies Record<string, ParamSpec>;

const SUBSCRIPTION_STATUSES = ['active', 'all', 'canceled', 'ended', 'incomplete', 'incomplete_expired', 'past_due', 'paused', 'trialing', 'unpaid'] as const;
const CANCELLATION_FEEDBACK = [
  'customer_service',
  'low_quality',
  'missing_features',
  'other',
  'switched_service',
  'too_complex',
  'too_expensive',
  'unused',
] as const;

/**
 * Builds the REST dispatcher.
 * @returns a synchronous handler: every state change happens inside one call, so requests never interleave.
 */
export function createApi(state: LocalStripeState, logger: Logger | undefined): (req: ApiRequest) => ApiResponse {
  /** Checks names; logs the accepted-but-inert ones (names only, never values). */
  function check(params: Params, spec: ParamSpec, handled: readonly string[], where: string): void {
    // A null ('' on the wire) for a refused parameter asks for Stripe's default, which is what the stand-in does anyway.
    const present: Params = {};
    for (const [key, value] of Object.entries(params)) if (!(value === '' && spec.unsupported?.includes(key))) present[key] = value;
    const ignored = checkParamNames(present, spec).filter((name) => !handled.includes(name));
    if (ignored.length > 0) logger?.debug({ endpoint: where, ignored }, 'local stripe: parameters accepted but not simulated');
  }

  function respond(object: object, params: Params, extra?: (copy: Record<string, unknown>, paths: string[]) => void): ApiResponse {
    const paths = expandParam(params);
    const copy = JSON.parse(JSON.stringify(object)) as Record<string, unknown>;
    extra?.(copy, paths);
    expand(copy, paths);
    return { status: 200, body: copy };
  }

  function expand(target: Record<string, unknown>, paths: string[]): void {
    for (const path of paths) {
      const parts = path.split('.');
      if (parts.length > MAX_EXPAND_DEPTH)
        throw new StripeApiError(400, `You cannot expand more than ${MAX_EXPAND_DEPTH} levels of a property. Property: ${path}`);
      expandAt(target, parts, path);
    }
  }

  function expandAt(target: Record<string, unknown>, parts: string[], path: string): void {
    const [head, ...rest] = parts;
    if (head === undefined || head === 'id' || !(head in target)) throw cannotExpand(path);
    let value = target[head];
    if (typeof value === 'string') {
      const found = state.lookup(value);
      if (found === undefined) throw cannotExpand(path);
      value = JSON.parse(JSON.stringify(found)) as unknown;
      target[head] = value;
    }
    if (value === null) return;
    if (typeof value !== 'object') throw cannotExpand(path);
    if (rest.length === 0) return;
    const elements = Array.isArray(value) ? value : [value];
    for (const element of elements) {
      if (typeof element === 'object' && element !== null) expandAt(element as Record<string, unknown>, rest, path);
    }
  }

  function list<T extends { id: string }>(items: T[], params: Params, url: string): ApiResponse {
    const limit = optionalInteger(params.limit, 'limit', 1, 100) ?? 10;
    const after = optionalString(params.starting_after, 'starting_after');
    const before = optionalString(params.ending_before, 'ending_before');
    let window = items;
    if (after !== undefined) {
      const index = items.findIndex((item) => item.id === after);
      if (index < 0) throw parameterInvalid('starting_after', `No such object: '${after}'`, 'resource_missing');
      window = items.slice(index + 1);
    } else if (before !== undefined) {
      const index = items.findIndex((item) => item.id === before);
      if (index < 0) throw parameterInvalid('ending_before', `No such object: '${before}'`, 'resource_missing');
      window = items.slice(Math.max(0, index - limit), index);
    }
    const page = window.slice(0, limit);
    const body = { object: 'list', data: page, has_more: window.length > page.length, url };
    const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
    expand(copy, expandParam(params));
    return { status: 200, body: copy };
  }

  const routes: Array<{ method: string; pattern: RegExp; handler: Handler }> = [];
  const route = (method: string, pattern: RegExp, handler: Handler): void => {
    routes.push({ method, pattern, handler });
  };

  route('POST', /^\/v1\/customers$/, (_m, params, request) => {
    check(params, SPECS.customerCreate, ['description', 'email', 'expand', 'metadata', 'name', 'phone'], 'POST /v1/customers');
    const email = optionalString(params.email, 'email');
    if (email !== undefined && !EMAIL.test(email)) throw parameterInvalid('email', `Invalid email address: ${email}`, 'email_invalid');
    const input: Parameters<LocalStripeState['createCustomer']>[0] = { metadata: params.metadata };
    if (email !== undefined) input.email = email;
    const name = optionalString(params.name, 'name');
    if (name !== undefined) input.name = name;
    const description = optionalString(params.description, 'description');
    if (description !== undefined) input.description = description;
    const phone = optionalString(params.phone, 'phone');
    if (phone !== undefined) input.phone = phone;
    return respond(state.createCustomer(input, request), params);
  });

  route('GET', /^\/v1\/customers\/([^/]+)$/, ([id], params) => {
    check(params, SPECS.retrieve, ['expand'], 'GET /v1/customers/:id');
    return respond(state.getCustomer(id!), params);
  });

  route('GET', /^\/v1\/prices$/, (_m, params) => {
    check(params, SPECS.priceList, ['active', 'created', 'currency', 'expand', 'lookup_keys', 'product', 'recurring', 'type', ...PAGINATION], 'GET /v1/prices');
    const filter: Parameters<LocalStripeState['listPrices']>[0] = {};
    const lookupKeys = optionalStringList(params.lookup_keys, 'lookup_keys');
    if (lookupKeys !== undefined) {
      if (lookupKeys.length > 10) throw parameterInvalid('lookup_keys', 'You may only specify up to 10 lookup keys.');
      filter.lookupKeys = lookupKeys;
    }
    const active = optionalBoolean(params.active, 'active');
    if (active !== undefined) filter.active = active;
    const product = optionalString(params.product, 'product');
    if (product !== undefined) filter.product = product;
    const currency = optionalString(params.currency, 'currency');
    if (currency !== undefined) filter.currency = currency.toLowerCase();
    const type = optionalEnum(params.type, 'type', ['one_time', 'recurring']);
    if (type !== undefined) filter.type = type;
    let prices = state.listPrices(filter);
    const recurring = optionalObject(params.recurring, 'recurring');
    if (recurring !== undefined) {
      const interval = optionalEnum(recurring.interval, 'recurring[interval]', ['day', 'week', 'month', 'year']);
      const usageType = optionalEnum(recurring.usage_type, 'recurring[usage_type]', ['licensed', 'metered']);
      prices = prices.filter(
        (p) => (interval === undefined || p.recurring?.interval === interval) && (usageType === undefined || p.recurring?.usage_type === usageType),
      );
    }
    prices = prices.filter(createdFilter(params.created));
    return list(prices, params, '/v1/prices');
  });

  route('GET', /^\/v1\/prices\/([^/]+)$/, ([id], params) => {
    check(params, SPECS.retrieve, ['expand'], 'GET /v1/prices/:id');
    return respond(state.getPrice(id!), params);
  });

  route('GET', /^\/v1\/products\/([^/]+)$/, ([id], params) => {
    check(params, SPECS.retrieve, ['expand'], 'GET /v1/products/:id');
    return respond(state.getProduct(id!), params);
  });

  route('POST', /^\/v1\/checkout\/sessions$/, (_m, params) => {
    check(
      params,
      SPECS.checkoutCreate,
      [
        'allow_promotion_codes',
        'cancel_url',
        'client_reference_id',
        'customer',
        'customer_email',
        'expand',
        'expires_at',
        'line_items',
        'metadata',
        'mode',
        'subscription_data',
        'success_url',
        'ui_mode',
      ],
      'POST /v1/checkout/sessions',
    );
    const mode = optionalEnum(params.mode, 'mode', ['payment', 'setup', 'subscription']);
    if (mode === undefined) throw parameterMissing('mode');
    if (mode === 'payment') {
      // Every price here is recurring, which is what Stripe answers to payment mode with one.
      throw parameterInvalid(
        'mode',
        'You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.',
      );
    }
    if (mode !== 'subscription') throw parameterInvalid('mode', 'The local Stripe stand-in supports only `subscription` mode Checkout Sessions.');
    const uiMode = optionalString(params.ui_mode, 'ui_mode');
    if (uiMode !== undefined && uiMode !== 'hosted_page' && uiMode !== 'hosted')
      throw parameterInvalid('ui_mode', 'The local Stripe stand-in supports only the hosted Checkout page (`ui_mode=hosted_page`).');
    const lineItems = optionalObjectList(params.line_items, 'line_items');
    if (lineItems === undefined || lineItems.length === 0) throw parameterMissing('line_items');
    if (lineItems.length > 1) throw parameterInvalid('line_items[1]', 'The local Stripe stand-in supports one line item per Checkout Session.');
    const line = lineItems[0]!;
    checkNested(line, SPECS.checkoutLineItem, 'line_items[0]');
    const priceId = requiredString(line.price, 'line_items[0][price]');
    const quantity = optionalInteger(line.quantity, 'line_items[0][quantity]', 1, 999_999) ?? 1;
    const customer = optionalString(params.customer, 'customer');
    const customerEmail = optionalString(params.customer_email, 'customer_email');
    if (customer !== undefined && customerEmail !== undefined) {
      throw parameterInvalid('customer_email', 'You may only specify one of these parameters: customer, customer_email.');
    }
    if (customerEmail !== undefined && !EMAIL.test(customerEmail))
      throw parameterInvalid('customer_email', `Invalid email address: ${customerEmail}`, 'email_invalid');
    const successUrl = optionalUrl(params.success_url, 'success_url');
    if (successUrl === undefined) throw parameterMissing('success_url');
    const cancelUrl = optionalUrl(params.cancel_url, 'cancel_url');
    if (cancelUrl === undefined) throw parameterMissing('cancel_url');
    const subscriptionData = optionalObject(params.subscription_data, 'subscription_data') ?? {};
    checkNested(subscriptionData, SPECS.subscriptionData, 'subscription_data');
    const session = state.createCheckoutSession({
      priceId,
      quantity,
      customer,
      customerEmail,
      clientReferenceId: optionalString(params.client_reference_id, 'client_reference_id'),
      successUrl,
      cancelUrl,
      metadata: applyMetadataParam(params.metadata, 'metadata'),
      subscriptionMetadata: applyMetadataParam(subscriptionData.metadata, 'subscription_data[metadata]'),
      allowPromotionCodes: optionalBoolean(params.allow_promotion_codes, 'allow_promotion_codes'),
      expiresAt: optionalInteger(params.expires_at, 'expires_at'),
    });
    return respond(session, params);
  });

  route('GET', /^\/v1\/checkout\/sessions\/([^/]+)$/, ([id], params) => {
    check(params, SPECS.retrieve, ['expand'], 'GET /v1/checkout/sessions/:id');
    const session = state.getCheckoutSession(id!);
    return respond(session, params, (copy, paths) => {
      // line_items is not an id field: Stripe adds the list only when asked for.
      if (paths.some((p) => p === 'line_items' || p.startsWith('line_items.'))) copy.line_items = state.checkoutSessionLineItems(session.id);
    });
  });

  route('POST', /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/, ([id], params, request) => {
    check(params, SPECS.retrieve, ['expand'], 'POST /v1/checkout/sessions/:id/expire');
    return respond(state.expireCheckoutSession(id!, request), params);
  });

  route('POST', /^\/v1\/billing_portal\/sessions$/, (_m, params) => {
    check(params, SPECS.portalCreate, ['customer', 'return_url', 'expand'], 'POST /v1/billing_portal/sessions');
    const customer = requiredString(params.customer, 'customer');
    return respond(state.createPortalSession({ customer, returnUrl: optionalUrl(params.return_url, 'return_url') }), params);
  });

  route('GET', /^\/v1\/subscriptions$/, (_m, params) => {
    check(params, SPECS.subscriptionList, ['customer', 'price', 'plan', 'status', 'expand', ...PAGINATION], 'GET /v1/subscriptions');
    const filter: Parameters<LocalStripeState['listSubscriptions']>[0] = {};
    const customer = optionalString(params.customer, 'customer');
    if (customer !== undefined) filter.customer = customer;
    const price = optionalString(params.price, 'price') ?? optionalString(params.plan, 'plan');
    if (price !== undefined) filter.price = price;
    const status = optionalEnum(params.status, 'status', SUBSCRIPTION_STATUSES);
    if (status !== undefined) filter.status = status;
    return list(state.listSubscriptions(filter), params, '/v1/subscriptions');
  });

  route('GET', /^\/v1\/subscriptions\/([^/]+)$/, ([id], params) => {
    check(params, SPECS.retrieve, ['expand'], 'GET /v1/subscriptions/:id');
    return respond(state.getSubscription(id!), params);
  });

  route('POST', /^\/v1\/subscriptions\/([^/]+)$/, ([id], params, request) => {
    check(
      params,
      SPECS.subscriptionUpdate,
      ['cancel_at_period_end', 'cancellation_details', 'description', 'expand', 'items', 'metadata', 'proration_behavior', 'proration_date'],
      'POST /v1/subscriptions/:id',
    );
    const subscription = state.getSubscription(id!);
    const changes: SubscriptionChanges = {};
    const item = itemChangeParam(params.items, 'items');
    if (item !== undefined) changes.item = item;
    const behavior = optionalEnum(params.proration_behavior, 'proration_behavior', PRORATION_BEHAVIORS);
    if (behavior !== undefined) changes.prorationBehavior = behavior;
    const prorationDate = optionalInteger(params.proration_date, 'proration_date', 0);
    if (prorationDate !== undefined) changes.prorationDate = prorationDate;
    const cancelAtPeriodEnd = optionalBoolean(params.cancel_at_period_end, 'cancel_at_period_end');
    if (cancelAtPeriodEnd !== undefined) changes.cancelAtPeriodEnd = cancelAtPeriodEnd;
    if (params.metadata !== undefined) changes.metadata = params.metadata;
    if (typeof params.description === 'string') changes.description = params.description;
    const details = cancellationDetailsParam(params.cancellation_details);
    if (details !== undefined) changes.cancellationDetails = details;
    return respond(state.updateSubscription(subscription.id, changes, request), params);
  });

  route('DELETE', /^\/v1\/subscriptions\/([^/]+)$/, ([id], params, request) => {
    check(params, SPECS.subscriptionCancel, ['cancellation_details', 'expand', 'invoice_now', 'prorate'], 'DELETE /v1/subscriptions/:id');
    if (optionalBoolean(params.invoice_now, 'invoice_now') === true) throw parameterUnsupported('invoice_now');
    if (optionalBoolean(params.prorate, 'prorate') === true) throw parameterUnsupported('prorate');
    return respond(state.cancelSubscription(id!, request, cancellationDetailsParam(params.cancellation_details)), params);
  });

  route('POST', /^\/v1\/invoices\/create_preview$/, (_m, params) => {
    check(
      params,
      SPECS.invoicePreview,
      ['currency', 'customer', 'expand', 'preview_mode', 'subscription', 'subscription_details'],
      'POST /v1/invoices/create_preview',
    );
    if (optionalEnum(params.preview_mode, 'preview_mode', ['next', 'recurring']) === 'recurring') throw parameterUnsupported('preview_mode');
    const currency = optionalString(params.currency, 'currency');
    if (currency !== undefined && currency.toLowerCase() !== 'usd') throw parameterInvalid('currency', 'The local Stripe stand-in bills in usd only.');
    const details = optionalObject(params.subscription_details, 'subscription_details') ?? {};
    checkNested(details, SPECS.previewSubscriptionDetails, 'subscription_details');
    const item = itemChangeParam(details.items, 'subscription_details[items]');
    const prorationBehavior = optionalEnum(details.proration_behavior, 'subscription_details[proration_behavior]', PRORATION_BEHAVIORS);
    const prorationDate = optionalInteger(details.proration_date, 'subscription_details[proration_date]', 0);
    const customer = optionalString(params.customer, 'customer');
    let subscriptionId = optionalString(params.subscription, 'subscription');
    if (prorationDate !== undefined) {
      // Stripe's rules for subscription_details.proration_date (API reference, create_preview).
      if (subscriptionId === undefined || item === undefined) {
        throw parameterInvalid(
          'subscription_details[proration_date]',
          'When `subscription_details[proration_date]` is set, `subscription` and `subscription_details[items]` are required.',
        );
      }
      if (prorationBehavior === 'none') {
        throw parameterInvalid(
          'subscription_details[proration_behavior]',
          '`subscription_details[proration_behavior]` cannot be `none` when `subscription_details[proration_date]` is set.',
        );
      }
    }
    if (subscriptionId === undefined) {
      if (item !== undefined) {
        throw parameterInvalid('subscription', 'The local Stripe stand-in previews changes to existing subscriptions only: pass `subscription`.');
      }
      if (customer === undefined) throw parameterMissing('customer');
      const current = state.currentSubscription(state.getCustomer(customer, 'customer').id);
      if (current === undefined) throw new StripeApiError(404, `No upcoming invoices for customer: ${customer}`, { code: 'invoice_upcoming_none' });
      subscriptionId = current.id;
    }
    const subscription = state.subscriptions.get(subscriptionId);
    if (subscription === undefined) throw resourceMissing('subscription', subscriptionId, 'subscription');
    if (customer !== undefined && subscription.customer !== customer) {
      throw parameterInvalid('customer', `The subscription ${subscriptionId} does not belong to customer ${customer}.`);
    }
    const input: Parameters<LocalStripeState['previewInvoice']>[0] = { subscriptionId };
    if (item !== undefined) input.item = item;
    if (prorationBehavior !== undefined) input.prorationBehavior = prorationBehavior;
    if (prorationDate !== undefined) input.prorationDate = prorationDate;
    return respond(state.previewInvoice(input), params);
  });

  route('GET', /^\/v1\/invoices\/([^/]+)$/, ([id], params) => {
    check(params, SPECS.retrieve, ['expand'], 'GET /v1/invoices/:id');
    return respond(state.getInvoice(id!), params);
  });

  route('GET', /^\/v1\/events\/([^/]+)$/, ([id], params) => {
    check(params, SPECS.retrieve, ['expand'], 'GET /v1/events/:id');
    return respond(state.getEvent(id!), params);
  });

  return (req) => {
    for (const { method, pattern, handler } of routes) {
      if (method !== req.method) continue;
      const match = pattern.exec(req.path);
      if (match)
        return handler(
          match.slice(1).map((part) => decodeURIComponent(part)),
          req.params,
          req.request,
        );
    }
    return {
      status: 404,
      body: {
        error: {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${req.method}: ${req.path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
        },
      },
    };
  };
}

function cannotExpand(path: string): StripeApiError {
  return new StripeApiError(400, `This property cannot be expanded (${path}).`);
}

/** Checks a nested parameter object's names, reporting them as `prefix[name]`. */
function checkNested(params: Params, spec: ParamSpec, prefix: string): void {
  for (const [name, value] of Object.entries(params)) {
    if (!spec.known.includes(name)) throw parameterUnknown(`${prefix}[${name}]`);
    if (value !== '' && spec.unsupported?.includes(name)) throw parameterUnsupported(`${prefix}[${name}]`);
  }
}

/**
 * The `items` list of a subscription update or preview (`prefix` = `items` or
 * `subscription_details[items]`): the stand-in keeps one item per subscription, so at most one
 * entry, naming the existing item by id, with a new price (or legacy plan) and/or quantity.
 * @returns undefined when the list is absent or empty.
 */
function itemChangeParam(value: unknown, prefix: string): NonNullable<SubscriptionChanges['item']> | undefined {
  const items = optionalObjectList(value, prefix);
  if (items === undefined || items.length === 0) return undefined;
  if (items.length > 1) throw parameterInvalid(`${prefix}[1]`, 'The local Stripe stand-in supports one item per subscription.');
  const item = items[0]!;
  checkNested(item, SPECS.subscriptionItem, `${prefix}[0]`);
  const itemId = optionalString(item.id, `${prefix}[0][id]`);
  if (itemId === undefined) {
    throw parameterInvalid(
      `${prefix}[0][id]`,
      `The local Stripe stand-in supports one item per subscription: pass ${prefix}[0][id] to change the existing item instead of adding one.`,
    );
  }
  const change: NonNullable<SubscriptionChanges['item']> = { id: itemId };
  const price = optionalString(item.price, `${prefix}[0][price]`) ?? optionalString(item.plan, `${prefix}[0][plan]`);
  if (price !== undefined) change.price = price;
  const quantity = optionalInteger(item.quantity, `${prefix}[0][quantity]`, 1, 999_999);
  if (quantity !== undefined) change.quantity = quantity;
  return change;
}

/** A metadata parameter on a new object (Stripe's merge rules applied to `{}`). */
function applyMetadataParam(value: unknown, param: string): Record<string, string> {
  if (value === undefined || value === '') return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw parameterInvalid(param, `Invalid object: ${param} must be a set of key-value pairs.`);
  const result: Record<string, string> = {};
  for (const [key, raw] of Object.entries(value as Params)) {
    if (typeof raw !== 'string') throw parameterInvalid(`${param}[${key}]`, 'Invalid string: metadata values must be strings.');
    if (raw !== '') result[key] = raw;
  }
  return result;
}

function cancellationDetailsParam(value: unknown): { comment?: string; feedback?: string } | undefined {
  const details = optionalObject(value, 'cancellation_details');
  if (details === undefined) return undefined;
  checkNested(details, SPECS.cancellationDetails, 'cancellation_details');
  const result: { comment?: string; feedback?: string } = {};
  const comment = optionalString(details.comment, 'cancellation_details[comment]');
  if (comment !== undefined) result.comment = comment;
  const feedback = optionalEnum(details.feedback, 'cancellation_details[feedback]', CANCELLATION_FEEDBACK);
  if (feedback !== undefined) result.feedback = feedback;
  return result;
}

/** Stripe's `created` list filter: a timestamp or `{gt, gte, lt, lte}` (Unix seconds). */
function createdFilter(value: unknown): (object: { created: number }) => boolean {
  if (value === undefined || value === '') return () => true;
  if (typeof value === 'string') {
    const exact = optionalInteger(value, 'created');
    return (o) => o.created === exact;
  }
  const range = optionalObject(value, 'created') ?? {};
  checkNested(range, { known: ['gt', 'gte', 'lt', 'lte'] }, 'created');
  const gt = optionalInteger(range.gt, 'created[gt]');
  const gte = optionalInteger(range.gte, 'created[gte]');
  const lt = optionalInteger(range.lt, 'created[lt]');
  const lte = optionalInteger(range.lte, 'created[lte]');
  return (o) =>
    (gt === undefined || o.created > gt) &&
    (gte === undefined || o.created >= gte) &&
    (lt === undefined || o.created < lt) &&
    (lte === undefined || o.created <= lte);
}
