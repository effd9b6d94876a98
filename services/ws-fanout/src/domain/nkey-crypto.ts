/**
 * NKeys and NATS JWTs with Node's native Ed25519 (`node:crypto`, OpenSSL) instead of the pure-JS
 * tweetnacl inside nkeys.js / @nats-io/jwt, which costs 17–35 ms of CPU per login.
 *
 * NKey text form (nkeys spec, github.com/nats-io/nkeys `strkey.go`; nkeys.js `lib/codec.js`):
 *   base32( prefix ‖ 32-byte Ed25519 key ‖ CRC-16/XMODEM(prefix ‖ key) little-endian ),
 *   RFC 4648 alphabet (A–Z, 2–7), no padding.
 * - A public key has one prefix byte, the role: O operator, A account, U user, N server, C cluster
 *   (56 characters, starting with that letter).
 * - A seed has two prefix bytes: the seed byte `S` (18 << 3) with the role's bits spread over both
 *   so the text reads `SU…`, `SA…` (58 characters); the key bytes are the Ed25519 private seed (RFC 8032).
 * Curve (`X…`, X25519) keys cannot sign and are refused here.
 *
 * NATS JWT (github.com/nats-io/jwt v2 `header.go`, `decoder.go`): `base64url(header).base64url(claims).base64url(signature)`,
 * header `{"typ":"JWT","alg":"ed25519-nkey"}`, signature by the claims' `iss` key over `header.claims`
 * (v1 tokens, `alg` `ed25519`, signed the claims part alone; accepted as nats-server and @nats-io/jwt do).
 */
import { createPrivateKey, createPublicKey, verify as ed25519Verify, type KeyObject } from 'node:crypto';
import type { ClaimsData } from '@nats-io/jwt';

/** Public keys whose KeyObjects are kept (operator, account and signing keys repeat on every login). ~0.3 KB each. */
export const PUBLIC_KEY_CACHE_MAX = 4_096;

/** Role letters of NKeys that sign (Ed25519), and their prefix bytes (nkeys `PrefixByte*`). */
const ROLE_PREFIX_BYTES = { O: 14 << 3, A: 0, U: 20 << 3, N: 13 << 3, C: 2 << 3 } as const;

/** Role of an Ed25519 NKey, its first letter: operator, account, user, server, cluster. */
export type NKeyRole = keyof typeof ROLE_PREFIX_BYTES;

const ROLE_OF_PREFIX_BYTE = new Map<number, NKeyRole>((Object.entries(ROLE_PREFIX_BYTES) as [NKeyRole, number][]).map(([role, byte]) => [byte, role]));
const SEED_PREFIX_BYTE = 18 << 3;
const KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;

const JWT_ALG_V2 = 'ed25519-nkey';
const JWT_ALG_V1 = 'ed25519';

// ---------------------------------------------------------------------------------------------
// base32 (RFC 4648 §6, no padding) and CRC-16/XMODEM (poly 0x1021, init 0)
// ---------------------------------------------------------------------------------------------

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const BASE32_VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE32_ALPHABET.length; i++) BASE32_VALUES[BASE32_ALPHABET.charCodeAt(i)] = i;

/** Decoded bytes, or undefined when `text` has a character outside the alphabet. Trailing bits are dropped (as nkeys does). */
function base32Decode(text: string): Uint8Array | undefined {
  const out = new Uint8Array((text.length * 5) >>> 3);
  let acc = 0;
  let bits = 0;
  let j = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? BASE32_VALUES[c]! : -1;
    if (v < 0) return undefined;
    acc = ((acc << 5) | v) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[j++] = (acc >>> bits) & 0xff;
    }
  }
  return out;
}

function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = ((acc << 8) | b) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(acc >>> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(acc << (5 - bits)) & 31];
  return out;
}

const CRC16_TABLE = new Uint16Array(256);
for (let n = 0; n < 256; n++) {
  let crc = n << 8;
  for (let k = 0; k < 8; k++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  CRC16_TABLE[n] = crc;
}

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >>> 8) ^ b) & 0xff]!;
  return crc;
}

/** The checksummed body (prefix ‖ key) of an NKey. @throws Error on a bad alphabet, length or checksum. */
function decodeChecked(text: unknown, what: string, bodyBytes: number): Uint8Array {
  if (typeof text !== 'string') throw new Error(`${what} must be a string`);
  const raw = base32Decode(text);
  if (!raw) throw new Error(`${what} is not base32 (RFC 4648 alphabet A-Z, 2-7, no padding)`);
  if (raw.length !== bodyBytes + 2) throw new Error(`${what} has the wrong length (${raw.length} bytes decoded, expected ${bodyBytes + 2})`);
  const body = raw.subarray(0, bodyBytes);
  if (crc16(body) !== (raw[bodyBytes]! | (raw[bodyBytes + 1]! << 8))) throw new Error(`${what} has a bad checksum`);
  return body;
}

/**
 * The raw Ed25519 public key of an NKey public key (`O…`, `A…`, `U…`, `N…`, `C…`).
 * @returns role letter and 32 key bytes.
 * @throws Error when `publicKey` is not a well-formed signing NKey public key (alphabet, length, checksum, prefix).
 */
export function decodePublicKey(publicKey: string): { role: NKeyRole; key: Uint8Array } {
  const body = decodeChecked(publicKey, 'public NKey', 1 + KEY_BYTES);
  const role = ROLE_OF_PREFIX_BYTE.get(body[0]!);
  if (!role) throw new Error('public NKey has no signing-key prefix (O, A, U, N or C)');
  return { role, key: body.slice(1) };
}

/**
 * The NKey text of a raw Ed25519 public key.
 * @param key 32 bytes.
 * @throws Error when `key` is not 32 bytes.
 */
export function encodePublicKey(role: NKeyRole, key: Uint8Array): string {
  if (key.byteLength !== KEY_BYTES) throw new Error(`an Ed25519 public key has ${KEY_BYTES} bytes, got ${key.byteLength}`);
  return encodeChecked([ROLE_PREFIX_BYTES[role]], key);
}

/**
 * The NKey seed text (`SU…`, `SA…`, …) of a raw 32-byte Ed25519 seed: the seed prefix and the role's
 * prefix byte packed into two bytes, as nkeys.js `encodeSeed` does.
 * @throws Error when `seed` is not 32 bytes.
 */
export function encodeSeed(role: NKeyRole, seed: Uint8Array): string {
  if (seed.byteLength !== KEY_BYTES) throw new Error(`an Ed25519 seed has ${KEY_BYTES} bytes, got ${seed.byteLength}`);
  const prefix = ROLE_PREFIX_BYTES[role];
  return encodeChecked([SEED_PREFIX_BYTE | (prefix >>> 5), (prefix & 31) << 3], seed);
}

/** base32(prefix ‖ body ‖ CRC-16 little-endian). */
function encodeChecked(prefix: readonly number[], body: Uint8Array): string {
  const raw = new Uint8Array(prefix.length + body.byteLength + 2);
  raw.set(prefix, 0);
  raw.set(body, prefix.length);
  const end = prefix.length + body.byteLength;
  const crc = crc16(raw.subarray(0, end));
  raw[end] = crc & 0xff;
  raw[end + 1] = crc >>> 8;
  return base32Encode(raw);
}

/**
 * The role and raw Ed25519 private seed of an NKey seed (`SO…`, `SA…`, `SU…`, `SN…`, `SC…`).
 * @returns role letter and 32 seed bytes (secret: the caller should zero them after use).
 * @throws Error when `seed` is not a well-formed seed of a signing role.
 */
export function decodeSeed(seed: string): { role: NKeyRole; seed: Uint8Array } {
  const body = decodeChecked(seed, 'NKey seed', 2 + KEY_BYTES);
  if ((body[0]! & 0xf8) !== SEED_PREFIX_BYTE) throw new Error('NKey seed does not start with the seed prefix (S)');
  const role = ROLE_OF_PREFIX_BYTE.get(((body[0]! & 0x07) << 5) | ((body[1]! & 0xf8) >>> 3));
  if (!role) throw new Error('NKey seed is not of a signing role (O, A, U, N or C)');
  return { role, seed: body.slice(2) };
}

// ---------------------------------------------------------------------------------------------
// Ed25519 through node:crypto
// ---------------------------------------------------------------------------------------------

/** JWK `x` for importing a private key: Node requires the member and derives the public key from `d`. */
const JWK_PLACEHOLDER_X = Buffer.alloc(KEY_BYTES).toString('base64url');
/** PKCS#8 v1 header of an Ed25519 private key (RFC 8410 §7), followed by the 32 seed bytes. */
const PKCS8_ED25519_HEADER = Buffer.from('302e020100300506032b657004220420', 'hex');

function rawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'jwk' }).x ?? '', 'base64url');
}

function privateKeyFromJwk(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: Buffer.from(seed).toString('base64url'), x: JWK_PLACEHOLDER_X }, format: 'jwk' });
}

function privateKeyFromPkcs8(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_HEADER, seed]), format: 'der', type: 'pkcs8' });
}

/**
 * JWK import takes ~40 µs, PKCS#8 DER ~450 µs (Node 20, OpenSSL 3 decoders). JWK import with a
 * placeholder `x` relies on Node deriving the public key from `d`; checked once against RFC 8032
 * §7.1 test 1 so that a Node which validated `x` would fall back to PKCS#8 rather than fail.
 */
const privateKeyFromSeed = (() => {
  const seed = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
  const expected = Buffer.from('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', 'hex');
  try {
    if (rawPublicKey(createPublicKey(privateKeyFromJwk(seed))).equals(expected)) return privateKeyFromJwk;
  } catch {
    // fall through
  }
  return privateKeyFromPkcs8;
})();

/**
 * A bounded map from NKey public key to its Ed25519 KeyObject. Least recently used keys leave
 * first, so at most `capacity` entries are ever held; keys an attacker invents only cost misses.
 */
export class PublicKeyCache {
  /** In order of last use, least recent first. */
  private readonly keys = new Map<string, KeyObject>();
  /**
   * Eviction cursor, kept between calls: everything before it was evicted, and keys used again are
   * re-added after it, so its next key is the least recently used. A Map iterator skips deleted
   * slots as it goes, where `keys().next()` would rescan them on every eviction.
   */
  private cursor: Iterator<string> | undefined;

  /** @throws RangeError when `capacity` is not a positive integer. */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`public key cache capacity must be a positive integer, got ${capacity}`);
  }

  /** Number of cached keys (≤ capacity). */
  get size(): number {
    return this.keys.size;
  }

  /** The KeyObject of `publicKey`. @throws Error when `publicKey` is not a well-formed signing NKey public key. */
  get(publicKey: string): KeyObject {
    const hit = this.keys.get(publicKey);
    if (hit) {
      this.keys.delete(publicKey);
      this.keys.set(publicKey, hit);
      return hit;
    }
    const { key } = decodePublicKey(publicKey);
    const keyObject = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key).toString('base64url') }, format: 'jwk' });
    if (this.keys.size >= this.capacity) this.evictOne();
    this.keys.set(publicKey, keyObject);
    return keyObject;
  }

  private evictOne(): void {
    this.cursor ??= this.keys.keys();
    let next = this.cursor.next();
    if (next.done) {
      this.cursor = this.keys.keys();
      next = this.cursor.next();
    }
    if (!next.done) this.keys.delete(next.value);
  }
}

const publicKeys = new PublicKeyCache(PUBLIC_KEY_CACHE_MAX);

/**
 * The public key of an NKey seed: `U…` for an `SU…` seed, `A…` for `SA…`, and so on
 * (what nkeys.js `fromSeed(seed).getPublicKey()` returns).
 * @throws Error when `seed` is not a well-formed NKey seed of a signing role.
 */
export function publicKeyFromSeed(seed: string): string {
  const { role, key } = privateKeyFromNKeySeed(seed);
  return encodePublicKey(role, rawPublicKey(createPublicKey(key)));
}

/**
 * The node:crypto Ed25519 private key of an NKey seed, for signing (`crypto.sign(null, data, key)`).
 * @throws Error when `seed` is not a well-formed NKey seed of a signing role.
 */
export function privateKeyFromNKeySeed(seed: string): { role: NKeyRole; key: KeyObject } {
  const decoded = decodeSeed(seed);
  try {
    return { role: decoded.role, key: privateKeyFromSeed(decoded.seed) };
  } finally {
    decoded.seed.fill(0);
  }
}

/**
 * Whether `signature` is the Ed25519 signature of `data` by `publicKey` (nkeys.js `fromPublic(k).verify`).
 * @param signature 64 bytes; any other length is not a valid signature (false).
 * @throws Error when `publicKey` is not a well-formed signing NKey public key.
 */
export function verifyNKeySignature(publicKey: string, data: Uint8Array, signature: Uint8Array): boolean {
  const key = publicKeys.get(publicKey);
  return signature.byteLength === SIGNATURE_BYTES && ed25519Verify(null, data, key, signature);
}

// ---------------------------------------------------------------------------------------------
// NATS JWT
// ---------------------------------------------------------------------------------------------

/** base64url, unpadded or padded (as nats-io/jwt `decodeString` accepts); `+` and `/` are not base64url. */
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

function base64UrlBytes(part: string, what: string): Buffer {
  if (!BASE64URL.test(part) || part.replace(/=+$/, '').length % 4 === 1) throw new Error(`JWT ${what} is not base64url`);
  return Buffer.from(part, 'base64url');
}

function jsonObject(part: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(base64UrlBytes(part, what).toString('utf8'));
  } catch (err) {
    throw new Error(`JWT ${what} is not base64url-encoded JSON`, { cause: err });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`JWT ${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

/**
 * Decodes a NATS JWT and verifies its signature by its issuer (`iss`), as @nats-io/jwt `decode`
 * does: it checks the signature only, not expiry, type or who the issuer is (the caller's job).
 * Claims are read as UTF-8 (as nats-server does).
 * @returns the claims object (`ClaimsData<T>`: iss, sub, iat, exp?, nbf?, name, nats, …).
 * @throws Error when the token is not three base64url parts, the header is not
 *   `{typ: 'JWT', alg: 'ed25519-nkey' | 'ed25519'}`, the claims are not a JSON object whose `iss` is a
 *   signing NKey public key, or the signature does not verify.
 */
export function decodeVerifiedJwt<T>(jwt: string): ClaimsData<T> {
  if (typeof jwt !== 'string') throw new Error('JWT must be a string');
  const parts = jwt.split('.');
  if (parts.length !== 3) throw new Error(`JWT must have 3 dot-separated parts, got ${parts.length}`);
  const [headerPart, claimsPart, signaturePart] = parts as [string, string, string];
  const header = jsonObject(headerPart, 'header');
  if (header.typ !== 'JWT' && header.typ !== 'jwt') throw new Error(`not a NATS JWT: typ ${JSON.stringify(header.typ)}`);
  if (header.alg !== JWT_ALG_V2 && header.alg !== JWT_ALG_V1) throw new Error(`not a NATS JWT: alg ${JSON.stringify(header.alg)}`);
  const claims = jsonObject(claimsPart, 'claims');
  if (typeof claims.iss !== 'string') throw new Error('JWT claims have no issuer (iss)');
  let key: KeyObject;
  try {
    key = publicKeys.get(claims.iss);
  } catch (err) {
    throw new Error('JWT issuer (iss) is not an NKey public key', { cause: err });
  }
  const signature = base64UrlBytes(signaturePart, 'signature');
  const signed = header.alg === JWT_ALG_V2 ? jwt.slice(0, headerPart.length + 1 + claimsPart.length) : claimsPart;
  if (signature.byteLength !== SIGNATURE_BYTES || !ed25519Verify(null, Buffer.from(signed, 'latin1'), key, signature)) {
    throw new Error('JWT signature does not verify against its issuer (iss)');
  }
  return claims as unknown as ClaimsData<T>;
}
