/** The shutdown of the stand-in programs in dev/bin (local-oidc, local-stripe, local-geyser). */
import type { Logger } from '@tradewind/lib';

/** How long a stand-in may take to stop before it exits anyway, ms. */
export const STAND_IN_STOP_DEADLINE_MS = 5_000;

/**
 * On the first SIGTERM, SIGINT or SIGHUP: logs it, runs `stop` and exits 0 when it resolves, or 1
 * when it rejects or takes longer than STAND_IN_STOP_DEADLINE_MS. Later signals are ignored.
 */
export function stopOnSignal(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    setTimeout(() => process.exit(1), STAND_IN_STOP_DEADLINE_MS).unref();
    void stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => onSignal(signal));
}
