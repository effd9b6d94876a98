/**
 * Tradewind credentials: a NATS user JWT and its NKey seed (`SU…`). The seed only ever signs the
 * server's challenge here; it is never sent (docs/websocket.md §1, `{"jwt","sig"}`).
 */
import { fromSeed, type KeyPair } from '@nats-io/nkeys';
import { TradewindOptionsError } from './errors.js';

/** A user JWT and its NKey seed, plus the WebSocket URL when the source named one. */
export interface Credentials {
  readonly jwt: string;
  readonly seed: string;
  /** `ws_connection` / `ws_url` of a JSON credentials file (GET /api/nats, `npm run creds`). */
  readonly wsUrl?: string | undefined;
}

/** Signs challenge nonces with a user NKey; holds the key pair, never exposes the seed. */
export interface NonceSigner {
  /** The user's public key (`U…`). */
  readonly publicKey: string;
  /** base64url Ed25519 signature of the nonce's UTF-8 bytes (no padding). */
  sign(nonce: string): string;
}

/**
 * Reads credentials from the text of a standard NATS `.creds` file (dashboard → Download .creds,
 * GET /api/nats?format=creds) or of the JSON GET /api/nats and `npm run creds` print
 * (`user_jwt`, `user_nkey_seed`, `ws_connection`).
 * @throws TradewindOptionsError when the JWT or the seed is missing.
 */
export function parseCredentials(text: string): Credentials {
  if (text.trimStart().startsWith('{')) {
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch (err) {
      throw new TradewindOptionsError('the credentials file looks like JSON but does not parse', { cause: err });
    }
    const jwt = json.user_jwt;
    const seed = json.user_nkey_seed;
    if (typeof jwt !== 'string' || typeof seed !== 'string') {
      throw new TradewindOptionsError('the credentials JSON has no user_jwt and user_nkey_seed');
    }
    const url = json.ws_connection ?? json.ws_url;
    return { jwt, seed, wsUrl: typeof url === 'string' ? url : undefined };
  }
  // The .creds layout: each value between BEGIN/END marker lines.
  const jwt = /-----BEGIN NATS USER JWT-----\s*(\S+)\s*-+END NATS USER JWT-+/.exec(text)?.[1];
  const seed = /-----BEGIN USER NKEY SEED-----\s*(SU[A-Z2-7]+)\s*-+END USER NKEY SEED-+/.exec(text)?.[1];
  if (!jwt || !seed) throw new TradewindOptionsError('no NATS USER JWT and USER NKEY SEED sections in the credentials file');
  return { jwt, seed, wsUrl: undefined };
}

/** The `sub` (user public key) of a user JWT's payload; undefined when it cannot be read. */
export function jwtSubject(jwt: string): string | undefined {
  const payload = jwt.split('.')[1];
  if (!payload) return undefined;
  try {
    const json = JSON.parse(new TextDecoder().decode(base64UrlDecode(payload))) as { sub?: unknown };
    return typeof json.sub === 'string' ? json.sub : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A signer for `seed`, checked against the JWT: the seed must be a user seed (`SU…`) and, when the
 * JWT's `sub` can be read, its public key must be that `sub` (the server would refuse with nkey_mismatch).
 * @throws TradewindOptionsError on a malformed seed or a seed of another user.
 */
export function createNonceSigner(jwt: string, seed: string): NonceSigner {
  if (typeof seed !== 'string' || !seed.startsWith('SU')) throw new TradewindOptionsError('the NKey seed must be a user seed (it starts with SU)');
  let kp: KeyPair;
  try {
    kp = fromSeed(new TextEncoder().encode(seed));
  } catch (err) {
    throw new TradewindOptionsError('the NKey seed is malformed (bad base32 or checksum)', { cause: err });
  }
  const publicKey = kp.getPublicKey();
  const sub = jwtSubject(jwt);
  if (sub !== undefined && sub !== publicKey) {
    throw new TradewindOptionsError(`the NKey seed belongs to ${publicKey}, not to the JWT's user ${sub}: use the seed issued with this JWT`);
  }
  return {
    publicKey,
    sign: (nonce) => base64UrlEncode(kp.sign(new TextEncoder().encode(nonce))),
  };
}

/** RFC 4648 §5 base64url without padding (btoa: browsers and Node ≥ 16). */
export function base64UrlEncode(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function base64UrlDecode(text: string): Uint8Array {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  const binary = atob(b64);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
