/**
 * The WebSocket fuzzer (scripts/reliability/fuzz/websocket.ts) at 'test' size inside `npm test`, and
 * negative controls proving each of its detectors can fail.
 */
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { fuzzSeed } from './report.js';
import { countDelivery, documentedCloses, newTally, preAuthCase, runWebSocketFuzz } from './fuzz/websocket.js';

const SEED = fuzzSeed(20_261_126);

/** A stand-in server that sends the challenge, then answers every frame with `answer`. */
async function brokenServer(answer: (ws: import('ws').WebSocket) => void): Promise<{ url: string; close(): Promise<void> }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((r) => wss.once('listening', r));
  wss.on('connection', (ws) => {
    ws.send(JSON.stringify({ type: 'challenge', nonce: 'n' }));
    ws.on('message', () => answer(ws));
  });
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => r());
      }),
  };
}

describe('WebSocket fuzzing', () => {
  it('when every input class runs against ws-fanout at test size, then each is tried and nothing is lost, duplicated or crashed', async () => {
    const rows = await runWebSocketFuzz('test', SEED);
    expect(rows.length).toBeGreaterThanOrEqual(10);
    for (const row of rows) {
      expect(row.tried, row.name).toBeGreaterThan(0);
      expect({ name: row.name, lost: row.lost, duplicated: row.duplicated, crashed: row.crashed, notes: row.notes }).toEqual({
        name: row.name,
        lost: 0,
        duplicated: 0,
        crashed: 0,
        notes: row.notes,
      });
    }
  }, 90_000);

  it('when a subscriber misses one trade and gets another twice, then one is counted lost and one duplicated', () => {
    expect(countDelivery([10, 11, 12, 13], [10, 13, 11, 11, 99])).toEqual({ lost: 1, duplicated: 1, reordered: 1 });
    expect(countDelivery([10, 11, 12], [10, 11, 12])).toEqual({ lost: 0, duplicated: 0, reordered: 0 });
  });

  it('when the server answers internal (1011), stays silent, or closes with an undocumented code, then each case counts as crashed', async () => {
    const cases: Array<(ws: import('ws').WebSocket) => void> = [
      (ws) => {
        ws.send(JSON.stringify({ type: 'error', code: 'internal', message: 'internal error' }));
        ws.close(1011);
      },
      () => undefined,
      (ws) => {
        ws.send(JSON.stringify({ type: 'error', code: 'bad_json', message: 'message is not valid JSON' }));
        ws.close(4401);
      },
      (ws) => {
        ws.send(JSON.stringify({ type: 'error', code: 'made_up', message: 'x' }));
      },
      (ws) => ws.close(1011),
      (ws) => ws.send('not json'),
    ];
    for (const [i, answer] of cases.entries()) {
      const server = await brokenServer(answer);
      try {
        const tally = newTally();
        await preAuthCase({ url: server.url, seed: SEED, deadlineMs: 400 }, tally, `control ${i}`, '10.0.0.1', 'not json');
        expect({ i, crashed: tally.crashed > 0 }).toEqual({ i, crashed: true });
      } finally {
        await server.close();
      }
    }
  }, 30_000);

  it('when the answer is the documented bad_json then 4400, then the case passes (the oracle is not always failing)', async () => {
    const server = await brokenServer((ws) => {
      ws.send(JSON.stringify({ type: 'error', code: 'bad_json', message: 'message is not valid JSON' }));
      ws.close(4400, 'bad_json');
    });
    try {
      const tally = newTally();
      await preAuthCase({ url: server.url, seed: SEED, deadlineMs: 2000 }, tally, 'control ok', '10.0.0.1', 'not json');
      expect(tally).toMatchObject({ tried: 1, crashed: 0 });
    } finally {
      await server.close();
    }
    expect([...documentedCloses('bad_json', true)]).toEqual([null]);
    expect([...documentedCloses('bad_json', false)]).toEqual([4400]);
    expect(documentedCloses('no_such_code', false).size).toBe(0);
  });
});
