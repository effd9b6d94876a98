/** gRPC `tradewind.v1.BillingService` (proto/tradewind/v1/billing.proto): subscriptions and entitlements for other services. */
import {
  AppError,
  BillingServiceService,
  isUuid,
  type BillingServiceServer,
  type BillingSubscription,
  type GetEntitlementsRequest,
  type GetEntitlementsResponse,
  type GetSubscriptionRequest,
  type GetSubscriptionResponse,
} from '@tradewind/contracts';
import { unary, type Kysely, type Logger } from '@tradewind/lib';
import type { BillingDatabase } from '../db/schema.js';
import { findSubscription } from '../db/subscriptions.js';
import { effectivePlan } from '../domain/subscription.js';

async function load(db: Kysely<BillingDatabase>, userId: string) {
  if (!isUuid(userId)) throw new AppError('invalid_argument', 'user_id must be a UUID');
  const found = await findSubscription(db, userId);
  if (!found) throw new AppError('not_found', `billing has no record of user ${userId}`);
  return found;
}

/** The service definition and implementation to pass to `startGrpcServer`. */
export function billingGrpcService(db: Kysely<BillingDatabase>, logger: Logger) {
  const implementation: BillingServiceServer = {
    getSubscription: unary<GetSubscriptionRequest, GetSubscriptionResponse>(logger, 'GetSubscription', async (request) => {
      const s = await load(db, request.userId);
      const subscription: BillingSubscription = {
        userId: request.userId,
        tier: s.tier,
        billingPeriod: s.billingPeriod,
        subscriptionStatus: s.status,
        subscriptionType: s.subscriptionType,
        currentPeriodEnd: s.currentPeriodEnd ?? undefined,
        cancelAtPeriodEnd: s.cancelAtPeriodEnd,
        stripeCustomerId: s.stripeCustomerId ?? '',
        stripeSubscriptionId: s.tier === 'starter' ? '' : (s.stripeSubscriptionId ?? ''),
        version: BigInt(s.version),
        updatedAt: s.updatedAt,
      };
      return { subscription };
    }),
    getEntitlements: unary<GetEntitlementsRequest, GetEntitlementsResponse>(logger, 'GetEntitlements', async (request) => {
      const s = await load(db, request.userId);
      const plan = effectivePlan(s);
      return {
        entitlements: {
          userId: request.userId,
          plan: plan.id,
          maxConnections: plan.connections,
          requestsPerMinute: plan.requestsPerMinute,
          subjects: [...plan.subjects],
          replay: plan.replay,
          version: BigInt(s.version),
        },
      };
    }),
  };
  return { definition: BillingServiceService, implementation };
}
