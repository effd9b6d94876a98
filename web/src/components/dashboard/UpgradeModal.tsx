import { useState } from 'react';
import { Link } from 'react-router';
import { PLANS, annualSavingPercent } from '@tradewind/lib/plans';
import type { BillingPeriod } from '../../lib/gating';
import { isTopPlan, upgradeOptions, yearlyTotalText } from '../../lib/upgrade';
import { Dialog } from './Dialog';

/**
 * The upgrade dialog. Options come from {@link upgradeOptions} for the user's effective tier and
 * billing period, with a monthly/yearly toggle; each option links to /payment?tier&period.
 * On Pro it says so and points to /community for more connections.
 */
export function UpgradeModal({ tier, period, onClose }: { tier: string; period: string; onClose: () => void }) {
  const [selected, setSelected] = useState<BillingPeriod>(period === 'yearly' ? 'yearly' : 'monthly');
  const options = upgradeOptions(tier, period, selected);
  const top = isTopPlan(tier);
  return (
    <Dialog title={top ? 'You are on our top plan' : 'Upgrade your plan'} onClose={onClose}>
      {top ? (
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
      ) : (
        <>
          <div className="dash-period-toggle" role="group" aria-label="Billing period">
            {(['monthly', 'yearly'] as const).map((p) => (
              <button key={p} type="button" className={`btn btn-sm ${selected === p ? 'btn-primary' : 'btn-secondary'}`} aria-pressed={selected === p} onClick={() => setSelected(p)}>
                {p === 'monthly' ? 'Monthly' : 'Yearly'}
              </button>
            ))}
          </div>
          <ul className="dash-upgrade-list">
            {options.map((o) => {
              const plan = PLANS[o.tier];
              const total = yearlyTotalText(o.tier, o.period);
              const saving = o.period === 'yearly' ? annualSavingPercent(plan) : 0;
              return (
                <li key={`${o.tier}-${o.period}`} className="dash-upgrade-option">
                  <div>
                    <h3>{o.title}</h3>
                    <p className="dash-upgrade-price">
                      <strong>{o.price}</strong>
                      {total ? <span className="muted"> ({total}{saving > 0 ? `, save ${saving}%` : ''})</span> : null}
                    </p>
                    <p className="muted">
                      {plan.connections} connection{plan.connections === 1 ? '' : 's'} per transport · {plan.requestsPerMinute.toLocaleString('en-US')} requests/min ·{' '}
                      {plan.subjects.length} subjects{plan.replay ? ' · replay' : ''}
                    </p>
                  </div>
                  <Link className="btn btn-primary btn-sm" to={o.href} aria-label={`${o.title}, ${o.price}`}>
                    Choose
                  </Link>
                </li>
              );
            })}
          </ul>
          <p className="muted dash-upgrade-note">
            Paid plans change at once with a prorated charge. To downgrade or cancel, use Manage billing.
          </p>
        </>
      )}
    </Dialog>
  );
}
