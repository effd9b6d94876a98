/** The nats-server of the multi-node tests (scripts/lib/cluster-nats-server.ts): the chart's line, chosen by the run's set-up. */
import { describe, expect, it } from 'vitest';
import { clusterNatsServerBin, isClusterCapable, natsServerVersion } from '../lib/cluster-nats-server.js';

describe('cluster nats-server', () => {
  it('when versions are compared, then 2.10 and newer are accepted and 2.9.10 (Debian 12) is not', () => {
    expect(isClusterCapable('2.9.10')).toBe(false);
    expect(isClusterCapable('2.10.0')).toBe(true);
    expect(isClusterCapable('2.10.27')).toBe(true);
    expect(isClusterCapable('2.11.3')).toBe(true);
    expect(isClusterCapable('3.0.0')).toBe(true);
    expect(isClusterCapable(null)).toBe(false);
    expect(natsServerVersion('/nonexistent/nats-server')).toBeNull();
  });

  it('when the suite runs, then its clusters use a nats-server of the chart line that runs here', () => {
    // Set by scripts/test-env.ts (the global setup) for every worker.
    expect(process.env.NATS_CLUSTER_SERVER_BIN).toBeTruthy();
    expect(isClusterCapable(natsServerVersion(clusterNatsServerBin()))).toBe(true);
  });
});
