import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '@tradewind/dev';
import { startTcpProxy, type TcpProxy } from './chaos/proxy-tcp.js';
import { formatReliabilityTable } from './report.js';
import { runStreamChaos } from './chaos/stream.js';
import { TradeLedger } from './chaos/stream-ledger.js';

const PASS = ['sigA:0', 'sigA:1', 'sigB:0'];
const id = (base: string, run: string, loop: number) => `${base}:replay:${run}:${loop}`;
const at = (seq: number, msgId: string) => ({ seq, msgId, publishedMs: 1000 + seq, receivedMs: 2000 + seq });

describe('stream ledger (lost / duplicated counting)', () => {
  it('when every stored trade arrives once in replay order across two runs, then nothing is counted', () => {
    const ledger = new TradeLedger(PASS);
    // Run r1 stops after two trades (killed), run r2 starts over and wraps into its second loop.
    const ids = [id('sigA:0', 'r1', 0), id('sigA:1', 'r1', 0), id('sigA:0', 'r2', 0), id('sigA:1', 'r2', 0), id('sigB:0', 'r2', 0), id('sigA:0', 'r2', 1)];
    for (const [i, m] of ids.entries()) ledger.record(at(i + 1, m));
    expect(ledger.audit({ firstSeq: 1, lastSeq: 6 })).toMatchObject({ lost: 0, duplicated: 0, delivered: 6, unrecognised: 0 });
  });

  it('when a sequence is delivered twice, then one duplicate is counted', () => {
    const ledger = new TradeLedger(PASS);
    ledger.record(at(1, id('sigA:0', 'r1', 0)));
    ledger.record(at(1, id('sigA:0', 'r1', 0)));
    expect(ledger.audit({ firstSeq: 1, lastSeq: 1 })).toMatchObject({ lost: 0, duplicated: 1 });
  });

  it('when one Nats-Msg-Id is stored at two sequences (the dedupe window failed), then one duplicate is counted', () => {
    const ledger = new TradeLedger(PASS);
    ledger.record(at(1, id('sigA:0', 'r1', 0)));
    ledger.record(at(2, id('sigA:0', 'r1', 0)));
    const audit = ledger.audit({ firstSeq: 1, lastSeq: 2 });
    expect(audit).toMatchObject({ lost: 0, duplicated: 1 });
    expect(audit.examples.join()).toMatch(/stored at seqs 1,2/);
  });

  it('when a stored sequence never reaches the subscriber, then it is counted lost', () => {
    const ledger = new TradeLedger(PASS);
    ledger.record(at(1, id('sigA:0', 'r1', 0)));
    ledger.record(at(3, id('sigA:1', 'r1', 0)));
    expect(ledger.audit({ firstSeq: 1, lastSeq: 3 })).toMatchObject({ lost: 1, duplicated: 0 });
  });

  it('when the publisher skipped a trade of its run (a hole before later trades), then it is counted lost', () => {
    const ledger = new TradeLedger(PASS);
    ledger.record(at(1, id('sigA:0', 'r1', 0)));
    ledger.record(at(2, id('sigB:0', 'r1', 0)));
    const audit = ledger.audit({ firstSeq: 1, lastSeq: 2 });
    expect(audit).toMatchObject({ lost: 1, duplicated: 0 });
    expect(audit.examples.join()).toMatch(/run r1 never stored loop 0 trade sigA:1/);
  });

  it('when trades arrive after a fault, then the first one published after it gives the recovery time', () => {
    const ledger = new TradeLedger(PASS);
    ledger.record({ seq: 1, msgId: id('sigA:0', 'r1', 0), publishedMs: 90, receivedMs: 105 });
    ledger.record({ seq: 2, msgId: id('sigA:1', 'r1', 0), publishedMs: 140, receivedMs: 150 });
    expect(ledger.firstDeliveryAfter(100, (d) => d.publishedMs >= 100)).toBe(150);
    expect(ledger.firstDeliveryAfter(200)).toBeNull();
  });
});

describe('TCP proxy (partition injector)', () => {
  let echo: Server | undefined;
  let proxy: TcpProxy | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await proxy?.close();
    await new Promise<void>((r) => (echo ? echo.close(() => r()) : r()));
    echo = undefined;
    proxy = undefined;
  });

  it('when stalled, then no byte crosses until healed; when dropped, then the client socket closes', async () => {
    const echoPort = await freePort();
    echo = createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo!.listen(echoPort, '127.0.0.1', () => r()));
    // The first upstream refuses connections: the proxy must move on to the next one.
    proxy = await startTcpProxy({
      port: await freePort(),
      upstreams: [
        { host: '127.0.0.1', port: await freePort() },
        { host: '127.0.0.1', port: echoPort },
      ],
    });
    const client = connect({ host: '127.0.0.1', port: proxy.port });
    sockets.push(client);
    let received = '';
    client.on('data', (d: Buffer) => {
      received += d.toString();
    });
    client.write('a');
    await expect.poll(() => received, { timeout: 3000 }).toBe('a');

    proxy.stall();
    client.write('b');
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toBe('a');
    proxy.heal();
    await expect.poll(() => received, { timeout: 3000 }).toBe('ab');

    const closed = new Promise<void>((r) => client.once('close', () => r()));
    expect(proxy.drop()).toBe(1);
    await closed;
  });
});

describe('stream-path chaos (3-node NATS cluster, ingest process, proxy)', () => {
  it('when the stream leader, a live ingest and the ingest↔NATS link fail once each at test size, then no trade is lost or duplicated and nothing crashes', async () => {
    const rows = await runStreamChaos('test', 24);
    process.stderr.write(formatReliabilityTable(rows));
    // At test size: leader kill, live ingest kills (Yellowstone, RPC), stall (the replay-ingest kill and the socket drop run at full size).
    expect(rows.map((r) => r.name.split(' ')[0])).toEqual(['NATS', 'ingest', 'ingest', 'partition']);
    expect(rows.map((r) => /live (\w+)/.exec(r.name)?.[1]).filter(Boolean)).toEqual(['Yellowstone', 'RPC']);
    for (const row of rows) {
      expect(row.tried, row.name).toBeGreaterThan(0);
      expect({ name: row.name, lost: row.lost, duplicated: row.duplicated, crashed: row.crashed, notes: row.notes }).toMatchObject({
        lost: 0,
        duplicated: 0,
        crashed: 0,
      });
      expect(row.recoveryMs, row.name).not.toBeNull();
    }
  }, 150_000);
});
