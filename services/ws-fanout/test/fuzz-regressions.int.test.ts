/**
 * Regressions found by the WebSocket fuzzer (scripts/reliability/fuzz/websocket.ts, issue 24).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { isTradeMessage } from '@tradewind/contracts';
import { createCustomer, startTestApp, startTestEnv, TestClient, type TestApp, type TestEnv } from './support.js';

let env: TestEnv;
let t: TestApp;

beforeAll(async () => {
  env = await startTestEnv();
  t = await startTestApp(env);
  await jetstream(env.nc).publish('basic.pumpfun', JSON.stringify({ source: 'pumpfun', transaction_type: 'BUY', signature: 'before', slot: 1 }));
});

afterAll(async () => {
  await t?.app.stop();
  await env?.stop();
});

describe('requests of one connection (fuzz regressions)', () => {
  it.each<[string, { replay?: { from: number }; resume_after?: number }]>([
    ['replay', { replay: { from: 1 } }],
    ['resume', { resume_after: 0 }],
  ])('when a %s subscribe is followed at once by an unsubscribe, then both are answered in order and no trade follows', async (_kind, extra) => {
    const customer = await createCustomer(env, 'pro');
    const c = await TestClient.authed(t.url, await customer.user());
    c.send({ subject: 'basic.pumpfun', ...extra });
    c.send({ unsubscribe: 'basic.pumpfun' });
    const answers: Array<Record<string, unknown>> = [];
    while (answers.at(-1)?.type !== 'unsubscribed' && answers.at(-1)?.type !== 'error') {
      const m = await c.next(5_000);
      if (!isTradeMessage(m) && m.type !== 'replay_caught_up') answers.push(m);
    }
    // A replay announces `subscribed` just before its first message (docs/websocket.md §3): unsubscribed
    // before that, the client hears only `unsubscribed`. Never an error, never `subscribed` afterwards.
    expect([['subscribed', 'unsubscribed'], ...(extra.replay ? [['unsubscribed']] : [])]).toContainEqual(answers.map((m) => m.type));
    await jetstream(env.nc).publish('basic.pumpfun', JSON.stringify({ source: 'pumpfun', transaction_type: 'BUY', signature: 'after', slot: 2 }));
    const later = await c.drain(300);
    expect(later.filter((m) => m.signature === 'after' || m.type === 'subscribed')).toEqual([]);
    c.close();
  });
});
