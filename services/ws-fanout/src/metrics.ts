/** ws-fanout's Prometheus metrics (docs/websocket.md §8). Counted once per message or event, never per client per message. */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { PLAN_IDS, TRADE_SUBJECTS } from '@tradewind/contracts';

/** Buckets of the delivery latency histogram, seconds: 0.5 ms to 5 s. */
const DELIVERY_LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Creates every ws-fanout metric on `registry`, each series present from the start (dashboards show 0, not "no data"). */
export function createMetrics(registry: Registry) {
  const registers = [registry];
  const metrics = {
    connections: new Gauge({
      name: 'tradewind_ws_fanout_connections',
      help: 'Open WebSocket connections by the plan they authenticated with (starter, plus, pro), following live plan changes; a connection counts from its authentication until it closes, so ones still authenticating are not counted',
      labelNames: ['plan'],
      registers,
      aggregator: 'sum',
    }),
    deliveryLatency: new Histogram({
      name: 'tradewind_ws_fanout_delivery_latency_seconds',
      help: 'From ingest publishing a live trade (header Tradewind-Published-Ms) to this process queuing it for its subscribed clients; observed once per message that reached at least one client (not replays or resumes; messages without the header are not observed)',
      labelNames: ['subject'],
      buckets: DELIVERY_LATENCY_BUCKETS,
      registers,
    }),
    authenticated: new Counter({
      name: 'tradewind_ws_fanout_auth_total',
      help: 'Authentication attempts by result (ok, refused, throttled: refused unchecked after too many failures from one address)',
      labelNames: ['result'],
      registers,
    }),
    refusals: new Counter({ name: 'tradewind_ws_fanout_refusals_total', help: 'Protocol refusals by error code', labelNames: ['code'], registers }),
    sent: new Counter({
      name: 'tradewind_ws_fanout_messages_sent_total',
      help: 'Trade messages queued for clients (one per client per message), live and caught up',
      labelNames: ['subject'],
      registers,
    }),
    sentBytes: new Counter({ name: 'tradewind_ws_fanout_sent_bytes_total', help: 'Trade frame bytes queued for clients', registers }),
    slow: new Counter({
      name: 'tradewind_ws_fanout_slow_consumer_disconnects_total',
      help: 'Clients disconnected by the slow-consumer policy (close 4413)',
      registers,
    }),
    shed: new Counter({
      name: 'tradewind_ws_fanout_shed_bytes_total',
      help: 'Bytes of frames dropped from the queues of clients disconnected as slow consumers (they resume with resume_after)',
      registers,
    }),
    replays: new Gauge({
      name: 'tradewind_ws_fanout_replays',
      help: 'Catch-up consumers running (Pro replay and resume_after) until they join the live feed',
      registers,
      aggregator: 'sum',
    }),
    heartbeats: new Counter({
      name: 'tradewind_ws_fanout_heartbeats_total',
      help: 'Heartbeat messages sent to subscribed connections during silence',
      registers,
    }),
    deadPeers: new Counter({ name: 'tradewind_ws_fanout_dead_peer_disconnects_total', help: 'Connections terminated after missing two pongs', registers }),
    resumes: new Counter({
      name: 'tradewind_ws_fanout_resumes_total',
      help: 'resume_after requests by outcome (live: nothing missed, catch_up, too_old)',
      labelNames: ['outcome'],
      registers,
    }),
    accountUpdates: new Counter({
      name: 'tradewind_ws_fanout_account_updates_total',
      help: 'Account JWTs pushed to the resolver, by result: applied, stale (older than the cached one), ignored (does not verify)',
      labelNames: ['result'],
      registers,
    }),
    planChanges: new Counter({
      name: 'tradewind_ws_fanout_live_plan_changes_total',
      help: 'Live clients whose rights changed on an account update, by outcome',
      labelNames: ['outcome'],
      registers,
    }),
    limitEvents: new Counter({
      name: 'tradewind_ws_fanout_connection_limit_events_total',
      help: "connection.limited events for logins refused at the plan's connection limit, by outcome: published, duplicate (another process published it this interval), suppressed (one already this interval), failed",
      labelNames: ['outcome'],
      registers,
    }),
    feedRecreated: new Counter({
      name: 'tradewind_ws_fanout_feed_recreated_total',
      help: 'Live feeds recreated from their last sequence, by reason: stream_leader_elected, reconnect, heartbeats_missed, silent (the WS_FEED_STALL_CHECK_MS backstop)',
      labelNames: ['reason'],
      registers,
    }),
    usageMessages: new Counter({
      name: 'tradewind_ws_fanout_usage_reported_messages_total',
      help: 'Frames written to authenticated clients (trades, slot statuses, control answers, heartbeats) in usage.reported events JetStream acknowledged (all customers together)',
      registers,
    }),
    usageBytes: new Counter({
      name: 'tradewind_ws_fanout_usage_reported_bytes_total',
      help: 'UTF-8 payload bytes of those frames (without WebSocket framing) in acknowledged usage.reported events',
      registers,
    }),
    usageReports: new Counter({
      name: 'tradewind_ws_fanout_usage_reports_total',
      help: 'usage.reported publish attempts by outcome: published, duplicate (a retry JetStream had already stored), failed (retried with the same event id)',
      labelNames: ['outcome'],
      registers,
    }),
    usageLost: new Counter({
      name: 'tradewind_ws_fanout_usage_lost_messages_total',
      help: 'Counted frames given up at shutdown because the final usage.reported was not acknowledged within USAGE_FINAL_REPORT_TIMEOUT_MS',
      registers,
    }),
  };
  for (const outcome of ['published', 'duplicate', 'failed']) metrics.usageReports.inc({ outcome }, 0);
  for (const plan of PLAN_IDS) metrics.connections.set({ plan }, 0);
  for (const reason of ['stream_leader_elected', 'reconnect', 'heartbeats_missed', 'silent']) metrics.feedRecreated.inc({ reason }, 0);
  for (const outcome of ['published', 'duplicate', 'suppressed', 'failed']) metrics.limitEvents.inc({ outcome }, 0);
  for (const subject of TRADE_SUBJECTS) {
    metrics.deliveryLatency.zero({ subject });
    metrics.sent.inc({ subject }, 0);
  }
  return metrics;
}

/** The metrics object of one app. */
export type WsFanoutMetrics = ReturnType<typeof createMetrics>;
