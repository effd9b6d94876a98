/**
 * Routing of the local Stripe stand-in's hosted pages (what a browser sees instead of
 * checkout.stripe.com and billing.stripe.com):
 *   GET  /checkout/:id            the labelled test checkout page (410 when expired, 404 unknown)
 *   POST /checkout/:id/pay        completes the session, 303 to its success_url
 *   GET  /portal/:id              the labelled test billing portal
 *   POST /portal/:id/<action>     switch | cancel | resume | advance | advance-failed | pay, 303 back
 * Every action calls the same state operations as the REST API and the test clock, so the events
 * are identical to those of the API path.
 */
import type { Logger } from '@tradewind/lib';
import type Stripe from 'stripe';
import { StripeApiError } from './errors.js';
import { formatLongDate, formatPrice, formatUsd } from './format.js';
import type { Params } from './form.js';
import { CHECKOUT_LABEL, PORTAL_LABEL, checkoutClosedPage, checkoutPage, messagePage, portalPage, type PortalView } from './pages.js';
import { NO_REQUEST, type LocalStripeState } from './state.js';

/** A page answer: HTML with a status, or a 303 redirect. */
export type PageResponse = { status: number; html: string } | { status: 303; location: string };

/** Confirmation lines after a portal action (fixed texts: nothing from the query string is echoed). */
const PORTAL_NOTICES: Record<string, string> = {
  switch: 'Your plan was changed.',
  cancel: 'Your subscription will end at the end of the current period.',
  resume: 'Your subscription will continue.',
  advance: 'Test clock advanced to the end of the period.',
  'advance-failed': 'Test clock advanced to the end of the period; the renewal payment failed.',
  pay: 'The open invoice was paid.',
};

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/**
 * Builds the page handler.
 * @returns `undefined` for paths that are not hosted pages (the server answers 404).
 */
export function createHostedPages(
  state: LocalStripeState,
  logger: Logger | undefined,
): (method: string, path: string, query: URLSearchParams, form: Params) => PageResponse | undefined {
  function checkout(method: string, id: string, action: string | undefined, form: Params): PageResponse | undefined {
    const session = state.checkoutSessions.has(id) ? state.getCheckoutSession(id) : undefined;
    if (session === undefined) {
      if (action !== undefined && action !== 'pay') return undefined;
      return { status: 404, html: messagePage(CHECKOUT_LABEL, 'Checkout not found', 'There is no checkout session with this address.') };
    }
    const successUrl = (session.success_url ?? '').replaceAll('{CHECKOUT_SESSION_ID}', session.id) || null;
    if (action === undefined && method === 'GET') {
      if (session.status === 'complete') return { status: 200, html: checkoutClosedPage({ status: 'complete', successUrl, cancelUrl: session.cancel_url }) };
      if (session.status === 'expired') return { status: 410, html: checkoutClosedPage({ status: 'expired', successUrl, cancelUrl: session.cancel_url }) };
      const { price, product, quantity } = state.checkoutSessionLine(session.id);
      const customer = typeof session.customer === 'string' ? state.customers.get(session.customer) : undefined;
      return {
        status: 200,
        html: checkoutPage({
          sessionId: session.id,
          productName: product.name,
          priceLabel: formatPrice(price),
          quantity,
          totalLabel: formatUsd(session.amount_total ?? 0),
          email: customer?.email ?? session.customer_email ?? null,
          cancelUrl: session.cancel_url,
        }),
      };
    }
    if (action === 'pay' && method === 'POST') {
      // A second click after success (or a reload of the POST) lands on the same success page.
      if (session.status === 'complete' && successUrl !== null) return { status: 303, location: headerSafeUrl(successUrl) };
      if (session.status === 'expired') return { status: 410, html: checkoutClosedPage({ status: 'expired', successUrl, cancelUrl: session.cancel_url }) };
      const email = typeof form.email === 'string' ? form.email.trim() : '';
      if (email !== '' && !EMAIL.test(email)) {
        return {
          status: 400,
          html: messagePage(CHECKOUT_LABEL, 'Check your email', 'That email address does not look valid.', {
            href: `/checkout/${encodeURIComponent(session.id)}`,
            text: 'Back to checkout',
          }),
        };
      }
      const done = state.completeCheckoutSession(session.id, email === '' ? {} : { email });
      logger?.info({ checkoutSession: session.id, subscription: done.subscriptionId }, 'local stripe: test checkout paid');
      return { status: 303, location: headerSafeUrl(done.successUrl) };
    }
    return undefined;
  }

  function portalView(session: Stripe.BillingPortal.Session, notice: string | null, error: string | null): PortalView {
    const customer = state.customers.get(session.customer);
    const subscription = state.currentSubscription(session.customer);
    let subscriptionView: PortalView['subscription'] = null;
    let switchOptions: PortalView['switchOptions'] = [];
    if (subscription !== undefined) {
      const item = state.itemOf(subscription);
      const price = state.prices.get(item.price.id) ?? item.price;
      const product = state.getProduct(typeof price.product === 'string' ? price.product : price.product.id);
      const open = state.openInvoices(subscription.id);
      subscriptionView = {
        id: subscription.id,
        productName: product.name,
        priceLabel: formatPrice(price),
        status: subscription.status,
        periodStart: formatLongDate(item.current_period_start),
        periodEnd: formatLongDate(item.current_period_end),
        nextBillingDate: subscription.cancel_at_period_end ? null : formatLongDate(item.current_period_end),
        cancelAtPeriodEnd: subscription.cancel_at_period_end,
        openInvoiceAmount: open.length === 0 ? null : formatUsd(open.reduce((sum, invoice) => sum + invoice.amount_remaining, 0)),
      };
      switchOptions = state
        .listPrices({ active: true, type: 'recurring' })
        .reverse()
        .filter((p) => p.id !== price.id)
        .map((p) => ({ priceId: p.id, label: `${state.getProduct(typeof p.product === 'string' ? p.product : p.product.id).name} — ${formatPrice(p)}` }));
    }
    return {
      portalId: session.id,
      customerEmail: customer?.email ?? null,
      returnUrl: session.return_url,
      subscription: subscriptionView,
      switchOptions,
      notice,
      error,
    };
  }

  function portal(method: string, id: string, action: string | undefined, query: URLSearchParams, form: Params): PageResponse | undefined {
    const session = state.findPortalSession(id);
    if (session === undefined) {
      return { status: 404, html: messagePage(PORTAL_LABEL, 'Portal session not found', 'There is no billing portal session with this address.') };
    }
    if (action === undefined && method === 'GET') {
      const done = query.get('done') ?? '';
      return { status: 200, html: portalPage(portalView(session, Object.hasOwn(PORTAL_NOTICES, done) ? (PORTAL_NOTICES[done] ?? null) : null, null)) };
    }
    if (action === undefined || method !== 'POST' || !Object.hasOwn(PORTAL_NOTICES, action)) return undefined;
    const subscription = state.currentSubscription(session.customer);
    // The form names the subscription it was rendered for; acting on another one would surprise the user.
    if (subscription === undefined || (typeof form.subscription === 'string' && form.subscription !== subscription.id)) {
      return { status: 409, html: portalPage(portalView(session, null, 'This page was out of date, so nothing was changed. Please try again.')) };
    }
    try {
      switch (action) {
        case 'switch': {
          const priceId = typeof form.price === 'string' ? form.price : '';
          const price = state.prices.get(priceId);
          if (price === undefined || !price.active) return { status: 400, html: portalPage(portalView(session, null, 'Choose one of the plans listed.')) };
          state.updateSubscription(
            subscription.id,
            { item: { id: state.itemOf(subscription).id, price: price.id }, prorationBehavior: 'always_invoice' },
            NO_REQUEST,
          );
          break;
        }
        case 'cancel':
          state.updateSubscription(subscription.id, { cancelAtPeriodEnd: true }, NO_REQUEST);
          break;
        case 'resume':
          state.updateSubscription(subscription.id, { cancelAtPeriodEnd: false }, NO_REQUEST);
          break;
        case 'advance':
          state.advanceToPeriodEnd(subscription.id);
          break;
        case 'advance-failed':
          state.advanceToPeriodEnd(subscription.id, { paymentSucceeds: false });
          break;
        case 'pay':
          state.payOpenInvoice(subscription.id);
          break;
      }
    } catch (err) {
      // Expected refusals (no open invoice, canceled subscription) are shown; anything else is a bug.
      if (!(err instanceof Error)) throw err;
      if (!(err instanceof StripeApiError)) logger?.warn({ err, action }, 'local stripe: portal action refused');
      return { status: 400, html: portalPage(portalView(session, null, err.message)) };
    }
    return { status: 303, location: `/portal/${encodeURIComponent(session.id)}?done=${action}` };
  }

  return (method, path, query, form) => {
    const match = /^\/(checkout|portal)\/([^/]+)(?:\/([a-z-]+))?\/?$/.exec(path);
    if (!match) return undefined;
    const [, kind, rawId, action] = match;
    const id = decodeURIComponent(rawId!);
    return kind === 'checkout' ? checkout(method, id, action, form) : portal(method, id, action, query, form);
  };
}

/**
 * A URL as a `Location` header value: percent-encodes what a header cannot carry (non-ASCII,
 * spaces), as a browser would before following it. The stored success_url stays as the client
 * sent it, since Stripe echoes it verbatim (with its `{CHECKOUT_SESSION_ID}` template).
 */
function headerSafeUrl(url: string): string {
  return new URL(url).href;
}
