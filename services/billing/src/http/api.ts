/**
 * billing's public HTTP API as data (issue 23): every route of http/routes.ts with zod schemas of
 * its body and responses, the source of billing's part of `GET /api/openapi.json`
 * (scripts/openapi.ts). The service's hand-written checks (domain/prices.ts parsePaidPlan,
 * service.ts sameOriginUrl, domain/upgrade.ts checkProrationDate) keep the exact messages;
 * services/billing/test/openapi.int.test.ts feeds these schemas and the live routes the same
 * inputs and checks that they agree. docs/openapi.md.
 */
import { z } from 'zod';
import { DEFAULT_ERROR_RESPONSE, ErrorBodySchema, type ApiDeclaration } from '@tradewind/lib';
import { sameOriginUrl } from '../service.js';

const PaidTier = z.enum(['plus', 'pro']).describe('A paid plan (Starter is free and needs no checkout)');
const PaidPeriod = z.enum(['monthly', 'yearly']);
const IsoTime = z.string().describe('ISO 8601 time (UTC)');

/** The POST /api/upgrade-preview body. */
export const UpgradePreviewBodySchema = z.object({ tier: PaidTier, period: PaidPeriod });

/**
 * The POST /api/checkout-sessions body (service.ts createCheckout) for the public origin `origin`
 * (cancelUrl must be on it; service.ts sameOriginUrl); without `origin` any URL text is described.
 */
export function checkoutBodySchema(origin?: string) {
  return z.object({
    tier: PaidTier,
    period: PaidPeriod,
    userId: z.string().min(1).describe("The signed-in user (must equal the bearer token's user when a token is sent)"),
    cancelUrl: z
      .union([
        z
          .string()
          .max(2048)
          .refine((v) => origin === undefined || sameOriginUrlOk(v, origin)),
        z.null(),
      ])
      .optional()
      .describe('Where Stripe sends the browser back on cancel: a URL on the public origin (default /pricing)'),
    proration_date: ProrationDateSchema,
  });
}

/** `proration_date` of a checkout: Unix seconds (a positive safe integer), null or absent. */
export const ProrationDateSchema = z
  .union([z.int().positive().max(Number.MAX_SAFE_INTEGER), z.null()])
  .optional()
  .describe('Unix seconds of the price preview (POST /api/upgrade-preview); required to change a live paid plan');

function sameOriginUrlOk(value: string, origin: string): boolean {
  try {
    sameOriginUrl(value, origin, 'cancelUrl');
    return true;
  } catch {
    return false;
  }
}

/** The body as the published document describes it (any origin). */
export const CheckoutBodySchema = checkoutBodySchema();

/** The `/api/get-subscription` body (service.ts SubscriptionJson). */
export const SubscriptionSchema = z
  .object({
    tier: z.string(),
    billing_period: z.string(),
    status: z.string().describe('Stripe subscription status, or active on the free plan'),
    next_billing_date: IsoTime.nullable(),
    cancel_at_period_end: z.boolean(),
    cancel_at: IsoTime.nullable(),
    subscription_type: z.string(),
    effective_plan: z.string().describe('Plan whose limits apply now (starter while a payment is unpaid)'),
  })
  .describe("The user's subscription");

/** The POST /api/upgrade-preview answer (domain/upgrade.ts UpgradePreviewJson). */
export const UpgradePreviewSchema = z
  .object({
    tier: PaidTier,
    period: PaidPeriod,
    kind: z.enum(['checkout', 'proration']),
    amount_due_cents: z.int().min(0).describe('Charged on confirm, US cents'),
    currency: z.string().describe('ISO 4217, lower case'),
    lines: z.array(z.object({ description: z.string(), amount_cents: z.int().describe('US cents; negative for a credit') })),
    next_billing_date: IsoTime.nullable(),
    proration_date: z.int().nullable().describe('Send back as proration_date to confirm; null for a checkout'),
  })
  .describe('Price preview of a plan change');

const UrlBody = z.object({ url: z.string().describe('Where to send the browser') });
const NO_SESSION = { description: 'No valid session: exactly {"status":401,"message":"No active session"}', body: ErrorBodySchema } as const;
const BAD_INPUT = { description: 'Invalid input (code invalid_argument)', body: ErrorBodySchema } as const;
const STRIPE_DOWN = { description: 'Stripe is unreachable (code unavailable)', body: ErrorBodySchema } as const;

/** billing's declaration. */
export function billingApi(): ApiDeclaration {
  return {
    service: 'billing',
    tag: { name: 'billing', description: 'Plans, Stripe Checkout, the billing portal and Stripe webhooks (services/billing)' },
    components: {
      Subscription: SubscriptionSchema,
      UpgradePreview: UpgradePreviewSchema,
      CheckoutBody: CheckoutBodySchema,
      UpgradePreviewBody: UpgradePreviewBodySchema,
    },
    defaultResponse: DEFAULT_ERROR_RESPONSE,
    routes: [
      {
        method: 'post',
        path: '/api/checkout-sessions',
        operationId: 'createCheckoutSession',
        summary: 'Start a Stripe Checkout, or change a live paid plan at once',
        security: ['bearer'],
        authOptional: true,
        description:
          "Without a live paid subscription: a Stripe Checkout Session URL. With one: the plan changes at once (bearer token and the preview's proration_date required) and the URL is the dashboard.",
        body: { schema: CheckoutBodySchema, required: true },
        responses: {
          200: {
            description: 'Where to send the browser',
            body: z.object({
              url: z.string(),
              plan_changed: z.boolean().optional(),
              subscription: SubscriptionSchema.optional(),
              amount_paid_cents: z.int().nullable().optional(),
            }),
          },
          400: BAD_INPUT,
          401: { description: 'An invalid bearer token ("No active session"), or none for a plan change', body: ErrorBodySchema },
          403: { description: 'The token belongs to another user', body: ErrorBodySchema },
          404: { description: 'Unknown user', body: ErrorBodySchema },
          409: { description: 'Same plan, a downgrade, or a preview too old', body: ErrorBodySchema },
          503: STRIPE_DOWN,
        },
      },
      {
        method: 'post',
        path: '/api/upgrade-preview',
        operationId: 'previewUpgrade',
        summary: 'What a plan change costs now',
        security: ['bearer'],
        body: { schema: UpgradePreviewBodySchema, required: true },
        responses: {
          200: { description: 'The preview', body: UpgradePreviewSchema },
          400: BAD_INPUT,
          401: NO_SESSION,
          404: { description: 'Unknown user', body: ErrorBodySchema },
          409: { description: 'Same plan or a downgrade', body: ErrorBodySchema },
          503: STRIPE_DOWN,
        },
      },
      {
        method: 'post',
        path: '/api/create-portal-session',
        operationId: 'createPortalSession',
        summary: 'A Stripe billing portal session',
        security: ['bearer'],
        responses: {
          200: { description: 'The portal URL', body: UrlBody },
          401: NO_SESSION,
          404: { description: 'No billing account yet', body: ErrorBodySchema },
          503: STRIPE_DOWN,
        },
      },
      {
        method: 'get',
        path: '/api/get-subscription',
        operationId: 'getSubscription',
        summary: "The user's subscription",
        security: ['bearer'],
        responses: { 200: { description: 'The subscription (starter when none)', body: SubscriptionSchema }, 401: NO_SESSION },
      },
      {
        method: 'post',
        path: '/api/stripe/webhook',
        operationId: 'stripeWebhook',
        summary: 'Stripe event deliveries',
        security: ['stripeSignature'],
        description: "Called by Stripe only: the signature is verified over the raw body with the endpoint's signing secret.",
        body: {
          schema: z.looseObject({ id: z.string(), type: z.string() }).describe('A Stripe Event (https://docs.stripe.com/api/events/object)'),
          required: true,
        },
        responses: {
          200: {
            description: 'Processed',
            body: z.object({ received: z.literal(true), outcome: z.enum(['applied', 'unchanged', 'stale', 'ignored', 'unhandled', 'duplicate']) }),
          },
          400: { description: 'Missing or invalid signature (code invalid_signature)', body: ErrorBodySchema },
        },
      },
    ],
  };
}
