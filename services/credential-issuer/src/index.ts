/** Public surface of @tradewind/credential-issuer, used by scripts and other services' tests. */
export { ensureNatsIdentities, loadNatsIdentities, keyPairFromSeed, customerAccountName, type NatsIdentities, type StoredAccount, type StoredKey } from './domain/identities.js';
export { issueUserCredentials, wsUrlFromNatsUrl, type UserCredentials } from './domain/credentials.js';
export { renderNatsServerConfig, NATS_CONFIG_TEMPLATE, type NatsServerSettings } from './domain/nats-server-config.js';
export { startLocalNats, NATS_SERVER_BIN, type LocalNats } from './local-nats.js';
export { createApp, pushAccountClaims, ISSUE_SUBJECT } from './app.js';
export { loadCredentialIssuerConfig, CredentialIssuerConfigSchema, type CredentialIssuerConfig } from './config.js';
export {
  encodeCustomerAccount, encodeCustomerUser, newCustomerAccountKey, pushAccountJwt, reauthorize, type CustomerAccountSpec,
} from './domain/customer-accounts.js';
