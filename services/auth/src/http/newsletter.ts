/**
 * POST /api/newsletter {"email", "source"?} — the blog's "Stay Updated" box; no sign-in needed.
 *   201 {"subscribed": true, "email": <normalised>}  a new address
 *   200 the same body                                  already subscribed
 *   400 {status, code: "invalid_email", message: "Enter a valid e-mail address."}
 *   429 {status, code: "rate_limited", message} + Retry-After, over NEWSLETTER_RATE_LIMIT_PER_MINUTE per client address
 * Every request counts against the limit, valid or not, so the endpoint cannot be used to probe
 * addresses quickly. The answer carries nothing of the unsubscribe token: whoever types an address
 * does not get the link that removes it (only mails to the address do).
 *
 * The one-click unsubscribe link (domain/newsletter.ts unsubscribeLink; RFC 8058), no sign-in needed:
 *   POST /api/newsletter/unsubscribe?token=…  removes the address (the body, RFC 8058's
 *        "List-Unsubscribe=One-Click" form or anything else, is ignored) → 200 {"unsubscribed": true},
 *        also when it was not on the list any more (idempotent);
 *        400 {status, code: "invalid_unsubscribe_token", message} for a missing, damaged or changed token.
 *   GET  /api/newsletter/unsubscribe?token=…  → 303 to the web page /newsletter/unsubscribe?token=…, which asks
 *        before it POSTs: mail scanners follow GET links, so a GET never unsubscribes.
 * No rate limit: a token is checked by its HMAC before the database is asked anything.
 * deploy/routes.json sends /api/newsletter (and so /api/newsletter/unsubscribe) to auth.
 */
import type { FastifyInstance } from 'fastify';
import type { Counter } from 'prom-client';
import { AppError } from '@tradewind/contracts';
import type { Kysely } from '@tradewind/lib';
import type { AuthDatabase } from '../db/schema.js';
import { subscribeNewsletter, takeRateLimit, unsubscribeNewsletter } from '../db/newsletter.js';
import {
  INVALID_EMAIL,
  INVALID_UNSUBSCRIBE_TOKEN_CODE,
  NEWSLETTER_SOURCES,
  UNSUBSCRIBE_PAGE_PATH,
  UNSUBSCRIBE_PATH,
  normaliseEmail,
  verifyUnsubscribeToken,
  type NewsletterSource,
} from '../domain/newsletter.js';

/** Scope of the newsletter's rate-limit windows. */
const RATE_SCOPE = 'newsletter';

export interface NewsletterRouteDeps {
  db: Kysely<AuthDatabase>;
  /** NEWSLETTER_RATE_LIMIT_PER_MINUTE. */
  perMinute: number;
  /** `tradewind_auth_newsletter_signups_total{outcome}`. */
  signups: Counter<'outcome'>;
  /** `tradewind_auth_newsletter_unsubscribes_total{outcome}`: unsubscribed, not_subscribed, invalid_token. */
  unsubscribes: Counter<'outcome'>;
  /** The unsubscribe tokens' HMAC key (domain/newsletter.ts newsletterUnsubscribeKey). */
  unsubscribeKey: Uint8Array;
  /** PUBLIC_URL without a trailing slash: the GET link redirects to its web page. */
  publicUrl: string;
}

/** The `token` query parameter (the first one when repeated), or undefined. */
function tokenOf(query: unknown): string | undefined {
  const token = (query as Record<string, unknown> | undefined)?.token;
  const first = Array.isArray(token) ? token[0] : token;
  return typeof first === 'string' ? first : undefined;
}

export function registerNewsletterRoutes(app: FastifyInstance, deps: NewsletterRouteDeps): void {
  app.post('/api/newsletter', async (request, reply) => {
    // request.ip: the ingress's X-Forwarded-For entry (createHttpApp trustProxy), else the peer.
    const gate = await takeRateLimit(deps.db, RATE_SCOPE, request.ip, deps.perMinute);
    if (!gate.allowed) {
      deps.signups.inc({ outcome: 'rate_limited' });
      void reply.header('retry-after', String(gate.retryAfterSeconds));
      return reply
        .status(429)
        .send({ status: 429, code: 'rate_limited', message: `Too many sign-up attempts from your address. Try again in ${gate.retryAfterSeconds} s.` });
    }
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('invalid_argument', 'Send a JSON object {"email": "..."}');
    const fields = body as Record<string, unknown>;
    const source = fields.source ?? 'blog';
    if (!(NEWSLETTER_SOURCES as readonly unknown[]).includes(source))
      throw new AppError('invalid_argument', `source must be one of ${NEWSLETTER_SOURCES.join(', ')}`);
    const email = normaliseEmail(fields.email);
    if (!email) {
      deps.signups.inc({ outcome: 'invalid' });
      return reply.status(400).send({ status: 400, ...INVALID_EMAIL });
    }
    const created = await subscribeNewsletter(deps.db, email, source as NewsletterSource);
    deps.signups.inc({ outcome: created ? 'subscribed' : 'already_subscribed' });
    return reply.status(created ? 201 : 200).send({ subscribed: true, email });
  });

  // A person who follows the link: the web page, which asks first. Nothing is checked or changed here.
  app.get(UNSUBSCRIBE_PATH, async (request, reply) => {
    const token = tokenOf(request.query);
    void reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    return reply.redirect(`${deps.publicUrl}${UNSUBSCRIBE_PAGE_PATH}${token === undefined ? '' : `?${new URLSearchParams({ token }).toString()}`}`, 303);
  });

  void app.register(async (scope) => {
    // RFC 8058 §3.2: the mail provider POSTs "List-Unsubscribe=One-Click" as multipart/form-data or
    // application/x-www-form-urlencoded; the web page may send nothing. The link alone says what to do: any
    // body (within HTTP_BODY_LIMIT_BYTES) is read as text and ignored.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scope.post(UNSUBSCRIBE_PATH, async (request, reply) => {
      void reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      const check = verifyUnsubscribeToken(deps.unsubscribeKey, tokenOf(request.query));
      if (!check.ok) {
        deps.unsubscribes.inc({ outcome: 'invalid_token' });
        return reply.status(400).send({ status: 400, code: INVALID_UNSUBSCRIBE_TOKEN_CODE, message: check.message });
      }
      const removed = await unsubscribeNewsletter(deps.db, check.emailHash);
      deps.unsubscribes.inc({ outcome: removed ? 'unsubscribed' : 'not_subscribed' });
      return reply.status(200).send({ unsubscribed: true });
    });
  });
}
