import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAccount, type Account } from '@nats-io/jwt';
import { PLANS } from '@tradewind/contracts';
import {
  customerAccountClaims,
  customerAccountIsCurrent,
  encodeCustomerAccount,
  newCustomerAccountKey,
  type CustomerAccountSpec,
} from './customer-accounts.js';
import { ensureNatsIdentities, keyPairFromSeed, type NatsIdentities } from './identities.js';
import { planSubscribeSubjects, tradeExports, tradeImports } from './plan-subjects.js';

let stateDir: string;
let identities: NatsIdentities;

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'tw-plan-subjects-'));
  identities = await ensureNatsIdentities(stateDir);
});

afterAll(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

describe('subjects per plan, natively', () => {
  it('when a plan includes a TRADES subject, then its users may subscribe to it and to its per-mint subjects, and to nothing of other subjects; every plan to slots', () => {
    expect(planSubscribeSubjects(PLANS.starter)).toEqual(['basic.pumpfun', 'basic.pumpfun.mint.>', 'basic.bonk', 'basic.bonk.mint.>', 'slots']);
    expect(planSubscribeSubjects(PLANS.plus)).toEqual([
      'basic.pumpfun',
      'basic.pumpfun.mint.>',
      'basic.bonk',
      'basic.bonk.mint.>',
      'premium.pumpswap',
      'premium.pumpswap.mint.>',
      'premium.raydium',
      'premium.raydium.mint.>',
      'slots',
    ]);
    expect(tradeImports(PLANS.starter, 'AX').map((i) => [i.subject, i.account, i.type])).toEqual([
      ['basic.pumpfun', 'AX', 'stream'],
      ['basic.pumpfun.mint.>', 'AX', 'stream'],
      ['basic.bonk', 'AX', 'stream'],
      ['basic.bonk.mint.>', 'AX', 'stream'],
      ['slots', 'AX', 'stream'],
    ]);
    expect(tradeExports().map((e) => e.subject)).toEqual(planSubscribeSubjects(PLANS.pro));
  });

  it("when the identities are signed, then TRADEWIND exports the per-mint subjects and each per-plan account imports its plan's", () => {
    const claims = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as { nats: Account };
    expect(claims(identities.tradewind.jwt).nats.exports?.map((e) => e.subject)).toEqual(
      expect.arrayContaining(['basic.pumpfun.mint.>', 'premium.raydium.mint.>', 'slots']),
    );
    expect(claims(identities.customers.starter.jwt).nats.imports?.map((i) => i.subject)).toEqual([
      'basic.pumpfun',
      'basic.pumpfun.mint.>',
      'basic.bonk',
      'basic.bonk.mint.>',
      'slots',
    ]);
  });

  it('when a customer account was signed with the current claims, then it is current; signed without the per-mint subjects or for another plan, then not', async () => {
    const spec: CustomerAccountSpec = { accountPublicKey: newCustomerAccountKey(), name: 'u1', plan: 'pro', revocations: { UABC: 5 } };
    expect(customerAccountIsCurrent(identities, spec, await encodeCustomerAccount(identities, spec))).toBe(true);
    expect(customerAccountIsCurrent(identities, { ...spec, plan: 'plus' }, await encodeCustomerAccount(identities, spec))).toBe(false);
    expect(customerAccountIsCurrent(identities, { ...spec, revocations: {} }, await encodeCustomerAccount(identities, spec))).toBe(false);

    // What the code before per-mint subjects signed: no `.mint.>` import or permission.
    const current = customerAccountClaims(identities, spec);
    const noMint = (xs: string[]) => xs.filter((x) => !x.includes('.mint.'));
    const old = {
      ...current,
      imports: current.imports!.filter((i) => !i.subject.includes('.mint.')),
      default_permissions: { ...current.default_permissions!, sub: { allow: noMint(current.default_permissions!.sub!.allow!) } },
    };
    const oldJwt = await encodeAccount(spec.name, spec.accountPublicKey, old, { signer: keyPairFromSeed(identities.operator.identity.seed) });
    expect(customerAccountIsCurrent(identities, spec, oldJwt)).toBe(false);
    // Signed before slot status: no `slots` import or permission.
    const noSlots = {
      ...current,
      imports: current.imports!.filter((i) => i.subject !== 'slots'),
      default_permissions: { ...current.default_permissions!, sub: { allow: current.default_permissions!.sub!.allow!.filter((x) => x !== 'slots') } },
    };
    const noSlotsJwt = await encodeAccount(spec.name, spec.accountPublicKey, noSlots, { signer: keyPairFromSeed(identities.operator.identity.seed) });
    expect(customerAccountIsCurrent(identities, spec, noSlotsJwt)).toBe(false);
    expect(customerAccountIsCurrent(identities, spec, 'not.a.jwt')).toBe(false);
  });
});
