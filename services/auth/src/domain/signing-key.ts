/**
 * The ES256 key that signs access tokens, and the JWKS other services verify them with.
 * Production: one PKCS#8 PEM shared by all replicas (AUTH_JWT_PRIVATE_KEY[_FILE]). A developer
 * machine without one gets a fresh key per process (tokens then die with the process; refresh
 * tokens, stored in PostgreSQL, still work).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { AppError } from '@tradewind/contracts';

/** The signing key, its `kid` (RFC 7638 thumbprint) and the public JWKS document. */
export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  kid: string;
  jwks: { keys: JWK[] };
  /** True when the key was generated for this process only. */
  ephemeral: boolean;
}

/**
 * Loads the key from `pem` or `file`, or generates one when neither is given.
 * @throws AppError('invalid_argument') when the key is not an EC P-256 private key.
 */
export async function loadSigningKey(options: { pem?: string | undefined; file?: string | undefined }): Promise<SigningKey> {
  let privateKey: KeyObject;
  let ephemeral = false;
  const pem = options.pem ?? (options.file ? await readFile(options.file, 'utf8') : undefined);
  if (pem) {
    try {
      privateKey = createPrivateKey(pem.replace(/\\n/g, '\n'));
    } catch (err) {
      throw new AppError('invalid_argument', 'AUTH_JWT_PRIVATE_KEY is not a PEM private key', { cause: err });
    }
    if (privateKey.asymmetricKeyType !== 'ec' || privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new AppError('invalid_argument', 'AUTH_JWT_PRIVATE_KEY must be an EC P-256 key (ES256)');
    }
  } else {
    privateKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    ephemeral = true;
  }
  const publicKey = createPublicKey(privateKey);
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { privateKey, publicKey, kid, ephemeral, jwks: { keys: [{ ...jwk, kid, alg: 'ES256', use: 'sig' }] } };
}
