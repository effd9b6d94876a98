/**
 * credential-issuer's use cases: one NATS account and one messaging user per Tradewind user
 * (docs/nats.md, "Per-customer accounts"), kept in PostgreSQL and in the server's resolver.
 *
 *  - provisioning: on user.created, or on the first `GET /api/nats` when the event has not been
 *    applied yet (sign-in and the dashboard's first call can beat the event);
 *  - plan changes (subscription.changed, newest `version` only): the account is re-signed for the
 *    effective plan and live native connections are re-authorised ({@link reauthorize});
 *  - rotation (`POST /api/nats`): a new NKey and JWT, the previous user key revoked in the account,
 *    live connections re-authorised (the old credential is refused), credentials.rotated emitted;
 *  - upgrade (at start, `upgradeAccounts()`): accounts signed by older code (e.g. before the per-mint
 *    subjects) are re-signed with the current claims, for resync to push.
 *
 * Every account JWT is pushed to the resolver before the transaction that records it commits; a
 * failed push rolls it back (the caller sees `unavailable`, an event is redelivered). `resync()`
 * pushes rows whose confirmed JWT differs from the wanted one (e.g. after a resolver restore).
 */
import { decode, fmtCreds, type User } from '@nats-io/jwt';
import { AppError, CredentialsRotated, PLANS, entitledPlan, isPlanId, newEventMeta, type PlanId } from '@tradewind/contracts';
import { appendEvent, type Kysely, type Logger, type NatsConnection, type Selectable, type Transaction } from '@tradewind/lib';
import type { CredentialIssuerDatabase, CustomersTable } from './db/schema.js';
import {
  customerAccountIsCurrent,
  encodeCustomerAccount,
  encodeCustomerUser,
  newCustomerAccountKey,
  pushAccountJwt,
  reauthorize,
  type CustomerAccountSpec,
} from './domain/customer-accounts.js';
import { wsUrlFromNatsUrl } from './domain/credentials.js';
import { keyPairFromSeed, type NatsIdentities } from './domain/identities.js';
import type { SeedCipher } from './domain/seed-cipher.js';

type Db = Kysely<CredentialIssuerDatabase>;
type Trx = Transaction<CredentialIssuerDatabase>;
type CustomerRow = Selectable<CustomersTable>;

/** What `GET /api/nats` returns: the credentials and what the dashboard shows next to them. */
export interface NatsCredentialsView {
  /** Native NATS URL, e.g. `nats://localhost:4223`. */
  nats_connection: string;
  /** WebSocket URL derived from it (docs/architecture.md §4: nats→ws, tls→wss, 4223→9223). */
  ws_connection: string;
  user_jwt: string;
  /** The NKey seed (`SU…`): a secret, shown only to its owner, never logged. */
  user_nkey_seed: string;
  /** Effective plan and what it allows (plans catalogue). */
  plan: PlanId;
  subjects: string[];
  max_connections: number;
  requests_per_minute: number;
  replay: boolean;
  /** `A…` of the customer's account and `U…` of the user. */
  account_public_key: string;
  user_public_key: string;
  /** ISO-8601 times of the JWT's issue and expiry (null: no expiry). */
  issued_at: string;
  expires_at: string | null;
}

/** What the service needs. */
export interface CredentialServiceDeps {
  db: Db;
  identities: NatsIdentities;
  /** System-account connection (resolver claim updates). */
  sysNc: NatsConnection;
  cipher: SeedCipher;
  logger: Logger;
  /** The NATS URL handed to subscribers. */
  natsPublicUrl: string;
  /** The WebSocket URL handed to subscribers; default: derived from natsPublicUrl ({@link wsUrlFromNatsUrl}). */
  wsPublicUrl?: string | undefined;
  /** User JWT lifetime, s; 0 = no expiry. A JWT within a tenth of it of expiring is re-signed on read. */
  ttlSeconds: number;
  /** Rotations allowed per user per 24 h. */
  rotationsPerDay: number;
  /** Called (inside the transaction) when an account loses replay: e.g. deletes its native replay consumer. */
  onReplayRevoked?: (accountPublicKey: string) => Promise<void>;
  /** Called after a transaction that appended an event commits (e.g. the outbox relay's kick). */
  eventsAppended?: () => void;
  /** Clock, ms since the epoch (tests). */
  now?: () => number;
}

/** The subscription.changed fields this service reads. */
export interface PlanChange {
  userId: string;
  plan: string;
  subscriptionStatus: string;
  version: bigint;
  requestId?: string;
}

/** The service; see the module comment. */
export type CredentialService = ReturnType<typeof createCredentialService>;

const DAY_SECONDS = 24 * 3600;

/** Accounts pushed per resync transaction (each row stays locked until its batch commits). */
export const RESYNC_BATCH = 100;

export function createCredentialService(deps: CredentialServiceDeps) {
  const now = deps.now ?? Date.now;
  const log = deps.logger;

  const spec = (row: Pick<CustomerRow, 'account_public_key' | 'user_id' | 'plan' | 'revocations'>): CustomerAccountSpec => ({
    accountPublicKey: row.account_public_key,
    name: row.user_id,
    plan: row.plan as PlanId,
    revocations: row.revocations,
  });

  const newUser = async (accountPublicKey: string, userId: string, seed?: string) => {
    const user = await encodeCustomerUser(deps.identities, accountPublicKey, {
      name: userId,
      ttlSeconds: deps.ttlSeconds,
      now: now(),
      ...(seed ? { user: keyPairFromSeed(seed) } : {}),
    });
    return {
      user_public_key: user.userPublicKey,
      user_jwt: user.userJwt,
      user_seed_sealed: deps.cipher.seal(user.userSeed, userId),
      user_issued_at: new Date(user.issuedAt * 1000),
    };
  };

  const view = (row: CustomerRow): NatsCredentialsView => {
    const plan = PLANS[row.plan as PlanId];
    const claims = decode<User>(row.user_jwt);
    return {
      nats_connection: deps.natsPublicUrl,
      ws_connection: deps.wsPublicUrl ?? wsUrlFromNatsUrl(deps.natsPublicUrl),
      user_jwt: row.user_jwt,
      user_nkey_seed: deps.cipher.open(row.user_seed_sealed, row.user_id),
      plan: plan.id,
      subjects: [...plan.subjects],
      max_connections: plan.connections,
      requests_per_minute: plan.requestsPerMinute,
      replay: plan.replay,
      account_public_key: row.account_public_key,
      user_public_key: row.user_public_key,
      issued_at: new Date(claims.iat * 1000).toISOString(),
      expires_at: claims.exp ? new Date(claims.exp * 1000).toISOString() : null,
    };
  };

  const lock = (trx: Trx, userId: string) => trx.selectFrom('customers').selectAll().where('user_id', '=', userId).forUpdate().executeTakeFirst();

  /** Pushes `row`'s account JWT and records it as confirmed. */
  const push = async (trx: Trx | Db, row: CustomerRow): Promise<CustomerRow> => {
    await pushAccountJwt(deps.sysNc, row.account_jwt, `the account of user ${row.user_id}`);
    await trx.updateTable('customers').set({ pushed_account_jwt: row.account_jwt }).where('user_id', '=', row.user_id).execute();
    return { ...row, pushed_account_jwt: row.account_jwt };
  };

  /**
   * Creates the account and user of `userId` unless they exist, and pushes the account.
   * @returns the row, and whether it was created now.
   * @throws AppError('unavailable') when the resolver does not take the account.
   */
  const provision = async (
    trx: Trx,
    input: { userId: string; email: string; plan: PlanId; version: bigint },
  ): Promise<{ row: CustomerRow; created: boolean }> => {
    const existing = await lock(trx, input.userId);
    if (existing) return { row: existing, created: false };
    const accountPublicKey = newCustomerAccountKey();
    const accountJwt = await encodeCustomerAccount(deps.identities, { accountPublicKey, name: input.userId, plan: input.plan, revocations: {} });
    const inserted = await trx
      .insertInto('customers')
      .values({
        user_id: input.userId,
        email: input.email,
        plan: input.plan,
        subscription_version: input.version.toString(),
        account_public_key: accountPublicKey,
        revocations: '{}',
        account_jwt: accountJwt,
        pushed_account_jwt: null,
        ...(await newUser(accountPublicKey, input.userId)),
      })
      .onConflict((oc) => oc.column('user_id').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!inserted) {
      // Another transaction created it between our read and insert.
      const row = await lock(trx, input.userId);
      if (!row) throw new AppError('internal', `customer ${input.userId} vanished while being provisioned`);
      return { row, created: false };
    }
    log.info({ user_id: input.userId, account: accountPublicKey, plan: input.plan }, 'customer account provisioned');
    return { row: await push(trx, inserted), created: true };
  };

  /** Re-signs a JWT close to expiry (same key, so nothing is revoked). */
  const refreshIfExpiring = async (trx: Trx, row: CustomerRow): Promise<CustomerRow> => {
    if (deps.ttlSeconds <= 0) return row;
    const exp = decode<User>(row.user_jwt).exp ?? 0;
    if (exp - now() / 1000 > deps.ttlSeconds / 10) return row;
    const seed = deps.cipher.open(row.user_seed_sealed, row.user_id);
    const fresh = await newUser(row.account_public_key, row.user_id, seed);
    const updated = await trx
      .updateTable('customers')
      .set({ ...fresh, updated_at: new Date() })
      .where('user_id', '=', row.user_id)
      .returningAll()
      .executeTakeFirstOrThrow();
    log.info({ user_id: row.user_id }, 'user JWT re-signed before expiry');
    return updated;
  };

  return {
    /**
     * The caller's credentials, provisioning them (starter, subscription version 0) when
     * user.created has not been applied yet.
     * @throws AppError('unavailable') when the resolver cannot be reached to create the account.
     */
    async credentials(userId: string, email: string): Promise<NatsCredentialsView> {
      const row = await deps.db.transaction().execute(async (trx) => {
        let { row } = await provision(trx, { userId, email, plan: 'starter', version: 0n });
        row = await refreshIfExpiring(trx, row);
        // Heal an account the resolver has not confirmed (e.g. a push that failed after a change).
        if (row.pushed_account_jwt !== row.account_jwt) row = await push(trx, row);
        return row;
      });
      return view(row);
    },

    /**
     * Replaces the user's NKey and JWT, revokes the previous user key in the account and
     * re-authorises live connections (the old credential's connections are closed and refused).
     * Emits credentials.rotated.
     * @throws AppError('resource_exhausted') after `rotationsPerDay` rotations within 24 h;
     *   AppError('unavailable') when the resolver cannot be reached (nothing changes then).
     */
    async rotate(userId: string, email: string, requestId = ''): Promise<NatsCredentialsView> {
      const row = await deps.db.transaction().execute(async (trx) => {
        const { row: current, created } = await provision(trx, { userId, email, plan: 'starter', version: 0n });
        if (created) {
          await appendEvent(
            trx,
            'credentials.rotated',
            CredentialsRotated.create({
              meta: newEventMeta('credentials.rotated', 'credential-issuer', requestId),
              userId,
              userPublicKey: current.user_public_key,
              previousUserPublicKey: '',
              accountPublicKey: current.account_public_key,
            }),
          );
          return current;
        }
        const nowSeconds = Math.floor(now() / 1000);
        const recent = Object.values(current.revocations)
          .filter((at) => at > nowSeconds - DAY_SECONDS)
          .sort((a, b) => a - b);
        if (recent.length >= deps.rotationsPerDay) {
          const nextAt = new Date(((recent[recent.length - deps.rotationsPerDay] ?? nowSeconds) + DAY_SECONDS) * 1000).toISOString();
          throw new AppError('resource_exhausted', `at most ${deps.rotationsPerDay} credential rotations per 24 hours; the next is possible at ${nextAt}`);
        }
        // Entries older than a JWT's lifetime cover only JWTs that have expired anyway.
        const revocations: Record<string, number> = {};
        for (const [key, at] of Object.entries(current.revocations)) {
          if (deps.ttlSeconds <= 0 || at > nowSeconds - deps.ttlSeconds) revocations[key] = at;
        }
        revocations[current.user_public_key] = nowSeconds;
        const user = await newUser(current.account_public_key, userId);
        const next = { ...current, revocations };
        const accountJwt = await reauthorize(deps.sysNc, deps.identities, spec(next));
        const updated = await trx
          .updateTable('customers')
          .set({
            ...user,
            revocations: JSON.stringify(revocations),
            account_jwt: accountJwt,
            pushed_account_jwt: accountJwt,
            updated_at: new Date(),
          })
          .where('user_id', '=', userId)
          .returningAll()
          .executeTakeFirstOrThrow();
        await appendEvent(
          trx,
          'credentials.rotated',
          CredentialsRotated.create({
            meta: newEventMeta('credentials.rotated', 'credential-issuer', requestId),
            userId,
            userPublicKey: user.user_public_key,
            previousUserPublicKey: current.user_public_key,
            accountPublicKey: current.account_public_key,
          }),
        );
        log.info({ user_id: userId, account: current.account_public_key, revoked: current.user_public_key }, 'credentials rotated');
        return updated;
      });
      deps.eventsAppended?.();
      return view(row);
    },

    /** user.created: provisions the user's account (starter). */
    async onUserCreated(trx: Trx, input: { userId: string; email: string }): Promise<void> {
      await provision(trx, { userId: input.userId, email: input.email, plan: 'starter', version: 0n });
    },

    /**
     * subscription.changed: applies the effective plan (tier while entitled, else starter) when
     * `version` is newer than the applied one; a plan change re-signs the account and re-authorises
     * live connections (only pushes while `rebuilding`, so a replay of history does not disconnect anyone).
     * @returns what happened: `provisioned`, `changed`, `unchanged` or `stale`.
     */
    async onSubscriptionChanged(trx: Trx, change: PlanChange, rebuilding = false): Promise<'provisioned' | 'changed' | 'unchanged' | 'stale'> {
      if (!isPlanId(change.plan)) throw new AppError('invalid_argument', `subscription.changed names unknown plan ${JSON.stringify(change.plan)}`);
      const plan = entitledPlan(change.plan, change.subscriptionStatus).id;
      const { row, created } = await provision(trx, { userId: change.userId, email: '', plan, version: change.version });
      if (created) return 'provisioned';
      if (BigInt(row.subscription_version) >= change.version) return 'stale';
      if (row.plan === plan) {
        await trx.updateTable('customers').set({ subscription_version: change.version.toString() }).where('user_id', '=', row.user_id).execute();
        return 'unchanged';
      }
      const next = { ...row, plan };
      let accountJwt: string;
      if (rebuilding) {
        accountJwt = await encodeCustomerAccount(deps.identities, spec(next));
        await pushAccountJwt(deps.sysNc, accountJwt, `the account of user ${row.user_id}`);
      } else {
        accountJwt = await reauthorize(deps.sysNc, deps.identities, spec(next));
      }
      if (PLANS[row.plan as PlanId].replay && !PLANS[plan].replay) await deps.onReplayRevoked?.(row.account_public_key);
      await trx
        .updateTable('customers')
        .set({
          plan,
          subscription_version: change.version.toString(),
          account_jwt: accountJwt,
          pushed_account_jwt: accountJwt,
          updated_at: new Date(),
        })
        .where('user_id', '=', row.user_id)
        .execute();
      log.info(
        { user_id: row.user_id, account: row.account_public_key, from: row.plan, to: plan, version: change.version.toString() },
        'plan applied to the customer account',
      );
      return 'changed';
    },

    /**
     * Re-signs every customer account whose stored JWT does not say what this code would sign for it
     * ({@link customerAccountIsCurrent}): e.g. accounts created before the per-mint subjects
     * (`<subject>.mint.>`) were imported and allowed. The new JWT is recorded as wanted, not pushed:
     * {@link resync} pushes it. Live connections are left open; they get the new permissions when they
     * next connect (nats-server keeps a live connection's permissions, docs/nats.md).
     * Reads in pages of `batch` rows by user id; a row changed meanwhile (plan change, rotation) is left
     * to the transaction that changed it, which signs with the current claims anyway. Checking costs
     * ~0.1 ms an account, re-signing ~25 ms (pure-JS Ed25519 of @nats-io/jwt).
     * @param signal stops between accounts (service shutdown); what is done stays done.
     * @returns how many accounts were re-signed.
     */
    async upgradeAccounts(batch = RESYNC_BATCH, signal?: AbortSignal): Promise<number> {
      let after: string | undefined;
      let resigned = 0;
      for (;;) {
        const rows = await deps.db
          .selectFrom('customers')
          .select(['user_id', 'plan', 'account_public_key', 'revocations', 'account_jwt'])
          .$if(after !== undefined, (qb) => qb.where('user_id', '>', after!))
          .orderBy('user_id')
          .limit(batch)
          .execute();
        for (const row of rows) {
          if (signal?.aborted) return resigned;
          if (customerAccountIsCurrent(deps.identities, spec(row), row.account_jwt)) continue;
          const accountJwt = await encodeCustomerAccount(deps.identities, spec(row));
          const updated = await deps.db
            .updateTable('customers')
            .set({ account_jwt: accountJwt, updated_at: new Date() })
            .where('user_id', '=', row.user_id)
            .where('account_jwt', '=', row.account_jwt)
            .executeTakeFirst();
          if (updated.numUpdatedRows > 0n) resigned++;
        }
        if (rows.length < batch) return resigned;
        after = rows[rows.length - 1]!.user_id;
      }
    },

    /**
     * Pushes up to `limit` accounts whose wanted JWT the resolver has not confirmed.
     * @returns how many were pushed; failures are logged and left for the next call.
     */
    async resync(limit = RESYNC_BATCH): Promise<number> {
      return deps.db.transaction().execute(async (trx) => {
        // Locked rows are being changed right now; their own transaction pushes them.
        const rows = await trx
          .selectFrom('customers')
          .selectAll()
          .where((eb) => eb('pushed_account_jwt', 'is', null).or('pushed_account_jwt', '!=', eb.ref('account_jwt')))
          .orderBy('updated_at')
          .limit(limit)
          .forUpdate()
          .skipLocked()
          .execute();
        let pushed = 0;
        for (const row of rows) {
          try {
            await push(trx, row);
            pushed++;
          } catch (err) {
            log.warn({ err, user_id: row.user_id }, 'account push failed; retrying later');
          }
        }
        return pushed;
      });
    },

    /** The standard `.creds` text (JWT + seed) of a view, for the NATS CLI and client libraries. */
    credsFile(credentials: NatsCredentialsView): string {
      return new TextDecoder().decode(fmtCreds(credentials.user_jwt, keyPairFromSeed(credentials.user_nkey_seed)));
    },
  };
}
