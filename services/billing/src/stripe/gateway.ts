/**
 * The Stripe side of billing: the official `stripe` client (API version pinned by the package,
 * 2026-10-28.endive for stripe@23.1.0), the plans' Prices found by lookup key and checked
 * against the catalogue, and webhook verification.
 */
import Stripe from 'stripe';
import { AppError } from '@tradewind/contracts';
import type { Logger } from '@tradewind/lib';
import { expectedPrice, paidPlans, parsePriceLookupKey, priceLookupKey, type PaidPeriod, type PaidTier } from '../domain/prices.js';

/** Options of {@link createStripeGateway}. */
export interface StripeGatewayOptions {
  secretKey: string;
  webhookSecret: string;
  /** Another API origin (a stand-in); default https://api.stripe.com. */
  apiUrl?: string;
  timeoutMs: number;
  maxNetworkRetries: number;
  /** Largest signature age accepted, s. */
  webhookToleranceSeconds: number;
  /** How long verified prices are cached, s. */
  priceCacheSeconds: number;
  logger: Logger;
}

/** What billing uses of Stripe. */
export interface StripeGateway {
  readonly client: Stripe;
  /** Whether the key is a live-mode key. */
  readonly livemode: boolean;
  /**
   * The Price of a paid plan.
   * @throws AppError('unavailable') when Stripe cannot be reached; AppError('internal') when the
   *   Price is missing or its amount/interval differs from the plans catalogue (a setup error, logged).
   */
  priceFor(tier: PaidTier, period: PaidPeriod): Promise<Stripe.Price>;
  /** The plan a Price stands for: by its lookup key, else by a price id seen by `priceFor`. */
  planOfPrice(price: Stripe.Price | string | null | undefined): { tier: PaidTier; period: PaidPeriod } | undefined;
  /**
   * Verifies a webhook delivery (raw body bytes as received + `Stripe-Signature` header).
   * @throws Stripe.errors.StripeSignatureVerificationError for a bad, missing or too old signature.
   */
  constructEvent(rawBody: Buffer, signature: string): Stripe.Event;
}

/** Turns a Stripe client error into an AppError the edge can map (network → unavailable). */
export function fromStripeError(err: unknown, what: string): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof Stripe.errors.StripeConnectionError || err instanceof Stripe.errors.StripeRateLimitError || err instanceof Stripe.errors.StripeAPIError) {
    return new AppError('unavailable', `Stripe is unavailable right now (${what}); please try again`, { cause: err });
  }
  if (err instanceof Stripe.errors.StripeCardError) return new AppError('invalid_argument', `Payment failed: ${err.message}`, { cause: err });
  if (err instanceof Stripe.errors.StripeError) return new AppError('internal', `Stripe refused ${what}: ${err.message}`, { cause: err });
  return new AppError('internal', `${what} failed`, { cause: err });
}

export function createStripeGateway(options: StripeGatewayOptions): StripeGateway {
  const api = options.apiUrl ? new URL(options.apiUrl) : undefined;
  const client = new Stripe(options.secretKey, {
    timeout: options.timeoutMs,
    maxNetworkRetries: options.maxNetworkRetries,
    telemetry: false,
    appInfo: { name: 'tradewind-billing' },
    ...(api ? { host: api.hostname, port: api.port || (api.protocol === 'https:' ? 443 : 80), protocol: api.protocol === 'https:' ? 'https' : 'http' } : {}),
  });
  const byLookupKey = new Map<string, Stripe.Price>();
  const planByPriceId = new Map<string, { tier: PaidTier; period: PaidPeriod }>();
  let loadedAt = 0;
  let loading: Promise<void> | undefined;

  async function load(): Promise<void> {
    const keys = paidPlans().map(({ tier, period }) => priceLookupKey(tier, period));
    let list: Stripe.ApiList<Stripe.Price>;
    try {
      list = await client.prices.list({ lookup_keys: keys, active: true, limit: 100 });
    } catch (err) {
      throw fromStripeError(err, 'listing prices');
    }
    const problems: string[] = [];
    byLookupKey.clear();
    for (const { tier, period } of paidPlans()) {
      const key = priceLookupKey(tier, period);
      const price = list.data.find((p) => p.lookup_key === key);
      const want = expectedPrice(tier, period);
      if (!price) problems.push(`no active Price with lookup_key ${key}`);
      else if (
        price.unit_amount !== want.unitAmountCents ||
        price.currency !== want.currency ||
        price.recurring?.interval !== want.interval ||
        (price.recurring?.interval_count ?? 1) !== 1
      ) {
        problems.push(
          `Price ${price.id} (${key}) charges ${price.unit_amount} ${price.currency} per ${price.recurring?.interval_count ?? 1} ${price.recurring?.interval ?? '?'}; the plans catalogue says ${want.unitAmountCents} ${want.currency} per ${want.interval}`,
        );
      } else {
        byLookupKey.set(key, price);
        planByPriceId.set(price.id, { tier, period });
      }
    }
    if (problems.length > 0) {
      options.logger.error({ problems }, 'Stripe prices do not match the plans catalogue');
      throw new AppError('internal', `Stripe prices do not match the plans catalogue: ${problems.join('; ')}`);
    }
    loadedAt = Date.now();
  }

  return {
    client,
    livemode: options.secretKey.includes('_live_'),
    async priceFor(tier, period) {
      if (Date.now() - loadedAt > options.priceCacheSeconds * 1000 || !byLookupKey.has(priceLookupKey(tier, period))) {
        loading ??= load().finally(() => {
          loading = undefined;
        });
        await loading;
      }
      const price = byLookupKey.get(priceLookupKey(tier, period));
      if (!price) throw new AppError('internal', `no Stripe Price for ${tier} ${period}`);
      return price;
    },
    planOfPrice(price) {
      if (!price) return undefined;
      if (typeof price === 'string') return planByPriceId.get(price);
      return parsePriceLookupKey(price.lookup_key) ?? planByPriceId.get(price.id);
    },
    constructEvent(rawBody, signature) {
      return client.webhooks.constructEvent(rawBody, signature, options.webhookSecret, options.webhookToleranceSeconds);
    },
  };
}
