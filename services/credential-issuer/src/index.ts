/** Public surface of @tradewind/credential-issuer, used by scripts and other services' tests. */
export {
  ensureNatsIdentities,
  loadNatsIdentities,
  keyPairFromSeed,
  customerAccountName,
  type NatsIdentities,
  type StoredAccount,
  type StoredKey,
} from './domain/identities.js';
export { issueUserCredentials, wsUrlFromNatsUrl, type UserCredentials } from './domain/credentials.js';
export { renderNatsServerConfig, renderNatsAuthConfig, NATS_CONFIG_TEMPLATE, type NatsServerSettings } from './domain/nats-server-config.js';
export { createApp, pushAccountClaims, type CredentialIssuerDeps } from './app.js';
export { createCredentialService, type CredentialService, type NatsCredentialsView, type PlanChange } from './service.js';
export { REPLAY_API_PREFIX, ensureReplayMirror, replayConsumerName } from './domain/replay.js';
export { createSeedCipher, generateSeedKey, parseSeedKey, type SeedCipher } from './domain/seed-cipher.js';
export { CREDENTIAL_ISSUER_SCHEMA, credentialIssuerMigrations } from './db/migrations.js';
export type { CredentialIssuerDatabase } from './db/schema.js';
export { FAILURE_MESSAGES } from './http/routes.js';
export { loadCredentialIssuerConfig, CredentialIssuerConfigSchema, type CredentialIssuerConfig } from './config.js';
export {
  encodeCustomerAccount,
  encodeCustomerUser,
  newCustomerAccountKey,
  pushAccountJwt,
  reauthorize,
  type CustomerAccountSpec,
} from './domain/customer-accounts.js';
export { createUsageConsumer, USAGE_CONSUMER } from './events/usage-consumer.js';
export { createNatsUsage, addUsage, type NatsUsage, type ServerSample, type PollResult } from './usage/nats-usage.js';
export { counterDelta, usageDays, utcDay } from './domain/usage.js';
