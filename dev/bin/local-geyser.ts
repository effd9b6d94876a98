/**
 * `npm start -- --yellowstone`'s stand-in for a Yellowstone (Geyser gRPC) node: the mainnet-shaped
 * Geyser server of @tradewind/dev (dev/src/geyser) as a process of its own. It replays the bundled
 * recording of real mainnet transactions (services/ingest/recording) as an endless synthetic chain —
 * new signatures every pass, synthetic slots every 400 ms, block time = now — at a rate profile,
 * speaking the real protocol, so ingest runs with INGEST_SOURCE=yellowstone exactly as against a
 * provider. It is a local stand-in, never the Solana chain, and says so when it starts.
 *
 *   tsx dev/bin/local-geyser.ts
 *     LOCAL_GEYSER_PORT        gRPC port on 127.0.0.1 (default: deploy/services.json local-geyser.grpc)
 *     LOCAL_GEYSER_STEADY_TPS  steady rate, transactions/s (default 300)
 *     LOCAL_GEYSER_BURST_TPS   burst rate, transactions/s (default 3000)
 *     LOCAL_GEYSER_STEADY_MS   steady phase, ms (default 60000)
 *     LOCAL_GEYSER_BURST_MS    burst phase, ms (default 30000); the phases repeat
 *     LOCAL_GEYSER_FORK_EVERY  every N-th slot (N ≥ 2) is a fork: its transactions stream at processed, then
 *                              it is left behind, never confirmed (default unset: no forks)
 *     LOCAL_GEYSER_FORK_KIND   how a fork ends: abandoned (mainnet's minority fork, nothing more said;
 *                              default) or dead (SLOT_DEAD with an error instead of processed)
 *
 * Logs pino JSON lines to stdout, one every 10 s with what it serves; SIGTERM/SIGINT stop it. Exits
 * 1 with a message naming every bad setting. Refused with NODE_ENV=production.
 */
import { createLogger, defaultPort } from '@tradewind/lib';
import { BUNDLED_RECORDING_DIR } from '@tradewind/ingest';
import { DEFAULT_GEYSER_RATE_PROFILE, startMainnetGeyser, type ForkKind, type GeyserRateProfile } from '../src/geyser/index.js';
import { stopOnSignal } from './stop-on-signal.js';

/** Period of the "what it serves" log line, ms. */
const LOCAL_GEYSER_LOG_EVERY_MS = 10_000;

const logger = createLogger({ service: 'local-geyser', level: process.env.LOG_LEVEL ?? 'info' });

/**
 * The port and profile from the environment (unset or empty = the default).
 * @throws Error listing every variable that is not a valid number.
 */
function localGeyserSettings(env: NodeJS.ProcessEnv): { port: number; profile: GeyserRateProfile; forks: { everySlots: number; kind: ForkKind } | null } {
  const problems: string[] = [];
  const read = (name: string, fallback: number, max: number, what: string): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || value > max) {
      problems.push(`${name} must be ${what}, got "${raw}"`);
      return fallback;
    }
    return value;
  };
  const port = read('LOCAL_GEYSER_PORT', defaultPort('local-geyser', 'grpc'), 65_535, 'a port number 0-65535');
  const rate = 'a whole number of transactions per second (0-1000000)';
  const duration = 'a whole number of milliseconds (0-86400000)';
  const profile: GeyserRateProfile = {
    steadyTxPerSecond: read('LOCAL_GEYSER_STEADY_TPS', DEFAULT_GEYSER_RATE_PROFILE.steadyTxPerSecond, 1_000_000, rate),
    burstTxPerSecond: read('LOCAL_GEYSER_BURST_TPS', DEFAULT_GEYSER_RATE_PROFILE.burstTxPerSecond, 1_000_000, rate),
    steadyMs: read('LOCAL_GEYSER_STEADY_MS', DEFAULT_GEYSER_RATE_PROFILE.steadyMs, 86_400_000, duration),
    burstMs: read('LOCAL_GEYSER_BURST_MS', DEFAULT_GEYSER_RATE_PROFILE.burstMs, 86_400_000, duration),
  };
  if (problems.length === 0 && profile.steadyMs + profile.burstMs === 0) problems.push('LOCAL_GEYSER_STEADY_MS + LOCAL_GEYSER_BURST_MS must be > 0');
  const everySlots = read('LOCAL_GEYSER_FORK_EVERY', 0, 1_000_000, 'a whole number of slots (2-1000000)');
  if (everySlots === 1) problems.push('LOCAL_GEYSER_FORK_EVERY must be at least 2 (every slot a fork leaves no chain), got "1"');
  const kind = env.LOCAL_GEYSER_FORK_KIND || 'abandoned';
  if (kind !== 'abandoned' && kind !== 'dead') problems.push(`LOCAL_GEYSER_FORK_KIND must be abandoned or dead, got "${kind}"`);
  if (problems.length > 0) throw new Error(`local Geyser stand-in settings:\n  - ${problems.join('\n  - ')}`);
  return { port, profile, forks: everySlots >= 2 ? { everySlots, kind: kind as ForkKind } : null };
}

async function main(): Promise<void> {
  if (process.env.NODE_ENV === 'production') throw new Error('the local Geyser stand-in is refused when NODE_ENV=production: it serves synthetic chain data');
  const { port, profile, forks } = localGeyserSettings(process.env);
  const server = await startMainnetGeyser({ recordingDir: BUNDLED_RECORDING_DIR, port, host: '127.0.0.1', profile, logger, ...(forks ? { forks } : {}) });
  logger.warn(
    { endpoint: server.endpoint, profile, forks, recording: BUNDLED_RECORDING_DIR },
    `LOCAL Yellowstone (Geyser gRPC) stand-in listening on ${server.endpoint}: replays recorded mainnet transactions with SYNTHETIC signatures and slots ` +
      `(${profile.steadyTxPerSecond} tx/s for ${profile.steadyMs / 1000} s, then ${profile.burstTxPerSecond} tx/s for ${profile.burstMs / 1000} s, repeating) — not the Solana chain`,
  );

  let last = server.stats();
  let lastAt = Date.now();
  const report = setInterval(() => {
    const now = Date.now();
    const s = server.stats();
    const seconds = (now - lastAt) / 1000;
    logger.info(
      {
        slot: s.slot,
        phase: s.phase,
        target_tx_per_second: s.targetTxPerSecond,
        produced_tx_per_second: Math.round((s.transactionsProduced - last.transactionsProduced) / seconds),
        sent_tx_per_second: Math.round((s.transactionsSent - last.transactionsSent) / seconds),
        subscribers: s.subscribers,
        subscribes: s.subscribes,
        disconnects: s.disconnects,
        lagged: s.lagged,
      },
      `serving synthetic slot ${s.slot} (${s.phase}, ${s.targetTxPerSecond} tx/s) to ${s.subscribers} subscriber(s)`,
    );
    last = s;
    lastAt = now;
  }, LOCAL_GEYSER_LOG_EVERY_MS);
  report.unref();

  stopOnSignal(logger, async () => {
    clearInterval(report);
    await server.stop();
  });
}

main().catch((err: unknown) => {
  logger.fatal({ err }, 'local Geyser stand-in failed to start');
  process.exit(1);
});
