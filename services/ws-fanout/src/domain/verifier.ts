/**
 * Verifies a subscriber's NATS credentials the way nats-server does, so WebSocket
 * clients are held to the same rules as native ones:
 *
 * user JWT signature → issued by its account (or a signing key the account lists)
 * → account JWT signed by the trusted operator (or an operator signing key)
 * → not expired (user and account) → not revoked (account `revocations`)
 * → the NKey seed's public key is the JWT's subject (or a nonce signature by that key).
 *
 * Account JWTs come from a lookup function (the server's resolver via
 * `$SYS.REQ.ACCOUNT.<id>.CLAIMS.LOOKUP`), cached for a short TTL, and from account updates
 * pushed to the resolver ({@link CredentialVerifier.acceptAccountJwt}), which replace the cached
 * claims at once so live connections can be re-checked ({@link CredentialVerifier.reverify}).
 *
 * Signatures are checked with node:crypto (./nkey-crypto.ts), ~100 µs per Ed25519 verification,
 * not with the pure-JS tweetnacl of @nats-io/jwt / nkeys.js (17–35 ms per login).
 */
import type { ClaimsData, User, Account, Operator } from '@nats-io/jwt';
import { CUSTOMER_ACCOUNT_TAG, isPlanId, type PlanId } from '@tradewind/contracts';
import { CLOSE_CODES, WsProtocolError } from './errors.js';
import { decodeVerifiedJwt, publicKeyFromSeed, verifyNKeySignature } from './nkey-crypto.js';

/** What a verified connection may do. */
export interface VerifiedUser {
  /** The user's public NKey (`U…`): the stable identity of these credentials. */
  readonly userKey: string;
  /** The issuing account's public key (`A…`). */
  readonly account: string;
  /**
   * Whose connection slots and control-request budget this connection uses: the account key for a
   * per-customer account (tag `customer`, docs/nats.md: every user JWT of one customer shares the
   * plan's limits), else the user key (legacy per-plan accounts such as CUSTOMERS_STARTER hold many customers).
   */
  readonly limitKey: string;
  readonly name: string;
  /** Plan from the tag `plan:<id>` of the user JWT, else of its account; undefined without one. */
  readonly plan: PlanId | undefined;
  /** Subscribe permissions (`nats.sub.allow` / `deny`, else the account's `default_permissions`), NATS wildcard syntax. */
  readonly subAllow: readonly string[];
  readonly subDeny: readonly string[];
  /** Subjects the user's account imports: the server delivers nothing else to it. */
  readonly imports: readonly string[];
  /** Expiry in ms since epoch, or undefined. */
  readonly expiresAtMs: number | undefined;
}

/** Proof of key possession: the seed itself, or an Ed25519 signature of the server's nonce. */
export type KeyProof = { kind: 'seed'; seed: string } | { kind: 'signature'; nonce: string; signature: string };

const unauth = (wsCode: ConstructorParameters<typeof WsProtocolError>[1], message: string, cause?: unknown) =>
  new WsProtocolError('unauthenticated', wsCode, message, CLOSE_CODES.unauthenticated, cause === undefined ? undefined : { cause });

function decodeVerified<T>(jwt: string, what: string): ClaimsData<T> {
  try {
    return decodeVerifiedJwt<T>(jwt);
  } catch (err) {
    throw unauth('invalid_jwt', `${what} JWT is malformed or its signature does not verify`, err);
  }
}

/** Public keys of a JWT's `signing_keys` list, whose entries are keys or scoped-signer objects. */
function signingKeyIds(keys: ReadonlyArray<string | { key: string }> | undefined): string[] {
  return (keys ?? []).map((k) => (typeof k === 'string' ? k : k.key));
}

/** True when `subject` matches the NATS pattern `pattern` (`*` one token, `>` the rest). */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}

/**
 * Whether `user` may subscribe to `subject`, with nats-server's semantics: an empty allow list
 * allows everything, deny wins over allow; and the subject must be imported by the user's
 * account, since the server would deliver nothing else.
 */
export function maySubscribe(user: VerifiedUser, subject: string): boolean {
  if (user.subDeny.some((p) => subjectMatches(p, subject))) return false;
  if (user.subAllow.length > 0 && !user.subAllow.some((p) => subjectMatches(p, subject))) return false;
  return user.imports.some((p) => subjectMatches(p, subject));
}

/** Verifier of user credentials against one operator. */
export class CredentialVerifier {
  private readonly operatorKeys: Set<string>;
  private readonly cache = new Map<string, { claims: ClaimsData<Account>; until: number }>();

  /**
   * @param operatorJwt the operator JWT (self-signed); its subject and signing keys are trusted.
   * @param lookupAccount returns the current account JWT for an account public key, or undefined when unknown.
   * @param cacheTtlMs how long a looked-up account JWT is reused.
   * @throws Error when `operatorJwt` is not a valid operator JWT.
   */
  constructor(
    operatorJwt: string,
    private readonly lookupAccount: (account: string) => Promise<string | undefined>,
    private readonly cacheTtlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    const op = decodeVerifiedJwt<Operator>(operatorJwt.trim());
    if (op.nats?.type !== 'operator' || op.iss !== op.sub) throw new Error('NATS_OPERATOR_JWT is not a self-signed operator JWT');
    this.operatorKeys = new Set([op.sub, ...signingKeyIds(op.nats.signing_keys)]);
  }

  private async account(accountKey: string): Promise<ClaimsData<Account>> {
    const cached = this.cache.get(accountKey);
    if (cached && cached.until > this.now()) return cached.claims;
    let jwt: string | undefined;
    try {
      jwt = await this.lookupAccount(accountKey);
    } catch (err) {
      throw new WsProtocolError('unavailable', 'unavailable', 'credential check is unavailable, try again shortly', CLOSE_CODES.unavailable, { cause: err });
    }
    if (!jwt) throw unauth('unknown_account', 'the JWT was issued by an account this service does not know');
    const claims = decodeVerified<Account>(jwt, 'account');
    if (claims.nats?.type !== 'account' || claims.sub !== accountKey || !this.operatorKeys.has(claims.iss)) {
      throw unauth('invalid_signature', 'the account that issued the JWT is not signed by the Tradewind operator');
    }
    this.cache.set(accountKey, { claims, until: this.now() + this.cacheTtlMs });
    return claims;
  }

  /**
   * Takes an account JWT pushed to the server's resolver (`$SYS.REQ.CLAIMS.UPDATE` or
   * `$SYS.ACCOUNT.<id>.CLAIMS.UPDATE`) into the account cache, as the full resolver would: only
   * an account JWT signed by the operator (or an operator signing key), and never one issued
   * before the cached one (`iat`, seconds).
   * @returns the account's public key and whether the cache took the JWT (false: older than the cached one).
   * @throws WsProtocolError invalid_jwt / invalid_signature when the JWT does not verify or is not an operator-signed account JWT.
   */
  acceptAccountJwt(jwt: string): { account: string; applied: boolean } {
    const claims = decodeVerified<Account>(jwt.trim(), 'account');
    if (claims.nats?.type !== 'account' || !claims.sub?.startsWith('A') || !this.operatorKeys.has(claims.iss)) {
      throw unauth('invalid_signature', 'the account JWT is not signed by the Tradewind operator');
    }
    const cached = this.cache.get(claims.sub);
    if (cached && cached.claims.iat > claims.iat) return { account: claims.sub, applied: false };
    this.cache.set(claims.sub, { claims, until: this.now() + this.cacheTtlMs });
    return { account: claims.sub, applied: true };
  }

  /**
   * Verifies `userJwt` and the proof of key possession.
   * @throws WsProtocolError with codes invalid_jwt, invalid_signature, unknown_account, expired, revoked,
   *   nkey_mismatch (all close 4401) or unavailable (4503) when the resolver cannot be reached.
   */
  async verify(userJwt: string, proof: KeyProof): Promise<VerifiedUser> {
    const { claims, account } = await this.checkUser(userJwt);
    if (proof.kind === 'seed') {
      let publicKey: string;
      try {
        publicKey = publicKeyFromSeed(proof.seed);
      } catch (err) {
        throw unauth('nkey_mismatch', 'nkey is not a valid NKey seed', err);
      }
      if (publicKey !== claims.sub) throw unauth('nkey_mismatch', "the NKey seed does not belong to the JWT's user");
    } else {
      let ok = false;
      try {
        ok = verifyNKeySignature(claims.sub, new TextEncoder().encode(proof.nonce), Buffer.from(proof.signature, 'base64url'));
      } catch {
        ok = false;
      }
      if (!ok) throw unauth('nkey_mismatch', "the nonce signature was not made by the JWT's user key");
    }
    return rightsOf(claims, account);
  }

  /**
   * Re-derives the rights of an already authenticated connection from its user JWT against the
   * account's current claims (after an account update): the same checks as {@link verify} except
   * the key proof, which the connection gave when it authenticated.
   * @throws WsProtocolError as {@link verify}: revoked / expired (and the other 4401 codes) mean the
   *   connection must end; unavailable means the account could not be looked up (keep the connection).
   */
  async reverify(userJwt: string): Promise<VerifiedUser> {
    const { claims, account } = await this.checkUser(userJwt);
    return rightsOf(claims, account);
  }

  /** Signature chain, validity period and revocation of a user JWT; everything but the key proof. */
  private async checkUser(userJwt: string): Promise<{ claims: ClaimsData<User>; account: ClaimsData<Account> }> {
    const claims = decodeVerified<User>(userJwt, 'user');
    // Optional chaining and typeof: any key can sign a JWT, so its claims may be any JSON object.
    if (claims.nats?.type !== 'user' || typeof claims.sub !== 'string' || !claims.sub.startsWith('U'))
      throw unauth('invalid_jwt', 'the JWT is not a NATS user JWT');
    const accountKey = claims.nats.issuer_account ?? claims.iss;
    const account = await this.account(accountKey);
    const accountSigners = new Set([account.sub, ...signingKeyIds(account.nats.signing_keys)]);
    if (!accountSigners.has(claims.iss)) throw unauth('invalid_signature', 'the JWT is not signed by its account or one of its signing keys');

    const nowSeconds = this.now() / 1000;
    if (claims.exp !== undefined && claims.exp > 0 && claims.exp <= nowSeconds) throw unauth('expired', 'the user JWT has expired; fetch new credentials');
    if (account.exp !== undefined && account.exp > 0 && account.exp <= nowSeconds) throw unauth('expired', 'the account of this JWT has expired');
    if (claims.nbf !== undefined && claims.nbf > nowSeconds) throw unauth('invalid_jwt', 'the user JWT is not valid yet');

    const revocations = account.nats.revocations ?? {};
    const revokedBefore = Math.max(revocations[claims.sub] ?? -1, revocations['*'] ?? -1);
    if (revokedBefore >= 0 && claims.iat <= revokedBefore) throw unauth('revoked', 'these credentials were revoked (rotated); fetch the current ones');
    return { claims, account };
  }
}

/** What a checked user JWT allows, given its account's claims. */
function rightsOf(claims: ClaimsData<User>, account: ClaimsData<Account>): VerifiedUser {
  // As in nats-server: a user JWT without permissions of its own gets the account's
  // default_permissions (per-customer accounts, docs/nats.md); the plan tag likewise.
  const own = claims.nats.sub;
  const sub = own && ((own.allow?.length ?? 0) > 0 || (own.deny?.length ?? 0) > 0) ? own : (account.nats.default_permissions?.sub ?? {});
  const planTag = [...(claims.nats.tags ?? []), ...(account.nats.tags ?? [])].find((t) => t.startsWith('plan:'))?.slice('plan:'.length);
  return {
    userKey: claims.sub,
    account: account.sub,
    limitKey: (account.nats.tags ?? []).includes(CUSTOMER_ACCOUNT_TAG) ? account.sub : claims.sub,
    name: claims.name,
    plan: isPlanId(planTag) ? planTag : undefined,
    subAllow: sub.allow ?? [],
    subDeny: sub.deny ?? [],
    imports: (account.nats.imports ?? []).filter((i) => i.type === 'stream').map((i) => i.subject),
    expiresAtMs: claims.exp ? claims.exp * 1000 : undefined,
  };
}
