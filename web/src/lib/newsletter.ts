import { ApiError, apiFetch, httpStatusMessage } from '../api';
import { errorMessage } from './credentials';

/** `POST /api/newsletter`'s answer: the address as auth stored it (trimmed, lower-cased domain, …). */
export interface NewsletterSubscription {
  subscribed: true;
  email: string;
}

/**
 * Stores `email` on the list of addresses for new-article announcements: `POST /api/newsletter
 * {"email"}` (no session needed; docs/auth.md). Auth normalises and validates the address. 201
 * when the address is new, 200 when it was already stored; both resolve to the stored address. @throws ApiError: 400 `invalid_email` with
 * the server's message, 429 `rate_limited`, status 0 when the network fails.
 */
export function subscribeToNewsletter(email: string, signal?: AbortSignal): Promise<NewsletterSubscription> {
  return apiFetch<NewsletterSubscription>('/api/newsletter', { method: 'POST', body: { email }, ...(signal ? { signal } : {}) });
}

/** Shown for a 429 `rate_limited` answer that carries no message of its own. */
export const NEWSLETTER_RATE_LIMITED_MESSAGE = 'Too many sign-up attempts from this network. Please wait a few minutes and try again.';

/** Shown when the form is sent empty (nothing is sent to the server). */
export const NEWSLETTER_EMPTY_MESSAGE = 'Enter your e-mail address.';

/**
 * The text for a failed subscription: the server's message (e.g. the 400 `invalid_email` reason),
 * except a 429 without one, which reads {@link NEWSLETTER_RATE_LIMITED_MESSAGE} rather than "HTTP 429".
 */
export function newsletterErrorMessage(err: unknown): string {
  if (err instanceof ApiError && err.status === 429 && err.message === httpStatusMessage(429)) return NEWSLETTER_RATE_LIMITED_MESSAGE;
  return errorMessage(err);
}

/** Path of the one-click unsubscribe link every newsletter mail carries (services/auth domain/newsletter.ts `UNSUBSCRIBE_PATH`). */
export const NEWSLETTER_UNSUBSCRIBE_PATH = '/api/newsletter/unsubscribe';

/** Shown on the unsubscribe page when its link has no token (the message auth gives for the same case). */
export const UNSUBSCRIBE_NO_TOKEN_MESSAGE = 'This unsubscribe link has no token. Open the link from the e-mail in full.';

/**
 * Removes the address of an unsubscribe link from the newsletter: `POST /api/newsletter/unsubscribe?token=…`
 * with no body and no session, as a mail provider's one-click POST (RFC 8058) does; the token alone names
 * the address (docs/auth.md "Unsubscribe"). Resolves once auth answers 200 `{"unsubscribed": true}`, also
 * when the address was removed before. @throws ApiError: 400 `invalid_unsubscribe_token` with the server's
 * reason (no token, damaged, changed), status 0 when the network fails.
 */
export async function unsubscribeFromNewsletter(token: string, signal?: AbortSignal): Promise<void> {
  await apiFetch<{ unsubscribed: true }>(`${NEWSLETTER_UNSUBSCRIBE_PATH}?${new URLSearchParams({ token }).toString()}`, {
    method: 'POST',
    ...(signal ? { signal } : {}),
  });
}
