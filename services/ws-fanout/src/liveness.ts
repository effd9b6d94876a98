/**
 * Liveness of every connection of one process (docs/websocket.md §6): heartbeats to subscribed
 * connections during silence, and WebSocket pings whose missing pongs end dead links.
 */
import type { Logger } from '@tradewind/lib';
import type { Session } from './session.js';
import type { Subscriptions } from './subscriptions.js';
import type { WsFanoutMetrics } from './metrics.js';

/** The config keys liveness reads. */
export interface LivenessConfig {
  /** Longest silence on a subscribed connection before a heartbeat, ms. */
  readonly WS_HEARTBEAT_INTERVAL_MS: number;
  /** Interval of WebSocket pings; two missed pongs end the connection, ms. */
  readonly WS_PING_INTERVAL_MS: number;
}

/** Pongs a connection may miss; at this many the next ping tick terminates it. */
const MAX_MISSED_PONGS = 2;

/**
 * Starts the two process-wide timers (one scan of the sessions per tick, not a timer per connection).
 * Heartbeats: the timer ticks five times per interval and reads each outbox's activity flag, so the
 * per-message path only sets a boolean. Pings: a connection that missed {@link MAX_MISSED_PONGS} pongs
 * is terminated (its slot frees on close), so a dead link ends within 3 × WS_PING_INTERVAL_MS.
 * @returns a function that stops both timers.
 */
export function startLiveness(
  config: LivenessConfig,
  sessions: ReadonlySet<Session>,
  subscriptions: Subscriptions,
  metrics: WsFanoutMetrics,
  logger: Logger,
): () => void {
  const heartbeatTick = Math.max(50, Math.floor(config.WS_HEARTBEAT_INTERVAL_MS / 5));
  const onHeartbeatTick = () => {
    const now = Date.now();
    for (const session of sessions) {
      if (session.outbox.takeActivity()) {
        session.lastActivityMs = now;
        continue;
      }
      if (!session.user || session.subscriptions.size === 0 || session.closing) continue;
      if (now - session.lastActivityMs + heartbeatTick > config.WS_HEARTBEAT_INTERVAL_MS) {
        session.send(subscriptions.heartbeat(session));
        metrics.heartbeats.inc();
        session.lastActivityMs = now;
        session.outbox.takeActivity();
      }
    }
  };
  const onPingTick = () => {
    for (const session of sessions) {
      if (session.missedPongs >= MAX_MISSED_PONGS) {
        metrics.deadPeers.inc();
        logger.info({ connection_id: session.id, user: session.user?.name }, 'connection missed two pongs; terminated');
        session.ws.terminate();
        continue;
      }
      session.missedPongs++;
      try {
        session.ws.ping();
      } catch {
        // A closing socket: its close handler cleans up.
      }
    }
  };
  const timers = [setInterval(onHeartbeatTick, heartbeatTick), setInterval(onPingTick, config.WS_PING_INTERVAL_MS)];
  for (const timer of timers) timer.unref();
  return () => {
    for (const timer of timers) clearInterval(timer);
  };
}
