/**
 * POST /api/newsletter {"email", "source"?} — the blog's "Stay Updated" box; no sign-in needed.
 *   201 {"subscribed": true, "email": <normalised>}  a new address
 *   200 the same body                                  already subscribed
 *   400 {status, code: "invalid_email", message: "Enter a valid e-mail address."}
 *   429 {status, code: "rate_limited", message} + Retry-After, over NEWSLETTER_RATE_LIMIT_PER_MINUTE per client address
 * Every request counts against the limit, valid or not, so the endpoint cannot be used to probe
 * addresses quickly. deploy/routes.json sends /api/newsletter to auth.
 */
import type { FastifyInstance } from 'fastify';
import type { Counter } from 'prom-client';
import { AppError } from '@tradewind/contracts';
import type { Kysely } from '@tradewind/lib';
import type { AuthDatabase } from '../db/schema.js';
import { subscribeNewsletter, takeRateLimit } from '../db/newsletter.js';
import { INVALID_EMAIL, NEWSLETTER_SOURCES, normaliseEmail, type NewsletterSource } from '../domain/newsletter.js';

/** Scope of the newsletter's rate-limit windows. */
const RATE_SCOPE = 'newsletter';

export interface NewsletterRouteDeps {
  db: Kysely<AuthDatabase>;
  /** NEWSLETTER_RATE_LIMIT_PER_MINUTE. */
  perMinute: number;
  /** `tradewind_auth_newsletter_signups_total{outcome}`. */
  signups: Counter<'outcome'>;
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
}
