import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { Seo } from '../../seo';
import { useAuth } from '../../session/session';
import { Avatar } from '../../components/Avatar';
import { displayName } from '../../lib/user';
import { errorMessage, rotateCredentials, type Credentials } from '../../lib/credentials';
import { ConnectionDetails } from '../../components/dashboard/ConnectionDetails';
import { Dialog } from '../../components/dashboard/Dialog';
import { useAuthedLoad } from '../../components/dashboard/useAuthedLoad';
import { loadPanelCredentials } from './credentials-errors';
import { CredentialsLoadError, CredentialsRefreshError } from './CredentialsError';
import { useNoticesPreference } from '../../components/dashboard/notices';
import { formatDate } from './Plan';
import './dashboard.css';

const TABS = [
  { id: 'profile', label: 'Profile' },
  { id: 'security', label: 'Security' },
  { id: 'connection', label: 'Connection Details' },
  { id: 'notifications', label: 'Notifications' },
] as const;
type TabId = (typeof TABS)[number]['id'];

function isTab(v: string | null): v is TabId {
  return TABS.some((t) => t.id === v);
}

function ProfilePanel() {
  const { user } = useAuth();
  const since = formatDate(user?.created_at);
  return (
    <>
      <h2>Profile</h2>
      <div className="dash-profile">
        <Avatar user={user} size={64} />
        <dl className="dash-facts">
          <div>
            <dt>Name</dt>
            <dd>{user?.name?.trim() || displayName(user)}</dd>
          </div>
          <div>
            <dt>E-mail</dt>
            <dd>{user?.email}</dd>
          </div>
          <div>
            <dt>Member since</dt>
            <dd>{since ?? '—'}</dd>
          </div>
        </dl>
      </div>
      <p className="muted">
        Your name, e-mail address and picture come from the Google account you sign in with and are updated each time you sign in. To change them, change them in your
        Google account. When there is no picture, your initials are shown.
      </p>
    </>
  );
}

function SecurityPanel() {
  const { signOut, accessToken } = useAuth();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fresh, setFresh] = useState<Credentials | null>(null);

  const rotate = async () => {
    setBusy(true);
    setError(null);
    try {
      const next = await rotateCredentials(await accessToken());
      setFresh(next);
      setConfirming(false);
    } catch (err) {
      setError(errorMessage(err));
      setConfirming(false);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h2>Security</h2>
      <section className="dash-settings-block" aria-labelledby="settings-signout">
        <h3 id="settings-signout">Sign out</h3>
        <p className="muted">Ends your session in this browser. Your streaming credentials keep working.</p>
        <button
          type="button"
          className="btn btn-secondary"
          onClick={async () => {
            await signOut();
            navigate('/');
          }}
        >
          Sign out of this browser
        </button>
      </section>
      <section className="dash-settings-block" aria-labelledby="settings-rotate">
        <h3 id="settings-rotate">Rotate credentials</h3>
        <p className="muted">Issues a new user JWT and NKey seed and revokes the current ones. Do this if the seed may have leaked.</p>
        <button type="button" className="btn btn-danger" onClick={() => setConfirming(true)} disabled={busy}>
          {busy ? 'Rotating…' : 'Rotate credentials'}
        </button>
        {error ? (
          <p role="alert" className="alert alert-error">
            Could not rotate the credentials: {error}
          </p>
        ) : null}
        {fresh ? (
          <div className="dash-rotated">
            <p className="alert alert-success" role="status">
              New credentials issued. Update your clients with the values below (or a fresh .creds file).
            </p>
            <ConnectionDetails credentials={fresh} headingLevel={3} />
          </div>
        ) : null}
      </section>
      {confirming ? (
        <Dialog title="Rotate credentials?" onClose={() => setConfirming(false)}>
          <p>
            Your current user JWT and NKey seed will be revoked at once. Every WebSocket and NATS connection using them is dropped and cannot reconnect until it uses the new
            credentials. This cannot be undone.
          </p>
          <div className="dash-dialog-actions">
            <button type="button" className="btn btn-secondary" onClick={() => setConfirming(false)} data-autofocus>
              Cancel
            </button>
            <button type="button" className="btn btn-danger" onClick={rotate} disabled={busy}>
              {busy ? 'Rotating…' : 'Rotate now'}
            </button>
          </div>
        </Dialog>
      ) : null}
    </>
  );
}

function ConnectionPanel() {
  const { data: credentials, loading, error, retry } = useAuthedLoad(loadPanelCredentials);
  return (
    <>
      <h2>Connection Details</h2>
      {loading && !credentials ? (
        <p role="status">
          <span className="spinner" aria-hidden="true" /> Loading your connection details…
        </p>
      ) : error && !credentials ? (
        <CredentialsLoadError message={error} onRetry={retry} headingLevel={3} />
      ) : credentials ? (
        <>
          {error ? <CredentialsRefreshError message={error} onRetry={retry} /> : null}
          <ConnectionDetails credentials={credentials} headingLevel={3} />
        </>
      ) : null}
    </>
  );
}

function NotificationsPanel() {
  const { user } = useAuth();
  const [on, setOn] = useNoticesPreference();
  const id = useId();
  return (
    <>
      <h2>Notifications</h2>
      <p>Tradewind sends no marketing e-mail.</p>
      <p>
        Billing e-mails — receipts and failed-payment notices — come from Stripe, our payment processor, to your account address
        {user?.email ? (
          <>
            {' '}
            <strong>{user.email}</strong>
          </>
        ) : null}
        .
      </p>
      <div className="dash-checkbox">
        <input id={id} type="checkbox" checked={on} onChange={(e) => setOn(e.target.checked)} />
        <label htmlFor={id}>Show account notices on the dashboard overview (failed payment, trial end)</label>
      </div>
      <p className="muted dash-small">This choice is saved in this browser only (local storage); it sends nothing and other browsers keep their own setting.</p>
    </>
  );
}

/** /dashboard/settings: Profile, Security, Connection Details and Notifications tabs (`?tab=` selects one). */
export default function Settings() {
  const [params, setParams] = useSearchParams();
  const requested = params.get('tab');
  const active: TabId = isTab(requested) ? requested : 'profile';
  const tabRefs = useRef<Record<string, HTMLButtonElement | null>>({});
  const focusNext = useRef(false);
  const base = useId();

  useEffect(() => {
    if (focusNext.current) {
      focusNext.current = false;
      tabRefs.current[active]?.focus();
    }
  }, [active]);

  const select = (tab: TabId, focus = false) => {
    focusNext.current = focus;
    const next = new URLSearchParams(params);
    next.set('tab', tab);
    setParams(next, { replace: true });
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const i = TABS.findIndex((t) => t.id === active);
    let next: number | null = null;
    if (e.key === 'ArrowRight') next = (i + 1) % TABS.length;
    else if (e.key === 'ArrowLeft') next = (i - 1 + TABS.length) % TABS.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = TABS.length - 1;
    if (next === null) return;
    e.preventDefault();
    select(TABS[next]!.id, true);
  };

  return (
    <div className="dash-page">
      <Seo title="Settings" description="Your Tradewind profile, security, connection details and notifications." path="/dashboard/settings" noindex />
      <header className="dash-page-head">
        <h1>Settings</h1>
      </header>
      <div role="tablist" aria-label="Settings sections" className="dash-tabs" onKeyDown={onKeyDown}>
        {TABS.map((t) => (
          <button
            key={t.id}
            ref={(el) => {
              tabRefs.current[t.id] = el;
            }}
            type="button"
            role="tab"
            id={`${base}-tab-${t.id}`}
            aria-selected={active === t.id}
            aria-controls={`${base}-panel-${t.id}`}
            tabIndex={active === t.id ? 0 : -1}
            className="dash-tab"
            onClick={() => select(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${base}-panel-${active}`} aria-labelledby={`${base}-tab-${active}`} className="card dash-tabpanel" tabIndex={0}>
        {active === 'profile' ? <ProfilePanel /> : active === 'security' ? <SecurityPanel /> : active === 'connection' ? <ConnectionPanel /> : <NotificationsPanel />}
      </div>
    </div>
  );
}
