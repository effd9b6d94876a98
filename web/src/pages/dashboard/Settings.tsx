import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { Seo } from '../../seo';
import { useAuth } from '../../session/session';
import { Avatar } from '../../components/Avatar';
import { errorMessage, rotateCredentials, type Credentials } from '../../lib/credentials';
import { ConnectionDetails } from '../../components/dashboard/ConnectionDetails';
import { Dialog } from '../../components/dashboard/Dialog';
import { useAuthedLoad } from '../../components/dashboard/useAuthedLoad';
import { usePanelCredentials } from '../../components/dashboard/usePanelCredentials';
import { CredentialsLoadError, CredentialsRefreshError } from './CredentialsError';
import { saveProfileName } from '../../lib/profile';
import { announceNotificationsChanged, fetchNotificationPreferences, saveNotificationPreferences, type NotificationPreferences } from '../../lib/notifications';
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

type SaveState = { kind: 'saved' } | { kind: 'error'; message: string } | null;

/**
 * Profile: the full name, editable and saved through `PATCH /auth/user`, after which the session's
 * user is reloaded so the sidebar, top bar and header show the new name at once; the e-mail
 * address is the Google identity and read-only. The server validates the name (400 with its
 * message, shown here).
 */
function ProfilePanel() {
  const { user, accessToken, reloadUser } = useAuth();
  const [name, setName] = useState(user?.name ?? '');
  const [saving, setSaving] = useState(false);
  const [state, setState] = useState<SaveState>(null);
  const since = formatDate(user?.created_at);
  const id = useId();
  const unchanged = name.trim() === (user?.name ?? '').trim();

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (saving) return;
    setSaving(true);
    setState(null);
    try {
      const updated = await saveProfileName(await accessToken(), name);
      setName(updated.name ?? '');
      try {
        await reloadUser();
      } catch {
        // Saved at auth; the session shows the new name after its next refresh.
      }
      setState({ kind: 'saved' });
    } catch (err) {
      setState({ kind: 'error', message: errorMessage(err) });
    } finally {
      setSaving(false);
    }
  };

  return (
    <>
      <h2>Profile</h2>
      <div className="dash-profile">
        <Avatar user={user} size={64} />
        <form className="dash-profile-form" onSubmit={save} noValidate>
          <div className="dash-form-field">
            <label htmlFor={`${id}-name`}>Full name</label>
            <input
              id={`${id}-name`}
              name="name"
              autoComplete="name"
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                setState(null);
              }}
              aria-invalid={state?.kind === 'error' ? true : undefined}
              aria-describedby={state?.kind === 'error' ? `${id}-error` : undefined}
            />
          </div>
          <div className="dash-form-field">
            <label htmlFor={`${id}-email`}>E-mail</label>
            <input id={`${id}-email`} className="dash-readonly" value={user?.email ?? ''} readOnly aria-describedby={`${id}-email-hint`} />
            <p id={`${id}-email-hint`} className="muted dash-field-hint dash-form-hint">
              This is the Google account you sign in with, so it cannot be changed here.
            </p>
          </div>
          <div className="dash-form-actions">
            <button type="submit" className="btn btn-primary" disabled={saving || unchanged}>
              {saving ? 'Saving…' : 'Save profile'}
            </button>
          </div>
          {state?.kind === 'saved' ? (
            <p className="alert alert-success dash-form-result" role="status">
              Profile saved
            </p>
          ) : state?.kind === 'error' ? (
            <p className="alert alert-error dash-form-result" role="alert" id={`${id}-error`}>
              Could not save your profile: {state.message}
            </p>
          ) : null}
        </form>
      </div>
      <p className="muted dash-small">
        Member since {since ?? '—'}. A name you save here is kept when you sign in again. Your picture comes from your Google account; without one, your
        initials are shown.
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
            Your current user JWT and NKey seed will be revoked at once. Every WebSocket and NATS connection using them is dropped and cannot reconnect until it
            uses the new credentials. This cannot be undone.
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
  const { data: credentials, loading, error, refresh } = usePanelCredentials();
  return (
    <>
      <h2>Connection Details</h2>
      {loading && !credentials ? (
        <p role="status">
          <span className="spinner" aria-hidden="true" /> Loading your connection details…
        </p>
      ) : error && !credentials ? (
        <CredentialsLoadError message={error} onRetry={() => void refresh()} headingLevel={3} />
      ) : credentials ? (
        <>
          {error ? <CredentialsRefreshError message={error} onRetry={() => void refresh()} /> : null}
          <ConnectionDetails credentials={credentials} headingLevel={3} />
        </>
      ) : null}
    </>
  );
}

/** The switches of the Notifications tab, in order, with what each one covers. */
const PREFERENCE_SWITCHES: ReadonlyArray<{ key: keyof NotificationPreferences; label: string; hint: string }> = [
  { key: 'plan_changes', label: 'Plan changes', hint: 'Your plan was upgraded, downgraded or cancelled.' },
  { key: 'payments', label: 'Payments', hint: 'A payment went through or failed.' },
  { key: 'credentials', label: 'Credentials', hint: 'Your streaming credentials (user JWT and NKey seed) were rotated.' },
  { key: 'connection_limits', label: 'Connection limits', hint: 'A connection was refused because your plan’s connection limit was reached.' },
];

/**
 * Notifications: the four preferences stored by auth (`GET|PUT /auth/notification-preferences`),
 * loaded when the tab opens and saved with one button, after which the bell reloads (the switches
 * decide which kinds it shows); load and save failures show the server's message (load with Retry).
 */
function NotificationsPanel() {
  const { user, accessToken } = useAuth();
  const { data, loading, error, retry, replace } = useAuthedLoad(fetchNotificationPreferences);
  const [draft, setDraft] = useState<NotificationPreferences | null>(null);
  const [saving, setSaving] = useState(false);
  const [state, setState] = useState<SaveState>(null);
  const id = useId();
  const shown = draft ?? data;
  const changed = draft !== null && data !== null && PREFERENCE_SWITCHES.some((p) => draft[p.key] !== data[p.key]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!draft || saving) return;
    setSaving(true);
    setState(null);
    try {
      replace(await saveNotificationPreferences(await accessToken(), draft));
      setDraft(null);
      announceNotificationsChanged();
      setState({ kind: 'saved' });
    } catch (err) {
      setState({ kind: 'error', message: errorMessage(err) });
    } finally {
      setSaving(false);
    }
  };

  return (
    <>
      <h2>Notifications</h2>
      {loading && !data ? (
        <p role="status">
          <span className="spinner" aria-hidden="true" /> Loading your notification preferences…
        </p>
      ) : error && !data ? (
        <div className="alert alert-error dash-state" role="alert">
          <p>Could not load your notification preferences: {error}</p>
          <button type="button" className="btn btn-secondary" onClick={retry}>
            Retry
          </button>
        </div>
      ) : shown ? (
        <form onSubmit={save} className="dash-prefs-form">
          <fieldset className="dash-prefs">
            <legend>Show a notification in the dashboard’s bell when:</legend>
            {PREFERENCE_SWITCHES.map((p) => (
              <div className="dash-checkbox" key={p.key}>
                <input
                  id={`${id}-${p.key}`}
                  type="checkbox"
                  checked={shown[p.key]}
                  aria-describedby={`${id}-${p.key}-hint`}
                  onChange={(e) => {
                    setDraft({ ...shown, [p.key]: e.target.checked });
                    setState(null);
                  }}
                />
                <span>
                  <label htmlFor={`${id}-${p.key}`}>{p.label}</label>
                  <span id={`${id}-${p.key}-hint`} className="muted dash-checkbox-hint">
                    {p.hint}
                  </span>
                </span>
              </div>
            ))}
          </fieldset>
          <div className="dash-form-actions">
            <button type="submit" className="btn btn-primary" disabled={saving || !changed}>
              {saving ? 'Saving…' : 'Save preferences'}
            </button>
          </div>
          {state?.kind === 'saved' ? (
            <p className="alert alert-success dash-form-result" role="status">
              Preferences saved
            </p>
          ) : state?.kind === 'error' ? (
            <p className="alert alert-error dash-form-result" role="alert">
              Could not save your preferences: {state.message}
            </p>
          ) : null}
        </form>
      ) : null}
      <p className="muted dash-small">
        Billing e-mails — receipts and failed-payment notices — come from Stripe, our payment processor, to your account address
        {user?.email ? (
          <>
            {' '}
            <strong>{user.email}</strong>
          </>
        ) : null}
        , whatever you choose here.
      </p>
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
        {active === 'profile' ? (
          <ProfilePanel />
        ) : active === 'security' ? (
          <SecurityPanel />
        ) : active === 'connection' ? (
          <ConnectionPanel />
        ) : (
          <NotificationsPanel />
        )}
      </div>
    </div>
  );
}
