/**
 * The 3-node NATS cluster of the rolling-restart class (chaos/rolling.ts), restarted the way the NATS
 * StatefulSet's rollout does it: `nats-server --signal ldm=<pid>` (the chart's preStop hook), the node exits
 * by itself once lame duck mode is over, and a new process starts on the same ports and store directory.
 * It is chaos/nats-cluster.ts's cluster in operator mode with lame-duck settings and room in the file store
 * for every stream the services create (TRADES and credential-issuer's REPLAY mirror of it, whose 1 GiB
 * `max_bytes` is reserved on a node: with 1 GB per node credential-issuer never became ready, "insufficient
 * storage").
 */
import { startNatsCluster, type NatsCluster, type NatsClusterNode } from './nats-cluster.js';

export type { NodeExit } from './nats-cluster.js';

/** One node of a {@link RollingNatsCluster}. */
export type RollingNatsNode = NatsClusterNode;

/** A running cluster: chaos/nats-cluster.ts's, with `start` for a restart on the same ports and store. */
export interface RollingNatsCluster extends Pick<NatsCluster, 'urls' | 'lameDuck' | 'healthy' | 'stop' | 'kill'> {
  readonly nodes: readonly RollingNatsNode[];
  /** Starts node `name` again on its ports and store; resolves once it accepts clients (15 s). @throws Error when it does not. */
  start(name: string): Promise<void>;
}

/**
 * Starts a cluster of `size` (default 3) JetStream nodes in operator mode and waits until each accepts clients.
 * @param options.operatorConfig credential-issuer's renderNatsAuthConfig output (operator, system account, preloads).
 * @param options.lameDuckDurationMs `lame_duck_duration`, ms (nats-server 2.9.10 refuses less than 30 s).
 * @param options.lameDuckGracePeriodMs `lame_duck_grace_period`, ms; must be below the duration.
 * @throws Error when the grace is not below the duration or a node does not listen within 15 s (all stopped first).
 */
export async function startRollingNatsCluster(options: {
  operatorConfig: string;
  lameDuckDurationMs: number;
  lameDuckGracePeriodMs: number;
  size?: number;
  name?: string;
}): Promise<RollingNatsCluster> {
  const cluster = await startNatsCluster({
    size: options.size ?? 3,
    name: options.name ?? 'tw-rolling',
    operatorConfig: options.operatorConfig,
    lameDuck: { durationMs: options.lameDuckDurationMs, gracePeriodMs: options.lameDuckGracePeriodMs },
    maxFileStore: '8GB',
    maxMemoryStore: '256MB',
  });
  return {
    nodes: cluster.nodes,
    urls: cluster.urls,
    lameDuck: cluster.lameDuck,
    healthy: cluster.healthy,
    stop: cluster.stop,
    kill: cluster.kill,
    start: cluster.restart,
  };
}
