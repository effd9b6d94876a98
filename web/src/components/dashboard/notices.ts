import type { User } from '../../api';

/** An account notice shown on the overview. */
export interface AccountNotice {
  kind: 'warning' | 'info';
  text: string;
}

/**
 * Notices derived from the user's subscription metadata: a failed payment (`past_due`) and a
 * trial's end date. Dates are formatted in English with the user's time zone. They describe the
 * account as it is now and ask for action, so the overview always shows them; the notification
 * preferences (Settings → Notifications, stored by auth) decide which events reach the bell.
 */
export function accountNotices(user: User | null): AccountNotice[] {
  if (!user) return [];
  const notices: AccountNotice[] = [];
  const status = user.metadata.subscription_status;
  if (status === 'past_due') {
    notices.push({
      kind: 'warning',
      text: 'Stripe could not take your last payment and is retrying. Your plan stays active meanwhile; update your card under Plan → Manage billing.',
    });
  } else if (status === 'unpaid' || status === 'incomplete' || status === 'paused') {
    notices.push({ kind: 'warning', text: `Your subscription is ${status.replace('_', ' ')}, so Starter limits apply. Open Plan to fix the payment.` });
  }
  if (status === 'trialing' && user.metadata.trial_end_date) {
    const d = new Date(user.metadata.trial_end_date);
    if (!Number.isNaN(d.getTime())) {
      notices.push({ kind: 'info', text: `Your trial ends on ${d.toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric' })}.` });
    }
  }
  return notices;
}
