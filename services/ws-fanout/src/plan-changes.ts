/**
 * Live plan changes and revocations (docs/websocket.md §5): account JWTs pushed to the NATS
 * resolver are read off the system account (ws-fanout only listens; the resolver answers the
 * pusher) and every authenticated connection of that account is re-checked from its stored user
 * JWT against the new claims.
 */
import { PLANS, cheapestPlanWhere, type PlanId } from '@tradewind/contracts';
import type { Logger } from '@tradewind/lib';
import { maySubscribe, type CredentialVerifier, type VerifiedUser } from './domain/verifier.js';
import { CLOSE_CODES, WsProtocolError } from './domain/errors.js';
import { notInPlanAnyMore, subjectsOf } from './domain/subject-rights.js';
import type { ConnectionLimiter } from './domain/connection-limiter.js';
import type { Subscriptions } from './subscriptions.js';
import type { Session } from './session.js';
import type { WsFanoutMetrics } from './metrics.js';

/** The cheapest plan that includes replay (for messages). */
const REPLAY_PLAN = cheapestPlanWhere((p) => p.replay);

/** What plan changes do to a connection, provided by the app. */
export interface SessionControl {
  /** Sends the error and, when it is fatal, closes with its close code. */
  refuse(session: Session, err: WsProtocolError): void;
  /** Moves the connection in the connections gauge to `plan`. */
  countAs(session: Session, plan: PlanId | undefined): void;
  /** (Re)arms the close at the user JWT's expiry. */
  armExpiry(session: Session, user: VerifiedUser): void;
}

/** Applies account updates to live connections, one update after another in arrival order. */
export class PlanChanges {
  /** Incremented per applied account update: an authentication that raced one re-checks itself. */
  applied = 0;
  private updates: Promise<void> = Promise.resolve();

  constructor(
    private readonly sessions: ReadonlySet<Session>,
    private readonly control: SessionControl,
    private readonly subscriptions: Subscriptions,
    private readonly verifier: CredentialVerifier,
    private readonly limiter: ConnectionLimiter,
    private readonly metrics: WsFanoutMetrics,
    private readonly logger: Logger,
  ) {}

  /** Queues one account JWT seen on the resolver's update subjects. */
  onAccountJwt(jwt: string): void {
    this.updates = this.updates.then(() => this.apply(jwt)).catch((err: unknown) => this.logger.error({ err }, 'applying an account update failed'));
  }

  /** Resolves once every queued update has been applied. */
  settled(): Promise<void> {
    return this.updates;
  }

  /** Takes one account JWT and re-checks that account's live connections. */
  private async apply(jwt: string): Promise<void> {
    let update: { account: string; applied: boolean };
    try {
      update = this.verifier.acceptAccountJwt(jwt);
    } catch (err) {
      this.metrics.accountUpdates.inc({ result: 'ignored' });
      this.logger.warn({ err }, 'ignored an account update that does not verify');
      return;
    }
    if (!update.applied) {
      this.metrics.accountUpdates.inc({ result: 'stale' });
      return;
    }
    this.metrics.accountUpdates.inc({ result: 'applied' });
    this.applied++;
    // limits.conn is not looked at: WebSocket connections are counted by the Redis slots, per plan,
    // so the `conn = 0` half of reauthorize() closes nothing here.
    await Promise.all([...this.sessions].filter((s) => s.user?.account === update.account).map((s) => this.recheck(s)));
  }

  /**
   * Re-derives a live connection's rights after an account update: a revoked or expired user is refused
   * and closed (4401); subjects (and replay) the plan no longer includes are ended with
   * `unsubscribed`/`plan_changed`; a changed plan is announced with `plan_changed`; when the new plan
   * allows fewer connections than the customer holds (across all processes), the surplus is closed
   * with `connection_limit` (4429).
   */
  private async recheck(session: Session): Promise<void> {
    const { metrics, subscriptions, control } = this;
    const before = session.user;
    const jwt = session.userJwt;
    if (!before || !jwt) return;
    let after: VerifiedUser;
    try {
      after = await this.verifier.reverify(jwt);
    } catch (err) {
      if (session.user !== before || !session.open) return;
      if (err instanceof WsProtocolError && err.close === CLOSE_CODES.unauthenticated) {
        metrics.planChanges.inc({ outcome: 'closed' });
        subscriptions.detach(session);
        control.refuse(session, err);
      } else {
        // The resolver is unreachable: keep the connection on the rights it has.
        this.logger.warn({ err, connection_id: session.id }, 're-checking a live client after an account update failed');
      }
      return;
    }
    if (session.user !== before || !session.open) return;
    session.user = after;
    control.armExpiry(session, after);
    const plan = PLANS[after.plan ?? 'starter'];
    control.countAs(session, plan.id);
    const subjects = subjectsOf(after);
    const planChanged = (before.plan ?? 'starter') !== plan.id || subjectsOf(before).join() !== subjects.join();
    if (planChanged) {
      metrics.planChanges.inc({ outcome: 'plan_changed' });
      session.send({ type: 'plan_changed', plan: plan.id, subjects });
    }
    for (const sub of [...session.subscriptions.values()]) {
      const allowed = maySubscribe(after, sub.subject);
      const replayAllowed = sub.catchUp?.kind !== 'replay' || plan.replay;
      if (allowed && replayAllowed) continue;
      subscriptions.unsubscribe(session, sub.subject);
      session.send({
        type: 'unsubscribed',
        subject: sub.subject,
        reason: 'plan_changed',
        message: allowed
          ? `replay of history is not in your ${plan.name} plan any more; it is included in the ${REPLAY_PLAN?.name ?? 'Pro'} plan (subscribe again without "replay" for live trades)`
          : notInPlanAnyMore(sub.subject, plan.name),
      });
    }
    if (plan.connections < PLANS[before.plan ?? 'starter'].connections && (await this.limiter.shed(session.id, plan.connections))) {
      metrics.planChanges.inc({ outcome: 'connection_shed' });
      subscriptions.detach(session);
      control.refuse(
        session,
        new WsProtocolError(
          'resource_exhausted',
          'connection_limit',
          `your plan changed to ${plan.name}, which allows ${plan.connections} concurrent connection${plan.connections === 1 ? '' : 's'}; this one was closed`,
          CLOSE_CODES.limit,
        ),
      );
    }
  }
}
