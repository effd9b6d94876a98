/**
 * WebSocket protocol errors (docs/architecture.md §7). Each has a stable `code` sent to the
 * client in `{"type":"error","code","message"}` and, when fatal, a 4xxx close code.
 */
import { AppError, type ErrorCode } from '@tradewind/lib';

/** Codes a client can receive. */
export type WsErrorCode =
  | 'bad_json' | 'bad_request' | 'missing_fields' | 'invalid_jwt' | 'invalid_signature' | 'nkey_mismatch'
  | 'expired' | 'revoked' | 'unknown_account' | 'auth_timeout' | 'not_authenticated'
  | 'already_authenticated' | 'unknown_subject' | 'subject_not_in_plan' | 'connection_limit' | 'rate_limited'
  | 'replay_not_in_plan' | 'bad_replay' | 'replay_limit'
  | 'bad_filter' | 'bad_resume' | 'resume_too_old'
  | 'slow_consumer' | 'unavailable' | 'internal';

/** Close codes (4xxx application range, RFC 6455 §7.4.2). */
export const CLOSE_CODES = {
  badRequest: 4400,
  unauthenticated: 4401,
  forbidden: 4403,
  authTimeout: 4408,
  limit: 4429,
  slowConsumer: 4413,
  unavailable: 4503,
} as const;

/** A protocol refusal. `close` is the close code when the refusal ends the connection, else undefined. */
export class WsProtocolError extends AppError {
  readonly wsCode: WsErrorCode;
  readonly close: number | undefined;
  /** Extra fields of the error message sent to the client (e.g. `oldest_seq` of `resume_too_old`). */
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, wsCode: WsErrorCode, message: string, close?: number, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(code, message, options);
    this.wsCode = wsCode;
    this.close = close;
    this.details = options?.details;
  }
}
