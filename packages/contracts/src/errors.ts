/**
 * The error codes every Tradewind service uses internally. They are mapped to
 * HTTP statuses, WebSocket close codes or NATS replies only at the edge.
 */
export type ErrorCode =
  | 'invalid_argument'
  | 'unauthenticated'
  | 'permission_denied'
  | 'not_found'
  | 'conflict'
  | 'resource_exhausted'
  | 'unavailable'
  | 'internal';

/**
 * Base class of every error the services raise on purpose.
 * `code` is one of {@link ErrorCode}; `cause` keeps the underlying error.
 */
export class AppError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Thrown when configuration (environment variables) fails validation; `problems` lists each bad key. */
export class ConfigError extends AppError {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super('invalid_argument', `invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
  }
}

/** Wraps anything thrown into an {@link AppError}; unknown errors become `internal`. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError('internal', err instanceof Error ? err.message : String(err), { cause: err });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID string (any version, RFC 9562 text form); user ids are UUIDs. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
