/** Public surface of @tradewind/auth, for tests and the start script. */
export { createApp, accessTokenIssuer, type AuthDeps } from './app.js';
export { loadAuthConfig, AuthConfigSchema, type AuthConfig } from './config.js';
export { AUTH_SCHEMA, authMigrations } from './db/migrations.js';
export type { AuthDatabase } from './db/schema.js';
export { REFRESH_COOKIE, STATE_COOKIE, type SessionJson } from './http/routes.js';
export type { UserJson } from './domain/user.js';
export { createIdentityProvider, type IdentityProvider, type VerifiedIdentity } from './domain/identity-provider.js';
/** What a mailer needs for the newsletter's one-click unsubscribe link and its headers (docs/auth.md "Unsubscribe"). */
export {
  newsletterUnsubscribeKey,
  unsubscribeLink,
  unsubscribeToken,
  verifyUnsubscribeToken,
  emailHash,
  UNSUBSCRIBE_PATH,
  UNSUBSCRIBE_PAGE_PATH,
  LIST_UNSUBSCRIBE_POST,
  INVALID_UNSUBSCRIBE_TOKEN_CODE,
} from './domain/newsletter.js';
