/** Notifications and notification preferences repository. */
import { isUuid } from '@tradewind/contracts';
import { sql, type Kysely, type Transaction } from '@tradewind/lib';
import type { AuthDatabase, NotificationsTable } from './schema.js';
import { DEFAULT_PREFERENCES, type NotificationDraft, type NotificationKind, type NotificationPreferences } from '../domain/notifications.js';

type Db = Kysely<AuthDatabase> | Transaction<AuthDatabase>;

/**
 * Stores `draft` under the id of the event it came from (a second delivery inserts nothing), then
 * deletes the user's notifications beyond the newest `maxPerUser` (NOTIFICATIONS_MAX_PER_USER).
 * @returns false when the event names no known user (nothing stored), else true.
 */
export async function storeNotification(
  trx: Transaction<AuthDatabase>,
  draft: NotificationDraft,
  eventId: string,
  occurredAt: Date,
  maxPerUser: number,
  readAt: Date | null = null,
): Promise<boolean> {
  if (!isUuid(draft.userId)) return false;
  const user = await trx.selectFrom('users').select('id').where('id', '=', draft.userId).executeTakeFirst();
  if (!user) return false;
  await trx
    .insertInto('notifications')
    .values({
      id: eventId,
      user_id: draft.userId,
      kind: draft.kind,
      title: draft.title,
      body: draft.body,
      link: draft.link,
      created_at: occurredAt,
      read_at: readAt,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  await trx
    .deleteFrom('notifications')
    .where('user_id', '=', draft.userId)
    .where('id', 'in', (eb) =>
      eb.selectFrom('notifications').select('id').where('user_id', '=', draft.userId).orderBy('created_at', 'desc').orderBy('id', 'desc').offset(maxPerUser),
    )
    .execute();
  return true;
}

/**
 * The user's notifications of `kinds`, newest first (created_at, then id), at most `limit`; with
 * `before`, only those older than that notification. A `before` that is not (or no longer) one of
 * the user's notifications gives an empty page: pruning removes the oldest first, so nothing older
 * than a pruned one is left.
 */
export async function listNotifications(
  db: Db,
  userId: string,
  kinds: readonly NotificationKind[],
  limit: number,
  before: string | undefined,
): Promise<Array<Omit<NotificationsTable, 'user_id'>>> {
  if (kinds.length === 0) return [];
  let cursor: { created_at: Date; id: string } | undefined;
  if (before) {
    cursor = await db.selectFrom('notifications').select(['created_at', 'id']).where('user_id', '=', userId).where('id', '=', before).executeTakeFirst();
    if (!cursor) return [];
  }
  let query = db
    .selectFrom('notifications')
    .select(['id', 'kind', 'title', 'body', 'link', 'created_at', 'read_at'])
    .where('user_id', '=', userId)
    .where('kind', 'in', [...kinds]);
  if (cursor) {
    const { created_at: createdAt, id } = cursor;
    query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(createdAt, id)));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Unread notifications of `kinds` the user has. */
export async function unreadCount(db: Db, userId: string, kinds: readonly NotificationKind[]): Promise<number> {
  if (kinds.length === 0) return 0;
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .where('kind', 'in', [...kinds])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Marks the user's notifications `ids` (or all of them, shown or hidden) read; ids of other users'
 * notifications and unknown ids change nothing. Already-read ones keep their read time.
 * @returns how many were marked.
 */
export async function markRead(db: Db, userId: string, which: { all: true } | { ids: readonly string[] }): Promise<number> {
  if ('ids' in which && which.ids.length === 0) return 0;
  let query = db.updateTable('notifications').set({ read_at: sql<Date>`now()` }).where('user_id', '=', userId).where('read_at', 'is', null);
  if ('ids' in which) query = query.where('id', 'in', [...which.ids]);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The user's saved preferences, or {@link DEFAULT_PREFERENCES} when they never saved any. */
export async function getPreferences(db: Db, userId: string): Promise<NotificationPreferences> {
  const row = await db
    .selectFrom('notification_preferences')
    .select(['plan_changes', 'payments', 'credentials', 'connection_limits'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row ?? { ...DEFAULT_PREFERENCES };
}

/** Saves the user's preferences (all four switches). @returns what was stored. */
export async function putPreferences(db: Db, userId: string, prefs: NotificationPreferences): Promise<NotificationPreferences> {
  return db
    .insertInto('notification_preferences')
    .values({ user_id: userId, ...prefs })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ ...prefs, updated_at: sql<Date>`now()` }))
    .returning(['plan_changes', 'payments', 'credentials', 'connection_limits'])
    .executeTakeFirstOrThrow();
}
