/**
 * Account JWT lookup from the NATS server's full resolver, as a system-account user:
 * request `$SYS.REQ.ACCOUNT.<account>.CLAIMS.LOOKUP`, reply = the account JWT.
 * The full resolver does not answer for accounts it does not hold, so a timeout while the
 * connection is up means "unknown account"; no responders or a closed connection mean the
 * resolver is unavailable. Source: nats-server server/accounts.go (accLookupReqSubj, DirAccResolver).
 */
import { TimeoutError } from '@nats-io/transport-node';
import type { NatsConnection } from '@tradewind/lib';

/**
 * Returns a lookup function bound to `sysNc`.
 * @param timeoutMs how long to wait for the resolver (default 1000 ms).
 * @returns the account JWT, or undefined when the account is unknown.
 * @throws the nats.js error when the resolver cannot be reached.
 */
export function resolverLookup(sysNc: NatsConnection, timeoutMs = 1000): (account: string) => Promise<string | undefined> {
  return async (account) => {
    if (!/^A[A-Z2-7]{55}$/.test(account)) return undefined;
    try {
      const reply = await sysNc.request(`$SYS.REQ.ACCOUNT.${account}.CLAIMS.LOOKUP`, '', { timeout: timeoutMs });
      const jwt = reply.string().trim();
      return jwt.startsWith('eyJ') ? jwt : undefined;
    } catch (err) {
      const timedOut = err instanceof TimeoutError || (err as { cause?: unknown }).cause instanceof TimeoutError;
      if (timedOut && !sysNc.isClosed()) return undefined;
      throw err;
    }
  };
}
