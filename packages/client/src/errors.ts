/**
 * Errors of @tradewind/client: one class per failure, each with a `code` and, where there is one, a `cause`.
 */

/** Base class; `code` is stable and meant for programs, `message` for people. */
export class TradewindError extends Error {
  /**
   * @param code a server error code (`invalid_jwt`, `revoked`, `subject_not_in_plan`, …) or one of
   *   the client's: `bad_options`, `reconnect_failed`, `buffer_overflow`, `closed`.
   */
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad client options or arguments (missing credentials, a seed that is not a user seed, a bad filter). */
export class TradewindOptionsError extends TradewindError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('bad_options', message, options);
  }
}

/**
 * The server refused the credentials (close 4401, or 4400 before authentication): reconnecting
 * cannot help. `code` is the server's error code (`invalid_jwt`, `invalid_signature`,
 * `unknown_account`, `nkey_mismatch`, `expired`, `revoked`, …), `closeCode` the close code.
 */
export class CredentialsRefusedError extends TradewindError {
  constructor(
    code: string,
    message: string,
    readonly closeCode: number,
  ) {
    super(code, message);
  }
}

/** `maxAttempts` consecutive connection attempts failed; `cause` describes the last failure. */
export class ReconnectFailedError extends TradewindError {
  constructor(
    readonly attempts: number,
    readonly lastCloseCode: number,
    readonly lastReason: string,
  ) {
    super('reconnect_failed', `gave up after ${attempts} failed reconnect attempts; last close ${lastCloseCode}${lastReason ? ` (${lastReason})` : ''}`);
  }
}

/** A subscription the server refused or ended (`subject_not_in_plan`, `unknown_subject`, `bad_filter`, `plan_changed`, …). */
export class SubscriptionError extends TradewindError {
  constructor(
    code: string,
    message: string,
    readonly subject: string,
  ) {
    super(code, message);
  }
}

/**
 * The slot of a trade died (`waitForSlot`): it will never be confirmed and every trade in it never happened.
 * `reason`: `replay_failed` (the node's replay of the block failed) or `skipped` (left on an abandoned fork), when known.
 */
export class SlotDeadError extends TradewindError {
  constructor(
    readonly slot: number,
    readonly reason: string | null,
  ) {
    super('slot_dead', `slot ${slot} is dead${reason ? ` (${reason})` : ''}: its trades never happened`);
  }
}

/**
 * An iterator was not read for so long that more than its buffer limit queued up
 * (`maxBufferedTrades` / `maxBufferedEvents`); it ends with this error instead of growing without bound.
 */
export class BufferOverflowError extends TradewindError {
  constructor(
    readonly limit: number,
    what: string,
  ) {
    super('buffer_overflow', `more than ${limit} ${what} queued in an iterator that is not being read; read faster or raise the limit`);
  }
}
