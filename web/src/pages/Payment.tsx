import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { PLANS } from '@tradewind/contracts/plans';
import { apiFetch, type Subscription } from '../api';
import { Seo } from '../seo';
import { useAuth } from '../session/session';
import { paymentDecision, type PaymentDecision } from '../lib/gating';
import { errorMessage } from '../lib/credentials';
import { planChangePath, planPriceText } from '../lib/upgrade';
import { UPGRADE_FAILED_MESSAGE } from '../lib/upgrade-preview';
import './auth.css';

/** Shown when the checkout session could not be created (product spec §8), before the reason. */
export { UPGRADE_FAILED_MESSAGE };

/** `POST /api/checkout-sessions` answer; `url` is checked, not trusted (an answer without it was sent to `/undefined`). */
interface CheckoutAnswer {
  url?: unknown;
  plan_changed?: boolean;
}

/** The reason shown after {@link UPGRADE_FAILED_MESSAGE} when billing answered without a checkout URL (product spec §5). */
export const CHECKOUT_WITHOUT_URL_MESSAGE = 'The payment service did not return a checkout page.';

/**
 * /payment?tier&period: applies {@link paymentDecision}, then sends the browser to Stripe
 * Checkout. A user who already has a live paid subscription goes to the plan page's upgrade modal
 * instead ({@link planChangePath}), where the prorated amount is shown before they confirm.
 * Exactly one checkout request per visit (and per Retry), also under StrictMode's double effects.
 */
export default function Payment() {
  const { status, user, accessToken } = useAuth();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const tier = params.get('tier');
  const period = params.get('period');
  const [failure, setFailure] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const started = useRef(-1);

  const pre: PaymentDecision = paymentDecision({ status, tier, period });

  useEffect(() => {
    if (pre.kind === 'redirect') {
      navigate(pre.to, { replace: true });
      return;
    }
    if (pre.kind !== 'need-subscription' || !user) return;
    if (started.current === attempt) return; // StrictMode re-run or re-render: already under way
    started.current = attempt;
    void (async () => {
      try {
        const token = await accessToken();
        let subscription: Subscription | null;
        try {
          subscription = await apiFetch<Subscription>('/api/get-subscription', { token });
        } catch {
          subscription = null; // billing decides (409 for the same plan)
        }
        const decision = paymentDecision({ status, tier, period, subscription });
        if (decision.kind === 'redirect') {
          navigate(decision.to, { replace: true, state: decision.notice ? { notice: decision.notice } : null });
          return;
        }
        if (decision.kind !== 'checkout') return;
        const change = planChangePath(subscription, decision.tier, decision.period);
        if (change) {
          navigate(change, { replace: true });
          return;
        }
        const answer = await apiFetch<CheckoutAnswer>('/api/checkout-sessions', {
          method: 'POST',
          token,
          body: { tier: decision.tier, period: decision.period, userId: user.id, cancelUrl: decision.cancelUrl },
        });
        // Spec §5: an answer without a url is an error (shown with Retry and the way back to /pricing).
        if (typeof answer?.url !== 'string' || answer.url === '') throw new Error(CHECKOUT_WITHOUT_URL_MESSAGE);
        window.location.assign(answer.url);
      } catch (err) {
        setFailure(`${UPGRADE_FAILED_MESSAGE} (${errorMessage(err)})`);
      }
    })();
    // pre is derived from status, tier and period.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pre.kind, status, tier, period, user, attempt]);

  const error = pre.kind === 'error' ? pre.message : failure;
  const summary = pre.kind === 'need-subscription' ? `${PLANS[pre.tier].name} — ${planPriceText(pre.tier, pre.period)}` : null;

  return (
    <div className="container section auth-page">
      <Seo title="Payment" description="Secure checkout for your Tradewind plan." path="/payment" noindex />
      <div className="card auth-card">
        <h1>{error ? 'Checkout could not start' : 'Checkout'}</h1>
        {error ? (
          <>
            <div role="alert" className="alert alert-error auth-message">
              {error}
            </div>
            <div className="auth-actions">
              {pre.kind === 'need-subscription' ? (
                <button
                  type="button"
                  className="btn btn-primary"
                  onClick={() => {
                    setFailure(null);
                    setAttempt((a) => a + 1);
                  }}
                >
                  Retry
                </button>
              ) : null}
              <Link to="/pricing" className="btn btn-secondary">
                Back to pricing
              </Link>
            </div>
          </>
        ) : (
          <div role="status" aria-live="polite" className="auth-redirecting">
            <span className="spinner" aria-hidden="true" />
            <span>{pre.kind === 'wait' ? 'Checking your session…' : 'Redirecting to secure checkout…'}</span>
          </div>
        )}
        {summary && !error ? <p className="muted auth-small">{summary}. Payment is handled by Stripe.</p> : null}
      </div>
    </div>
  );
}
