import { useState } from 'react';
import { Link } from 'react-router';
import { PLANS, isPlanId } from '@tradewind/contracts/plans';
import { Seo } from '../../seo';
import { useAuth } from '../../session/session';
import { displayName } from '../../lib/user';
import { isTopPlan } from '../../lib/upgrade';
import type { Credentials } from '../../lib/credentials';
import { ConnectionDetails } from '../../components/dashboard/ConnectionDetails';
import { UpgradeModal } from '../../components/dashboard/UpgradeModal';
import { usePanelCredentials } from '../../components/dashboard/usePanelCredentials';
import { CredentialsLoadError, CredentialsRefreshError } from './CredentialsError';
import { accountNotices } from '../../components/dashboard/notices';
import { useDashboardContext } from './DashboardLayout';
import './dashboard.css';

/** Plan summary from the credentials (what the servers enforce), else the catalogue entry of the user's plan. */
function PlanSummary({ credentials, userPlan }: { credentials: Credentials | null; userPlan: string }) {
  const id = credentials && isPlanId(credentials.plan) ? credentials.plan : isPlanId(userPlan) ? userPlan : 'starter';
  const plan = PLANS[id];
  const subjects = credentials?.subjects ?? [...plan.subjects];
  const connections = credentials?.max_connections ?? plan.connections;
  const rpm = credentials?.requests_per_minute ?? plan.requestsPerMinute;
  const replay = credentials?.replay ?? plan.replay;
  return (
    <section className="card dash-plan-summary" aria-labelledby="overview-plan-title">
      <h2 id="overview-plan-title">Your plan</h2>
      <p className="dash-plan-name">
        <span className="badge">{plan.name}</span>
      </p>
      <dl className="dash-facts">
        <div>
          <dt>Subjects</dt>
          <dd>
            <ul className="dash-subjects">
              {subjects.map((s) => (
                <li key={s}>
                  <code>{s}</code>
                </li>
              ))}
            </ul>
          </dd>
        </div>
        <div>
          <dt>Connections</dt>
          <dd data-testid="plan-connections">{connections} per transport</dd>
        </div>
        <div>
          <dt>Requests per minute</dt>
          <dd data-testid="plan-rpm">{rpm.toLocaleString('en-US')}</dd>
        </div>
        <div>
          <dt>Replay</dt>
          <dd>{replay ? 'Included' : 'Not included (Pro)'}</dd>
        </div>
      </dl>
    </section>
  );
}

/** /dashboard ("Dashboard" in the sidebar): account notices, connection details, plan summary and quick actions. */
export default function Overview() {
  const { user } = useAuth();
  const { planDataRefreshKey } = useDashboardContext();
  const { data: credentials, loading, error, refresh } = usePanelCredentials(planDataRefreshKey);
  const [upgradeOpen, setUpgradeOpen] = useState(false);
  const tier = credentials?.plan ?? user?.plan ?? 'starter';
  const notices = accountNotices(user);

  return (
    <div className="dash-page">
      <Seo title="Dashboard" description="Your Tradewind connection details, plan and quick actions." path="/dashboard" noindex />
      <header className="dash-page-head">
        <h1>Dashboard</h1>
        <p className="muted">Welcome, {displayName(user)}. Connect with the details below.</p>
      </header>
      {notices.map((n) => (
        <p key={n.text} className={`alert ${n.kind === 'warning' ? 'alert-warning' : ''} dash-notice`} role="status">
          {n.text}
        </p>
      ))}
      <div className="dash-overview-grid">
        <div className="dash-overview-main">
          {loading && !credentials ? (
            <section className="card dash-state" role="status" aria-live="polite">
              <span className="spinner" aria-hidden="true" /> Loading your connection details…
            </section>
          ) : error && !credentials ? (
            <CredentialsLoadError message={error} onRetry={() => void refresh()} />
          ) : credentials ? (
            <>
              {error ? <CredentialsRefreshError message={error} onRetry={() => void refresh()} /> : null}
              <ConnectionDetails credentials={credentials} />
            </>
          ) : null}
        </div>
        <div className="dash-overview-side">
          <PlanSummary credentials={credentials} userPlan={user?.plan ?? 'starter'} />
          <section className="card dash-actions" aria-labelledby="overview-actions-title">
            <h2 id="overview-actions-title">Quick actions</h2>
            <ul>
              <li>
                {/* Product spec §4: the upgrade button is hidden for Pro, which manages its subscription on the plan page. */}
                {isTopPlan(tier) ? (
                  <Link className="btn btn-primary btn-block" to="/dashboard/plan">
                    Manage subscription
                  </Link>
                ) : (
                  <button type="button" className="btn btn-primary btn-block" onClick={() => setUpgradeOpen(true)}>
                    Upgrade plan
                  </button>
                )}
              </li>
              {isTopPlan(tier) ? null : (
                <li>
                  <Link className="btn btn-secondary btn-block" to="/dashboard/plan">
                    Plan and billing
                  </Link>
                </li>
              )}
              <li>
                <Link className="btn btn-secondary btn-block" to="/dashboard/docs">
                  Read the API docs
                </Link>
              </li>
              <li>
                {/* The spec's external template repositories: the templates ship with Tradewind (examples/) and download from the docs. */}
                <Link className="btn btn-secondary btn-block" to="/dashboard/docs#templates">
                  Starter templates
                </Link>
              </li>
              <li>
                <Link className="btn btn-secondary btn-block" to="/dashboard/settings">
                  Settings
                </Link>
              </li>
              <li>
                <Link className="btn btn-secondary btn-block" to="/dashboard/settings?tab=security">
                  Rotate credentials
                </Link>
              </li>
            </ul>
          </section>
        </div>
      </div>
      {upgradeOpen ? <UpgradeModal tier={tier} period={user?.metadata.billing_period ?? 'indefinite'} onClose={() => setUpgradeOpen(false)} /> : null}
    </div>
  );
}
