import { useCallback, useState } from 'react';
import type { User } from '../../api';

/** localStorage key of the "show account notices in the dashboard" preference ("off" hides them). */
export const NOTICES_STORAGE_KEY = 'tw-dashboard-notices';

function read(): boolean {
  try {
    return localStorage.getItem(NOTICES_STORAGE_KEY) !== 'off';
  } catch {
    return true;
  }
}

/** The in-dashboard notices preference of this browser (default on) and its setter. */
export function useNoticesPreference(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(read);
  const set = useCallback((next: boolean) => {
    setOn(next);
    try {
      localStorage.setItem(NOTICES_STORAGE_KEY, next ? 'on' : 'off');
    } catch {
      // private mode: applies to this page view only
    }
  }, []);
  return [on, set];
}

/** An account notice shown on the overview. */
export interface AccountNotice {
  kind: 'warning' | 'info';
  text: string;
}

/**
 * Notices derived from the user's subscription metadata: a failed payment (`past_due`) and a
 * trial's end date. Dates are formatted in English with the user's time zone.
 */
export function accountNotices(user: User | null): AccountNotice[] {
  if (!user) return [];
  const notices: AccountNotice[] = [];
  const status = user.metadata.subscription_status;
  if (status === 'past_due') {
    notices.push({ kind: 'warning', text: 'Stripe could not take your last payment and is retrying. Your plan stays active meanwhile; update your card under Plan & billing → Manage billing.' });
  } else if (status === 'unpaid' || status === 'incomplete' || status === 'paused') {
    notices.push({ kind: 'warning', text: `Your subscription is ${status.replace('_', ' ')}, so Starter limits apply. Open Plan & billing to fix the payment.` });
  }
  if (status === 'trialing' && user.metadata.trial_end_date) {
    const d = new Date(user.metadata.trial_end_date);
    if (!Number.isNaN(d.getTime())) {
      notices.push({ kind: 'info', text: `Your trial ends on ${d.toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric' })}.` });
    }
  }
  return notices;
}
