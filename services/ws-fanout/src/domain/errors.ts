/**
 * WebSocket protocol errors (docs/architecture.md §7). Each has a stable `code` sent to the
 * client in `{"type":"error","code","message"}` and, when fatal, a 4xxx close code; the codes and
 * close codes are the contract's (@tradewind/contracts/ws-errors).
 */
import { AppError, type ErrorCode } from '@tradewind/contracts';
import type { WsErrorCode } from '@tradewind/contracts/ws-errors';

export { CLOSE_CODES, type WsErrorCode } from '@tradewind/contracts/ws-errors';

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
