/**
 * The blog's newsletter sign-up (pure logic, no I/O): the address check and its normal form, and the
 * one-click unsubscribe links (below).
 * The spec's input is `type=email`; the server applies the same shape rule as the browser (the
 * HTML Standard's "valid e-mail address", https://html.spec.whatwg.org/multipage/input.html#valid-e-mail-address),
 * requires a dot in the domain (an address without one cannot receive mail from the internet) and
 * limits the length to 254 (RFC 5321's path limit less the angle brackets).
 */
import { createHash, createHmac, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';
import { AppError } from '@tradewind/contracts';

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

/**
 * Unsubscribe links (RFC 8058 one-click): every address on the list gets a link that removes it, with
 * no sign-in, for the mails the product sends (none yet). The link carries a token,
 * `<id>.<mac>`: `id` = base64url(sha256(normalised address)), the key the address's row is found by
 * (auth.newsletter_subscriptions.email_hash, hex), so the address itself is not in the URL; `mac` =
 * base64url(HMAC-SHA256(key, sha256 bytes)) with the key of {@link newsletterUnsubscribeKey}, so only
 * auth can make one and a changed token is refused. A token never expires: a link must keep working
 * in a mail read years later, and it can do one thing only, remove the address it was made for.
 */

/** Path of the one-click link (auth; deploy/routes.json sends /api/newsletter to auth): POST unsubscribes, GET redirects to the page. */
export const UNSUBSCRIBE_PATH = '/api/newsletter/unsubscribe';

/** Path of the web app's page that confirms and unsubscribes with one click (web/src/pages/NewsletterUnsubscribe.tsx). */
export const UNSUBSCRIBE_PAGE_PATH = '/newsletter/unsubscribe';

/** `List-Unsubscribe-Post` value that marks a link as one-click (RFC 8058 §3.1). */
export const LIST_UNSUBSCRIBE_POST = 'List-Unsubscribe=One-Click';

/** Error code of a missing, damaged or changed token (400, with the message of {@link verifyUnsubscribeToken}, which the web page shows). */
export const INVALID_UNSUBSCRIBE_TOKEN_CODE = 'invalid_unsubscribe_token';

/** HKDF-SHA256 `info` of the unsubscribe key: ties it to this one use, so it signs nothing else. */
const UNSUBSCRIBE_KEY_INFO = 'tradewind newsletter unsubscribe v1';
/** Bytes of the HMAC-SHA256 key and of both token halves (SHA-256 output). */
const HASH_BYTES = 32;
/** base64url of 32 bytes: 43 characters, no padding. */
const TOKEN_SHAPE = /^([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/;

/**
 * The 32-byte HMAC key of unsubscribe tokens: HKDF-SHA256 ({@link UNSUBSCRIBE_KEY_INFO}) of `secret`
 * (config NEWSLETTER_UNSUBSCRIBE_SECRET) when set, else of `signingKey`, the access-token signing key's
 * private key (PKCS#8 DER; AUTH_JWT_PRIVATE_KEY, required in production and shared by every replica),
 * so every replica makes and accepts the same links without a further secret. Rotating that signing
 * key invalidates the links in mails already sent: set NEWSLETTER_UNSUBSCRIBE_SECRET to keep them apart.
 * @throws AppError('invalid_argument') when neither is given.
 */
export function newsletterUnsubscribeKey(source: { secret?: string | undefined; signingKey?: KeyObject | undefined }): Buffer {
  const material = source.secret !== undefined ? Buffer.from(source.secret, 'utf8') : source.signingKey?.export({ format: 'der', type: 'pkcs8' });
  if (material === undefined) throw new AppError('invalid_argument', 'an unsubscribe key needs NEWSLETTER_UNSUBSCRIBE_SECRET or the signing key');
  return Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), UNSUBSCRIBE_KEY_INFO, HASH_BYTES));
}

/** sha256 of the UTF-8 bytes of `email` (normalised): what auth stores as `email_hash` (hex) and a token carries (base64url). */
export function emailHash(email: string): Buffer {
  return createHash('sha256').update(email, 'utf8').digest();
}

/**
 * The unsubscribe token of `email` under `key` ({@link newsletterUnsubscribeKey}): 87 URL-safe characters.
 * @throws AppError('invalid_argument') when `email` is not a valid address ({@link normaliseEmail}).
 */
export function unsubscribeToken(key: Uint8Array, email: string): string {
  const normalised = normaliseEmail(email);
  if (!normalised) throw new AppError('invalid_argument', `not a valid e-mail address: ${JSON.stringify(email)}`);
  const id = emailHash(normalised);
  return `${id.toString('base64url')}.${createHmac('sha256', key).update(id).digest('base64url')}`;
}

/**
 * What a mailer puts in every newsletter mail to `email`: `url`, the one-click link
 * (`<publicUrl>/api/newsletter/unsubscribe?token=…`, also the visible "Unsubscribe" link of the mail's
 * body), and the two header fields of RFC 8058 §3.1, `List-Unsubscribe: <url>` and
 * `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (a mail provider then POSTs to the link, with no
 * page; a person following it gets the web page, which asks before unsubscribing). RFC 8058 §4 also
 * wants both fields covered by the mail's DKIM signature.
 * @param publicUrl the origin (config PUBLIC_URL), https in production as RFC 8058 §3.1 requires.
 * @throws AppError('invalid_argument') when `email` is not a valid address.
 */
export function unsubscribeLink(
  publicUrl: string,
  key: Uint8Array,
  email: string,
): { url: string; headers: { 'List-Unsubscribe': string; 'List-Unsubscribe-Post': typeof LIST_UNSUBSCRIBE_POST } } {
  const url = `${publicUrl.replace(/\/$/, '')}${UNSUBSCRIBE_PATH}?${new URLSearchParams({ token: unsubscribeToken(key, email) }).toString()}`;
  return { url, headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': LIST_UNSUBSCRIBE_POST } };
}

/** The result of {@link verifyUnsubscribeToken}: the address's `email_hash` (hex), or why the token is refused. */
export type UnsubscribeTokenCheck = { ok: true; emailHash: string } | { ok: false; message: string };

/**
 * Checks a token from a link: its shape (two canonical base64url halves of 32 bytes) and its MAC under
 * `key` (compared in constant time). Never throws.
 */
export function verifyUnsubscribeToken(key: Uint8Array, token: unknown): UnsubscribeTokenCheck {
  if (typeof token !== 'string' || token === '') {
    return { ok: false, message: 'This unsubscribe link has no token. Open the link from the e-mail in full.' };
  }
  const parts = TOKEN_SHAPE.exec(token);
  const id = parts ? Buffer.from(parts[1]!, 'base64url') : undefined;
  const mac = parts ? Buffer.from(parts[2]!, 'base64url') : undefined;
  // Re-encoding must give the same text: another spelling of the same bytes is a changed token too.
  if (!id || !mac || id.toString('base64url') !== parts![1] || mac.toString('base64url') !== parts![2]) {
    return { ok: false, message: 'This unsubscribe link is damaged: part of it is missing or changed. Open the link from the e-mail in full.' };
  }
  const expected = createHmac('sha256', key).update(id).digest();
  if (!timingSafeEqual(expected, mac)) {
    return { ok: false, message: 'This unsubscribe link is not valid: it was changed, or it was not made by Tradewind.' };
  }
  return { ok: true, emailHash: id.toString('hex') };
}
