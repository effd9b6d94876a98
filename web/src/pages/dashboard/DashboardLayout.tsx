import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { Link, Navigate, Outlet, useLocation, useNavigate, useOutletContext } from 'react-router';
import { apiFetch, type Subscription } from '../../api';
import { Avatar } from '../../components/Avatar';
import { NotificationBell } from '../../components/dashboard/NotificationBell';
import { DASHBOARD_LINKS, Sidebar } from '../../components/dashboard/Sidebar';
import { displayName, planLabel } from '../../lib/user';
import { useToast } from '../../components/Toast';
import { useAuth } from '../../session/session';
import {
  CHECKOUT_FIRST_REFRESH_MS,
  CHECKOUT_TOAST_MS,
  dashboardGate,
  fromPaymentRedirect,
  pollForPlanChange,
  readCheckoutReturn,
  waitForUserPlan,
  withoutCheckoutParams,
} from '../../lib/gating';
import './dashboard.css';

/** localStorage key of the desktop sidebar's collapsed state ("1" collapsed, "0" open). */
export const SIDEBAR_STORAGE_KEY = 'tw-dashboard-sidebar-collapsed';
/** Widths at or below this are "mobile": the sidebar becomes a drawer. */
export const DRAWER_QUERY = '(max-width: 860px)';

/** What the layout gives its pages through `<Outlet context>`. */
export interface DashboardContext {
  /** Increases when the plan may have changed (after a checkout return): pages reload their data. */
  refreshKey: number;
  /**
   * Increases with `refreshKey`, except when the checkout return ended with the signed-in user on a
   * plan other than the one they came back with: for data that already reloads on every change of
   * `user.plan` (the credentials panel), which would otherwise load twice for one checkout — the
   * plan change and this refresh can render together or apart, in either order.
   */
  planDataRefreshKey: number;
}

/** The dashboard context; all keys 0 for a page rendered outside the layout (tests). */
export function useDashboardContext(): DashboardContext {
  return useOutletContext<DashboardContext | undefined>() ?? { refreshKey: 0, planDataRefreshKey: 0 };
}

function useMediaQuery(query: string): boolean {
  const get = () => typeof window !== 'undefined' && typeof window.matchMedia === 'function' && window.matchMedia(query).matches;
  const [matches, setMatches] = useState(get);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const mql = window.matchMedia(query);
    const on = () => setMatches(mql.matches);
    on();
    mql.addEventListener('change', on);
    return () => mql.removeEventListener('change', on);
  }, [query]);
  return matches;
}

function readCollapsed(): boolean {
  try {
    return localStorage.getItem(SIDEBAR_STORAGE_KEY) === '1';
  } catch {
    return false;
  }
}

/**
 * After Stripe Checkout (`/dashboard?session_id=…`): a "Payment Successful!" toast for 5 s, the query
 * removed from the URL; after 2 s get-subscription is polled (every 2 s, up to a minute) until the plan
 * changes, then the user is reloaded until auth carries the new plan too (product spec §4; the spec
 * refreshes once after 2 s, which leaves a paying customer on the old plan when the webhook is slower).
 * Returns the refresh keys pages use to reload their data ({@link DashboardContext}).
 */
function useCheckoutReturn(): DashboardContext {
  const location = useLocation();
  const navigate = useNavigate();
  const toast = useToast();
  const { user, accessToken, reloadUser } = useAuth();
  const [pending] = useState(() => readCheckoutReturn(new URLSearchParams(location.search)));
  const [before] = useState(() => ({ tier: user?.metadata.tier ?? user?.plan ?? 'starter', billing_period: user?.metadata.billing_period ?? 'indefinite' }));
  const [planAtReturn] = useState(() => user?.plan ?? null);
  const [keys, setKeys] = useState<DashboardContext>({ refreshKey: 0, planDataRefreshKey: 0 });
  const toasted = useRef(false);

  useEffect(() => {
    if (!pending) return;
    if (!toasted.current) {
      toasted.current = true;
      toast({
        kind: 'success',
        title: pending.title,
        durationMs: CHECKOUT_TOAST_MS,
        message: pending.kind === 'checkout' ? 'Stripe has confirmed the payment. Your plan updates here in a few seconds.' : undefined,
      });
      navigate({ pathname: location.pathname, search: withoutCheckoutParams(new URLSearchParams(location.search)) }, { replace: true });
    }
    const controller = new AbortController();
    void (async () => {
      await new Promise((resolve) => setTimeout(resolve, CHECKOUT_FIRST_REFRESH_MS));
      if (controller.signal.aborted) return;
      const billed = await pollForPlanChange(
        before,
        async () => apiFetch<Subscription>('/api/get-subscription', { token: await accessToken(), signal: controller.signal }),
        { signal: controller.signal },
      );
      if (controller.signal.aborted) return;
      // The plan of the last user auth gave back (undefined: none read): the signed-in user's plan now.
      let planNow: string | null | undefined;
      if (billed.changed && billed.last) {
        await waitForUserPlan(
          billed.last.tier,
          async () => {
            const next = await reloadUser();
            planNow = next?.plan;
            return next ? { tier: next.plan ?? next.metadata.tier ?? null } : null;
          },
          { signal: controller.signal },
        );
      } else {
        try {
          planNow = (await reloadUser())?.plan;
        } catch {
          // the session client keeps the previous user; pages still refresh below
        }
      }
      const planChanged = planNow !== undefined && planNow !== planAtReturn;
      if (!controller.signal.aborted) {
        setKeys((k) => ({ refreshKey: k.refreshKey + 1, planDataRefreshKey: planChanged ? k.planDataRefreshKey : k.planDataRefreshKey + 1 }));
      }
    })();
    return () => controller.abort();
    // Runs once per checkout return (pending and before are fixed at mount).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pending]);
  return keys;
}

/** What can take focus inside the drawer. */
const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select, textarea, [tabindex]:not([tabindex="-1"])';

/** Keeps Tab inside `panel`: from its last control on to its first and, with Shift, back. */
function keepTabInside(e: KeyboardEvent, panel: HTMLElement | null): void {
  const items = panel ? [...panel.querySelectorAll<HTMLElement>(FOCUSABLE)] : [];
  const first = items[0];
  const last = items[items.length - 1];
  if (!panel || !first || !last) return;
  const active = document.activeElement;
  const outside = !panel.contains(active);
  if (e.shiftKey ? outside || active === first : outside || active === last) {
    e.preventDefault();
    (e.shiftKey ? last : first).focus();
  }
}

/**
 * The phone drawer (≤ 860 px, `drawer` true): closed at first, on navigation and when the width
 * grows past phones. While open it is modal: Escape closes it, Tab stays inside `panelId` (the page
 * behind is inert). Closing with Escape, the close button or the backdrop (`close(true)`) gives focus
 * back to the menu button once the page behind is no longer inert.
 */
function useDrawer(drawer: boolean, pathname: string, panelId: string) {
  const [open, setOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const focusMenuButton = useRef(false);
  const close = useCallback((returnFocus: boolean) => {
    focusMenuButton.current = returnFocus;
    setOpen(false);
  }, []);
  const toggle = useCallback(() => setOpen((o) => !o), []);
  useEffect(() => {
    if (open || !focusMenuButton.current) return;
    focusMenuButton.current = false;
    menuButton.current?.focus();
  }, [open]);
  // A new path (a link followed) closes the drawer.
  useEffect(() => setOpen(false), [pathname]);
  useEffect(() => {
    if (!drawer) setOpen(false);
  }, [drawer]);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close(true);
      else if (e.key === 'Tab') keepTabInside(e, document.getElementById(panelId));
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open, close, panelId]);
  return { open: drawer && open, toggle, close, menuButton };
}

function DashboardShell() {
  const refreshKeys = useCheckoutReturn();
  const location = useLocation();
  const drawer = useMediaQuery(DRAWER_QUERY);
  const [collapsed, setCollapsed] = useState(readCollapsed);
  const { open, toggle, close, menuButton } = useDrawer(drawer, location.pathname, 'dash-sidebar');

  const toggleCollapsed = useCallback(() => {
    setCollapsed((c) => {
      const next = !c;
      try {
        localStorage.setItem(SIDEBAR_STORAGE_KEY, next ? '1' : '0');
      } catch {
        // private mode: the state lasts for this page view
      }
      return next;
    });
  }, []);

  // An open drawer is modal: the page behind it takes no focus or clicks until it closes.
  const behind = open ? { inert: true } : {};
  return (
    <div className="dash" data-collapsed={!drawer && collapsed ? 'true' : 'false'}>
      <a href="#dash-main" className="skip-link" {...behind}>
        Skip to content
      </a>
      {open ? <div className="dash-backdrop" data-testid="dash-backdrop" onClick={() => close(true)} /> : null}
      <Sidebar
        id="dash-sidebar"
        collapsed={collapsed}
        onToggleCollapsed={toggleCollapsed}
        drawer={drawer}
        open={open}
        onNavigate={() => {
          if (drawer) close(false);
        }}
        onClose={() => close(true)}
      />
      <div className="dash-column" {...behind}>
        <DashboardTopBar open={open} menuButton={menuButton} onToggleMenu={toggle} />
        <main id="dash-main" className="dash-main" tabIndex={-1}>
          <Outlet context={refreshKeys satisfies DashboardContext} />
        </main>
      </div>
    </div>
  );
}

/** The sidebar label of the section `pathname` is in ("Dashboard", "Plan", "Docs", "Settings"). */
export function sectionLabel(pathname: string): string {
  const path = pathname.replace(/\/+$/, '') || '/';
  const match = DASHBOARD_LINKS.find((l) => (l.end ? path === l.to : path === l.to || path.startsWith(`${l.to}/`)));
  return match?.label ?? DASHBOARD_LINKS[0].label;
}

/**
 * The bar above each dashboard page, one row at every width: at ≤ 860 px (the drawer) the menu
 * button, the section's name, the notification bell and the avatar (a link to the profile); wider,
 * the bell alone (dashboard.css hides the rest), since the sidebar shows them.
 */
function DashboardTopBar({ open, menuButton, onToggleMenu }: { open: boolean; menuButton: RefObject<HTMLButtonElement | null>; onToggleMenu: () => void }) {
  const { user } = useAuth();
  const location = useLocation();
  return (
    <header className="dash-topbar">
      <button
        ref={menuButton}
        type="button"
        className="btn btn-ghost dash-menu-button"
        aria-expanded={open}
        aria-controls="dash-sidebar"
        aria-label={open ? 'Close dashboard menu' : 'Open dashboard menu'}
        onClick={onToggleMenu}
      >
        <svg width="24" height="24" viewBox="0 0 24 24" aria-hidden="true">
          <path d="M4 7h16M4 12h16M4 17h16" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
        </svg>
      </button>
      <span className="dash-topbar-title">{sectionLabel(location.pathname)}</span>
      <div className="dash-topbar-actions">
        <NotificationBell />
        <Link
          to="/dashboard/settings?tab=profile"
          className="dash-topbar-avatar"
          aria-label={`Profile: ${displayName(user)}, ${planLabel(user?.plan)}`}
          title={`${displayName(user)} · ${planLabel(user?.plan)}`}
        >
          <Avatar user={user} size={32} />
        </Link>
      </div>
    </header>
  );
}

/**
 * The signed-in frame of /dashboard/*: a spinner while the session loads, a redirect to /login
 * when signed out, else the sidebar (collapsible on desktop, a drawer at ≤ 860 px), the top bar
 * with the notification bell, and the page.
 */
export default function DashboardLayout() {
  const { status, user, loggingOut } = useAuth();
  const location = useLocation();
  const gate = dashboardGate(status, loggingOut, status === 'signed-in' ? (user?.plan ?? null) : undefined);
  if (gate.kind === 'spinner') {
    return (
      <div className="dash-loading" role="status" aria-live="polite">
        <span className="spinner" aria-hidden="true" /> <span className="sr-only">Loading your dashboard…</span>
      </div>
    );
  }
  if (gate.kind === 'redirect') return <Navigate to={gate.to} replace />;
  const backToPayment = fromPaymentRedirect(new URLSearchParams(location.search), user?.plan);
  if (backToPayment) return <Navigate to={backToPayment} replace />;
  return <DashboardShell />;
}
