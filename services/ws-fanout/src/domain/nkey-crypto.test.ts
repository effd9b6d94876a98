/**
 * nkey-crypto against nkeys.js and @nats-io/jwt (pure-JS tweetnacl) as the oracle: same keys from
 * the same seeds, their signatures verify here, their JWTs decode to the same claims.
 */
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import {
  Algorithms,
  createAccount,
  createCurve,
  createOperator,
  createUser,
  decode,
  encodeAccount,
  encodeOperator,
  encodeUser,
  fromPublic,
  fromSeed,
  type KeyPair,
} from '@nats-io/jwt';
import {
  decodePublicKey,
  decodeSeed,
  decodeVerifiedJwt,
  encodePublicKey,
  encodeSeed,
  privateKeyFromNKeySeed,
  publicKeyFromSeed,
  PublicKeyCache,
  verifyNKeySignature,
} from './nkey-crypto.js';
import { sign } from 'node:crypto';

const te = new TextEncoder();
const seedOf = (kp: KeyPair) => new TextDecoder().decode(kp.getSeed());
const b64url = (s: string) => Buffer.from(s).toString('base64url');
const parts = (jwt: string) => jwt.split('.') as [string, string, string];

/** Re-signs arbitrary header and claims JSON with `kp`, as a NATS v2 JWT (signature over `header.claims`). */
function signRaw(header: string, claims: string, kp: KeyPair): string {
  const signed = `${b64url(header)}.${b64url(claims)}`;
  return `${signed}.${Buffer.from(kp.sign(te.encode(signed))).toString('base64url')}`;
}

/** Flips one bit of a base64url string's decoded bytes and re-encodes it. */
function flipBit(part: string, bit: number): string {
  const bytes = Buffer.from(part, 'base64url');
  bytes[bit >> 3]! ^= 1 << (bit & 7);
  return bytes.toString('base64url');
}

describe('publicKeyFromSeed', () => {
  it('when seeds come from nkeys.js createUser/createAccount/createOperator, then the public key equals nkeys.js getPublicKey', () => {
    const pairs = [...Array.from({ length: 40 }, createUser), ...Array.from({ length: 5 }, createAccount), ...Array.from({ length: 5 }, createOperator)];
    for (const kp of pairs) expect(publicKeyFromSeed(seedOf(kp))).toBe(kp.getPublicKey());
  });

  it('when the seed is malformed (bad alphabet, length, checksum, prefix, curve or public key), then it throws a plain Error', () => {
    const seed = seedOf(createUser());
    const otherChar = (c: string) => (c === 'A' ? 'B' : 'A');
    const bad = [
      '',
      seed.toLowerCase(),
      `${seed} `,
      seed.slice(0, -1),
      `${seed}AA`,
      seed.slice(0, 10) + otherChar(seed[10]!) + seed.slice(11), // checksum
      createUser().getPublicKey(), // a public key, not a seed
    ];
    for (const s of bad) {
      expect(() => publicKeyFromSeed(s), s).toThrow(Error);
      expect(() => fromSeed(te.encode(s)).getPublicKey(), `the oracle refuses ${s} too`).toThrow();
    }
    // X25519 (curve) seeds cannot sign: refused here, while nkeys.js returns an `X…` key that matches no JWT subject.
    expect(() => publicKeyFromSeed(seedOf(createCurve()))).toThrow(/signing role/);
  });

  it('when a seed is decoded, then the role and the 32 raw bytes are those nkeys.js holds', () => {
    const kp = createAccount();
    const decoded = decodeSeed(seedOf(kp));
    expect(decoded.role).toBe('A');
    // nkeys.js KP has getRawSeed(), which its KeyPair type does not declare.
    const oracle = fromSeed(kp.getSeed()) as KeyPair & { getRawSeed(): Uint8Array };
    expect(Buffer.from(decoded.seed)).toEqual(Buffer.from(oracle.getRawSeed()));
  });
});

describe('encodeSeed and privateKeyFromNKeySeed', () => {
  it('when a seed is decoded and encoded again, then the text is the nkeys.js seed, and its key signs what nkeys.js verifies', () => {
    for (const kp of [createUser(), createAccount(), createOperator()]) {
      const { role, seed } = decodeSeed(seedOf(kp));
      expect(encodeSeed(role, seed)).toBe(seedOf(kp));
      const { key } = privateKeyFromNKeySeed(seedOf(kp));
      const data = te.encode('tradewind');
      expect(fromPublic(kp.getPublicKey()).verify(data, sign(null, data, key))).toBe(true);
    }
    const fresh = encodeSeed('U', randomBytes(32));
    expect(fromSeed(te.encode(fresh)).getPublicKey()).toBe(publicKeyFromSeed(fresh));
    expect(() => encodeSeed('U', randomBytes(31))).toThrow(/32 bytes/);
  });
});

describe('public keys', () => {
  it('when an nkeys.js public key is decoded and encoded again, then the text is unchanged', () => {
    for (const kp of [createUser(), createAccount(), createOperator()]) {
      const { role, key } = decodePublicKey(kp.getPublicKey());
      expect(role).toBe(kp.getPublicKey()[0]);
      expect(key).toHaveLength(32);
      expect(encodePublicKey(role, key)).toBe(kp.getPublicKey());
    }
  });

  it('when a public key has a bad checksum or a seed/curve prefix, then decoding throws', () => {
    const pk = createUser().getPublicKey();
    expect(() => decodePublicKey(pk.slice(0, 20) + (pk[20] === 'A' ? 'B' : 'A') + pk.slice(21))).toThrow(/checksum/);
    expect(() => decodePublicKey(createCurve().getPublicKey())).toThrow(/prefix/);
    expect(() => decodePublicKey(seedOf(createUser()))).toThrow(Error);
    expect(() => decodePublicKey('U')).toThrow(Error);
  });
});

describe('verifyNKeySignature', () => {
  const kp = createUser();
  const data = te.encode('nonce-7d1f0c2e');
  const sig = kp.sign(data);

  it('when nkeys.js signs, then the signature verifies here, and with any bit flipped (signature or data) it does not', () => {
    expect(verifyNKeySignature(kp.getPublicKey(), data, sig)).toBe(true);
    for (let bit = 0; bit < 64 * 8; bit += 7) {
      const bad = Uint8Array.from(sig);
      bad[bit >> 3]! ^= 1 << (bit & 7);
      expect(verifyNKeySignature(kp.getPublicKey(), data, bad), `signature bit ${bit}`).toBe(false);
    }
    for (let bit = 0; bit < data.length * 8; bit++) {
      const bad = Uint8Array.from(data);
      bad[bit >> 3]! ^= 1 << (bit & 7);
      expect(verifyNKeySignature(kp.getPublicKey(), bad, sig), `data bit ${bit}`).toBe(false);
    }
  });

  it('when random messages are signed by nkeys.js, then each verifies here exactly as nkeys.js verifies it', () => {
    for (let i = 0; i < 20; i++) {
      const signer = createUser();
      const msg = randomBytes(i * 13);
      const s = signer.sign(msg);
      expect(verifyNKeySignature(signer.getPublicKey(), msg, s)).toBe(fromPublic(signer.getPublicKey()).verify(msg, s));
      expect(verifyNKeySignature(signer.getPublicKey(), msg, s)).toBe(true);
    }
  });

  it('when the key is another user, or the signature has the wrong length, then it is false', () => {
    expect(verifyNKeySignature(createUser().getPublicKey(), data, sig)).toBe(false);
    expect(verifyNKeySignature(kp.getPublicKey(), data, sig.subarray(0, 63))).toBe(false);
    expect(verifyNKeySignature(kp.getPublicKey(), data, new Uint8Array(0))).toBe(false);
  });

  it('when the public key is malformed, then it throws', () => {
    expect(() => verifyNKeySignature('UNOTAKEY', data, sig)).toThrow(Error);
  });
});

describe('decodeVerifiedJwt', () => {
  const operator = createOperator();
  const operatorSigner = createOperator();
  const account = createAccount();
  const accountSigner = createAccount();
  const user = createUser();

  const tokens = async () => ({
    operator: await encodeOperator('op', operator, { signing_keys: [operatorSigner.getPublicKey()] }),
    account: await encodeAccount('acc', account, { signing_keys: [accountSigner.getPublicKey()], tags: ['plan:pro'] }, { signer: operatorSigner }),
    user: await encodeUser('usr', user, account, { sub: { allow: ['basic.>'] }, tags: ['a', 'b'] }, { exp: 2_000_000_000 }),
    scopedUser: await encodeUser('usr2', user, account, {}, { signer: accountSigner }),
    v1User: await encodeUser('old', user, account, {}, { algorithm: Algorithms.v1 }),
  });

  it('when @nats-io/jwt encodes operator, account and user JWTs (own key and signing keys, v2 and v1), then they decode to the same claims', async () => {
    for (const [name, jwt] of Object.entries(await tokens())) {
      expect(decodeVerifiedJwt(jwt), name).toEqual(decode(jwt));
    }
  });

  it('when the claims are changed after signing, then decoding throws', async () => {
    const [h, c, s] = parts((await tokens()).user);
    const claims = JSON.parse(Buffer.from(c, 'base64url').toString());
    claims.nats.sub.allow = ['>'];
    expect(() => decodeVerifiedJwt(`${h}.${b64url(JSON.stringify(claims))}.${s}`)).toThrow(/signature/);
    expect(() => decodeVerifiedJwt(`${h}.${flipBit(c, 90)}.${s}`)).toThrow(Error);
  });

  it('when the claims name another issuer than the signer, then decoding throws', async () => {
    const [h, c, s] = parts((await tokens()).user);
    const claims = JSON.parse(Buffer.from(c, 'base64url').toString());
    claims.iss = accountSigner.getPublicKey();
    expect(() => decodeVerifiedJwt(`${h}.${b64url(JSON.stringify(claims))}.${s}`)).toThrow(/signature/);
  });

  it('when any of several signature bits is flipped or the signature is cut, then decoding throws', async () => {
    const [h, c, s] = parts((await tokens()).account);
    for (let bit = 0; bit < 512; bit += 37) expect(() => decodeVerifiedJwt(`${h}.${c}.${flipBit(s, bit)}`), `bit ${bit}`).toThrow(/signature/);
    expect(() => decodeVerifiedJwt(`${h}.${c}.${s.slice(0, -4)}`)).toThrow(/signature/);
    expect(() => decodeVerifiedJwt(`${h}.${c}.`)).toThrow(Error);
  });

  it('when the header has another alg or typ, then decoding throws, even when correctly signed', () => {
    const claims = JSON.stringify({ iss: account.getPublicKey(), sub: user.getPublicKey(), nats: { type: 'user', version: 2 } });
    expect(decodeVerifiedJwt(signRaw('{"typ":"JWT","alg":"ed25519-nkey"}', claims, account)).sub).toBe(user.getPublicKey());
    for (const header of [
      '{"typ":"JWT","alg":"HS256"}',
      '{"typ":"JWT","alg":"none"}',
      '{"typ":"JWT"}',
      '{"typ":"JWS","alg":"ed25519-nkey"}',
      '{"alg":"ed25519-nkey"}',
    ]) {
      expect(() => decodeVerifiedJwt(signRaw(header, claims, account)), header).toThrow(/not a NATS JWT/);
    }
  });

  it('when the token is not three base64url parts of JSON objects with an NKey issuer, then decoding throws a clear Error', async () => {
    const { user: jwt } = await tokens();
    const [h, c, s] = parts(jwt);
    expect(() => decodeVerifiedJwt('')).toThrow(/3 dot-separated parts/);
    expect(() => decodeVerifiedJwt(`${h}.${c}`)).toThrow(/3 dot-separated parts/);
    expect(() => decodeVerifiedJwt(`${jwt}.x`)).toThrow(/3 dot-separated parts/);
    expect(() => decodeVerifiedJwt(`${h}.${c}+.${s}`)).toThrow(/base64url/);
    expect(() => decodeVerifiedJwt(`${h}.${b64url('[1,2]')}.${s}`)).toThrow(/JSON object/);
    expect(() => decodeVerifiedJwt(`${h}.${b64url('{"iss": 5}')}.${s}`)).toThrow(/issuer/);
    expect(() => decodeVerifiedJwt(`${h}.${b64url('{"iss": "ANOTAKEY"}')}.${s}`)).toThrow(/issuer/);
    expect(() => decodeVerifiedJwt(`${h}.${b64url('not json')}.${s}`)).toThrow(/JSON/);
    expect(() => decodeVerifiedJwt(undefined as unknown as string)).toThrow(/string/);
  });

  it('when the claims hold non-ASCII text, then it is read as UTF-8 (as nats-server reads it)', () => {
    const claims = JSON.stringify({ iss: account.getPublicKey(), sub: user.getPublicKey(), name: 'Café ✓', nats: { type: 'user' } });
    expect(decodeVerifiedJwt(signRaw('{"typ":"JWT","alg":"ed25519-nkey"}', claims, account)).name).toBe('Café ✓');
  });
});

describe('PublicKeyCache', () => {
  const keys = Array.from({ length: 5 }, () => encodePublicKey('A', randomBytes(32)));

  it('when more keys are used than its capacity, then it holds only the capacity, dropping the least recently used', () => {
    const cache = new PublicKeyCache(3);
    const first = cache.get(keys[0]!);
    cache.get(keys[1]!);
    cache.get(keys[2]!);
    expect(cache.get(keys[0]!)).toBe(first); // hit: key 0 becomes the most recent
    cache.get(keys[3]!); // evicts key 1
    cache.get(keys[4]!); // evicts key 2
    expect(cache.size).toBe(3);
    expect(cache.get(keys[0]!)).toBe(first);
    expect(cache.size).toBe(3);
  });

  it('when keys are used in a random order, then it keeps exactly the most recently used ones (against a reference LRU)', () => {
    const pool = Array.from({ length: 20 }, () => encodePublicKey('U', randomBytes(32)));
    const cache = new PublicKeyCache(8);
    const model: string[] = []; // least recent first
    const last = new Map<string, unknown>();
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 3_000; i++) {
      const key = pool[Math.floor(random() * (random() < 0.7 ? 6 : pool.length))]!;
      const cached = model.includes(key);
      const got = cache.get(key);
      expect(got === last.get(key), `op ${i}: cached=${cached}`).toBe(cached);
      last.set(key, got);
      if (cached) model.splice(model.indexOf(key), 1);
      else if (model.length === 8) model.shift();
      model.push(key);
      expect(cache.size).toBe(model.length);
    }
  });

  it('when the key is malformed, then it throws and caches nothing; a bad capacity is refused', () => {
    const cache = new PublicKeyCache(2);
    expect(() => cache.get('AXXX')).toThrow(Error);
    expect(cache.size).toBe(0);
    expect(() => new PublicKeyCache(0)).toThrow(RangeError);
    expect(() => new PublicKeyCache(1.5)).toThrow(RangeError);
  });
});
