/**
 * The signed-in user's account (issue 21), all with a bearer access token:
 *   PATCH /auth/user                      {"name"} → the updated user (same shape as GET /auth/user)
 *   GET   /auth/notifications?limit=&before=   → {notifications: [...], unread}
 *   POST  /auth/notifications/read        {"ids": [...]} | {"all": true} → {unread}
 *   GET   /auth/notification-preferences  → {plan_changes, payments, credentials, connection_limits}
 *   PUT   /auth/notification-preferences  (all four booleans) → the stored value
 * Without a valid session: 401 {"status":401,"message":"No active session"}; bad input: 400
 * {status, code: "invalid_argument", message}. Thin: validation in domain/, storage in db/.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from '@tradewind/lib';
import type { AuthDatabase } from '../db/schema.js';
import type { UserRow } from '../db/users.js';
import { updateUserName } from '../db/users.js';
import { getPreferences, listNotifications, markRead, putPreferences, unreadCount } from '../db/notifications.js';
import { parseProfileUpdate, userJson } from '../domain/user.js';
import { notificationJson, parseListQuery, parsePreferences, parseReadBody, shownKinds } from '../domain/notifications.js';

/** Limits of these routes (from config.ts). */
export interface AccountRouteConfig {
  /** PROFILE_NAME_MAX_CHARS. */
  nameMaxChars: number;
  /** NOTIFICATIONS_PAGE_DEFAULT / NOTIFICATIONS_PAGE_MAX. */
  pageDefault: number;
  pageMax: number;
  /** NOTIFICATIONS_READ_MAX_IDS. */
  readMaxIds: number;
}

export interface AccountRouteDeps {
  db: Kysely<AuthDatabase>;
  config: AccountRouteConfig;
  /** The session behind the request's bearer token (routes.ts), or undefined. */
  currentSession(request: FastifyRequest): Promise<{ user: UserRow } | undefined>;
  /** Answers the spec's 401 body. */
  noSession(reply: FastifyReply): FastifyReply;
}

export function registerAccountRoutes(app: FastifyInstance, deps: AccountRouteDeps): void {
  const { db, config } = deps;

  app.patch('/auth/user', async (request, reply) => {
    const session = await deps.currentSession(request);
    if (!session) return deps.noSession(reply);
    const { name } = parseProfileUpdate(request.body, session.user.email, config.nameMaxChars);
    const updated = await updateUserName(db, session.user.id, name);
    if (!updated) return deps.noSession(reply);
    request.log.info({ user_id: updated.id, request_id: request.id }, 'profile name changed');
    return userJson(updated);
  });

  app.get<{ Querystring: Record<string, unknown> }>('/auth/notifications', async (request, reply) => {
    const session = await deps.currentSession(request);
    if (!session) return deps.noSession(reply);
    const { limit, before } = parseListQuery(request.query, { defaultLimit: config.pageDefault, max: config.pageMax });
    const kinds = shownKinds(await getPreferences(db, session.user.id));
    const [rows, unread] = await Promise.all([listNotifications(db, session.user.id, kinds, limit, before), unreadCount(db, session.user.id, kinds)]);
    void reply.header('cache-control', 'no-store');
    return { notifications: rows.map(notificationJson), unread };
  });

  app.post('/auth/notifications/read', async (request, reply) => {
    const session = await deps.currentSession(request);
    if (!session) return deps.noSession(reply);
    const which = parseReadBody(request.body, config.readMaxIds);
    await markRead(db, session.user.id, which);
    return { unread: await unreadCount(db, session.user.id, shownKinds(await getPreferences(db, session.user.id))) };
  });

  app.get('/auth/notification-preferences', async (request, reply) => {
    const session = await deps.currentSession(request);
    if (!session) return deps.noSession(reply);
    void reply.header('cache-control', 'no-store');
    return getPreferences(db, session.user.id);
  });

  app.put('/auth/notification-preferences', async (request, reply) => {
    const session = await deps.currentSession(request);
    if (!session) return deps.noSession(reply);
    return putPreferences(db, session.user.id, parsePreferences(request.body));
  });
}
