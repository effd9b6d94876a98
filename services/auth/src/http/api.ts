/**
 * auth's public HTTP API as data (issue 23): every route of http/routes.ts, http/account.ts and
 * http/newsletter.ts with zod schemas of its query, body and responses. The OpenAPI document
 * (`GET /api/openapi.json`, scripts/openapi.ts) is built from {@link authApi}; the routes parse
 * token and logout bodies with these schemas, and services/auth/test/openapi.int.test.ts feeds the
 * schemas and the live routes the same inputs and checks that they agree. The hand-written parse
 * functions of domain/ keep the exact messages the product spec pins; the schemas state the same
 * rules. docs/openapi.md.
 */
import { z } from 'zod';
import { AppError, PLAN_IDS, isUuid } from '@tradewind/contracts';
import { DEFAULT_ERROR_RESPONSE, ErrorBodySchema, type ApiDeclaration } from '@tradewind/lib';
import { NOTIFICATION_KINDS } from '@tradewind/contracts/notifications';
import { AuthConfigSchema } from '../config.js';
import { BILLING_PERIODS, SUBSCRIPTION_TYPES } from '../domain/user.js';
import { NEWSLETTER_SOURCES, UNSUBSCRIBE_PAGE_PATH, UNSUBSCRIBE_PATH, normaliseEmail } from '../domain/newsletter.js';

/** The limits the schemas depend on (config keys PROFILE_NAME_MAX_CHARS, NOTIFICATIONS_PAGE_MAX, NOTIFICATIONS_READ_MAX_IDS). */
export interface AuthApiLimits {
  nameMaxChars: number;
  pageMax: number;
  readMaxIds: number;
}

/** The limits' defaults, read from config.ts's schema (what the published document states). */
export const DEFAULT_AUTH_API_LIMITS: AuthApiLimits = {
  nameMaxChars: AuthConfigSchema.shape.PROFILE_NAME_MAX_CHARS.parse(undefined),
  pageMax: AuthConfigSchema.shape.NOTIFICATIONS_PAGE_MAX.parse(undefined),
  readMaxIds: AuthConfigSchema.shape.NOTIFICATIONS_READ_MAX_IDS.parse(undefined),
};

const IsoTime = z.string().describe('ISO 8601 time (UTC)');
const PlanIdSchema = z.enum(PLAN_IDS).describe('Plan id (services/lib plans catalogue)');

/** The user as every auth API returns it (domain/user.ts userJson). */
export const UserSchema = z
  .object({
    id: z.string().describe('User id (UUID)'),
    email: z.string(),
    name: z.string(),
    avatar_url: z.string().describe('Avatar URL from the identity provider, or empty'),
    plan: PlanIdSchema,
    metadata: z.object({
      tier: PlanIdSchema,
      billing_period: z.enum(BILLING_PERIODS as ['indefinite', 'monthly', 'yearly']),
      subscription_status: z.string().describe('Stripe subscription status, e.g. active, trialing, past_due, canceled'),
      subscription_type: z.enum(SUBSCRIPTION_TYPES),
      trial_end_date: IsoTime.nullable(),
    }),
    created_at: IsoTime,
  })
  .describe('A Tradewind user');

/** The session object of the product spec (routes.ts SessionJson). */
export const SessionSchema = z
  .object({
    access_token: z.string().describe('ES256 JWT; send as Authorization: Bearer'),
    refresh_token: z.string().describe('Opaque; single use (rotated by every POST /auth/token)'),
    expires_in: z.int().describe('Seconds until the access token expires'),
    expires_at: z.int().describe('Unix seconds when the access token expires'),
    token_type: z.literal('bearer'),
    user: UserSchema,
  })
  .describe('A signed-in session');

/** A JSON Web Key Set (RFC 7517 §5) of the access tokens' public keys. */
export const JwksSchema = z
  .object({
    keys: z.array(z.looseObject({ kty: z.string(), kid: z.string().optional(), alg: z.string().optional(), use: z.string().optional() })),
  })
  .describe('JSON Web Key Set (RFC 7517)');

/** One notification (domain/notifications.ts notificationJson). */
export const NotificationSchema = z.object({
  id: z.string().describe('UUID'),
  kind: z.enum(NOTIFICATION_KINDS),
  title: z.string(),
  body: z.string(),
  created_at: IsoTime,
  read_at: IsoTime.nullable(),
  link: z.string().nullable().describe('An app path or an https URL'),
});

/** The four switches of the notification preferences, exactly (domain/notifications.ts parsePreferences). */
export const NotificationPreferencesSchema = z
  .strictObject({
    plan_changes: z.boolean(),
    payments: z.boolean(),
    credentials: z.boolean(),
    connection_limits: z.boolean(),
  })
  .describe('Which kinds of notification the bell shows');

/** `{refresh_token?}`: the body of POST /auth/token and POST /auth/logout (else the tw_refresh cookie is used). */
export const RefreshBodySchema = z.object({
  refresh_token: z.string().optional().describe('The refresh token; without it the tw_refresh cookie is used'),
});

/** `?tier=&period=&login_hint=` of GET /auth/login (domain/user.ts parsePendingPlan). */
export const LoginQuerySchema = z
  .object({
    tier: z
      .union([PlanIdSchema, z.literal('')])
      .optional()
      .describe('Plan picked on the pricing page; after sign-in the browser goes to /payment for a paid one'),
    period: z.enum(['monthly', 'yearly', '']).optional().describe('Billing period of tier (default monthly); only with tier'),
    login_hint: z.string().optional().describe('E-mail address suggested to the identity provider'),
  })
  .refine((q) => !(q.period && !q.tier), { message: 'period was given without a tier', path: ['period'] });

/** `?code&state` (or `?error&error_description`) of GET /auth/callback: what the identity provider sends back. */
export const CallbackQuerySchema = z.object({
  code: z.string().optional(),
  state: z.string().optional(),
  error: z.string().optional().describe('OAuth 2.0 error code (RFC 6749 §4.1.2.1)'),
  error_description: z.string().optional(),
});

/**
 * The PATCH /auth/user body for a name limit of `maxChars` (domain/user.ts parseProfileUpdate).
 * With `currentEmail` (the signed-in user's), `email` is accepted only when equal to it
 * (case-insensitive, trimmed); the published document describes the rule in words.
 */
export function profileUpdateSchema(maxChars: number, currentEmail?: string) {
  return z
    .strictObject({
      name: z
        .string()
        .refine(
          (s) => {
            const name = s.trim();
            const chars = [...name].length;
            return chars >= 1 && chars <= maxChars && !/\p{Cc}/u.test(name);
          },
          { message: `Name must be 1–${maxChars} characters` },
        )
        .meta({ minLength: 1, maxLength: maxChars, description: `Display name, trimmed: 1–${maxChars} characters, no control characters` }),
      email: z
        .string()
        .refine((v) => currentEmail === undefined || v.trim().toLowerCase() === currentEmail.toLowerCase())
        .optional()
        .describe("Only accepted when equal to the account's address (it cannot be changed)"),
    })
    .describe('Profile update');
}

/** `?limit=&before=` of GET /auth/notifications (domain/notifications.ts parseListQuery). */
export function notificationsQuerySchema(pageMax: number) {
  return z.object({
    limit: z
      .string()
      .refine((v) => v === '' || (/^\d{1,6}$/.test(v) && Number(v) >= 1 && Number(v) <= pageMax))
      .optional()
      .meta({ pattern: '^[0-9]*$', description: `Page size, an integer from 1 to ${pageMax} (default NOTIFICATIONS_PAGE_DEFAULT, 20)` }),
    before: z
      .string()
      .refine((v) => v === '' || isUuid(v))
      .optional()
      .describe('Id of the last notification of the previous page'),
  });
}

/** The POST /auth/notifications/read body for at most `maxIds` ids (domain/notifications.ts parseReadBody). */
export function readBodySchema(maxIds: number) {
  return z
    .union([
      z.strictObject({ ids: z.array(z.string()).max(maxIds).describe('Notification ids; unknown ids are ignored') }),
      z.strictObject({ all: z.literal(true) }),
    ])
    .describe('Which notifications to mark read');
}

/** The POST /api/newsletter body (http/newsletter.ts). */
export const NewsletterBodySchema = z.object({
  email: z
    .string()
    .refine((v) => normaliseEmail(v) !== undefined, { message: 'Enter a valid e-mail address.' })
    .meta({ format: 'email', maxLength: 254 }),
  source: z.enum(NEWSLETTER_SOURCES).nullable().optional().describe('Where the sign-up comes from (default blog)'),
});

/**
 * `?token=` of the one-click unsubscribe link (http/newsletter.ts): the shape of a token
 * (domain/newsletter.ts unsubscribeToken, two base64url halves of 32 bytes). A well-formed token whose
 * MAC does not verify is refused too (400 invalid_unsubscribe_token), which no schema can state.
 */
export const UnsubscribeQuerySchema = z.object({
  token: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/)
    .describe('The token of the link in the mail: base64url(sha256(address)) "." base64url(HMAC-SHA256)'),
});

/** The answer of POST /api/newsletter/unsubscribe. */
export const UnsubscribedSchema = z.object({ unsubscribed: z.literal(true) }).describe('The address is not on the list (any more)');

const NO_SESSION = { description: 'No valid session: exactly {"status":401,"message":"No active session"}', body: ErrorBodySchema } as const;
const BAD_INPUT = { description: 'Invalid input: {status: 400, code: "invalid_argument", message}', body: ErrorBodySchema } as const;
const REDIRECT = { Location: 'Where the browser goes next' };

/**
 * auth's declaration for limits `limits` (default: the config defaults). Responses reuse the
 * shared ErrorBody; redirects have no body.
 */
export function authApi(limits: AuthApiLimits = DEFAULT_AUTH_API_LIMITS): ApiDeclaration {
  return {
    service: 'auth',
    tag: { name: 'auth', description: 'Sign-in, sessions, the user and their notifications (services/auth)' },
    components: {
      User: UserSchema,
      Session: SessionSchema,
      Jwks: JwksSchema,
      Notification: NotificationSchema,
      NotificationPreferences: NotificationPreferencesSchema,
      RefreshBody: RefreshBodySchema,
      NewsletterBody: NewsletterBodySchema,
    },
    defaultResponse: DEFAULT_ERROR_RESPONSE,
    routes: [
      {
        method: 'get',
        path: '/auth/login',
        operationId: 'signIn',
        summary: 'Start sign-in (browser redirect to the identity provider)',
        security: [],
        query: LoginQuerySchema,
        description:
          'Sets the tw_oauth_state cookie and redirects to Google (or the local provider). An invalid tier or period redirects to /login?error=invalid_plan&error_description=….',
        responses: {
          302: {
            description: 'To the identity provider, or to /login?error=invalid_plan',
            headers: { ...REDIRECT, 'Set-Cookie': 'tw_oauth_state (HttpOnly, 10 min)' },
          },
        },
      },
      {
        method: 'get',
        path: '/auth/callback',
        operationId: 'signInCallback',
        summary: 'Finish sign-in (the identity provider redirects here)',
        security: [],
        query: CallbackQuerySchema,
        description:
          'Exchanges the code, creates or updates the user and a session (refresh cookie), then redirects to /dashboard or /payment?tier=&period=; any failure redirects to /login?error=&error_description=.',
        responses: {
          302: {
            description: 'To /dashboard, /payment?tier=&period= or /login?error=…',
            headers: { ...REDIRECT, 'Set-Cookie': 'tw_refresh (HttpOnly, path /auth)' },
          },
        },
      },
      {
        method: 'post',
        path: '/auth/token',
        operationId: 'refreshSession',
        summary: 'Rotate the refresh token and issue a new access token',
        security: ['refreshCookie'],
        authOptional: true,
        description:
          'The refresh token comes from the body or the tw_refresh cookie. Presenting an already-rotated token revokes the session (401 code unauthenticated).',
        body: { schema: RefreshBodySchema, required: false },
        responses: {
          200: {
            description: 'The new session; the cookie is rotated too',
            body: SessionSchema,
            headers: { 'Set-Cookie': 'tw_refresh (HttpOnly, path /auth)' },
          },
          400: BAD_INPUT,
          401: {
            description: 'No, an unknown or an expired refresh token ("No active session"), or a reused one (code unauthenticated)',
            body: ErrorBodySchema,
          },
        },
      },
      {
        method: 'get',
        path: '/auth/session',
        operationId: 'getSession',
        summary: 'The current session and user',
        security: ['bearer'],
        responses: {
          200: {
            description: 'The user and the session',
            body: z.object({ user: UserSchema, session: z.object({ id: z.string(), created_at: IsoTime, expires_at: IsoTime }) }),
          },
          401: NO_SESSION,
        },
      },
      {
        method: 'get',
        path: '/auth/user',
        operationId: 'getUser',
        summary: 'The signed-in user',
        security: ['bearer'],
        responses: { 200: { description: 'The user', body: UserSchema }, 401: NO_SESSION },
      },
      {
        method: 'patch',
        path: '/auth/user',
        operationId: 'updateUser',
        summary: 'Change the display name',
        security: ['bearer'],
        body: { schema: profileUpdateSchema(limits.nameMaxChars), required: true },
        responses: { 200: { description: 'The updated user', body: UserSchema }, 400: BAD_INPUT, 401: NO_SESSION },
      },
      {
        method: 'post',
        path: '/auth/logout',
        operationId: 'logout',
        summary: 'Revoke the session',
        security: ['bearer', 'refreshCookie'],
        authOptional: true,
        description: "The session is the bearer token's, else the refresh token's (body or cookie).",
        body: { schema: RefreshBodySchema, required: false },
        responses: { 204: { description: 'Revoked; the cookie is cleared' }, 400: BAD_INPUT, 401: NO_SESSION },
      },
      {
        method: 'get',
        path: '/auth/provider',
        operationId: 'getIdentityProvider',
        summary: 'Which identity provider signs users in',
        security: [],
        responses: {
          200: { description: 'The provider', body: z.object({ provider: z.enum(['google', 'local-oidc']), label: z.string(), local: z.boolean() }) },
        },
      },
      {
        method: 'get',
        path: '/auth/.well-known/jwks.json',
        operationId: 'getJwks',
        summary: 'Public keys of access tokens',
        security: [],
        responses: { 200: { description: 'The key set (cached 5 min)', body: JwksSchema } },
      },
      {
        method: 'get',
        path: '/auth/notifications',
        operationId: 'listNotifications',
        summary: 'The notification bell: newest first, one page',
        security: ['bearer'],
        query: notificationsQuerySchema(limits.pageMax),
        responses: {
          200: {
            description: 'A page of notifications of the kinds the preferences show, and the unread count',
            body: z.object({ notifications: z.array(NotificationSchema), unread: z.int().min(0) }),
          },
          400: BAD_INPUT,
          401: NO_SESSION,
        },
      },
      {
        method: 'post',
        path: '/auth/notifications/read',
        operationId: 'markNotificationsRead',
        summary: 'Mark notifications read',
        security: ['bearer'],
        body: { schema: readBodySchema(limits.readMaxIds), required: true },
        responses: { 200: { description: 'The unread count after the change', body: z.object({ unread: z.int().min(0) }) }, 400: BAD_INPUT, 401: NO_SESSION },
      },
      {
        method: 'get',
        path: '/auth/notification-preferences',
        operationId: 'getNotificationPreferences',
        summary: 'Which kinds of notification are shown',
        security: ['bearer'],
        responses: { 200: { description: 'The preferences (all true until saved)', body: NotificationPreferencesSchema }, 401: NO_SESSION },
      },
      {
        method: 'put',
        path: '/auth/notification-preferences',
        operationId: 'putNotificationPreferences',
        summary: 'Save which kinds of notification are shown',
        security: ['bearer'],
        body: { schema: NotificationPreferencesSchema, required: true },
        responses: { 200: { description: 'The stored preferences', body: NotificationPreferencesSchema }, 400: BAD_INPUT, 401: NO_SESSION },
      },
      {
        method: 'post',
        path: '/api/newsletter',
        operationId: 'subscribeNewsletter',
        summary: 'Subscribe an address to the newsletter',
        security: [],
        body: { schema: NewsletterBodySchema, required: true },
        responses: {
          201: {
            description: 'Subscribed',
            body: z.object({ subscribed: z.literal(true), email: z.string().describe('The address, trimmed and lower-cased') }),
          },
          200: { description: 'Already subscribed (same body)', body: z.object({ subscribed: z.literal(true), email: z.string() }) },
          400: { description: 'code invalid_email ("Enter a valid e-mail address.") or invalid_argument', body: ErrorBodySchema },
          429: { description: 'code rate_limited: too many attempts from this address', body: ErrorBodySchema, headers: { 'Retry-After': 'Seconds to wait' } },
        },
      },
      {
        method: 'post',
        path: UNSUBSCRIBE_PATH,
        operationId: 'unsubscribeNewsletter',
        summary: 'Remove an address from the newsletter (one-click link, RFC 8058)',
        security: [],
        query: UnsubscribeQuerySchema,
        description:
          'The link every newsletter mail carries in its List-Unsubscribe header (with List-Unsubscribe-Post: List-Unsubscribe=One-Click) and body. The mail provider POSTs to it with the body List-Unsubscribe=One-Click; any body is accepted and ignored. Deletes the address and its hash. Idempotent: an address no longer on the list answers the same. No sign-in, no cookie: the token is the proof.',
        body: {
          schema: z.object({ 'List-Unsubscribe': z.literal('One-Click').optional() }),
          required: false,
          contentType: 'application/x-www-form-urlencoded',
          description: 'RFC 8058 §3.2: List-Unsubscribe=One-Click (or multipart/form-data, or nothing); ignored',
        },
        responses: {
          200: { description: 'Unsubscribed (also when the address was not on the list any more)', body: UnsubscribedSchema },
          400: {
            description: 'code invalid_unsubscribe_token: the token is missing, damaged or changed; the message says which',
            body: ErrorBodySchema,
          },
        },
      },
      {
        method: 'get',
        path: UNSUBSCRIBE_PATH,
        operationId: 'openNewsletterUnsubscribePage',
        summary: 'Follow the unsubscribe link in a browser: redirect to the page that asks first',
        security: [],
        query: UnsubscribeQuerySchema,
        description: `Changes nothing (mail scanners follow links): redirects to the web page ${UNSUBSCRIBE_PAGE_PATH}?token=…, whose button POSTs to this path.`,
        responses: { 303: { description: `To ${UNSUBSCRIBE_PAGE_PATH}?token=… (the same token)`, headers: REDIRECT } },
      },
    ],
  };
}

/**
 * The refresh token of a POST /auth/token or /auth/logout body, validated with
 * {@link RefreshBodySchema}: undefined without a body or without the field.
 * @throws AppError('invalid_argument') "refresh_token must be a string" for an object whose
 *   refresh_token is not a string, and a usage message for any other non-object body.
 */
export function parseRefreshBody(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  const parsed = RefreshBodySchema.safeParse(body);
  if (parsed.success) return parsed.data.refresh_token;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) throw new AppError('invalid_argument', 'refresh_token must be a string');
  throw new AppError('invalid_argument', 'Send a JSON object {"refresh_token": "..."} or no body');
}
