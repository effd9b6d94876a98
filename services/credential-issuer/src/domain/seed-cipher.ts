/**
 * Encryption at rest of users' NKey seeds (AES-256-GCM, node:crypto).
 *
 * A stored value is `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts): the key id is the
 * first 8 bytes of SHA-256 of the key, so a value sealed with another key is reported as such
 * instead of failing as "bad tag"; the user id is the additional authenticated data, so a sealed
 * seed copied onto another user's row does not decrypt.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { AppError } from '@tradewind/contracts';

/** AES-256 key length in bytes. */
export const SEED_KEY_BYTES = 32;

/** Seals and opens seeds with one key. */
export interface SeedCipher {
  /** Key id (hex), as written into sealed values. */
  readonly keyId: string;
  /** Encrypts `seed` bound to `userId`. */
  seal(seed: string, userId: string): string;
  /**
   * Decrypts a value from {@link SeedCipher.seal}.
   * @throws AppError('internal') when it was sealed with another key, for another user, or was altered.
   */
  open(sealed: string, userId: string): string;
}

/**
 * Parses a key given as 64 hex characters or as base64/base64url of 32 bytes.
 * @throws AppError('invalid_argument') for anything else.
 */
export function parseSeedKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== SEED_KEY_BYTES || (!/^[0-9a-fA-F]{64}$/.test(trimmed) && !/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed))) {
    throw new AppError(
      'invalid_argument',
      `the seed encryption key must be ${SEED_KEY_BYTES} bytes as 64 hex characters or base64 (e.g. \`openssl rand -base64 32\`)`,
    );
  }
  return key;
}

/** A new random key, base64 (for a developer machine's state directory). */
export function generateSeedKey(): string {
  return randomBytes(SEED_KEY_BYTES).toString('base64');
}

/** The cipher for `key` (32 bytes). */
export function createSeedCipher(key: Buffer): SeedCipher {
  if (key.length !== SEED_KEY_BYTES) throw new AppError('invalid_argument', `seed encryption key must be ${SEED_KEY_BYTES} bytes`);
  const keyId = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return {
    keyId,
    seal(seed, userId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(userId, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(seed, 'utf8'), cipher.final()]);
      return ['v1', keyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
    },
    open(sealed, userId) {
      const [version, id, iv, tag, ciphertext] = sealed.split('.');
      if (version !== 'v1' || !id || !iv || !tag || ciphertext === undefined) throw new AppError('internal', 'stored seed is not in the v1 sealed format');
      if (id !== keyId) throw new AppError('internal', `stored seed was sealed with key ${id}, not the configured key ${keyId}`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(userId, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      } catch (err) {
        throw new AppError('internal', 'stored seed failed authentication (altered, or sealed for another user)', { cause: err });
      }
    },
  };
}
