/**
 * Issuing user credentials: a fresh NKey pair and a user JWT, signed by the
 * plan's customer account signing key, whose subject permissions are exactly
 * the plan's TRADES subjects and their per-mint subjects (`<subject>.mint.>`,
 * domain/plan-subjects.ts) and which may publish nothing.
 */
import { createUser, encodeUser } from '@nats-io/jwt';
import { PLANS, type PlanId } from '@tradewind/contracts';
import { keyPairFromSeed, type NatsIdentities } from './identities.js';
import { planSubscribeSubjects } from './plan-subjects.js';

/** What a subscriber receives: the same shape `GET /api/nats` will return, plus the WebSocket URL. */
export interface UserCredentials {
  /** Native NATS URL, e.g. `nats://localhost:4223`. */
  readonly nats_connection: string;
  /** WebSocket URL derived from it (docs/architecture.md §4): scheme nats→ws (tls→wss), port 4223→9223. */
  readonly ws_url: string;
  readonly user_jwt: string;
  /** The NKey seed (`SU…`): a secret; never logged. */
  readonly user_nkey_seed: string;
}

/**
 * Derives the WebSocket URL shown to users from the NATS URL: `nats://h:4223` → `ws://h:9223`,
 * `tls://h:4223` → `wss://h:9223`. Other ports are kept.
 * @throws TypeError when `natsUrl` is not a URL.
 */
export function wsUrlFromNatsUrl(natsUrl: string): string {
  const url = new URL(natsUrl);
  const scheme = url.protocol === 'tls:' ? 'wss:' : 'ws:';
  const port = url.port === '' || url.port === '4223' ? '9223' : url.port;
  return `${scheme}//${url.hostname}:${port}`;
}

/**
 * Issues credentials for one user on `plan`.
 * @param options.email recorded as the JWT's name (helps operators read server logs); optional.
 * @param options.ttlSeconds JWT lifetime in seconds; 0 = no expiry.
 * @param options.now clock in ms since epoch (tests).
 */
export async function issueUserCredentials(
  identities: NatsIdentities,
  options: { plan: PlanId; natsUrl: string; email?: string | undefined; ttlSeconds: number; now?: number },
): Promise<UserCredentials> {
  const plan = PLANS[options.plan];
  const account = identities.customers[options.plan];
  if (!account.signing) throw new Error(`account ${account.name} has no signing key`);
  const user = createUser();
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  const jwt = await encodeUser(
    options.email ?? `${options.plan}-user`,
    user,
    account.identity.public_key,
    {
      sub: { allow: planSubscribeSubjects(plan) },
      pub: { deny: ['>'] },
      subs: -1,
      data: -1,
      payload: -1,
      tags: [`plan:${plan.id}`],
    },
    {
      signer: keyPairFromSeed(account.signing.seed),
      ...(options.ttlSeconds > 0 ? { exp: nowSeconds + options.ttlSeconds } : {}),
    },
  );
  return {
    nats_connection: options.natsUrl,
    ws_url: wsUrlFromNatsUrl(options.natsUrl),
    user_jwt: jwt,
    user_nkey_seed: new TextDecoder().decode(user.getSeed()),
  };
}
