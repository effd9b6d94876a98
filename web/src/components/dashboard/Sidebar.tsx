import { useEffect, useRef, type ReactNode } from 'react';
import { Link, NavLink, useNavigate } from 'react-router';
import { Avatar } from '../Avatar';
import { Logo } from '../Logo';
import { useAuth } from '../../session/session';
import { useTheme } from '../../theme';
import { displayName, planLabel } from '../../lib/user';
import { SITE } from '../../site';

const ICONS: Record<string, ReactNode> = {
  overview: <path d="M4 13h6V4H4zM14 20h6v-9h-6zM4 20h6v-4H4zM14 4v4h6V4z" />,
  plan: <path d="M3 7h18v10H3zM3 11h18M7 15h3" />,
  docs: <path d="M6 3h9l3 3v15H6zM9 10h6M9 14h6M9 18h4" />,
  settings: <path d="M12 9a3 3 0 1 0 0 6 3 3 0 0 0 0-6zM4 12h2M18 12h2M12 4v2M12 18v2M6.3 6.3l1.4 1.4M16.3 16.3l1.4 1.4M6.3 17.7l1.4-1.4M16.3 7.7l1.4-1.4" />,
  usage: <path d="M4 20h16M7 16v-5M12 16V6M17 16v-8" />,
  live: <path d="M3 12h4l3-8 4 16 3-8h4" />,
  site: <path d="M10 6L4 12l6 6M4 12h16" />,
  sun: <path d="M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8zM12 2v2M12 20v2M2 12h2M20 12h2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />,
  moon: <path d="M20 14.5A8 8 0 0 1 9.5 4 8 8 0 1 0 20 14.5z" />,
  signout: <path d="M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10" />,
  collapse: <path d="M15 6l-6 6 6 6" />,
  expand: <path d="M9 6l6 6-6 6" />,
  close: <path d="M6 6l12 12M18 6L6 18" />,
};

function Icon({ name }: { name: keyof typeof ICONS }) {
  return (
    <svg
      className="dash-icon"
      width="20"
      height="20"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {ICONS[name]}
    </svg>
  );
}

/** The dashboard's pages, in sidebar order, with the product spec's labels (dashboard shell). */
export const DASHBOARD_LINKS = [
  { to: '/dashboard', label: 'Dashboard', icon: 'overview', end: true },
  { to: '/dashboard/plan', label: 'Plan', icon: 'plan', end: false },
  { to: '/dashboard/docs', label: 'Docs', icon: 'docs', end: false },
  { to: '/dashboard/settings', label: 'Settings', icon: 'settings', end: false },
  { to: '/dashboard/usage', label: 'Usage', icon: 'usage', end: false },
  { to: '/dashboard/live', label: 'Live', icon: 'live', end: false },
] as const;

/**
 * The dashboard sidebar: links, user (avatar with initials fallback, name, plan), theme toggle,
 * Sign out. The notification bell sits in the layout's top bar, which stays visible while the
 * sidebar is collapsed or the drawer closed. On desktop it can be collapsed to a rail of icons:
 * the labels are then visually hidden (still the controls' accessible names) and each control
 * names itself in a tooltip (`title`) on hover; it does not widen over the page. On narrow screens
 * it is a drawer (`drawer` true) opened by the layout's menu button: `onNavigate` closes it after a
 * link, `onClose` (its close button) closes it and gives focus back to the menu button. `open`
 * drawers take focus on their first link.
 */
export function Sidebar({
  id,
  collapsed,
  onToggleCollapsed,
  drawer,
  open,
  onNavigate,
  onClose,
}: {
  id: string;
  collapsed: boolean;
  onToggleCollapsed: () => void;
  drawer: boolean;
  open: boolean;
  onNavigate: () => void;
  onClose: () => void;
}) {
  const { user, signOut } = useAuth();
  const { theme, toggleTheme } = useTheme();
  const navigate = useNavigate();
  const firstLink = useRef<HTMLAnchorElement>(null);
  const hidden = drawer && !open;
  const rail = collapsed && !drawer;
  /** The tooltip of a control while the sidebar is a rail of icons. */
  const tip = (label: string) => (rail ? label : undefined);

  useEffect(() => {
    if (drawer && open) firstLink.current?.focus();
  }, [drawer, open]);

  const nextTheme = theme === 'dark' ? 'light' : 'dark';
  return (
    <aside
      id={id}
      className="dash-sidebar"
      data-collapsed={!drawer && collapsed ? 'true' : 'false'}
      data-drawer={drawer ? 'true' : 'false'}
      data-open={open ? 'true' : 'false'}
      aria-label="Dashboard"
      {...(drawer ? { role: 'dialog', 'aria-modal': open ? true : undefined } : {})}
      {...(hidden ? { inert: true, 'aria-hidden': true } : {})}
    >
      <div className="dash-sidebar-top">
        <Link to="/" className="brand dash-brand" onClick={onNavigate} aria-label={`${SITE.name} home`} title={tip(`${SITE.name} home`)}>
          <Logo /> <span className="dash-label">{SITE.name}</span>
        </Link>
        {drawer ? (
          <button type="button" className="btn btn-ghost dash-drawer-close" onClick={onClose} aria-label="Close dashboard menu">
            <Icon name="close" />
          </button>
        ) : null}
      </div>
      <nav aria-label="Dashboard sections" className="dash-nav">
        <ul>
          {DASHBOARD_LINKS.map((l, i) => (
            <li key={l.to}>
              <NavLink ref={i === 0 ? firstLink : undefined} to={l.to} end={l.end} onClick={onNavigate} className="dash-nav-link" title={tip(l.label)}>
                <Icon name={l.icon} />
                <span className="dash-label">{l.label}</span>
              </NavLink>
            </li>
          ))}
          <li>
            <Link to="/" onClick={onNavigate} className="dash-nav-link" title={tip('Back to the website')}>
              <Icon name="site" />
              <span className="dash-label">Back to the website</span>
            </Link>
          </li>
        </ul>
      </nav>
      <div className="dash-sidebar-bottom">
        <div className="dash-user" title={tip(`${displayName(user)} · ${planLabel(user?.plan)}`)}>
          <Avatar user={user} size={36} />
          <span className="dash-label dash-user-text">
            <span className="dash-user-name" data-testid="user-display-name">
              {displayName(user)}
            </span>
            <span className="muted dash-user-plan" data-testid="user-plan-label">
              {planLabel(user?.plan)}
            </span>
          </span>
        </div>
        <button
          type="button"
          className="dash-nav-link dash-button"
          onClick={toggleTheme}
          aria-label={`Switch to ${nextTheme} theme`}
          title={tip(theme === 'dark' ? 'Light theme' : 'Dark theme')}
        >
          <Icon name={theme === 'dark' ? 'sun' : 'moon'} />
          <span className="dash-label" aria-hidden="true">
            {theme === 'dark' ? 'Light theme' : 'Dark theme'}
          </span>
        </button>
        <button
          type="button"
          className="dash-nav-link dash-button"
          title={tip('Sign out')}
          onClick={async () => {
            onNavigate();
            await signOut();
            navigate('/');
          }}
        >
          <Icon name="signout" />
          <span className="dash-label">Sign out</span>
        </button>
        {drawer ? null : (
          <button
            type="button"
            className="dash-nav-link dash-button dash-collapse"
            onClick={onToggleCollapsed}
            aria-pressed={collapsed}
            aria-label="Collapse sidebar"
            title={tip('Expand sidebar')}
          >
            <Icon name={collapsed ? 'expand' : 'collapse'} />
            <span className="dash-label" aria-hidden="true">
              {collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
            </span>
          </button>
        )}
      </div>
    </aside>
  );
}
