/**
 * Plan changes and revocations reach live WebSocket clients within 5 s: the app listens to the
 * account JWTs pushed to the resolver (reauthorize / pushAccountJwt from credential-issuer) and
 * re-checks every client of the account from its stored user JWT.
 *
 * Observed on the 2-core dev machine (each test prints its measurement): the downgrade's
 * `unsubscribed`, the upgrade's `plan_changed` and the revocation's 4401 close arrive 37–85 ms after
 * reauthorize() / pushAccountJwt() is called (that time includes the resolver's answers to the
 * pushes); the bound asserted is 5 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, encodeAccount, type Account, decode } from '@nats-io/jwt';
import { isTradeMessage } from '@tradewind/contracts';
import { encodeCustomerAccount, pushAccountJwt, reauthorize } from '@tradewind/credential-issuer';
import { createCustomer, startTestApp, startTestEnv, TestClient, type TestApp, type TestEnv } from './support.js';

let env: TestEnv;
let t: TestApp;

beforeAll(async () => {
  env = await startTestEnv();
  t = await startTestApp(env);
});

afterAll(async () => {
  await t?.app.stop();
  await env?.stop();
});

/** Takes messages until one matches `predicate`; returns it and the ms waited. Fails after `timeoutMs`. */
async function until(
  c: TestClient,
  predicate: (m: Record<string, unknown>) => boolean,
  timeoutMs = 5000,
): Promise<{ message: Record<string, unknown>; seen: Array<Record<string, unknown>> }> {
  const deadline = Date.now() + timeoutMs;
  const seen: Array<Record<string, unknown>> = [];
  for (;;) {
    const message = await c.next(Math.max(1, deadline - Date.now()));
    seen.push(message);
    if (predicate(message)) return { message, seen };
  }
}

describe('live plan changes', () => {
  it('when a pro customer subscribed to premium.raydium is downgraded to starter, then within 5 s the subject ends, basic trades still flow and premium.raydium is refused naming Plus', async () => {
    const customer = await createCustomer(env, 'pro');
    const c = await TestClient.authed(t.url, await customer.user());
    c.send({ subject: 'premium.raydium' });
    c.send({ subject: 'basic.pumpfun' });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject: 'premium.raydium' });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject: 'basic.pumpfun' });
    env.nc.publish('premium.raydium', '{"before":"downgrade"}');
    expect(await c.nextTradeRaw()).toBe('{"before":"downgrade"}');
    expect(await t.metric('tradewind_ws_fanout_connections', { plan: 'pro' })).toBe(1);

    const started = performance.now();
    await reauthorize(env.sysNc, env.nats.identities, { ...customer.spec, plan: 'starter' });
    const { message: unsubscribed, seen } = await until(c, (m) => m.type === 'unsubscribed');
    const latencyMs = performance.now() - started;
    console.info(`downgrade pro → starter reached the live socket in ${latencyMs.toFixed(1)} ms`);
    expect(latencyMs).toBeLessThan(5000);
    expect(unsubscribed).toEqual({
      type: 'unsubscribed',
      subject: 'premium.raydium',
      reason: 'plan_changed',
      message: 'premium.raydium is not in your Starter plan any more; it is included in the Plus plan and above',
    });
    expect(seen).toContainEqual({ type: 'plan_changed', plan: 'starter', subjects: ['basic.pumpfun', 'basic.bonk'] });
    // The connections gauge follows the plan change.
    expect(await t.metric('tradewind_ws_fanout_connections', { plan: 'pro' })).toBe(0);
    expect(await t.metric('tradewind_ws_fanout_connections', { plan: 'starter' })).toBe(1);

    // The limits.conn = 0 half of reauthorize() closed nothing; premium trades stop, basic ones flow.
    env.nc.publish('premium.raydium', '{"after":"downgrade"}');
    // As ingest publishes it: every basic.pumpfun trade carries "type": "trade" (schema version 2).
    env.nc.publish('basic.pumpfun', '{"type":"trade","basic":"still flows"}');
    const rest = await c.drain(300);
    expect(rest.filter(isTradeMessage)).toEqual([expect.objectContaining({ basic: 'still flows' })]);
    expect(c.closed).toBeUndefined();

    c.send({ subject: 'premium.raydium' });
    const refused = await c.next();
    expect(refused).toMatchObject({ type: 'error', code: 'subject_not_in_plan' });
    expect(String(refused.message)).toMatch(/included in the Plus plan/);
    c.close();
    await c.waitClosed();
  });

  it('when a pro customer holding 3 sockets is downgraded to starter, then exactly 2 are closed with connection_limit and one stays', async () => {
    const customer = await createCustomer(env, 'pro');
    const sockets = [];
    for (let i = 0; i < 3; i++) sockets.push(await TestClient.authed(t.url, await customer.user()));
    await reauthorize(env.sysNc, env.nats.identities, { ...customer.spec, plan: 'starter' });
    const outcomes = await Promise.all(
      sockets.map(async (c) => {
        const closed = await Promise.race([c.waitClosed(5000).then((x) => x.code), new Promise<undefined>((r) => setTimeout(() => r(undefined), 1500))]);
        return closed;
      }),
    );
    expect(outcomes.filter((code) => code === 4429)).toHaveLength(2);
    expect(outcomes.filter((code) => code === undefined)).toHaveLength(1);
    const survivor = sockets[outcomes.indexOf(undefined)]!;
    survivor.send({ subject: 'basic.bonk' });
    expect((await until(survivor, (m) => m.type === 'subscribed')).message).toMatchObject({ type: 'subscribed', subject: 'basic.bonk' });
    survivor.close();
    await survivor.waitClosed();
  });

  it('when a starter customer is upgraded to plus, then plan_changed arrives and premium.pumpswap can be subscribed on the same socket', async () => {
    const customer = await createCustomer(env, 'starter');
    const c = await TestClient.authed(t.url, await customer.user());
    c.send({ subject: 'premium.pumpswap' });
    expect(await c.next()).toMatchObject({ type: 'error', code: 'subject_not_in_plan' });

    const started = performance.now();
    await reauthorize(env.sysNc, env.nats.identities, { ...customer.spec, plan: 'plus' });
    const { message } = await until(c, (m) => m.type === 'plan_changed');
    console.info(`upgrade starter → plus reached the live socket in ${(performance.now() - started).toFixed(1)} ms`);
    expect(message).toEqual({ type: 'plan_changed', plan: 'plus', subjects: ['basic.pumpfun', 'basic.bonk', 'premium.pumpswap', 'premium.raydium'] });

    c.send({ subject: 'premium.pumpswap' });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject: 'premium.pumpswap' });
    env.nc.publish('premium.pumpswap', '{"premium":"after upgrade"}');
    expect(await c.nextTradeRaw()).toBe('{"premium":"after upgrade"}');
    c.close();
    await c.waitClosed();
  });

  it("when a user's key is added to its account's revocations, then that socket gets revoked and close 4401 within 5 s while another user of the account stays", async () => {
    const customer = await createCustomer(env, 'pro');
    const doomedUser = await customer.user();
    const doomed = await TestClient.authed(t.url, doomedUser);
    const other = await TestClient.authed(t.url, await customer.user());
    other.send({ subject: 'basic.bonk' });
    expect(await other.next()).toMatchObject({ type: 'subscribed', subject: 'basic.bonk' });

    const started = performance.now();
    const revocations = { [doomedUser.publicKey]: Math.floor(Date.now() / 1000) + 1 };
    await pushAccountJwt(env.sysNc, await encodeCustomerAccount(env.nats.identities, { ...customer.spec, revocations }));
    const error = await doomed.next(5000);
    expect(error).toMatchObject({ type: 'error', code: 'revoked' });
    expect(typeof error.message).toBe('string');
    expect((await doomed.waitClosed(5000)).code).toBe(4401);
    console.info(`revocation closed the live socket in ${(performance.now() - started).toFixed(1)} ms`);
    expect(performance.now() - started).toBeLessThan(5000);

    env.nc.publish('basic.bonk', '{"other":"unaffected"}');
    expect(await other.nextTradeRaw()).toBe('{"other":"unaffected"}');
    expect(other.closed).toBeUndefined();
    other.close();
    await other.waitClosed();
  });

  it('when an account JWT that the operator did not sign is published on the update subjects, then it is ignored and counted', async () => {
    const customer = await createCustomer(env, 'pro');
    const c = await TestClient.authed(t.url, await customer.user());
    c.send({ subject: 'premium.raydium' });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject: 'premium.raydium' });
    const ignoredBefore = await t.metric('tradewind_ws_fanout_account_updates_total', { result: 'ignored' });

    // The customer's real claims, downgraded, but signed by a key that is not the operator's.
    const real = decode<Account>(await encodeCustomerAccount(env.nats.identities, { ...customer.spec, plan: 'starter' }));
    const forged = await encodeAccount(real.name, customer.spec.accountPublicKey, real.nats, { signer: createAccount() });
    env.sysNc.publish(`$SYS.ACCOUNT.${customer.spec.accountPublicKey}.CLAIMS.UPDATE`, forged);
    await env.sysNc.flush();
    await expect.poll(() => t.metric('tradewind_ws_fanout_account_updates_total', { result: 'ignored' })).toBe(ignoredBefore + 1);

    env.nc.publish('premium.raydium', '{"still":"pro"}');
    expect(await c.drain(200)).toEqual([expect.objectContaining({ still: 'pro' })]);
    c.close();
    await c.waitClosed();
  });
});
