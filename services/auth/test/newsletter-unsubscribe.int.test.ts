/**
 * The newsletter's one-click unsubscribe link (RFC 8058) against the real auth service and PostgreSQL
 * (test/support.ts): the link a mailer puts in every mail (`unsubscribeLink`), a POST to it that removes
 * the address and its hash, a GET that only redirects to the web page, idempotence, and refused tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { sql } from '@tradewind/lib';
import { LIST_UNSUBSCRIBE_POST, UNSUBSCRIBE_PATH, newsletterUnsubscribeKey, unsubscribeLink, unsubscribeToken, verifyUnsubscribeToken } from '../src/index.js';
import { startHarness, type Harness } from './support.js';

const SECRET = 'unsubscribe-test-secret-0123456789abcdef';
let h: Harness;
/** The key the service derives from SECRET: what a mailer with the same config uses. */
const key = newsletterUnsubscribeKey({ secret: SECRET });

beforeAll(async () => {
  h = await startHarness('auth_unsubscribe', { NEWSLETTER_UNSUBSCRIBE_SECRET: SECRET, NEWSLETTER_RATE_LIMIT_PER_MINUTE: 1000 });
});
afterAll(async () => h?.close());

const subscribe = (email: string) =>
  fetch(`${h.publicUrl}/api/newsletter`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
const stored = (email: string) => h.db.selectFrom('newsletter_subscriptions').selectAll().where('email', '=', email).executeTakeFirst();
/** What a mail provider sends for a one-click link (RFC 8058 §3.2): a POST with the form body, no cookie. */
const oneClick = (url: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: LIST_UNSUBSCRIBE_POST, redirect: 'manual' });
/** The link as the running service's PUBLIC_URL makes it. */
const linkOf = (email: string) => unsubscribeLink(h.publicUrl, key, email);

describe('newsletter unsubscribe link', () => {
  it('when a mailer builds the link of an address, then it gives the one-click URL and the List-Unsubscribe and List-Unsubscribe-Post headers', () => {
    const { url, headers } = unsubscribeLink('https://tradewind.example/', key, '  Reader@Example.com ');
    expect(url).toBe(`https://tradewind.example${UNSUBSCRIBE_PATH}?token=${unsubscribeToken(key, 'reader@example.com')}`);
    expect(headers).toEqual({ 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });
    // The address is not in the link: only sha256 of it, and a MAC.
    expect(url).not.toMatch(/reader|example\.com\?/i);
    expect(() => unsubscribeLink('https://tradewind.example', key, 'not an address')).toThrow(/not a valid e-mail address/);
  });

  it('when an address signs up, then the answer holds nothing of its token, and PostgreSQL stores sha256 of the address beside it', async () => {
    const res = await subscribe('Signup@Example.com');
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ subscribed: true, email: 'signup@example.com' });
    expect(JSON.stringify(body)).not.toContain(unsubscribeToken(key, 'signup@example.com').split('.')[1]);
    // Every character an address may hold (domain/newsletter.ts), so PostgreSQL's hash is Node's for any address.
    const odd = "a.b!#$%&'*+/=?^_`{|}~-z@ex-ample.co";
    expect((await subscribe(odd)).status).toBe(201);
    for (const email of ['signup@example.com', odd]) {
      expect((await stored(email))?.email_hash).toBe(createHash('sha256').update(email, 'utf8').digest('hex'));
    }
  });

  it('when the link is POSTed as a mail provider does, then 200 {"unsubscribed": true} and the address and its hash are gone; again, the same 200', async () => {
    await subscribe('leaving@example.com');
    await subscribe('staying@example.com');
    const hash = (await stored('leaving@example.com'))!.email_hash;
    const { url } = linkOf('leaving@example.com');
    const res = await oneClick(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ unsubscribed: true });
    expect(await stored('leaving@example.com')).toBeUndefined();
    const byHash = await h.db.selectFrom('newsletter_subscriptions').select('email').where('email_hash', '=', hash).execute();
    expect(byHash).toEqual([]);
    // Nothing else holds the address.
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM newsletter_subscriptions WHERE email LIKE '%leaving%'`.execute(h.db);
    expect(rows[0]!.n).toBe(0);
    expect(await stored('staying@example.com')).toBeDefined();
    // Already unsubscribed (a second click, a provider retrying): success, idempotently.
    const again = await oneClick(url);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ unsubscribed: true });
  });

  it('when the web page POSTs with no body, or a provider with multipart/form-data, then it unsubscribes too', async () => {
    await subscribe('page@example.com');
    const res = await fetch(linkOf('page@example.com').url, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await stored('page@example.com')).toBeUndefined();
    await subscribe('multipart@example.com');
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    const multipart = await fetch(linkOf('multipart@example.com').url, { method: 'POST', body: form });
    expect(multipart.status).toBe(200);
    expect(await stored('multipart@example.com')).toBeUndefined();
  });

  it('when the link is followed with GET (a person, or a mail scanner), then 303 to the web page with the same token and the address stays', async () => {
    await subscribe('scanned@example.com');
    const { url } = linkOf('scanned@example.com');
    const token = new URL(url).searchParams.get('token')!;
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${h.publicUrl}/newsletter/unsubscribe?token=${token}`);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await stored('scanned@example.com')).toBeDefined();
  });

  it.each([
    ['no token', '', /has no token/],
    ['a cut-off token', 'CUT', /damaged/],
    ['a token with a changed MAC', 'MAC', /not valid/],
    ['the token of another address with this MAC', 'SWAP', /not valid/],
    ['a token signed with another key', 'KEY', /not valid/],
    ['a token spelled with non-canonical base64url', 'SPELL', /damaged/],
  ])('when the POST carries %s, then 400 invalid_unsubscribe_token with a message saying why, and nothing is removed', async (_what, kind, message) => {
    await subscribe('victim@example.com');
    const token = unsubscribeToken(key, 'victim@example.com');
    const [id, mac] = token.split('.') as [string, string];
    const flip = (s: string) => `${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`;
    const bad: Record<string, string> = {
      '': '',
      CUT: token.slice(0, 60),
      MAC: `${id}.${flip(mac)}`,
      SWAP: `${unsubscribeToken(key, 'someone@example.com').split('.')[0]}.${mac}`,
      KEY: unsubscribeToken(newsletterUnsubscribeKey({ signingKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey }), 'victim@example.com'),
      // The 43rd character of 32 bytes carries 2 unused bits: 'A'…'D' etc. decode alike; only the canonical one is accepted.
      SPELL: `${id}.${mac.slice(0, 42)}${String.fromCharCode(mac.charCodeAt(42) + 1)}`,
    };
    const query = kind === '' ? '' : `?${new URLSearchParams({ token: bad[kind]! }).toString()}`;
    const res = await fetch(`${h.publicUrl}${UNSUBSCRIBE_PATH}${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: LIST_UNSUBSCRIBE_POST,
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { status: number; code: string; message: string };
    expect(body).toMatchObject({ status: 400, code: 'invalid_unsubscribe_token' });
    expect(body.message).toMatch(message);
    expect(await stored('victim@example.com')).toBeDefined();
  });

  it('when tokens are checked, then only the one made for an address with this key verifies, naming its hash', () => {
    const token = unsubscribeToken(key, 'Check@Example.com');
    expect(verifyUnsubscribeToken(key, token)).toEqual({ ok: true, emailHash: createHash('sha256').update('check@example.com').digest('hex') });
    for (const bad of [undefined, 42, '', `${token}x`, token.replace('.', '_')]) expect(verifyUnsubscribeToken(key, bad).ok, String(bad)).toBe(false);
  });

  it('when the key is derived, then one signing key gives one key on every replica, a configured secret takes precedence, and neither is refused', () => {
    const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const fromSigningKey = newsletterUnsubscribeKey({ signingKey });
    expect(fromSigningKey).toHaveLength(32);
    expect(newsletterUnsubscribeKey({ signingKey })).toEqual(fromSigningKey);
    expect(newsletterUnsubscribeKey({ signingKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey })).not.toEqual(fromSigningKey);
    expect(newsletterUnsubscribeKey({ secret: SECRET, signingKey })).toEqual(key);
    expect(() => newsletterUnsubscribeKey({})).toThrow(/NEWSLETTER_UNSUBSCRIBE_SECRET or the signing key/);
  });

  it('when the outcomes are counted, then unsubscribed, not_subscribed and invalid_token are told apart', async () => {
    const value = async (outcome: string) =>
      (await h.registry.getSingleMetric('tradewind_auth_newsletter_unsubscribes_total')!.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
    const before = { unsubscribed: await value('unsubscribed'), not: await value('not_subscribed'), invalid: await value('invalid_token') };
    await subscribe('counted@example.com');
    const { url } = linkOf('counted@example.com');
    await oneClick(url);
    await oneClick(url);
    await oneClick(`${h.publicUrl}${UNSUBSCRIBE_PATH}?token=nope`);
    expect(await value('unsubscribed')).toBe(before.unsubscribed + 1);
    expect(await value('not_subscribed')).toBe(before.not + 1);
    expect(await value('invalid_token')).toBe(before.invalid + 1);
  });
});
