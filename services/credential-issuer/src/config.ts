/** credential-issuer configuration; every key has a local default. */
import { z } from 'zod';
import { CommonConfig, NonNegativeNumber, Port, loadConfig, urlWithScheme } from '@tradewind/lib';

export const CredentialIssuerConfigSchema = CommonConfig.extend({
  ADMIN_PORT: Port.default(9302),
  /** Directory holding the operator/account keys (`<dir>/nats/identities.json`); a Kubernetes secret mount in production. */
  TRADEWIND_STATE_DIR: z.string().min(1).default('.tradewind'),
  /** Where the services reach NATS. */
  NATS_URL: urlWithScheme(['nats', 'tls']).default('nats://127.0.0.1:4223'),
  /** The NATS URL handed to subscribers (their `nats_connection`); the WebSocket URL is derived from it. */
  NATS_PUBLIC_URL: urlWithScheme(['nats', 'tls']).default('nats://localhost:4223'),
  /** Lifetime of issued user JWTs in seconds; 0 = no expiry (rotation revokes instead). Default 365 days. */
  CREDENTIALS_TTL_SECONDS: NonNegativeNumber.default(365 * 24 * 3600),
});

export type CredentialIssuerConfig = z.infer<typeof CredentialIssuerConfigSchema>;

/** Parses the environment. @throws ConfigError listing every bad key. */
export function loadCredentialIssuerConfig(env: NodeJS.ProcessEnv = process.env): Readonly<CredentialIssuerConfig> {
  return loadConfig(CredentialIssuerConfigSchema, env);
}
