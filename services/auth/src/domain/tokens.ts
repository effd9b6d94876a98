/** Access tokens (ES256 JWTs) and opaque refresh tokens. */
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { ACCESS_TOKEN_AUDIENCE } from '@tradewind/lib';
import type { PlanId } from '@tradewind/contracts';
import type { SigningKey } from './signing-key.js';

/**
 * Signs an access token: `sub` user id, `sid` session id, `email`, `plan`, `iss`, `aud` "tradewind".
 * @param ttlSeconds lifetime in seconds.
 * @returns the JWT and its expiry in seconds since the epoch.
 */
export async function signAccessToken(
  key: SigningKey,
  issuer: string,
  claims: { userId: string; sessionId: string; email: string; plan: PlanId },
  ttlSeconds: number,
): Promise<{ token: string; expiresAt: number }> {
  const now = Math.floor(Date.now() / 1000);
  const expiresAt = now + ttlSeconds;
  const token = await new SignJWT({ sid: claims.sessionId, email: claims.email, plan: claims.plan })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
    .setSubject(claims.userId)
    .setIssuer(issuer)
    .setAudience(ACCESS_TOKEN_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(expiresAt)
    .sign(key.privateKey);
  return { token, expiresAt };
}

/** A new refresh token: 32 random bytes, base64url (43 characters). */
export function newRefreshToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Random URL-safe value for OAuth `state` and `nonce` (32 bytes). */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** sha256 hex of a token; what the database stores instead of the token. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
