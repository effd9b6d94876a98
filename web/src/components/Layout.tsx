import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { useAuth } from '../session/session';
import { displayName, planLabel } from '../lib/user';
import { SITE, STREAM_ARTICLE_PATHS } from '../site';
import { Avatar } from './Avatar';
import { Logo } from './Logo';
import './header.css';

/** One header link: the path it opens and its visible label. */
export interface NavEntry {
  readonly to: string;
  readonly label: string;
}

/**
 * The header's main links, desktop and mobile. The two stream entries carry the specification's
 * labels (section 2, "Header and footer"); their targets are {@link STREAM_ARTICLE_PATHS}.
 */
export const NAV: readonly NavEntry[] = [
  { to: STREAM_ARTICLE_PATHS.pumpFun, label: 'Pump.fun Stream' },
  { to: STREAM_ARTICLE_PATHS.letsBonk, label: 'Letsbonk.fun Stream' },
  { to: '/pricing', label: 'Pricing' },
  { to: '/how-it-works', label: 'How it works' },
  { to: '/blog', label: 'Blog' },
  { to: '/community', label: 'Community' },
];

/** The four dashboard pages offered to a signed-in user by the header (specification section 2). */
export const DASHBOARD_LINKS: readonly NavEntry[] = [
  { to: '/dashboard', label: 'Dashboard' },
  { to: '/dashboard/plan', label: 'Plan' },
  { to: '/dashboard/docs', label: 'Docs' },
  { to: '/dashboard/settings', label: 'Settings' },
];

/** The signed-out header actions: Sign In opens /login, Get Started opens /pricing (specification section 2). */
export const SIGNED_OUT_ACTIONS = Object.freeze({
  signIn: { to: '/login', label: 'Sign In' },
  getStarted: { to: '/pricing', label: 'Get Started' },
} as const);

/**
 * The user menu: a menu button (Enter/Space/ArrowDown open it and focus the first item;
 * ArrowUp/ArrowDown move, Home/End jump, Escape closes and returns focus to the button).
 */
export function UserMenu() {
  const { user, signOut } = useAuth();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const id = useId();

  const items = () => Array.from(listRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);
  useEffect(() => {
    if (open) items()[0]?.focus();
  }, [open]);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!buttonRef.current?.parentElement?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [open]);

  const close = (focusButton = true) => {
    setOpen(false);
    if (focusButton) buttonRef.current?.focus();
  };
  const onListKey = (e: KeyboardEvent) => {
    const all = items();
    const i = all.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'ArrowDown') all[(i + 1) % all.length]?.focus();
    else if (e.key === 'ArrowUp') all[(i - 1 + all.length) % all.length]?.focus();
    else if (e.key === 'Home') all[0]?.focus();
    else if (e.key === 'End') all[all.length - 1]?.focus();
    else if (e.key === 'Escape') close();
    else if (e.key === 'Tab') setOpen(false);
    else return;
    e.preventDefault();
  };

  return (
    <div className="user-menu">
      <button
        ref={buttonRef}
        type="button"
        className="user-menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            setOpen(true);
          }
        }}
      >
        <Avatar user={user} />
        <span className="user-menu-name">
          <span data-testid="user-display-name">{displayName(user)}</span>
          <span className="muted user-plan-label" data-testid="user-plan-label">
            {planLabel(user?.plan)}
          </span>
        </span>
      </button>
      {open ? (
        <ul ref={listRef} id={id} className="user-menu-list" role="menu" aria-label="Account" onKeyDown={onListKey}>
          {/* On phones the button shows only the avatar (header.css); the name and plan label open with the menu. */}
          <li role="none" className="user-menu-summary" aria-hidden="true">
            <strong>{displayName(user)}</strong>
            <span className="muted">{planLabel(user?.plan)}</span>
          </li>
          {DASHBOARD_LINKS.map((l) => (
            <li role="none" key={l.to}>
              <Link role="menuitem" to={l.to} onClick={() => close(false)}>
                {l.label}
              </Link>
            </li>
          ))}
          <li role="none">
            <button
              role="menuitem"
              type="button"
              onClick={async () => {
                close(false);
                await signOut();
                navigate('/');
              }}
            >
              Sign out
            </button>
          </li>
        </ul>
      ) : null}
    </div>
  );
}

/**
 * The sticky site header: brand, main links ({@link NAV}), then either Sign In / Get Started
 * (signed out, and while the session loads so prerender and hydration agree) or the
 * {@link UserMenu} (signed in); below the collapse width the links move into a toggled mobile menu.
 */
export function Header() {
  const { status } = useAuth();
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const signedIn = status === 'signed-in';
  useEffect(() => setMenuOpen(false), [location.pathname]);
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape') {
        setMenuOpen(false);
        toggleRef.current?.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [menuOpen]);

  return (
    <header className="site-header">
      <div className="container bar">
        <Link to="/" className="brand" aria-label="Tradewind home">
          <Logo /> {SITE.name}
        </Link>
        <nav className="main-nav" aria-label="Main">
          {NAV.map((n) => (
            <NavLink key={n.to} to={n.to}>
              {n.label}
            </NavLink>
          ))}
        </nav>
        <div className="header-actions">
          {signedIn ? (
            <UserMenu />
          ) : (
            <>
              <Link to={SIGNED_OUT_ACTIONS.signIn.to} className="btn btn-ghost btn-sm desktop-only">
                {SIGNED_OUT_ACTIONS.signIn.label}
              </Link>
              <Link to={SIGNED_OUT_ACTIONS.getStarted.to} className="btn btn-primary btn-sm desktop-only">
                {SIGNED_OUT_ACTIONS.getStarted.label}
              </Link>
            </>
          )}
          <button
            ref={toggleRef}
            type="button"
            className="btn btn-ghost menu-toggle"
            aria-expanded={menuOpen}
            aria-controls="mobile-menu"
            aria-label={menuOpen ? 'Close menu' : 'Open menu'}
            onClick={() => setMenuOpen((o) => !o)}
          >
            <svg width="24" height="24" viewBox="0 0 24 24" aria-hidden="true">
              {menuOpen ? (
                <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
              ) : (
                <path d="M4 7h16M4 12h16M4 17h16" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
              )}
            </svg>
          </button>
        </div>
      </div>
      <div id="mobile-menu" className="mobile-menu" data-open={menuOpen} hidden={!menuOpen}>
        <nav aria-label="Mobile">
          {NAV.map((n) => (
            <NavLink key={n.to} to={n.to}>
              {n.label}
            </NavLink>
          ))}
          {signedIn ? (
            DASHBOARD_LINKS.map((l) => (
              <NavLink key={l.to} to={l.to} end>
                {l.label}
              </NavLink>
            ))
          ) : (
            <NavLink to={SIGNED_OUT_ACTIONS.signIn.to}>{SIGNED_OUT_ACTIONS.signIn.label}</NavLink>
          )}
        </nav>
        {signedIn ? null : (
          <Link to={SIGNED_OUT_ACTIONS.getStarted.to} className="btn btn-primary mobile-menu-cta">
            {SIGNED_OUT_ACTIONS.getStarted.label}
          </Link>
        )}
      </div>
    </header>
  );
}

export function Footer() {
  return (
    <footer className="site-footer">
      <div className="container footer-grid">
        <div>
          <Link to="/" className="brand">
            <Logo /> {SITE.name}
          </Link>
          <p className="muted footer-tagline">Decoded Solana launchpad and AMM trades, streamed as JSON over WebSocket and native NATS JetStream.</p>
        </div>
        <div>
          <h2>Product</h2>
          <ul>
            <li>
              <Link to="/pricing">Pricing</Link>
            </li>
            <li>
              <Link to="/how-it-works">How it works</Link>
            </li>
            <li>
              <Link to="/dashboard/docs">API documentation</Link>
            </li>
            <li>
              <Link to="/dashboard">Dashboard</Link>
            </li>
          </ul>
        </div>
        <div>
          <h2>Company</h2>
          <ul>
            <li>
              <Link to="/blog">Blog</Link>
            </li>
            <li>
              <Link to="/community">Community &amp; support</Link>
            </li>
            {SITE.supportEmail ? (
              <li>
                <a href={`mailto:${SITE.supportEmail}`}>Contact</a>
              </li>
            ) : null}
          </ul>
        </div>
        <div>
          <h2>Legal</h2>
          <ul>
            <li>
              <Link to="/privacy">Privacy Policy</Link>
            </li>
            <li>
              <Link to="/terms">Terms of Service</Link>
            </li>
          </ul>
          {SITE.discordUrl || SITE.telegramUrl ? (
            <>
              <h2 className="footer-community">Community</h2>
              <ul>
                {SITE.discordUrl ? (
                  <li>
                    <a href={SITE.discordUrl} rel="noopener noreferrer" target="_blank">
                      Discord
                    </a>
                  </li>
                ) : null}
                {SITE.telegramUrl ? (
                  <li>
                    <a href={SITE.telegramUrl} rel="noopener noreferrer" target="_blank">
                      Telegram
                    </a>
                  </li>
                ) : null}
              </ul>
            </>
          ) : null}
        </div>
      </div>
      <div className="container muted footer-legal">
        © {new Date().getFullYear()} {SITE.name}. Market data is informational and not financial advice.
      </div>
    </footer>
  );
}

/** The public pages' frame: skip link, sticky header, main content, footer. */
export function Layout() {
  return (
    <>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <Header />
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
      <Footer />
    </>
  );
}
