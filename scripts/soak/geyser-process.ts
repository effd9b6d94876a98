/**
 * The soak's Yellowstone stand-in process: @tradewind/dev's `startMainnetGeyser` (the recording served as
 * a mainnet-shaped chain at a rate profile) in a process of its own, so the harness's work never delays its
 * sends and its CPU shows separately. Forked by scripts/soak/harness.ts with an IPC channel.
 *
 * Every transaction update written to ingest's stream (`onSend`) is reported to the harness with its
 * signature, the time it was written (Date.now(), the clock the subscribers use) and the phase of the rate
 * profile then (`stats().phase`), in batches every `flushMs`.
 *
 * Requests `{id, cmd}`: `start` (answers `{endpoint, port, startedMs}`), `stats` (the stand-in's stats),
 * `stop` (stops it, answers its last stats). The process exits when the IPC channel closes.
 */
import { BUNDLED_RECORDING_DIR } from '@tradewind/ingest';
import { startMainnetGeyser, type GeyserRateProfile, type MainnetGeyserServer, type MainnetGeyserStats } from '@tradewind/dev';

export type GeyserRequest = { cmd: 'start'; profile: GeyserRateProfile; flushMs: number; port?: number } | { cmd: 'stats' } | { cmd: 'stop' };

export interface GeyserStarted {
  endpoint: string;
  port: number;
  /** When the chain started producing (its rate profile's time 0), epoch ms. */
  startedMs: number;
}

/** A batch of sends (parallel arrays). */
export interface GeyserSends {
  signatures: string[];
  sentMs: Float64Array;
  /** 1 when sent during a burst. */
  burst: Uint8Array;
}

let server: MainnetGeyserServer | undefined;
let flushTimer: NodeJS.Timeout | undefined;
let signatures: string[] = [];
let sentMs: number[] = [];
let burst: number[] = [];

function flush(): void {
  if (signatures.length === 0) return;
  const sends: GeyserSends = { signatures, sentMs: Float64Array.from(sentMs), burst: Uint8Array.from(burst) };
  signatures = [];
  sentMs = [];
  burst = [];
  process.send?.({ sends });
}

async function handle(req: GeyserRequest): Promise<GeyserStarted | MainnetGeyserStats> {
  switch (req.cmd) {
    case 'start': {
      if (server) throw new Error('already started');
      server = await startMainnetGeyser({
        recordingDir: BUNDLED_RECORDING_DIR,
        profile: req.profile,
        ...(req.port === undefined ? {} : { port: req.port }),
        onSend: (s) => {
          signatures.push(s.signature);
          sentMs.push(s.sentMs);
          burst.push(server?.stats().phase === 'burst' ? 1 : 0);
        },
        logger: {
          info: () => undefined,
          warn: (...a: unknown[]) => process.stderr.write(`[soak stand-in] ${a.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' ')}\n`),
        },
      });
      // The chain (and the profile's clock) starts right before startMainnetGeyser returns, after the recording is loaded.
      const startedMs = Date.now();
      flushTimer = setInterval(flush, req.flushMs);
      return { endpoint: server.endpoint, port: server.port, startedMs };
    }
    case 'stats':
      if (!server) throw new Error('not started');
      return server.stats();
    case 'stop': {
      if (!server) throw new Error('not started');
      const stats = server.stats();
      await server.stop();
      clearInterval(flushTimer);
      flush();
      return stats;
    }
  }
}

if (process.send) {
  process.on('message', (msg: { id: number } & GeyserRequest) => {
    handle(msg).then(
      (result) => process.send?.({ id: msg.id, ok: true, result }),
      (err: unknown) => process.send?.({ id: msg.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
    );
  });
  process.on('disconnect', () => {
    void (server?.stop() ?? Promise.resolve()).finally(() => process.exit(0));
  });
  process.send({ ready: true });
}
