/**
 * One NATS account per customer: the design that makes the NATS server itself enforce each
 * plan on native connections (docs/nats.md, "Per-customer accounts").
 *
 * nats-server limits connections per *account* (`limits.conn`), never per user JWT, so every
 * customer gets an account, signed by the operator, with
 *  - `limits.conn` = the plan's connections (docs/architecture.md §8),
 *  - stream imports of exactly the plan's TRADES subjects and their per-mint subjects
 *    (`<subject>.mint.>`, domain/plan-subjects.ts) from the TRADEWIND account,
 *  - `default_permissions`: subscribe to those subjects only, publish nothing — except, on a
 *    replay plan, the replay consumer API (service imports from REPLAY, domain/replay.ts) and
 *    its `_INBOX` replies,
 *  - the shared customer signing key in `signing_keys`, so credential-issuer signs user JWTs
 *    without keeping one seed per customer (the account's own identity seed is discarded), and
 *  - `revocations` of rotated user keys, and
 *  - tags `plan:<id>` and `customer`.
 * User JWTs carry no permissions of their own: they inherit the account's default permissions,
 * so a plan change needs no new credentials.
 *
 * What nats-server 2.9 (Debian's) does with an updated account JWT, measured here: new
 * connections see the new limits and permissions at once; live connections keep the
 * permissions they connected with, and a revocation does not close them. {@link reauthorize}
 * therefore pushes the account with `limits.conn = 0` first (the server closes every connection
 * of the account) and then the real claims; clients reconnect with the same credentials under
 * the new rules, and a revoked user is refused ("Authorization Violation").
 */
import { createAccount, createUser, decode, encodeAccount, encodeUser, type Account, type Import, type KeyPair } from '@nats-io/jwt';
import { AppError, CUSTOMER_ACCOUNT_TAG, PLANS, type PlanId } from '@tradewind/contracts';
import type { NatsConnection } from '@tradewind/lib';
import { keyPairFromSeed, type NatsIdentities } from './identities.js';
import { REPLAY_API_PREFIX, customerReplayImports } from './replay.js';
import { planSubscribeSubjects, tradeImports } from './plan-subjects.js';

/** Limits every customer account states (nats-server reads a missing limit as 0); -1 = unlimited. */
const CUSTOMER_LIMITS = { subs: -1, data: -1, payload: -1, imports: -1, exports: 0, wildcards: true, leaf: 0 } as const;

/** What a customer account says. `revocations`: user public key → seconds since the epoch (JWTs issued at or before it are refused). */
export interface CustomerAccountSpec {
  /** Account public key (`A…`). */
  accountPublicKey: string;
  /** Name in the JWT (the user id, for operators reading server logs). */
  name: string;
  plan: PlanId;
  revocations?: Readonly<Record<string, number>>;
}

/** A new account identity; only its public key is kept (users are signed with the shared customer signing key). */
export function newCustomerAccountKey(): string {
  return createAccount().getPublicKey();
}

/**
 * The claims (`nats` of the JWT) of a customer account: imports, limits, signing key, default permissions,
 * revocations, tags. Pure; {@link encodeCustomerAccount} signs them.
 * @param connections overrides `limits.conn` (0 is used by {@link reauthorize}).
 */
export function customerAccountClaims(identities: NatsIdentities, spec: CustomerAccountSpec, connections?: number): Partial<Account> {
  const plan = PLANS[spec.plan];
  const imports: Import[] = tradeImports(plan, identities.tradewind.identity.public_key);
  // Replay plans: the REPLAY account's consumer API for a consumer named after this account,
  // which users may call (publish) and whose replies they receive (_INBOX).
  if (plan.replay) imports.push(...customerReplayImports(identities.replay.identity.public_key, spec.accountPublicKey));
  const permissions = plan.replay
    ? { sub: { allow: [...planSubscribeSubjects(plan), '_INBOX.>'] }, pub: { allow: [`${REPLAY_API_PREFIX}.CONSUMER.>`] } }
    : { sub: { allow: planSubscribeSubjects(plan) }, pub: { deny: ['>'] } };
  return {
    imports,
    limits: { ...CUSTOMER_LIMITS, conn: connections ?? plan.connections },
    signing_keys: [identities.customer_signing.public_key],
    default_permissions: permissions,
    revocations: { ...(spec.revocations ?? {}) },
    // `customer`: tells ws-fanout to count connections per account (one customer), not per user key.
    tags: [`plan:${plan.id}`, CUSTOMER_ACCOUNT_TAG],
  } as Partial<Account>;
}

/**
 * The account JWT of a customer, signed by the operator.
 * @param connections overrides `limits.conn` (0 is used by {@link reauthorize}).
 * @throws Error from @nats-io/jwt for a malformed key.
 */
export async function encodeCustomerAccount(identities: NatsIdentities, spec: CustomerAccountSpec, connections?: number): Promise<string> {
  const operator = keyPairFromSeed(identities.operator.identity.seed);
  return encodeAccount(spec.name, spec.accountPublicKey, customerAccountClaims(identities, spec, connections), { signer: operator });
}

/** JSON with object keys sorted, so two claim objects compare by content, not by key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * Whether `accountJwt` already says what {@link customerAccountClaims} says for `spec` (every claim it sets
 * is equal), i.e. needs no re-signing. False for an account signed by older code, e.g. before the per-mint
 * subjects were imported, or for a JWT that does not decode. Reads the payload only, no signature work, so it
 * is cheap enough to run over every customer at start (signing is not: ~25 ms an account with @nats-io/jwt).
 */
export function customerAccountIsCurrent(identities: NatsIdentities, spec: CustomerAccountSpec, accountJwt: string): boolean {
  let stored: Record<string, unknown>;
  try {
    // The payload only: the JWT is our own, from our database; @nats-io/jwt's decode verifies the
    // signature with tweetnacl (~10 ms a JWT measured here, against ~0.1 ms for this whole check).
    const payload = JSON.parse(Buffer.from(accountJwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { nats?: unknown };
    if (!payload.nats || typeof payload.nats !== 'object') return false;
    stored = payload.nats as Record<string, unknown>;
  } catch {
    return false;
  }
  const wanted = customerAccountClaims(identities, spec) as Record<string, unknown>;
  return Object.keys(wanted).every((key) => canonical(stored[key]) === canonical(wanted[key]));
}

/**
 * A fresh user of a customer account. `userJwt` has no own permissions (the account's defaults apply).
 * `issuedAt` is the JWT's own `iat` (Unix seconds), which @nats-io/jwt stamps when it signs: a revocation at
 * that time or later refuses this user. Computed beforehand it could be a second early when signing crossed
 * a second boundary, and a revocation at it then missed the user (a flaky rotation test, 29 Nov).
 */
export async function encodeCustomerUser(
  identities: NatsIdentities,
  accountPublicKey: string,
  options: { name: string; ttlSeconds: number; now?: number; user?: KeyPair },
): Promise<{ userJwt: string; userSeed: string; userPublicKey: string; issuedAt: number }> {
  const user = options.user ?? createUser();
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  const userJwt = await encodeUser(
    options.name,
    user,
    accountPublicKey,
    { subs: -1, data: -1, payload: -1 },
    {
      signer: keyPairFromSeed(identities.customer_signing.seed),
      ...(options.ttlSeconds > 0 ? { exp: nowSeconds + options.ttlSeconds } : {}),
    },
  );
  return { userJwt, userSeed: new TextDecoder().decode(user.getSeed()), userPublicKey: user.getPublicKey(), issuedAt: decode(userJwt).iat };
}

/**
 * Pushes one account JWT to the server's full resolver (`$SYS.REQ.CLAIMS.UPDATE`, system account).
 * @param what names the account in errors (default "the account update").
 * @throws AppError('unavailable') when the server refuses it or does not answer within 5 s.
 */
export async function pushAccountJwt(sysNc: NatsConnection, jwt: string, what = 'the account update'): Promise<void> {
  let body: { error?: { description?: string } };
  try {
    const reply = await sysNc.request('$SYS.REQ.CLAIMS.UPDATE', jwt, { timeout: 5_000 });
    body = JSON.parse(reply.string()) as typeof body;
  } catch (err) {
    throw new AppError('unavailable', `the NATS resolver did not take ${what}: ${(err as Error).message}`, { cause: err });
  }
  if (body.error) throw new AppError('unavailable', `the NATS resolver refused ${what}: ${body.error.description ?? 'unknown error'}`);
}

/**
 * Applies `spec` to live connections: pushes the account with no connections allowed (the server
 * closes every connection of the account while it handles the update), then at once the real
 * claims. Clients reconnect on their own and are authorised afresh: new permissions and imports,
 * the plan's connection limit, revocations. Both JWTs are signed before the first push so that the
 * window in which reconnects are refused ("maximum account active connections exceeded") is one
 * request round trip (docs/nats.md, "Plan changes on live connections").
 * @returns the account JWT now in force (the real claims).
 * @throws AppError('unavailable') when the resolver does not take an update.
 */
export async function reauthorize(sysNc: NatsConnection, identities: NatsIdentities, spec: CustomerAccountSpec): Promise<string> {
  const closing = await encodeCustomerAccount(identities, spec, 0);
  const real = await encodeCustomerAccount(identities, spec);
  await pushAccountJwt(sysNc, closing);
  await pushAccountJwt(sysNc, real);
  return real;
}
