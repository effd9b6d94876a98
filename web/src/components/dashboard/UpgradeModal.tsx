import { useEffect, useId, useState } from 'react';
import { Link } from 'react-router';
import { PLANS } from '@tradewind/contracts/plans';
import type { BillingPeriod, PaidTier } from '../../lib/gating';
import { errorMessage } from '../../lib/credentials';
import { defaultUpgradePeriod, optionPriceText, upgradeOptions } from '../../lib/upgrade';
import {
  MODAL_CHECKOUT_CANCEL_URL,
  UPGRADE_FAILED_MESSAGE,
  confirmUpgrade,
  fetchUpgradePreview,
  formatBillingDate,
  formatCents,
  previewHeadline,
  type UpgradePreview,
} from '../../lib/upgrade-preview';
import { useAuth } from '../../session/session';
import { Dialog } from './Dialog';
import './upgrade-modal.css';

type PreviewState = { state: 'idle' } | { state: 'loading' } | { state: 'ready'; preview: UpgradePreview } | { state: 'error'; message: string };

/**
 * The upgrade dialog (product spec §4): the options for the user's effective tier from
 * {@link upgradeOptions} (Starter: Plus and Pro; Plus: only Pro, selected at once), a
 * monthly/annual toggle (first on the user's current period, else monthly), and for the chosen
 * plan the amount due now from `POST /api/upgrade-preview` (the prorated charge of a plan change,
 * or the first charge of a checkout). Confirm is disabled until a plan is chosen and its amount
 * is shown, and while processing; it posts `/api/checkout-sessions` with the preview's
 * `proration_date` and sends the browser to the returned URL (Stripe Checkout, or the dashboard's
 * "Plan changed" return after an immediate change). On Pro it says so and points to /community.
 * `initialTier`/`initialPeriod` preselect a choice (the plan page's `?upgrade=&period=` link).
 */
export function UpgradeModal({
  tier,
  period,
  onClose,
  initialTier,
  initialPeriod,
}: {
  tier: string;
  period: string;
  onClose: () => void;
  initialTier?: PaidTier;
  initialPeriod?: BillingPeriod;
}) {
  const { user, accessToken } = useAuth();
  const options = upgradeOptions(tier);
  const groupName = useId();
  const [billing, setBilling] = useState<BillingPeriod>(initialPeriod ?? defaultUpgradePeriod(period));
  const [selected, setSelected] = useState<PaidTier | null>(() => {
    if (initialTier && options.some((o) => o.tier === initialTier)) return initialTier;
    return options.length === 1 ? options[0]!.tier : null;
  });
  const [amount, setAmount] = useState<PreviewState>({ state: 'idle' });
  const [previewKey, setPreviewKey] = useState(0);
  const [processing, setProcessing] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    if (!selected) {
      setAmount({ state: 'idle' });
      return;
    }
    const controller = new AbortController();
    setAmount({ state: 'loading' });
    void (async () => {
      try {
        const preview = await fetchUpgradePreview(await accessToken(), { tier: selected, period: billing }, controller.signal);
        if (!controller.signal.aborted) setAmount({ state: 'ready', preview });
      } catch (err) {
        if (!controller.signal.aborted) setAmount({ state: 'error', message: errorMessage(err) });
      }
    })();
    return () => controller.abort();
  }, [selected, billing, previewKey, accessToken]);

  const shown = amount.state === 'ready' && amount.preview.tier === selected && amount.preview.period === billing ? amount.preview : null;
  const canConfirm = selected !== null && shown !== null && !processing;

  const confirm = async () => {
    if (!canConfirm || !selected || !shown) return;
    setProcessing(true);
    setFailure(null);
    try {
      if (!user) throw new Error('No active session');
      const answer = await confirmUpgrade(await accessToken(), {
        tier: selected,
        period: billing,
        userId: user.id,
        cancelUrl: MODAL_CHECKOUT_CANCEL_URL,
        prorationDate: shown.kind === 'proration' ? shown.proration_date : null,
      });
      if (!answer?.url) throw new Error('No checkout URL was returned');
      // An immediate plan change returns to the dashboard's "Plan changed" toast and refresh (docs/billing.md).
      if (answer.plan_changed) onClose();
      window.location.assign(answer.url);
    } catch (err) {
      setFailure(`${UPGRADE_FAILED_MESSAGE} (${errorMessage(err)})`);
      setProcessing(false);
      // The amount may have changed (or expired): show a fresh one before the next confirm.
      setPreviewKey((k) => k + 1);
    }
  };

  if (options.length === 0) {
    return (
      <Dialog title="You are on our top plan" onClose={onClose}>
        <div className="dash-upgrade-top">
          <p>
            Pro is Tradewind’s largest plan: {PLANS.pro.connections} connections per transport, {PLANS.pro.requestsPerMinute.toLocaleString('en-US')} control
            requests per minute and replay.
          </p>
          <p>
            <Link to="/community" onClick={onClose}>
              Need more connections? Talk to us
            </Link>
          </p>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog title="Upgrade your plan" onClose={onClose}>
      <div className="dash-period-toggle" role="group" aria-label="Billing period">
        {(['monthly', 'yearly'] as const).map((p) => (
          <button
            key={p}
            type="button"
            className={`btn btn-sm ${billing === p ? 'btn-primary' : 'btn-secondary'}`}
            aria-pressed={billing === p}
            disabled={processing}
            onClick={() => setBilling(p)}
          >
            {p === 'monthly' ? 'Monthly' : 'Annual'}
          </button>
        ))}
      </div>
      <ul className="dash-upgrade-list" role="radiogroup" aria-label="Plan">
        {options.map((o) => (
          <li key={o.tier} className={`upgrade-option${selected === o.tier ? ' is-selected' : ''}`} data-testid={`upgrade-option-${o.tier}`}>
            <label>
              <input
                type="radio"
                name={groupName}
                value={o.tier}
                checked={selected === o.tier}
                disabled={processing}
                onChange={() => setSelected(o.tier)}
                aria-labelledby={`${groupName}-${o.tier}-name`}
                aria-describedby={`${groupName}-${o.tier}-price ${groupName}-${o.tier}-description`}
              />
              <span className="upgrade-option-head">
                <span id={`${groupName}-${o.tier}-name`}>{o.name}</span>
                {o.popular ? <span className="badge">Popular</span> : null}
              </span>
              <span id={`${groupName}-${o.tier}-price`}>
                <strong>{optionPriceText(o, billing)}</strong>
                <span className="muted">
                  {' '}
                  · {billing === 'monthly' ? `or $${o.yearlyPrice}/month billed yearly` : `or $${o.monthlyPrice}/month billed monthly`}
                </span>
              </span>
              <span className="muted" id={`${groupName}-${o.tier}-description`}>
                {o.description}
              </span>
            </label>
            <ul className="upgrade-features muted" aria-label={`${o.name} includes`}>
              {o.features.map((f) => (
                <li key={f}>{f}</li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      <div className="upgrade-amount" aria-live="polite" data-testid="upgrade-amount">
        {amount.state === 'idle' || !selected ? (
          <p className="muted">Choose a plan to see the amount due.</p>
        ) : amount.state === 'error' ? (
          <div role="alert" className="alert alert-error">
            <p>Could not calculate the amount due: {amount.message}</p>
            <button type="button" className="btn btn-secondary btn-sm" onClick={() => setPreviewKey((k) => k + 1)}>
              Retry
            </button>
          </div>
        ) : shown === null ? (
          <p role="status">
            <span className="spinner" aria-hidden="true" /> Calculating the amount due…
          </p>
        ) : (
          <>
            <p>
              <strong>{previewHeadline(shown)}</strong>
            </p>
            {shown.kind === 'proration' ? (
              <>
                <table className="upgrade-lines">
                  <tbody>
                    {shown.lines.map((line, i) => (
                      <tr key={`${i}-${line.description}`}>
                        <td>{line.description}</td>
                        <td className="num">{formatCents(line.amount_cents)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                {shown.next_billing_date ? <p className="muted">Next billing date: {formatBillingDate(shown.next_billing_date)}</p> : null}
              </>
            ) : null}
          </>
        )}
      </div>
      {failure ? (
        <p role="alert" className="alert alert-error">
          {failure}
        </p>
      ) : null}
      <div className="upgrade-actions">
        <button type="button" className="btn btn-primary" disabled={!canConfirm} onClick={() => void confirm()}>
          {processing ? 'Processing…' : 'Confirm upgrade'}
        </button>
        <button type="button" className="btn btn-secondary" onClick={onClose} disabled={processing}>
          Cancel
        </button>
      </div>
      <p className="muted dash-upgrade-note">
        Plan changes take effect immediately with proration. To downgrade, cancel or switch billing period, use Manage billing.
      </p>
    </Dialog>
  );
}
