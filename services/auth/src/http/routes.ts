/**
 * The public HTTP API under `/auth` (reached through the ingress at PUBLIC_URL):
 *   GET  /auth/login?tier=&period=     start sign-in → 302 to the provider (Google or the local provider)
 *   GET  /auth/callback?code&state     finish sign-in → 302 to /dashboard or /payment?tier=&period=
 *                                       (errors → 302 /login?error=&error_description=)
 *   POST /auth/token                    refresh: rotates the refresh token (cookie or JSON body) → session
 *   GET  /auth/session                  the current session (bearer access token) → {user, session}
 *   GET  /auth/user                     the current user (bearer access token)
 *   POST /auth/logout                   revokes the session (bearer token, refresh cookie or body) → 204
 *   GET  /auth/provider                 which identity provider is configured, with its label
 *   GET  /auth/.well-known/jwks.json    public keys of access tokens
 * plus the account routes (http/account.ts: profile name, notifications, notification preferences)
 * and POST /api/newsletter with its one-click unsubscribe link, GET and POST /api/newsletter/unsubscribe
 * (http/newsletter.ts).
 * Authenticated calls without a valid session answer 401 {"status":401,"message":"No active session"}.
 * Every route, with its schemas, is declared in http/api.ts (the source of GET /api/openapi.json).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';
import { AppError } from '@tradewind/contracts';
import { NO_ACTIVE_SESSION, bearerToken, verifyAccessToken, type Kysely, type Logger, type OutboxRelay } from '@tradewind/lib';
import type { AuthDatabase } from '../db/schema.js';
import { saveLoginAttempt, takeLoginAttempt } from '../db/login-attempts.js';
import { upsertUserOnSignIn } from '../db/users.js';
import { RefreshTokenReuseError, activeSession, createSession, revokeSession, rotateRefreshToken, sessionOfRefreshToken } from '../db/sessions.js';
import { destinationAfterSignIn, oauthErrorReason, parsePendingPlan, userJson, type PendingPlan, type UserJson } from '../domain/user.js';
import { randomToken, signAccessToken } from '../domain/tokens.js';
import type { SigningKey } from '../domain/signing-key.js';
import type { IdentityProvider } from '../domain/identity-provider.js';
import type { UserRow } from '../db/users.js';
import type { Counter } from 'prom-client';
import { registerAccountRoutes, type AccountRouteConfig } from './account.js';
import { registerNewsletterRoutes } from './newsletter.js';
import { parseRefreshBody } from './api.js';

/** Cookie holding the refresh token (HttpOnly, path /auth). */
export const REFRESH_COOKIE = 'tw_refresh';
/** Cookie binding a started sign-in to this browser (HttpOnly, path /auth, 10 min). */
export const STATE_COOKIE = 'tw_oauth_state';

/** The session object of the product spec. `expires_at` is seconds since the epoch, `expires_in` seconds. */
export interface SessionJson {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  expires_at: number;
  token_type: 'bearer';
  user: UserJson;
}

export interface RouteDeps {
  db: Kysely<AuthDatabase>;
  key: SigningKey;
  provider: IdentityProvider;
  relay: OutboxRelay;
  logger: Logger;
  signIns: Counter<'outcome'>;
  refreshes: Counter<'outcome'>;
  /** Users created by a sign-in, counted once their transaction (with user.created) committed. */
  usersCreated: Counter;
  /** Newsletter sign-ups by outcome (subscribed, already_subscribed, invalid, rate_limited). */
  newsletterSignups: Counter<'outcome'>;
  /** One-click unsubscribes by outcome (unsubscribed, not_subscribed, invalid_token). */
  newsletterUnsubscribes: Counter<'outcome'>;
  config: {
    publicUrl: string;
    issuer: string;
    accessTokenTtlSeconds: number;
    refreshTokenTtlSeconds: number;
    loginAttemptTtlSeconds: number;
    account: AccountRouteConfig;
    /** NEWSLETTER_RATE_LIMIT_PER_MINUTE. */
    newsletterPerMinute: number;
    /** HMAC key of the unsubscribe tokens (domain/newsletter.ts newsletterUnsubscribeKey). */
    newsletterUnsubscribeKey: Uint8Array;
  };
}

/** 401 with exactly the product spec's body. */
function noSession(reply: FastifyReply): FastifyReply {
  return reply.status(401).send({ status: 401, message: NO_ACTIVE_SESSION });
}

export function registerRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { config } = deps;
  const secure = config.publicUrl.startsWith('https:');
  const cookieBase = { httpOnly: true, secure, sameSite: 'lax' as const, path: '/auth' };

  const loginRedirect = (error: string, description?: string) =>
    `${config.publicUrl}/login?${new URLSearchParams({ error, error_description: oauthErrorReason(error, description) }).toString()}`;

  async function issueSession(reply: FastifyReply, user: UserRow, sessionId: string, refreshToken: string): Promise<SessionJson> {
    const { token, expiresAt } = await signAccessToken(
      deps.key,
      config.issuer,
      { userId: user.id, sessionId, email: user.email, plan: user.tier as UserJson['plan'] },
      config.accessTokenTtlSeconds,
    );
    reply.setCookie(REFRESH_COOKIE, refreshToken, { ...cookieBase, maxAge: config.refreshTokenTtlSeconds });
    return {
      access_token: token,
      refresh_token: refreshToken,
      expires_in: config.accessTokenTtlSeconds,
      expires_at: expiresAt,
      token_type: 'bearer',
      user: userJson(user),
    };
  }

  /** The session behind the request's bearer token, checked against the database (so logout is immediate here). */
  async function currentSession(request: FastifyRequest) {
    const token = bearerToken(request.headers.authorization);
    if (!token) return undefined;
    try {
      const claims = await verifyAccessToken(token, deps.key.publicKey, config.issuer);
      const session = await activeSession(deps.db, claims.sessionId);
      return session && session.user.id === claims.userId ? session : undefined;
    } catch (err) {
      if (err instanceof AppError && err.code === 'unauthenticated') return undefined;
      throw err;
    }
  }

  app.get('/auth/.well-known/jwks.json', async (_request, reply) => {
    void reply.header('cache-control', 'public, max-age=300');
    return deps.key.jwks;
  });

  app.get('/auth/provider', async () => ({ provider: deps.provider.name, label: deps.provider.label, local: deps.provider.name === 'local-oidc' }));

  app.get<{ Querystring: Record<string, string | undefined> }>('/auth/login', async (request, reply) => {
    let pending: PendingPlan | undefined;
    try {
      pending = parsePendingPlan(request.query.tier, request.query.period);
    } catch (err) {
      deps.signIns.inc({ outcome: 'invalid_plan' });
      return reply.redirect(loginRedirect('invalid_plan', (err as Error).message), 302);
    }
    const state = randomToken();
    const nonce = randomToken();
    const { codeVerifier, codeChallenge } = await deps.provider.pkce();
    await saveLoginAttempt(deps.db, { state, nonce, codeVerifier, pending, ttlSeconds: config.loginAttemptTtlSeconds });
    reply.setCookie(STATE_COOKIE, state, { ...cookieBase, maxAge: config.loginAttemptTtlSeconds });
    void reply.header('cache-control', 'no-store');
    return reply.redirect(deps.provider.authorizationUrl({ state, nonce, codeChallenge, loginHint: request.query.login_hint }), 302);
  });

  app.get<{ Querystring: Record<string, string | undefined> }>('/auth/callback', async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    const { code, state, error, error_description: errorDescription } = request.query;
    const cookieState = request.cookies[STATE_COOKIE];
    reply.clearCookie(STATE_COOKIE, cookieBase);
    if (error) {
      if (state) await takeLoginAttempt(deps.db, state);
      deps.signIns.inc({ outcome: error === 'access_denied' ? 'cancelled' : 'provider_error' });
      return reply.redirect(loginRedirect(error.slice(0, 64), errorDescription?.slice(0, 200)), 302);
    }
    if (!code || !state || !cookieState || cookieState !== state) {
      deps.signIns.inc({ outcome: 'invalid_state' });
      return reply.redirect(loginRedirect('invalid_state'), 302);
    }
    const attempt = await takeLoginAttempt(deps.db, state);
    if (!attempt) {
      deps.signIns.inc({ outcome: 'invalid_state' });
      return reply.redirect(loginRedirect('invalid_state'), 302);
    }
    let identity;
    try {
      identity = await deps.provider.exchange(code, attempt.code_verifier, attempt.nonce);
    } catch (err) {
      const appErr = err instanceof AppError ? err : new AppError('internal', String(err));
      deps.logger.warn({ err, request_id: request.id }, 'sign-in code exchange failed');
      deps.signIns.inc({ outcome: appErr.code === 'unavailable' ? 'provider_unavailable' : 'rejected' });
      return reply.redirect(loginRedirect(appErr.code === 'unavailable' ? 'temporarily_unavailable' : 'invalid_grant', appErr.message), 302);
    }
    const { user, created } = await upsertUserOnSignIn(deps.db, identity, request.id);
    if (created) {
      deps.usersCreated.inc();
      deps.relay.kick();
    }
    const { sessionId, refreshToken } = await createSession(deps.db, user.id, config.refreshTokenTtlSeconds, request.headers['user-agent'] ?? '');
    await issueSession(reply, user, sessionId, refreshToken);
    deps.signIns.inc({ outcome: created ? 'new_user' : 'returning_user' });
    request.log.info({ user_id: user.id, created, request_id: request.id }, 'signed in');
    const pending = attempt.tier ? { tier: attempt.tier as PendingPlan['tier'], period: (attempt.period ?? 'monthly') as PendingPlan['period'] } : undefined;
    return reply.redirect(`${config.publicUrl}${destinationAfterSignIn(pending)}`, 302);
  });

  app.post('/auth/token', async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    const presented = parseRefreshBody(request.body) ?? request.cookies[REFRESH_COOKIE];
    if (!presented) {
      deps.refreshes.inc({ outcome: 'missing' });
      return noSession(reply);
    }
    try {
      const { sessionId, refreshToken, user } = await rotateRefreshToken(deps.db, presented, config.refreshTokenTtlSeconds);
      deps.refreshes.inc({ outcome: 'rotated' });
      return await issueSession(reply, user, sessionId, refreshToken);
    } catch (err) {
      if (err instanceof RefreshTokenReuseError) {
        deps.refreshes.inc({ outcome: 'reuse_detected' });
        request.log.warn({ request_id: request.id }, 'refresh token reuse detected; session revoked');
        reply.clearCookie(REFRESH_COOKIE, cookieBase);
        return reply.status(401).send({ status: 401, code: 'unauthenticated', message: err.message });
      }
      if (err instanceof AppError && err.code === 'unauthenticated') {
        deps.refreshes.inc({ outcome: 'rejected' });
        reply.clearCookie(REFRESH_COOKIE, cookieBase);
        return noSession(reply);
      }
      throw err;
    }
  });

  app.get('/auth/session', async (request, reply) => {
    const session = await currentSession(request);
    if (!session) return noSession(reply);
    return {
      user: userJson(session.user),
      session: { id: session.sessionId, created_at: session.createdAt.toISOString(), expires_at: session.expiresAt.toISOString() },
    };
  });

  app.get('/auth/user', async (request, reply) => {
    const session = await currentSession(request);
    if (!session) return noSession(reply);
    return userJson(session.user);
  });

  app.post('/auth/logout', async (request, reply) => {
    const fromBody = parseRefreshBody(request.body);
    let sessionId = (await currentSession(request))?.sessionId;
    if (!sessionId) {
      const presented = fromBody ?? request.cookies[REFRESH_COOKIE];
      if (presented) sessionId = await sessionOfRefreshToken(deps.db, presented);
    }
    reply.clearCookie(REFRESH_COOKIE, cookieBase);
    if (!sessionId || !(await revokeSession(deps.db, sessionId, 'logout'))) return noSession(reply);
    return reply.status(204).send();
  });

  registerAccountRoutes(app, { db: deps.db, config: config.account, currentSession, noSession });
  registerNewsletterRoutes(app, {
    db: deps.db,
    perMinute: config.newsletterPerMinute,
    signups: deps.newsletterSignups,
    unsubscribes: deps.newsletterUnsubscribes,
    unsubscribeKey: config.newsletterUnsubscribeKey,
    publicUrl: config.publicUrl,
  });
}
