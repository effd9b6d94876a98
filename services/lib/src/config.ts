/**
 * Environment configuration helpers. Each service declares one zod schema;
 * {@link loadConfig} parses `process.env` once, reports every bad key at once
 * and returns a frozen, typed object. Nothing else reads `process.env`.
 */
import { z } from 'zod';
import { ConfigError } from './errors.js';

/** Log levels accepted by pino. */
export const LogLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** A TCP port 0–65535 given as a decimal string (0 = pick a free port). */
export const Port = z.coerce.number().int().min(0).max(65535);

/** A positive integer given as a decimal string. */
export const PositiveInt = z.coerce.number().int().positive();

/** A non-negative number given as a decimal string. */
export const NonNegativeNumber = z.coerce.number().nonnegative();

/** A URL whose scheme is one of `schemes` (without the colon), e.g. `['nats', 'tls']`. */
export function urlWithScheme(schemes: readonly string[]) {
  return z.string().refine((value) => {
    try {
      return schemes.includes(new URL(value).protocol.replace(/:$/, ''));
    } catch {
      return false;
    }
  }, { message: `must be a URL with scheme ${schemes.map((s) => `${s}://`).join(' or ')}` });
}

/** An optional non-empty string; an empty variable (`KEY=`) counts as unset. */
export const optionalString = z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional());

/** An optional URL with one of `schemes`; an empty variable counts as unset. */
export function optionalUrl(schemes: readonly string[]) {
  return z.preprocess((v) => (v === '' ? undefined : v), urlWithScheme(schemes).optional());
}

/** Fields every service shares: `LOG_LEVEL` (default info) and `ADMIN_PORT` (metrics/health, 0 = any free port). */
export const CommonConfig = z.object({
  LOG_LEVEL: LogLevel.default('info'),
  ADMIN_PORT: Port,
});

/**
 * Parses `env` with `schema`.
 * @returns the parsed value, frozen.
 * @throws ConfigError listing every bad key as `KEY: reason (got "value")` — secrets are never echoed.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): Readonly<z.infer<S>> {
  const result = schema.safeParse(env);
  if (result.success) return Object.freeze(result.data) as Readonly<z.infer<S>>;
  const problems = result.error.issues.map((issue) => {
    const key = issue.path.join('.');
    const raw = env[key];
    const shown = raw === undefined ? 'unset' : /SECRET|SEED|KEY|PASSWORD|TOKEN|CREDS/i.test(key) ? 'hidden' : JSON.stringify(withoutUserinfo(raw));
    return `${key}: ${issue.message} (got ${shown})`;
  });
  throw new ConfigError(problems);
}

/** `raw` with any `user:password@` part of a URL masked, so a bad DATABASE_URL never echoes its password. */
function withoutUserinfo(raw: string): string {
  return raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1***@');
}
