/**
 * Sessions and their refresh-token family. A session is created at sign-in with one refresh
 * token; each refresh marks the presented token rotated and issues the next one. Presenting a
 * rotated token again (a stolen copy, or the legitimate client after the thief) revokes the
 * whole session: every token of the family stops working.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '@tradewind/contracts';
import { NO_ACTIVE_SESSION, sql, type Kysely } from '@tradewind/lib';
import type { AuthDatabase } from './schema.js';
import type { UserRow } from './users.js';
import { newRefreshToken, tokenHash } from '../domain/tokens.js';

/** Raised when a rotated refresh token comes back; the session has been revoked. */
export class RefreshTokenReuseError extends AppError {
  constructor() {
    super('unauthenticated', 'Refresh token was already used; the session has been revoked. Please sign in again.');
  }
}

/** Creates a session for `userId`. @returns its id and first refresh token. */
export async function createSession(
  db: Kysely<AuthDatabase>,
  userId: string,
  ttlSeconds: number,
  userAgent: string,
): Promise<{ sessionId: string; refreshToken: string }> {
  const sessionId = randomUUID();
  const refreshToken = newRefreshToken();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('sessions')
      .values({
        id: sessionId,
        user_id: userId,
        expires_at: new Date(Date.now() + ttlSeconds * 1000),
        last_refreshed_at: null,
        revoked_at: null,
        revoked_reason: null,
        user_agent: userAgent.slice(0, 300),
      })
      .execute();
    await trx
      .insertInto('refresh_tokens')
      .values({ token_hash: tokenHash(refreshToken), session_id: sessionId, rotated_at: null })
      .execute();
  });
  return { sessionId, refreshToken };
}

/**
 * Exchanges `refreshToken` for its successor (rotation) and extends the session.
 * @returns the session id, the new refresh token and the user.
 * @throws RefreshTokenReuseError when the token was rotated before (the session is revoked, committed);
 *   AppError('unauthenticated', 'No active session') for an unknown token or a revoked/expired session.
 */
export async function rotateRefreshToken(
  db: Kysely<AuthDatabase>,
  refreshToken: string,
  ttlSeconds: number,
): Promise<{ sessionId: string; refreshToken: string; user: UserRow }> {
  const outcome = await db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('refresh_tokens')
      .innerJoin('sessions', 'sessions.id', 'refresh_tokens.session_id')
      .select([
        'refresh_tokens.token_hash',
        'refresh_tokens.rotated_at',
        'sessions.id as session_id',
        'sessions.user_id',
        'sessions.revoked_at',
        'sessions.expires_at',
      ])
      .where('refresh_tokens.token_hash', '=', tokenHash(refreshToken))
      .forUpdate()
      .executeTakeFirst();
    if (!row || row.revoked_at || row.expires_at.getTime() <= Date.now()) return { kind: 'none' as const };
    if (row.rotated_at) {
      await trx.updateTable('sessions').set({ revoked_at: new Date(), revoked_reason: 'refresh_token_reuse' }).where('id', '=', row.session_id).execute();
      return { kind: 'reuse' as const };
    }
    const next = newRefreshToken();
    await trx.updateTable('refresh_tokens').set({ rotated_at: new Date() }).where('token_hash', '=', row.token_hash).execute();
    await trx
      .insertInto('refresh_tokens')
      .values({ token_hash: tokenHash(next), session_id: row.session_id, rotated_at: null })
      .execute();
    await trx
      .updateTable('sessions')
      .set({ last_refreshed_at: new Date(), expires_at: new Date(Date.now() + ttlSeconds * 1000) })
      .where('id', '=', row.session_id)
      .execute();
    const user = await trx.selectFrom('users').selectAll().where('id', '=', row.user_id).executeTakeFirstOrThrow();
    return { kind: 'rotated' as const, sessionId: row.session_id, refreshToken: next, user: user as UserRow };
  });
  if (outcome.kind === 'reuse') throw new RefreshTokenReuseError();
  if (outcome.kind === 'none') throw new AppError('unauthenticated', NO_ACTIVE_SESSION);
  return outcome;
}

/** The active (not revoked, not expired) session with `sessionId`, joined to its user; undefined otherwise. */
export async function activeSession(
  db: Kysely<AuthDatabase>,
  sessionId: string,
): Promise<{ sessionId: string; createdAt: Date; expiresAt: Date; user: UserRow } | undefined> {
  const row = await db
    .selectFrom('sessions')
    .select(['id', 'user_id', 'created_at', 'expires_at'])
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', new Date())
    .executeTakeFirst();
  if (!row) return undefined;
  const user = await db.selectFrom('users').selectAll().where('id', '=', row.user_id).executeTakeFirst();
  return user ? { sessionId: row.id, createdAt: row.created_at, expiresAt: row.expires_at, user: user as UserRow } : undefined;
}

/** Revokes a session (logout). @returns true when it was active. */
export async function revokeSession(db: Kysely<AuthDatabase>, sessionId: string, reason: string): Promise<boolean> {
  const r = await db
    .updateTable('sessions')
    .set({ revoked_at: new Date(), revoked_reason: reason })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** The session a refresh token belongs to (rotated or not), for logout by refresh token. */
export async function sessionOfRefreshToken(db: Kysely<AuthDatabase>, refreshToken: string): Promise<string | undefined> {
  const row = await db.selectFrom('refresh_tokens').select('session_id').where('token_hash', '=', tokenHash(refreshToken)).executeTakeFirst();
  return row?.session_id;
}

/** Deletes expired sign-in attempts and sessions ended more than `retainDays` ago. @returns rows deleted. */
export async function purgeExpired(db: Kysely<AuthDatabase>, retainDays = 30): Promise<number> {
  const a = await db.deleteFrom('login_attempts').where('expires_at', '<', new Date()).executeTakeFirst();
  const cutoff = sql<Date>`now() - make_interval(days => ${retainDays})`;
  const s = await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expires_at', '<', cutoff), eb('revoked_at', '<', cutoff)]))
    .executeTakeFirst();
  return Number(a.numDeletedRows) + Number(s.numDeletedRows);
}
