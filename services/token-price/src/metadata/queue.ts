/**
 * Looks up the name, symbol and supply of tokens first seen mid-life (no CREATE on our stream), a few
 * at a time, and records what it finds. Bounded: at most `maxQueued` mints wait (more are dropped and
 * counted, and asked for again when they trade after `retryMs`); a failed lookup is retried after
 * `retryMs` at the next trade of that mint, never in a loop.
 */
import type { Counter } from 'prom-client';
import type { Logger } from '@tradewind/lib';
import type { TokenStore } from '../store/redis-store.js';
import type { MetadataResolver } from './solana-metadata.js';

/** Options of {@link createMetadataQueue}. */
export interface MetadataQueueOptions {
  readonly resolver: MetadataResolver;
  readonly store: TokenStore;
  readonly logger: Logger;
  readonly concurrency: number;
  readonly maxQueued: number;
  /** Wait before a mint is looked up again after a failure or a dropped request, ms. */
  readonly retryMs: number;
  /** outcome: found | not_found | failed | dropped. */
  readonly lookups: Counter<'outcome'>;
}

/** The queue. `add` never throws and never blocks. */
export interface MetadataQueue {
  add(mint: string): void;
  /** Resolves when nothing is queued or running (tests). */
  idle(): Promise<void>;
  stop(): void;
}

/** Creates the queue. */
export function createMetadataQueue(options: MetadataQueueOptions): MetadataQueue {
  const log = options.logger.child({ component: 'metadata' });
  const queued: string[] = [];
  const known = new Set<string>();
  const backoff = new Map<string, number>();
  let running = 0;
  let stopped = false;
  let waiters: Array<() => void> = [];

  function settle(): void {
    if (running === 0 && queued.length === 0) {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    }
  }

  async function lookup(mint: string): Promise<void> {
    try {
      const meta = await options.resolver.resolve(mint);
      if (stopped) return;
      if (meta === null) {
        await options.store.setMetadata(mint, null);
        options.lookups.inc({ outcome: 'not_found' });
        return;
      }
      await options.store.setMetadata(mint, {
        ...(meta.name ? { name: meta.name } : {}),
        ...(meta.symbol ? { symbol: meta.symbol } : {}),
        decimals: meta.decimals,
        supplyRaw: meta.supplyRaw,
      });
      options.lookups.inc({ outcome: meta.name || meta.symbol ? 'found' : 'not_found' });
    } catch (err) {
      backoff.set(mint, Date.now() + options.retryMs);
      options.lookups.inc({ outcome: 'failed' });
      log.warn({ mint, err: { message: (err as Error).message } }, 'token metadata lookup failed');
    }
  }

  function pump(): void {
    while (!stopped && running < options.concurrency && queued.length > 0) {
      const mint = queued.shift()!;
      running += 1;
      void lookup(mint).finally(() => {
        running -= 1;
        known.delete(mint);
        pump();
        settle();
      });
    }
  }

  return {
    add(mint) {
      if (stopped || known.has(mint)) return;
      const until = backoff.get(mint);
      if (until !== undefined && until > Date.now()) return;
      backoff.delete(mint);
      if (queued.length >= options.maxQueued) {
        options.lookups.inc({ outcome: 'dropped' });
        return;
      }
      known.add(mint);
      queued.push(mint);
      pump();
    },
    idle() {
      if (running === 0 && queued.length === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    stop() {
      stopped = true;
      queued.length = 0;
      settle();
    },
  };
}
