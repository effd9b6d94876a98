/**
 * The blog's newsletter sign-up (pure logic, no I/O): the address check and its normal form.
 * The spec's input is `type=email`; the server applies the same shape rule as the browser (the
 * HTML Standard's "valid e-mail address", https://html.spec.whatwg.org/multipage/input.html#valid-e-mail-address),
 * requires a dot in the domain (an address without one cannot receive mail from the internet) and
 * limits the length to 254 (RFC 5321's path limit less the angle brackets).
 */

/** Longest accepted address, in characters. */
export const EMAIL_MAX_CHARS = 254;

/** Error code and message of a refused address (the web app shows the message under the field). */
export const INVALID_EMAIL = { code: 'invalid_email', message: 'Enter a valid e-mail address.' } as const;

/** Where a sign-up comes from: the blog's "Stay Updated" box is the only form today. */
export const NEWSLETTER_SOURCES = ['blog'] as const;
export type NewsletterSource = (typeof NEWSLETTER_SOURCES)[number];

const HTML_EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

/**
 * The trimmed, lowercased address when `value` is a valid one, else undefined.
 * Lowercasing the local part too is deliberate: one person typing "Ann@x.com" and "ann@x.com" is
 * one subscriber, and no mail provider in practice treats them differently.
 */
export function normaliseEmail(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const email = value.trim();
  if (email.length === 0 || email.length > EMAIL_MAX_CHARS) return undefined;
  if (!HTML_EMAIL.test(email)) return undefined;
  const at = email.indexOf('@');
  if (at > 64) return undefined; // RFC 5321 §4.5.3.1.1: local part at most 64 octets
  return email.toLowerCase();
}
