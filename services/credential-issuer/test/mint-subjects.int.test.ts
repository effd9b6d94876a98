/**
 * One mint's trades natively (docs/nats.md): against a real operator-mode nats-server, a plan that includes a
 * TRADES subject may subscribe to its per-mint subjects (`<subject>.mint.<mint>`, published by ingest as core
 * NATS copies) and receives only that mint's trades; a subject outside the plan stays refused, mint or not.
 * Both kinds of native credentials: the shared per-plan developer accounts (issueUserCredentials) and
 * per-customer accounts; and customer accounts signed before per-mint subjects existed (upgradeAccounts).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, jwtAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { encodeAccount } from '@nats-io/jwt';
import { connectNats, createDb, createLogger, migrate, type Kysely } from '@tradewind/lib';
import { mintSubject, type PlanId, type TradeSubject } from '@tradewind/contracts';
import { createTestDatabase, freePort, type TestDatabase } from '@tradewind/dev';
import {
  CREDENTIAL_ISSUER_SCHEMA,
  createCredentialService,
  createSeedCipher,
  credentialIssuerMigrations,
  encodeCustomerAccount,
  encodeCustomerUser,
  generateSeedKey,
  issueUserCredentials,
  keyPairFromSeed,
  newCustomerAccountKey,
  parseSeedKey,
  pushAccountJwt,
  type CredentialIssuerDatabase,
  type CustomerAccountSpec,
} from '../src/index.js';
import { startLocalNats, type LocalNats } from '@tradewind/dev';
import { customerAccountClaims } from '../src/domain/customer-accounts.js';

// Two real pump.fun mints of the bundled recording (services/ingest/recording).
const X = 'ED5nyyWEzpPPiWimP8vYm7sD7TD3LAt3Q3gRTWHzPJBY';
const Y = '5dNYcC6W7fV8gEoP98pLYcuqTrU9K2ZW6dQjDyTzpump';

let stateDir: string;
let nats: LocalNats;
let svc: NatsConnection;
let sys: NatsConnection;
let database: TestDatabase;
let db: Kysely<CredentialIssuerDatabase>;
const opened: NatsConnection[] = [];

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'tw-ci-mint-'));
  nats = await startLocalNats({ stateDir, port: await freePort(), monitorPort: await freePort() });
  svc = await connectNats({ url: nats.url, creds: nats.identities.service_user_creds, name: 'svc' });
  sys = await connectNats({ url: nats.url, creds: nats.identities.system_user_creds, name: 'sys' });
  database = await createTestDatabase('credential_issuer_mint');
  db = createDb<CredentialIssuerDatabase>({ url: database.url, schema: CREDENTIAL_ISSUER_SCHEMA });
  await migrate(db, CREDENTIAL_ISSUER_SCHEMA, credentialIssuerMigrations);
});

afterAll(async () => {
  for (const nc of opened) await nc.close().catch(() => undefined);
  await svc?.close();
  await sys?.close();
  await db?.destroy();
  await database?.drop();
  await nats?.stop();
  await rm(stateDir, { recursive: true, force: true });
});

async function dial(jwt: string, seed: string): Promise<NatsConnection> {
  const nc = await connect({ servers: nats.url, authenticator: jwtAuthenticator(jwt, new TextEncoder().encode(seed)), reconnect: false });
  opened.push(nc);
  return nc;
}

/** Native credentials of a shared per-plan account (developer credentials). */
async function developerUser(plan: PlanId): Promise<NatsConnection> {
  const c = await issueUserCredentials(nats.identities, { plan, natsUrl: nats.url, ttlSeconds: 3600 });
  return dial(c.user_jwt, c.user_nkey_seed);
}

/** A customer account on `plan` pushed to the resolver, and a connection of its user. */
async function customerUser(plan: PlanId): Promise<NatsConnection> {
  const spec: CustomerAccountSpec = { accountPublicKey: newCustomerAccountKey(), name: `user-${plan}`, plan };
  await pushAccountJwt(sys, await encodeCustomerAccount(nats.identities, spec));
  const user = await encodeCustomerUser(nats.identities, spec.accountPublicKey, { name: spec.name, ttlSeconds: 3600 });
  return dial(user.userJwt, user.userSeed);
}

/** Subscribes and collects bodies; `refused` resolves with the subscription's permission error, if any. */
function collect(nc: NatsConnection, subject: string): { got: string[]; refused: Promise<string> } {
  const got: string[] = [];
  const refused = new Promise<string>((resolve) => {
    nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) resolve(err.message);
        else got.push(msg.string());
      },
    });
  });
  return { got, refused };
}

/** What ingest publishes for one trade of `mint` on `subject`: the stream subject and its per-mint copy. */
function publishTrade(subject: TradeSubject, mint: string, n: number): void {
  const body = JSON.stringify({ source: subject, mint, n });
  svc.publish(subject, body);
  svc.publish(mintSubject(subject, mint), body);
}

/** Flushes the publisher and the subscriber (the server has sent everything published before). */
async function settle(nc: NatsConnection): Promise<void> {
  await svc.flush();
  await nc.flush();
}

const trade = (subject: string, mint: string, n: number) => JSON.stringify({ source: subject, mint, n });

describe.each([
  { kind: 'a shared per-plan account (developer credentials)', user: developerUser },
  { kind: 'a per-customer account', user: customerUser },
])('per-mint subjects natively, $kind', ({ user }) => {
  it("when a starter subscribes to basic.pumpfun.mint.<X>, then it receives X's trades only; premium.pumpswap.mint.<X> is a permissions violation", async () => {
    const nc = await user('starter');
    const one = collect(nc, mintSubject('basic.pumpfun', X));
    const every = collect(nc, 'basic.pumpfun.mint.*');
    const premium = collect(nc, mintSubject('premium.pumpswap', X));
    await nc.flush();
    publishTrade('basic.pumpfun', X, 1);
    publishTrade('basic.pumpfun', Y, 2);
    publishTrade('basic.bonk', X, 3);
    publishTrade('premium.pumpswap', X, 4);
    publishTrade('basic.pumpfun', X, 5);
    expect(await premium.refused).toMatch(new RegExp(`Permissions Violation for Subscription to "premium\\.pumpswap\\.mint\\.${X}"`));
    await settle(nc);
    expect(one.got).toEqual([trade('basic.pumpfun', X, 1), trade('basic.pumpfun', X, 5)]);
    expect(every.got).toEqual([trade('basic.pumpfun', X, 1), trade('basic.pumpfun', Y, 2), trade('basic.pumpfun', X, 5)]);
    expect(premium.got).toEqual([]);
    expect(nc.isClosed()).toBe(false);
  });

  it('when a starter subscribes to premium.*.mint.* or publishes on a mint subject, then the server refuses', async () => {
    const nc = await user('starter');
    const wildcard = collect(nc, 'premium.*.mint.*');
    expect(await wildcard.refused).toMatch(/Permissions Violation for Subscription to "premium\.\*\.mint\.\*"/);
    const publishRefused = new Promise<string>((resolve) => {
      void (async () => {
        for await (const s of nc.status()) if (s.type === 'error') resolve(String((s as { error?: unknown }).error));
      })();
    });
    nc.publish(mintSubject('basic.pumpfun', X), 'forged');
    expect(await publishRefused).toMatch(/Permissions Violation for Publish/);
  });

  it.each(['plus', 'pro'] as const)(
    'when a %s user subscribes to premium.pumpswap.mint.<X> and premium.raydium.mint.<Y>, then it receives them',
    async (plan) => {
      const nc = await user(plan);
      const pumpswap = collect(nc, mintSubject('premium.pumpswap', X));
      const raydium = collect(nc, mintSubject('premium.raydium', Y));
      await nc.flush();
      publishTrade('premium.pumpswap', Y, 1);
      publishTrade('premium.pumpswap', X, 2);
      publishTrade('premium.raydium', Y, 3);
      await settle(nc);
      expect(pumpswap.got).toEqual([trade('premium.pumpswap', X, 2)]);
      expect(raydium.got).toEqual([trade('premium.raydium', Y, 3)]);
    },
  );
});

describe('customer accounts signed before per-mint subjects', () => {
  it('when credential-issuer upgrades the accounts, then an outdated account is re-signed once, pushed by resync, and its user then receives per-mint subjects', async () => {
    const service = createCredentialService({
      db,
      identities: nats.identities,
      sysNc: sys,
      cipher: createSeedCipher(parseSeedKey(generateSeedKey())),
      logger: createLogger({ service: 'credential-issuer', level: 'silent' }),
      natsPublicUrl: nats.url,
      ttlSeconds: 3600,
      rotationsPerDay: 3,
    });
    const userId = randomUUID();
    const creds = await service.credentials(userId, 'old@example.com');
    // The account as the code before per-mint subjects signed it: no `.mint.>` import or permission.
    const spec: CustomerAccountSpec = { accountPublicKey: creds.account_public_key, name: userId, plan: 'starter', revocations: {} };
    const current = customerAccountClaims(nats.identities, spec);
    const oldClaims = {
      ...current,
      imports: current.imports!.filter((i) => !i.subject.includes('.mint.')),
      default_permissions: { ...current.default_permissions!, sub: { allow: current.default_permissions!.sub!.allow!.filter((s) => !s.includes('.mint.')) } },
    };
    const oldJwt = await encodeAccount(userId, spec.accountPublicKey, oldClaims, { signer: keyPairFromSeed(nats.identities.operator.identity.seed) });
    await pushAccountJwt(sys, oldJwt);
    await db.updateTable('customers').set({ account_jwt: oldJwt, pushed_account_jwt: oldJwt }).where('user_id', '=', userId).execute();

    const before = await dial(creds.user_jwt, creds.user_nkey_seed);
    expect(await collect(before, mintSubject('basic.pumpfun', X)).refused).toMatch(/Permissions Violation/);
    await before.close(); // starter: one connection

    expect(await service.upgradeAccounts()).toBe(1);
    expect(await service.upgradeAccounts()).toBe(0);
    expect(await service.resync()).toBe(1);

    const after = await dial(creds.user_jwt, creds.user_nkey_seed);
    const one = collect(after, mintSubject('basic.pumpfun', X));
    await after.flush();
    publishTrade('basic.pumpfun', X, 7);
    publishTrade('basic.pumpfun', Y, 8);
    await settle(after);
    expect(one.got).toEqual([trade('basic.pumpfun', X, 7)]);
  });
});
