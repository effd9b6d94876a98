/**
 * credential-issuer, first cut: keeps the server's resolver in step with the account JWTs
 * (pushed through `$SYS.REQ.CLAIMS.UPDATE` at start) and issues user credentials to other
 * services on the internal NATS subject `svc.credentials.issue` (TRADEWIND account only:
 * customers' accounts cannot publish, so they cannot reach it). The public `GET/POST /api/nats`
 * with sign-in comes with the accounts and entitlements issues.
 */
import { Counter, type Registry } from 'prom-client';
import { AppError, PLAN_IDS, isPlanId, toAppError, type Logger, type NatsConnection } from '@tradewind/lib';
import type { Subscription } from '@nats-io/transport-node';
import { issueUserCredentials } from './domain/credentials.js';
import { pushAccountJwt } from './domain/customer-accounts.js';
import type { NatsIdentities } from './domain/identities.js';

/** Internal request subject: body `{"plan": "starter"|"plus"|"pro", "email"?: string}`. */
export const ISSUE_SUBJECT = 'svc.credentials.issue';

export interface CredentialIssuerDeps {
  logger: Logger;
  registry: Registry;
  identities: NatsIdentities;
  /** Services' connection (TRADEWIND account). */
  nc: NatsConnection;
  /** System-account connection, for resolver claim updates. */
  sysNc: NatsConnection;
}

/** Pushes every account JWT to the server's resolver. @throws AppError('unavailable') when the server refuses one or does not answer. */
export async function pushAccountClaims(sysNc: NatsConnection, identities: NatsIdentities): Promise<void> {
  const accounts = [identities.system, identities.tradewind, ...PLAN_IDS.map((p) => identities.customers[p])];
  for (const account of accounts) await pushAccountJwt(sysNc, account.jwt, account.name);
}

export function createApp(config: { natsPublicUrl: string; ttlSeconds: number }, deps: CredentialIssuerDeps) {
  const issued = new Counter({ name: 'tradewind_credential_issuer_issued_total', help: 'User credentials issued, by plan', labelNames: ['plan'], registers: [deps.registry] });
  const failed = new Counter({ name: 'tradewind_credential_issuer_requests_failed_total', help: 'Issue requests refused, by code', labelNames: ['code'], registers: [deps.registry] });
  let sub: Subscription | undefined;

  return {
    async start() {
      await pushAccountClaims(deps.sysNc, deps.identities);
      sub = deps.nc.subscribe(ISSUE_SUBJECT, {
        queue: 'credential-issuer',
        callback: (err, msg) => {
          if (err) return deps.logger.error({ err }, 'issue subscription failed');
          void (async () => {
            try {
              let body: { plan?: unknown; email?: unknown };
              try {
                body = msg.json();
              } catch {
                throw new AppError('invalid_argument', 'body must be JSON {"plan", "email"?}');
              }
              if (!isPlanId(body.plan)) throw new AppError('invalid_argument', 'plan must be starter, plus or pro');
              if (body.email !== undefined && typeof body.email !== 'string') throw new AppError('invalid_argument', 'email must be a string');
              const creds = await issueUserCredentials(deps.identities, {
                plan: body.plan, email: body.email, natsUrl: config.natsPublicUrl, ttlSeconds: config.ttlSeconds,
              });
              issued.inc({ plan: body.plan });
              msg.respond(JSON.stringify(creds));
            } catch (e) {
              const appErr = toAppError(e);
              failed.inc({ code: appErr.code });
              if (appErr.code === 'internal') deps.logger.error({ err: e }, 'issuing credentials failed');
              msg.respond(JSON.stringify({ error: appErr.code, message: appErr.code === 'internal' ? 'internal error' : appErr.message }));
            }
          })();
        },
      });
      await deps.nc.flush();
    },
    async stop() {
      sub?.unsubscribe();
    },
  };
}
