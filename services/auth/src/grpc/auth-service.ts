/**
 * gRPC `tradewind.v1.AuthService` (proto/tradewind/v1/auth.proto): internal user queries. Read
 * only: plan state belongs to billing and reaches auth as `subscription.changed` (events/).
 */
import { AppError, isUuid, AuthServiceService, type AuthServiceServer, type AuthUser, type GetUserRequest, type GetUserResponse } from '@tradewind/contracts';
import { unary, type Kysely, type Logger } from '@tradewind/lib';
import type { AuthDatabase } from '../db/schema.js';
import { findUser, type UserRow } from '../db/users.js';

function toProto(row: UserRow): AuthUser {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    avatarUrl: row.avatar_url,
    plan: row.tier,
    metadata: {
      tier: row.tier,
      billingPeriod: row.billing_period,
      subscriptionStatus: row.subscription_status,
      subscriptionType: row.subscription_type,
      trialEndDate: row.trial_end_date ?? undefined,
    },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function requireUuid(id: string): void {
  if (!isUuid(id)) throw new AppError('invalid_argument', 'user_id must be a UUID');
}

/** The service definition and implementation to pass to `startGrpcServer`. */
export function authGrpcService(db: Kysely<AuthDatabase>, logger: Logger) {
  const implementation: AuthServiceServer = {
    getUser: unary<GetUserRequest, GetUserResponse>(logger, 'GetUser', async (request) => {
      requireUuid(request.userId);
      const user = await findUser(db, request.userId);
      if (!user) throw new AppError('not_found', `no user ${request.userId}`);
      return { user: toProto(user) };
    }),
  };
  return { definition: AuthServiceService, implementation };
}
