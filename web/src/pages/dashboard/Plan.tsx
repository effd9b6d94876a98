import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { PLANS, isPlanId } from '@tradewind/contracts/plans';
import { ApiError, apiFetch, type Subscription } from '../../api';
import { Seo } from '../../seo';
import { useAuth } from '../../session/session';
import { errorMessage } from '../../lib/credentials';
import { useAuthedLoad } from '../../components/dashboard/useAuthedLoad';
import { isTopPlan, planPriceText, readUpgradeRequest, upgradeRequestOutcome } from '../../lib/upgrade';
import type { BillingPeriod, PaidTier } from '../../lib/gating';
import { UpgradeModal } from '../../components/dashboard/UpgradeModal';
import { useDashboardContext } from './DashboardLayout';
import './dashboard.css';

/** "March 3, 2027" for an ISO date, or null. */
export function formatDate(iso: string | null | undefined): string | null {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d.toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric' });
}

const STATUS_TEXT: Record<string, string> = {
  active: 'Active',
  trialing: 'Trial',
  past_due: 'Payment overdue (Stripe is retrying)',
  unpaid: 'Unpaid',
  incomplete: 'Payment incomplete',
  paused: 'Paused',
};

/** Subscription page failure texts (product spec §8). */
export const SUBSCRIPTION_TEXTS = Object.freeze({
  /** Shown instead of loading when there is no signed-in user. */
  notAuthenticated: 'User not authenticated',
  /** Heading of a failed `GET /api/get-subscription`, with Retry. */
  loadFailed: 'Failed to load subscription details',
  /** A failed `POST /api/create-portal-session`. */
  portalFailed: 'Failed to open billing portal. Please try again.',
});

const PERIOD_TEXT: Record<string, string> = { monthly: 'Monthly', yearly: 'Yearly', indefinite: 'Free, no billing' };

/** `GET /api/get-subscription` (docs/billing.md). */
function loadSubscription(token: string, signal: AbortSignal): Promise<Subscription> {
  return apiFetch<Subscription>('/api/get-subscription', { token, signal });
}

/**
 * `GET /api/get-subscription`, and on a 400 (spec §4: the user record may lag behind billing) the
 * user is reloaded — with a fresh access token — and the request retried once. Any other error,
 * or a second 400, is thrown. @throws ApiError
 */
export async function loadSubscriptionRetryingOnce(
  token: string,
  signal: AbortSignal,
  auth: { reloadUser(): Promise<unknown>; accessToken(): Promise<string> },
  load: (token: string, signal: AbortSignal) => Promise<Subscription> = loadSubscription,
): Promise<Subscription> {
  try {
    return await load(token, signal);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 400 || signal.aborted) throw err;
    await auth.reloadUser();
    return load(await auth.accessToken(), signal);
  }
}

/**
 * /dashboard/plan: the subscription, the upgrade dialog and the Stripe billing portal.
 * `?upgrade=<tier>&period=<period>` (from /payment for a subscriber) opens the upgrade dialog on
 * that choice once the subscription is known, or says where that change is made instead.
 */
export default function PlanPage() {
  const auth = useAuth();
  const { user, accessToken } = auth;
  const { refreshKey } = useDashboardContext();
  const location = useLocation();
  const notice = (location.state as { notice?: unknown } | null)?.notice;
  const authRef = useRef(auth);
  authRef.current = auth;
  // Stable (reads the latest auth through the ref), so useAuthedLoad does not reload on its own.
  const load = useCallback((token: string, signal: AbortSignal) => loadSubscriptionRetryingOnce(token, signal, authRef.current), []);
  const { data: sub, loading, error, retry } = useAuthedLoad(load, refreshKey);
  const navigate = useNavigate();
  const [upgradeRequest] = useState(() => readUpgradeRequest(new URLSearchParams(location.search)));
  const requestHandled = useRef(false);
  const [upgradeOpen, setUpgradeOpen] = useState(false);
  const [upgradeInitial, setUpgradeInitial] = useState<{ tier: PaidTier; period: BillingPeriod } | null>(null);
  const [requestNotice, setRequestNotice] = useState<string | null>(null);
  const [portalBusy, setPortalBusy] = useState(false);
  const [portalError, setPortalError] = useState<string | null>(null);

  const openPortal = async () => {
    setPortalBusy(true);
    setPortalError(null);
    try {
      const { url } = await apiFetch<{ url: string }>('/api/create-portal-session', { method: 'POST', token: await accessToken() });
      window.location.assign(url);
    } catch (err) {
      setPortalError(errorMessage(err));
      setPortalBusy(false);
    }
  };

  const tierId = sub && isPlanId(sub.tier) ? sub.tier : isPlanId(user?.plan) ? user.plan : 'starter';
  const effective = sub && isPlanId(sub.effective_plan) ? sub.effective_plan : tierId;
  const plan = PLANS[tierId];
  const period = sub?.billing_period ?? user?.metadata.billing_period ?? 'indefinite';
  const paid = tierId !== 'starter' || (sub?.subscription_type ?? user?.metadata.subscription_type) !== 'free';
  const nextBilling = formatDate(sub?.next_billing_date);
  const cancelAt = formatDate(sub?.cancel_at);

  // The request is read once the effective tier is known (the subscription loaded, or failed to).
  useEffect(() => {
    if (!upgradeRequest || requestHandled.current || loading) return;
    requestHandled.current = true;
    navigate({ pathname: location.pathname, search: '' }, { replace: true, state: location.state });
    const outcome = upgradeRequestOutcome(effective, period, upgradeRequest);
    if (outcome.kind === 'open') {
      setUpgradeInitial({ tier: outcome.tier, period: outcome.period });
      setUpgradeOpen(true);
    } else {
      setRequestNotice(outcome.message);
    }
  }, [upgradeRequest, loading, effective, period, navigate, location.pathname, location.state]);

  return (
    <div className="dash-page">
      <Seo title="Plan & billing" description="Your Tradewind plan, billing period and payments." path="/dashboard/plan" noindex />
      <header className="dash-page-head">
        <h1>Plan &amp; billing</h1>
        <p className="muted">Payments are handled by Stripe. Receipts and invoices are in the billing portal.</p>
      </header>
      {typeof notice === 'string' ? (
        <p className="alert alert-success" role="status">
          {notice}
        </p>
      ) : null}
      {requestNotice ? (
        <p className="alert alert-warning" role="status" data-testid="upgrade-request-notice">
          {requestNotice}
        </p>
      ) : null}
      {!user ? (
        <section className="card dash-state">
          <div role="alert" className="alert alert-error" data-testid="subscription-error">
            {SUBSCRIPTION_TEXTS.notAuthenticated}
          </div>
        </section>
      ) : loading && !sub ? (
        <section className="card dash-state" role="status" aria-live="polite">
          <span className="spinner" aria-hidden="true" /> Loading your subscription…
        </section>
      ) : error && !sub ? (
        <section className="card dash-state">
          <div role="alert" className="alert alert-error" data-testid="subscription-error">
            <h2 className="dash-state-title">{SUBSCRIPTION_TEXTS.loadFailed}</h2>
            <p>{error}</p>
          </div>
          <button type="button" className="btn btn-primary" onClick={retry}>
            Retry
          </button>
        </section>
      ) : (
        <section className="card" aria-labelledby="plan-current-title">
          <h2 id="plan-current-title">Current plan</h2>
          <p className="dash-plan-name">
            <span className="badge">{plan.name}</span>{' '}
            {period === 'monthly' || period === 'yearly' ? <span className="muted">{planPriceText(tierId, period)}</span> : null}
          </p>
          <dl className="dash-facts">
            <div>
              <dt>Billing period</dt>
              <dd>{PERIOD_TEXT[period] ?? period}</dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd>{sub ? (STATUS_TEXT[sub.status] ?? sub.status) : '—'}</dd>
            </div>
            {tierId !== 'starter' ? (
              <div>
                <dt>Next billing date</dt>
                <dd>{nextBilling ?? (sub?.cancel_at_period_end ? 'None (cancellation scheduled)' : '—')}</dd>
              </div>
            ) : null}
            {effective !== tierId ? (
              <div>
                <dt>Limits that apply now</dt>
                <dd>{PLANS[effective].name}</dd>
              </div>
            ) : null}
          </dl>
          {sub?.cancel_at_period_end ? (
            <p className="alert alert-warning" role="status">
              Your {plan.name} plan is cancelled and ends {cancelAt ? `on ${cancelAt}` : 'at the end of the billing period'}. Until then nothing changes;
              afterwards the account returns to Starter. You can undo this in Manage billing.
            </p>
          ) : null}
          {sub?.status === 'past_due' ? (
            <p className="alert alert-warning" role="status">
              Stripe could not take the last payment and is retrying. Update your card in Manage billing to keep {plan.name}.
            </p>
          ) : null}
          <div className="dash-plan-actions">
            {/* Product spec §4: Pro can only manage its subscription; the upgrade button is hidden. */}
            {isTopPlan(effective) ? null : (
              <button
                type="button"
                className="btn btn-primary"
                onClick={() => {
                  setUpgradeInitial(null);
                  setUpgradeOpen(true);
                }}
              >
                Upgrade
              </button>
            )}
            {paid ? (
              <button type="button" className="btn btn-secondary" onClick={openPortal} disabled={portalBusy}>
                {portalBusy ? 'Opening billing portal…' : 'Manage billing'}
              </button>
            ) : null}
            <Link to="/pricing" className="btn btn-ghost">
              Compare plans
            </Link>
          </div>
          {paid ? (
            <p className="muted dash-small">
              Manage billing opens Stripe’s billing portal: change your card, download invoices, downgrade to Starter or cancel.
            </p>
          ) : null}
          {portalError ? (
            <p role="alert" className="alert alert-error">
              {SUBSCRIPTION_TEXTS.portalFailed} ({portalError})
            </p>
          ) : null}
        </section>
      )}
      {upgradeOpen ? (
        <UpgradeModal
          tier={effective}
          period={period}
          onClose={() => setUpgradeOpen(false)}
          {...(upgradeInitial ? { initialTier: upgradeInitial.tier, initialPeriod: upgradeInitial.period } : {})}
        />
      ) : null}
    </div>
  );
}
