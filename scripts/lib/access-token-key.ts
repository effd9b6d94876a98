/**
 * The ES256 key auth signs access tokens with, kept in a file created once: `npm start` keeps it in
 * the state directory (AUTH_JWT_PRIVATE_KEY_FILE), scripts/k8s-secrets.ts puts it in a Secret.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Creates `file` with a new P-256 private key (PKCS#8 PEM, mode 0600, its directory 0700) unless it
 * exists; never overwrites.
 * @returns true when the key was created now.
 * @throws Error from the file system (unwritable directory, or the file appearing concurrently).
 */
export function ensureAccessTokenKeyFile(file: string): boolean {
  if (existsSync(file)) return false;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const { privateKey } = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  writeFileSync(file, privateKey, { mode: 0o600, flag: 'wx' });
  return true;
}
