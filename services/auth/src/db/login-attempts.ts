/** Started sign-ins: state (hashed), nonce, PKCE verifier and the pending plan, single use. */
import type { Kysely } from '@tradewind/lib';
import type { AuthDatabase } from './schema.js';
import { tokenHash } from '../domain/tokens.js';
import type { PendingPlan } from '../domain/user.js';

export async function saveLoginAttempt(
  db: Kysely<AuthDatabase>,
  attempt: { state: string; nonce: string; codeVerifier: string; pending: PendingPlan | undefined; ttlSeconds: number },
): Promise<void> {
  await db
    .insertInto('login_attempts')
    .values({
      state_hash: tokenHash(attempt.state),
      nonce: attempt.nonce,
      code_verifier: attempt.codeVerifier,
      tier: attempt.pending?.tier ?? null,
      period: attempt.pending?.period ?? null,
      expires_at: new Date(Date.now() + attempt.ttlSeconds * 1000),
    })
    .execute();
}

/** Deletes and returns the unexpired attempt for `state`; undefined when unknown, used or expired. */
export async function takeLoginAttempt(db: Kysely<AuthDatabase>, state: string) {
  return db.deleteFrom('login_attempts').where('state_hash', '=', tokenHash(state)).where('expires_at', '>', new Date()).returningAll().executeTakeFirst();
}
