/**
 * Credentials for the fan-out bench (scripts/bench/fanout.ts), made fast enough to create 1,000 of them.
 *
 * nkeys signs with tweetnacl in pure JavaScript: ~10 ms per signature and ~5 ms per public key on the
 * 2-core bench machine, so 1,000 per-customer accounts plus their users (encodeCustomerAccount +
 * encodeCustomerUser, whose signer cannot be swapped) took 75 s, against 0.6 s to push the 1,000
 * account JWTs to the resolver. Here the same Ed25519 keys sign through node:crypto (OpenSSL, ~50 µs),
 * behind the nkeys `KeyPair` interface that @nats-io/jwt's `encodeUser` accepts as `signer`.
 *
 * The users belong to the operator's per-plan account (`CUSTOMERS_STARTER`, identities.ts), signed
 * with its signing key like `issueUserCredentials` (credential-issuer domain/credentials.ts) does. For
 * such legacy accounts ws-fanout counts connection slots and control requests per *user key*
 * (verifier.ts `limitKey`), so 1,000 users × 1 connection stay inside starter's limits.
 */
import { createPublicKey, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import { encodeUser, fromSeed, type KeyPair } from '@nats-io/jwt';
import type { Authenticator } from '@nats-io/transport-node';
import { PLANS, type PlanId } from '@tradewind/contracts';
import type { NatsIdentities } from '@tradewind/credential-issuer';
import { encodePublicKey, encodeSeed, privateKeyFromNKeySeed } from '@tradewind/ws-fanout';

/**
 * An Ed25519 nkey whose signatures come from node:crypto; implements what @nats-io/jwt uses of
 * nkeys' `KeyPair` (public key, seed, sign, verify). `seal`/`open` (curve keys) throw.
 */
export class FastKeyPair implements KeyPair {
  private constructor(
    private readonly seedText: string,
    private readonly publicKeyText: string,
    private readonly key: KeyObject,
  ) {}

  /**
   * The key pair of an nkeys seed string (`SU…`, `SA…`).
   * @throws Error when `seed` is not a well-formed seed (base32, length, checksum).
   */
  static fromSeed(seed: string): FastKeyPair {
    const { role, key } = privateKeyFromNKeySeed(seed);
    const raw = createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(-32);
    return new FastKeyPair(seed, encodePublicKey(role, raw), key);
  }

  /** A new random key of `role` (a user `U…` or an account `A…`). */
  static create(role: 'user' | 'account'): FastKeyPair {
    return FastKeyPair.fromSeed(encodeSeed(role === 'user' ? 'U' : 'A', randomBytes(32)));
  }

  getPublicKey(): string {
    return this.publicKeyText;
  }
  getPrivateKey(): Uint8Array {
    return new TextEncoder().encode(this.seedText);
  }
  getSeed(): Uint8Array {
    return new TextEncoder().encode(this.seedText);
  }
  sign(input: Uint8Array): Uint8Array {
    return sign(null, input, this.key);
  }
  verify(input: Uint8Array, sig: Uint8Array): boolean {
    return verify(null, input, createPublicKey(this.key), sig);
  }
  clear(): void {}
  seal(): Uint8Array {
    throw new Error('FastKeyPair: seal is for curve keys');
  }
  open(): Uint8Array | null {
    throw new Error('FastKeyPair: open is for curve keys');
  }
}

/**
 * Checks FastKeyPair against nkeys on one real seed: the same public key, and a signature nkeys verifies.
 * @throws Error when they disagree (the bench would then issue credentials no server accepts).
 */
export function checkFastKeyPair(seed: string): void {
  const fast = FastKeyPair.fromSeed(seed);
  const reference = fromSeed(new TextEncoder().encode(seed));
  const data = new TextEncoder().encode('tradewind bench');
  if (fast.getPublicKey() !== reference.getPublicKey() || !reference.verify(data, fast.sign(data))) {
    throw new Error('FastKeyPair disagrees with nkeys: the bench cannot issue credentials');
  }
}

/** One subscriber's WebSocket credentials (`{"jwt", "nkey"}` of docs/websocket.md §1). */
export interface BenchUser {
  readonly jwt: string;
  /** NKey seed `SU…` (bench-only, never printed). */
  readonly seed: string;
}

/**
 * `count` users of the operator's per-plan account of `plan` (legacy `CUSTOMERS_<PLAN>`), with the
 * claims `issueUserCredentials` gives (the plan's subjects, no publish, tag `plan:<id>`).
 * @param ttlSeconds JWT lifetime (the bench must finish inside it).
 * @throws Error when the plan's account has no signing key.
 */
export async function legacyPlanUsers(identities: NatsIdentities, plan: PlanId, count: number, ttlSeconds: number): Promise<BenchUser[]> {
  const account = identities.customers[plan];
  if (!account.signing) throw new Error(`account ${account.name} has no signing key`);
  checkFastKeyPair(account.signing.seed);
  const signer = FastKeyPair.fromSeed(account.signing.seed);
  const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
  const users: BenchUser[] = [];
  for (let i = 0; i < count; i++) {
    const user = FastKeyPair.create('user');
    const jwt = await encodeUser(
      `bench-${plan}-${i}`,
      user,
      account.identity.public_key,
      {
        sub: { allow: [...PLANS[plan].subjects] },
        pub: { deny: ['>'] },
        subs: -1,
        data: -1,
        payload: -1,
        tags: [`plan:${plan}`],
      },
      { signer, exp },
    );
    users.push({ jwt, seed: new TextDecoder().decode(user.getSeed()) });
  }
  return users;
}

/** The parts of a `.creds` text (user JWT and seed). @throws Error when either block is missing. */
export function parseCreds(creds: string): BenchUser {
  const blocks = [...creds.matchAll(/-{3,}[^\n]*-{3,}\n([^\n]+)\n\s*-{3,}[^\n]*-{3,}/g)].map((m) => m[1]!.trim());
  const [jwt, seed] = blocks;
  if (!jwt || !seed) throw new Error('creds text without a JWT and a seed block');
  return { jwt, seed };
}

/** nats.js authenticator for a user JWT + seed, signing the server nonce through node:crypto ({@link FastKeyPair}: nkeys' JS signing costs ~10 ms). */
export function jwtAuthenticator(user: BenchUser): Authenticator {
  const kp = FastKeyPair.fromSeed(user.seed);
  return (nonce?: string) => ({
    jwt: user.jwt,
    nkey: kp.getPublicKey(),
    sig: nonce ? Buffer.from(kp.sign(new TextEncoder().encode(nonce))).toString('base64') : '',
  });
}
