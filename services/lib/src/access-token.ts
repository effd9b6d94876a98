/**
 * Verifying auth's access tokens in any service, locally, against auth's JWKS
 * (`<auth>/auth/.well-known/jwks.json`), with jose. Tokens are ES256 JWTs:
 * `iss` = auth's issuer, `aud` = "tradewind", `sub` = user id (UUID), `sid` = session id,
 * `plan` = plan id at issue time, `exp` ≤ 15 min by default.
 */
import type { KeyObject } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { AppError } from '@tradewind/contracts';
import { isPlanId, type PlanId } from '@tradewind/contracts';

/** Audience of every access token. */
export const ACCESS_TOKEN_AUDIENCE = 'tradewind';

/** The message every 401 carries (product spec): `{"status":401,"message":"No active session"}`. */
export const NO_ACTIVE_SESSION = 'No active session';

/** Claims a verified access token yields. */
export interface AccessTokenClaims {
  /** User id (UUID). */
  userId: string;
  /** Session id (UUID); auth revokes sessions, other services see it only after the token expires. */
  sessionId: string;
  /** Plan when the token was issued. */
  plan: PlanId;
  email: string;
  /** Expiry, seconds since the epoch. */
  expiresAt: number;
}

/** The bearer token of an `Authorization: Bearer <jwt>` header, or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  return match?.[1];
}

/**
 * Verifies `token` (signature by a key in `keys`, ES256, issuer, audience, expiry with 5 s leeway).
 * @throws AppError('unauthenticated', 'No active session') for a missing, malformed, expired or foreign token.
 */
export async function verifyAccessToken(token: string | undefined, keys: JWTVerifyGetKey | KeyObject, issuer: string): Promise<AccessTokenClaims> {
  if (!token) throw new AppError('unauthenticated', NO_ACTIVE_SESSION);
  try {
    const { payload } = await jwtVerify(token, keys as JWTVerifyGetKey, { issuer, audience: ACCESS_TOKEN_AUDIENCE, algorithms: ['ES256'], clockTolerance: 5 });
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || !isPlanId(payload.plan) || typeof payload.exp !== 'number') {
      throw new AppError('unauthenticated', NO_ACTIVE_SESSION);
    }
    return {
      userId: payload.sub,
      sessionId: payload.sid,
      plan: payload.plan,
      email: typeof payload.email === 'string' ? payload.email : '',
      expiresAt: payload.exp,
    };
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('unauthenticated', NO_ACTIVE_SESSION, { cause: err });
  }
}

/**
 * A verifier for services other than auth: fetches and caches auth's JWKS (refetching on an
 * unknown `kid`, at most every 30 s).
 * @param jwksUrl e.g. `http://auth:8081/auth/.well-known/jwks.json`.
 * @param issuer auth's issuer (its PUBLIC_URL + `/auth`).
 */
export function createAccessTokenVerifier(jwksUrl: string, issuer: string): (authorization: string | undefined) => Promise<AccessTokenClaims> {
  const keys = createRemoteJWKSet(new URL(jwksUrl), { cooldownDuration: 30_000, timeoutDuration: 5_000 });
  return (authorization) => verifyAccessToken(bearerToken(authorization), keys, issuer);
}
