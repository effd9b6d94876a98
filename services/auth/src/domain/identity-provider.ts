/**
 * Google sign-in through google-auth-library's OAuth2Client: authorization code flow with PKCE
 * (S256), `state` and `nonce`; the id_token is verified (signature against the provider's
 * certificates, `aud` = our client id, `iss`, expiry) and its nonce compared.
 * On a developer machine the same client points at the local OpenID Connect provider
 * (endpoints and issuer overridden), so the code path is identical.
 */
import { CodeChallengeMethod, OAuth2Client } from 'google-auth-library';
import { AppError } from '@tradewind/contracts';

/** Who signed in, from the verified id_token. */
export interface VerifiedIdentity {
  provider: 'google' | 'local-oidc';
  /** `sub` claim. */
  subject: string;
  email: string;
  /** `name` claim (Google's full name), may be empty. */
  name: string;
  /** `picture` claim, may be empty. */
  avatarUrl: string;
}

export interface IdentityProvider {
  readonly name: 'google' | 'local-oidc';
  /** Shown on the sign-in button; says "local" for the local provider. */
  readonly label: string;
  /** The provider's authorization URL to redirect the browser to. */
  authorizationUrl(params: { state: string; nonce: string; codeChallenge: string; loginHint?: string | undefined }): string;
  /** A new PKCE pair (verifier kept server-side, challenge sent). */
  pkce(): Promise<{ codeVerifier: string; codeChallenge: string }>;
  /**
   * Exchanges the code and verifies the id_token.
   * @throws AppError('unauthenticated') for a refused code, an invalid id_token, a nonce mismatch or an unverified email;
   *   AppError('unavailable') when the provider cannot be reached.
   */
  exchange(code: string, codeVerifier: string, nonce: string): Promise<VerifiedIdentity>;
}

/** Options of {@link createIdentityProvider}. */
export interface IdentityProviderOptions {
  /** `<PUBLIC_URL>/auth/callback`, registered with the provider. */
  redirectUri: string;
  google?: { clientId: string; clientSecret: string };
  /** Issuer URL of the local provider (@tradewind/dev, dev/src/local-oidc.ts). */
  localIssuer?: string;
}

/** Client id/secret the local provider accepts (it does not check them; they are not secrets). */
const LOCAL_CLIENT = { clientId: 'tradewind-local', clientSecret: 'local-development-only' };

export function createIdentityProvider(options: IdentityProviderOptions): IdentityProvider {
  const local = !options.google;
  if (local && !options.localIssuer) throw new AppError('invalid_argument', 'neither Google nor a local OpenID Connect issuer is configured');
  const { clientId, clientSecret } = options.google ?? LOCAL_CLIENT;
  const client = local
    ? new OAuth2Client({
        clientId,
        clientSecret,
        redirectUri: options.redirectUri,
        endpoints: {
          oauth2AuthBaseUrl: `${options.localIssuer}/authorize`,
          oauth2TokenUrl: `${options.localIssuer}/token`,
          oauth2FederatedSignonPemCertsUrl: `${options.localIssuer}/oauth2/v1/certs`,
          oauth2FederatedSignonJwkCertsUrl: `${options.localIssuer}/jwks`,
        },
        issuers: [options.localIssuer!],
      })
    : new OAuth2Client({ clientId, clientSecret, redirectUri: options.redirectUri });
  const name = local ? 'local-oidc' : 'google';

  return {
    name,
    label: local ? 'Local sign-in (development provider, not Google)' : 'Sign in with Google',
    authorizationUrl({ state, nonce, codeChallenge, loginHint }) {
      return client.generateAuthUrl({
        access_type: 'online',
        scope: ['openid', 'email', 'profile'],
        state,
        code_challenge: codeChallenge,
        code_challenge_method: CodeChallengeMethod.S256,
        prompt: 'select_account',
        ...(loginHint ? { login_hint: loginHint } : {}),
        // Passed through as a query parameter (generateAuthUrl stringifies every option).
        ...({ nonce } as Record<string, string>),
      });
    },
    async pkce() {
      const { codeVerifier, codeChallenge } = await client.generateCodeVerifierAsync();
      return { codeVerifier, codeChallenge: codeChallenge! };
    },
    async exchange(code, codeVerifier, nonce) {
      let idToken: string | null | undefined;
      try {
        const { tokens } = await client.getToken({ code, codeVerifier, redirect_uri: options.redirectUri });
        idToken = tokens.id_token;
      } catch (err) {
        const status = (err as { response?: { status?: number } }).response?.status;
        if (status !== undefined && status >= 400 && status < 500)
          throw new AppError('unauthenticated', 'the sign-in code was refused by the provider', { cause: err });
        throw new AppError('unavailable', 'the sign-in provider could not be reached', { cause: err });
      }
      if (!idToken) throw new AppError('unauthenticated', 'the provider returned no id_token');
      let payload;
      try {
        const ticket = await client.verifyIdToken({ idToken, audience: clientId });
        payload = ticket.getPayload();
      } catch (err) {
        throw new AppError('unauthenticated', `the id_token failed verification: ${(err as Error).message}`, { cause: err });
      }
      if (!payload?.sub) throw new AppError('unauthenticated', 'the id_token has no subject');
      if (payload.nonce !== nonce) throw new AppError('unauthenticated', 'the id_token nonce does not match this sign-in');
      if (!payload.email || payload.email_verified === false) throw new AppError('unauthenticated', 'the account has no verified email address');
      return { provider: name, subject: payload.sub, email: payload.email.toLowerCase(), name: payload.name ?? '', avatarUrl: payload.picture ?? '' };
    },
  };
}
