import { AppError } from '@tradewind/contracts/errors';

/**
 * Raised when an input is not a readable Solana transaction (wrong JSON shape,
 * undecodable wire bytes, base58/base64 garbage). Code `invalid_argument`.
 * A readable transaction without pump.fun/LaunchLab trades is NOT an error.
 */
export class DecodeError extends AppError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_argument', message, options);
  }
}
