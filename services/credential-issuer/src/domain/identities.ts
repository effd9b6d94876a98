/**
 * The NATS operator-mode identities Tradewind runs on (docs/architecture.md §8):
 *
 * - operator `tradewind`, the trust anchor every server and ws-fanout pod is configured with;
 * - account `SYS`, the system account (server events, resolver claim updates and lookups);
 * - account `TRADEWIND`, where the services live and where JetStream holds `TRADES`;
 *   it exports each trade subject and its per-mint subjects (`<subject>.mint.>`) as public streams;
 * - account `REPLAY`, holding a mirror of `TRADES` that Pro customers' accounts read with JetStream
 *   consumers of their own (native replay, domain/replay.ts); customers never touch TRADEWIND's
 *   JetStream API, so a consumer they create cannot publish into the services' subject space;
 * - one customer account per plan (`CUSTOMERS_STARTER`, `_PLUS`, `_PRO`) that imports exactly
 *   that plan's subjects and their per-mint subjects (domain/plan-subjects.ts), so even a user JWT with
 *   wider permissions could not receive more.
 *   Each has a signing key: user JWTs are signed with it, never with the account's identity key.
 *
 * Keys are created once in a state directory and reused (locally `.tradewind/`, git-ignored;
 * in Kubernetes from secrets). Seeds never leave this module except through the state files.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createAccount,
  createOperator,
  createUser,
  encodeAccount,
  encodeOperator,
  encodeUser,
  fmtCreds,
  fromSeed,
  type Import,
  type Export,
  type KeyPair,
} from '@nats-io/jwt';
import { PLAN_IDS, PLANS, type PlanId } from '@tradewind/contracts';
import { REPLAY_ACCOUNT_EXPORTS, REPLAY_MIRROR_IMPORTS, TRADEWIND_MIRROR_EXPORTS } from './replay.js';
import { tradeExports, tradeImports } from './plan-subjects.js';

/** A key pair as stored: the seed (secret) and its public key. */
export interface StoredKey {
  readonly seed: string;
  readonly public_key: string;
}

/** An account: identity key, optional signing key and its current JWT (signed by the operator). */
export interface StoredAccount {
  readonly name: string;
  readonly identity: StoredKey;
  readonly signing?: StoredKey;
  readonly jwt: string;
}

/** Everything in `<stateDir>/nats/identities.json` (file mode 0600). */
export interface NatsIdentities {
  readonly operator: { readonly identity: StoredKey; readonly jwt: string };
  readonly system: StoredAccount;
  readonly tradewind: StoredAccount;
  /** The account of the TRADES mirror read by native replay (domain/replay.ts). */
  readonly replay: StoredAccount;
  readonly customers: Readonly<Record<PlanId, StoredAccount>>;
  /**
   * Signing key listed in every per-customer account (`signing_keys`): user JWTs of customer
   * accounts are signed with it, so no per-customer seed is kept (domain/customer-accounts.ts).
   */
  readonly customer_signing: StoredKey;
  /** Creds (JWT + seed, the standard `.creds` text) of the system user, for resolver claim lookups/updates. */
  readonly system_user_creds: string;
  /** Creds of the services' user in the TRADEWIND account (ingest, ws-fanout). */
  readonly service_user_creds: string;
  /** Creds of credential-issuer's user in the REPLAY account (creates the mirror, deletes customers' replay consumers). */
  readonly replay_user_creds: string;
}

/** Account name of a plan's customer account, e.g. `CUSTOMERS_STARTER`. */
export function customerAccountName(plan: PlanId): string {
  return `CUSTOMERS_${plan.toUpperCase()}`;
}

/** The key pair of an NKey seed string (`SO…`, `SA…`, `SU…`). @throws Error from nkeys when it is not a seed. */
export function keyPairFromSeed(seed: string): KeyPair {
  return fromSeed(new TextEncoder().encode(seed));
}

function keyOf(kp: { getSeed(): Uint8Array; getPublicKey(): string }): StoredKey {
  return { seed: new TextDecoder().decode(kp.getSeed()), public_key: kp.getPublicKey() };
}

async function signAccount(name: string, identity: StoredKey, operatorSeed: string, claims: Parameters<typeof encodeAccount>[2]): Promise<string> {
  return encodeAccount(name, keyPairFromSeed(identity.seed), claims, {
    signer: keyPairFromSeed(operatorSeed),
  });
}

/**
 * Account limits. An account JWT without `limits` is read by nats-server as all zeros
 * (no imports, no exports, no connections), so every account states them (-1 = unlimited).
 * Per-customer connection limits come with per-customer accounts (entitlements issue).
 */
const ACCOUNT_LIMITS = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 } as const;

/** The JetStream limits of the TRADEWIND account: unlimited within the server's own limits. */
const UNLIMITED_JETSTREAM = { mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 } as const;

/** The accounts the operator itself owns (SYS, TRADEWIND, REPLAY, the per-plan developer accounts): preloaded into the server config and pushed at start. */
export function operatorAccounts(identities: NatsIdentities): StoredAccount[] {
  return [identities.system, identities.tradewind, identities.replay, ...PLAN_IDS.map((p) => identities.customers[p])];
}

/**
 * Loads the identities from `<stateDir>/nats/identities.json`, creating every key and JWT on
 * first use. Account JWTs are re-signed on every call so that a change in the plans catalogue
 * (subjects per plan) reaches the server at its next start; keys are never regenerated.
 */
export async function ensureNatsIdentities(stateDir: string): Promise<NatsIdentities> {
  const dir = join(stateDir, 'nats');
  const file = join(dir, 'identities.json');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let previous: Partial<NatsIdentities> = {};
  try {
    previous = JSON.parse(await readFile(file, 'utf8')) as NatsIdentities;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }

  const operatorKey = previous.operator?.identity ?? keyOf(createOperator());
  const accountKey = (prev: StoredAccount | undefined) => prev?.identity ?? keyOf(createAccount());
  const sysKey = accountKey(previous.system);
  const twKey = accountKey(previous.tradewind);
  const replayKey = accountKey(previous.replay);

  const operatorJwt = await encodeOperator('tradewind', keyPairFromSeed(operatorKey.seed), {
    system_account: sysKey.public_key,
  });

  const system: StoredAccount = {
    name: 'SYS',
    identity: sysKey,
    jwt: await signAccount('SYS', sysKey, operatorKey.seed, { limits: { ...ACCOUNT_LIMITS } }),
  };

  const exports: Export[] = [...tradeExports(), ...TRADEWIND_MIRROR_EXPORTS];
  const tradewind: StoredAccount = {
    name: 'TRADEWIND',
    identity: twKey,
    jwt: await signAccount('TRADEWIND', twKey, operatorKey.seed, { exports, limits: { ...ACCOUNT_LIMITS, ...UNLIMITED_JETSTREAM } }),
  };
  const replay: StoredAccount = {
    name: 'REPLAY',
    identity: replayKey,
    jwt: await signAccount('REPLAY', replayKey, operatorKey.seed, {
      imports: REPLAY_MIRROR_IMPORTS(twKey.public_key),
      exports: [...REPLAY_ACCOUNT_EXPORTS],
      limits: { ...ACCOUNT_LIMITS, ...UNLIMITED_JETSTREAM },
    }),
  };

  const customers = {} as Record<PlanId, StoredAccount>;
  for (const plan of PLAN_IDS) {
    const prev = previous.customers?.[plan];
    const identity = accountKey(prev);
    const signing = prev?.signing ?? keyOf(createAccount());
    const imports: Import[] = tradeImports(PLANS[plan], twKey.public_key);
    const name = customerAccountName(plan);
    customers[plan] = {
      name,
      identity,
      signing,
      jwt: await signAccount(name, identity, operatorKey.seed, {
        imports,
        limits: { ...ACCOUNT_LIMITS },
        signing_keys: [signing.public_key],
        // Customers never publish; the user JWTs say so too.
        default_permissions: { pub: { deny: ['>'] } },
      }),
    };
  }

  /** A user of `account`, keeping the NKey of `previousCreds` when there is one. */
  const userCreds = async (name: string, account: StoredAccount, perms: Parameters<typeof encodeUser>[3], previousCreds: string | undefined) => {
    const seedMatch = previousCreds?.match(/(SU[A-Z2-7]{56})/);
    const ukp = seedMatch?.[1] ? keyPairFromSeed(seedMatch[1]) : createUser();
    const jwt = await encodeUser(name, ukp, keyPairFromSeed(account.identity.seed), perms);
    return new TextDecoder().decode(fmtCreds(jwt, ukp));
  };

  const identities: NatsIdentities = {
    operator: { identity: operatorKey, jwt: operatorJwt },
    system,
    tradewind,
    replay,
    customers,
    customer_signing: previous.customer_signing ?? keyOf(createAccount()),
    system_user_creds: await userCreds('sys', system, {}, previous.system_user_creds),
    service_user_creds: await userCreds('tradewind-services', tradewind, {}, previous.service_user_creds),
    replay_user_creds: await userCreds('replay', replay, {}, previous.replay_user_creds),
  };
  await writeFile(file, JSON.stringify(identities, null, 2), { mode: 0o600 });
  await writeFile(join(dir, 'sys.creds'), identities.system_user_creds, { mode: 0o600 });
  await writeFile(join(dir, 'service.creds'), identities.service_user_creds, { mode: 0o600 });
  await writeFile(join(dir, 'operator.jwt'), identities.operator.jwt, { mode: 0o644 });
  return identities;
}

/**
 * Reads `<stateDir>/nats/identities.json` without re-signing anything; creates the identities
 * (as {@link ensureNatsIdentities}) only when the file does not exist yet.
 */
export async function loadNatsIdentities(stateDir: string): Promise<NatsIdentities> {
  try {
    const stored = JSON.parse(await readFile(join(stateDir, 'nats', 'identities.json'), 'utf8')) as Partial<NatsIdentities>;
    // A state directory from before per-customer accounts / native replay gets what it lacks added.
    return stored.customer_signing && stored.replay ? (stored as NatsIdentities) : ensureNatsIdentities(stateDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ensureNatsIdentities(stateDir);
    throw err;
  }
}
