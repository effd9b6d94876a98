/**
 * The notification bell's contract between auth and the web app (browser-safe: no imports):
 * the kinds of notification, the user's preference switches and which switch governs each kind.
 * auth (services/auth/src/domain/notifications.ts) stores and filters by it; the web app
 * (web/src/lib/notifications.ts) shows the bell and the Settings → Notifications switches from it.
 */

/** Kinds of notification, one per kind of EVENTS event that concerns a user (docs/auth.md). */
export const NOTIFICATION_KINDS = ['plan_changed', 'payment_succeeded', 'payment_failed', 'credentials_rotated', 'connection_limited'] as const;
/** What a notification is about; one preference switch governs each (see {@link PREFERENCE_OF_KIND}). */
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/**
 * The four switches of `GET|PUT /auth/notification-preferences`: true shows that kind in the bell
 * (and in the unread count); auth keeps notifications of a kind switched off without showing them.
 */
export interface NotificationPreferences {
  plan_changes: boolean;
  payments: boolean;
  credentials: boolean;
  connection_limits: boolean;
}

/** Every kind on: what a user who never saved preferences gets. */
export const DEFAULT_PREFERENCES: Readonly<NotificationPreferences> = Object.freeze({
  plan_changes: true,
  payments: true,
  credentials: true,
  connection_limits: true,
});

/** The preference switch that shows or hides each kind. */
export const PREFERENCE_OF_KIND: Readonly<Record<NotificationKind, keyof NotificationPreferences>> = Object.freeze({
  plan_changed: 'plan_changes',
  payment_succeeded: 'payments',
  payment_failed: 'payments',
  credentials_rotated: 'credentials',
  connection_limited: 'connection_limits',
});
