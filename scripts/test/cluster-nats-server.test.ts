/** The nats-server of the multi-node tests (scripts/lib/cluster-nats-server.ts): 2.10 to 2.13, chosen by the run's set-up. */
import { describe, expect, it } from 'vitest';
import { clusterNatsServerBin, isClusterCapable, isHaltingVersion, natsServerVersion } from '../lib/cluster-nats-server.js';

describe('cluster nats-server', () => {
  it('when versions are compared, then 2.10 to 2.13 are accepted for the clusters and 2.9.10 (Debian 12) and 2.14 or newer are not', () => {
    expect(isClusterCapable('2.9.10')).toBe(false);
    expect(isClusterCapable('2.10.27')).toBe(true);
    expect(isClusterCapable('2.12.15')).toBe(true);
    expect(isClusterCapable('2.14.0')).toBe(false);
    expect(isClusterCapable('2.15.1')).toBe(false);
    expect(isClusterCapable('3.0.0')).toBe(false);
    expect(isClusterCapable(null)).toBe(false);
    expect([isHaltingVersion('2.13.9'), isHaltingVersion('2.14.0'), isHaltingVersion('3.1.0'), isHaltingVersion(null)]).toEqual([false, true, true, false]);
    expect(natsServerVersion('/nonexistent/nats-server')).toBeNull();
  });

  it('when the suite runs, then its clusters use a nats-server 2.10 to 2.13 that runs here, and the expectation test a 2.14 or newer one', () => {
    // Set by scripts/test-env.ts (the global setup) for every worker.
    expect(process.env.NATS_CLUSTER_SERVER_BIN).toBeTruthy();
    expect(isClusterCapable(natsServerVersion(clusterNatsServerBin()))).toBe(true);
    expect(isHaltingVersion(natsServerVersion(process.env.NATS_TESTING_SERVER_BIN ?? ''))).toBe(true);
  });
});
