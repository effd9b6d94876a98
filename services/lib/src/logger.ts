/**
 * pino JSON logging with the fields docs/style.md §6 requires (`service`, `version`)
 * and redaction of credentials, so seeds and tokens never reach a log line.
 */
import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Paths redacted from every log line: authorization headers, cookies, JWTs, NKey seeds, secrets. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'jwt',
  'nkey',
  'seed',
  'user_jwt',
  'user_nkey_seed',
  'password',
  'secret',
  '*.jwt',
  '*.nkey',
  '*.seed',
  '*.user_nkey_seed',
  '*.secret',
  'access_token',
  'refresh_token',
  'id_token',
  'code_verifier',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.code_verifier',
  'res.headers["set-cookie"]',
  'req.headers["set-cookie"]',
];

/**
 * Creates the process logger.
 * @param options.service kebab-case service name, the same string as its folder and image.
 * @param options.level pino level; default `info`.
 * @param options.destination optional pino destination (tests pass a stream); default stdout.
 */
export function createLogger(options: { service: string; version?: string; level?: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service, version: options.version ?? process.env.npm_package_version ?? '0.1.0' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}
