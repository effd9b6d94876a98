/** Users repository. */
import { randomUUID } from 'node:crypto';
import { appendEvent, sql, type Kysely, type Transaction } from '@tradewind/lib';
import { newEventMeta } from '@tradewind/contracts';
import type { AuthDatabase, UsersTable } from './schema.js';
import { NEW_USER_DEFAULTS } from '../domain/user.js';
import type { VerifiedIdentity } from '../domain/identity-provider.js';

export type UserRow = Omit<UsersTable, 'created_at' | 'updated_at' | 'subscription_version' | 'name_set_by_user'> & {
  created_at: Date;
  updated_at: Date;
  subscription_version: string;
  name_set_by_user: boolean;
};

/**
 * Finds the user for a verified identity or creates it on the starter plan; a creation writes
 * `user.created` to the outbox in the same transaction. Email and avatar follow the provider on
 * every sign-in; so does the name until the user saves one of their own (`name_set_by_user`, set by
 * {@link updateUserName}), which later sign-ins keep.
 * @returns the user and whether it was created by this call.
 */
export async function upsertUserOnSignIn(
  db: Kysely<AuthDatabase>,
  identity: VerifiedIdentity,
  requestId: string,
): Promise<{ user: UserRow; created: boolean }> {
  return db.transaction().execute(async (trx) => {
    const id = randomUUID();
    // ON CONFLICT makes two concurrent first sign-ins of one person create one user.
    const inserted = await trx
      .insertInto('users')
      .values({
        id,
        identity_provider: identity.provider,
        subject: identity.subject,
        email: identity.email,
        name: identity.name,
        avatar_url: identity.avatarUrl,
        ...NEW_USER_DEFAULTS,
        last_sign_in_at: new Date(),
      })
      .onConflict((oc) => oc.columns(['identity_provider', 'subject']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) {
      await appendEvent(
        trx,
        'user.created',
        {
          meta: newEventMeta('user.created', 'auth', requestId),
          userId: inserted.id,
          email: inserted.email,
          name: inserted.name,
          avatarUrl: inserted.avatar_url,
          plan: inserted.tier,
          billingPeriod: inserted.billing_period,
          identityProvider: identity.provider,
        },
        requestId ? { 'x-request-id': requestId } : {},
      );
      return { user: inserted as UserRow, created: true };
    }
    const user = await trx
      .updateTable('users')
      .set({
        email: identity.email,
        avatar_url: identity.avatarUrl,
        last_sign_in_at: new Date(),
        updated_at: new Date(),
        name: sql<string>`CASE WHEN name_set_by_user THEN name ELSE ${identity.name} END`,
      })
      .where('identity_provider', '=', identity.provider)
      .where('subject', '=', identity.subject)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { user: user as UserRow, created: false };
  });
}

/** The user with `id`, or undefined. */
export async function findUser(db: Kysely<AuthDatabase> | Transaction<AuthDatabase>, id: string): Promise<UserRow | undefined> {
  return (await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()) as UserRow | undefined;
}

/**
 * Saves a display name the user chose (already validated, see domain/user.ts parseProfileUpdate) and
 * marks it as theirs, so a later sign-in no longer overwrites it with the provider's name.
 * @returns the updated user, or undefined when the user does not exist.
 */
export async function updateUserName(db: Kysely<AuthDatabase>, id: string, name: string): Promise<UserRow | undefined> {
  return (await db.updateTable('users').set({ name, name_set_by_user: true, updated_at: new Date() }).where('id', '=', id).returningAll().executeTakeFirst()) as
    | UserRow
    | undefined;
}
