/**
 * Public surface of the local Stripe stand-in ("local Stripe"): an in-process HTTP server that
 * speaks the subset of the Stripe v1 API billing uses (API version 2026-10-28.endive), serves
 * labelled test Checkout and billing-portal pages, and delivers signed webhooks. Started by billing
 * when no STRIPE_SECRET_KEY is configured, and by the integration tests on port 0.
 */
export { startLocalStripe, type LocalStripe, type LocalStripeOptions } from './server.js';
export { CHECKOUT_LABEL, PORTAL_LABEL } from './pages.js';
