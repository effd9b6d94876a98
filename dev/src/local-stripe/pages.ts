/**
 * HTML of the local Stripe stand-in's hosted pages: Checkout ("Test checkout — no real payment")
 * and the billing portal ("Test billing portal — no real payment"). Server-rendered, no scripts,
 * no external assets, a little inline CSS; every interpolated value goes through `escapeHtml`.
 * The labels are fixed strings so nobody mistakes the pages for Stripe's real ones.
 */

/** The title and banner text of the hosted Checkout page. */
export const CHECKOUT_LABEL = 'Test checkout — no real payment';
/** The title and banner text of the hosted billing portal page. */
export const PORTAL_LABEL = 'Test billing portal — no real payment';

/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f6f8fa;color:#1a1f36;line-height:1.5}
.banner{background:#ffd43b;color:#1a1f36;font-weight:700;text-align:center;padding:.75rem 1rem;border-bottom:2px solid #e0a800}
main{max-width:34rem;margin:2rem auto;background:#fff;border:1px solid #d8dee4;border-radius:8px;padding:1.5rem 2rem}
h1{font-size:1.4rem;margin:.2rem 0 1rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0 0 1rem}dt{color:#57606a}dd{margin:0}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}input[type=email]{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #8c959f;border-radius:6px}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:6px;border:1px solid #0550ae;background:#0969da;color:#fff;cursor:pointer;margin:.25rem 0}
button.secondary{background:#fff;color:#0969da}button:focus-visible,a:focus-visible{outline:3px solid #fb8500;outline-offset:2px}
form.inline{display:inline}.notice{background:#dafbe1;border:1px solid #4ac26b;padding:.5rem .75rem;border-radius:6px}
.error{background:#ffebe9;border:1px solid #ff8182;padding:.5rem .75rem;border-radius:6px}
.simulation{border:2px dashed #bf8700;border-radius:8px;padding:.5rem 1rem;margin-top:1.5rem}.muted{color:#57606a;font-size:.9rem}
a{color:#0969da}
`;

/** The page frame: `lang`, title, the yellow label banner, one `<main>`. `body` must already be escaped HTML. */
function layout(label: string, heading: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(label)}</title>
<style>${CSS}</style>
</head>
<body>
<div class="banner" role="note">${escapeHtml(label)}</div>
<main>
<h1>${escapeHtml(heading)}</h1>
${body}
</main>
</body>
</html>
`;
}

/** What the open Checkout page shows. Amounts are preformatted ("$15.00 / month"). */
export interface CheckoutView {
  sessionId: string;
  productName: string;
  priceLabel: string;
  quantity: number;
  totalLabel: string;
  /** The customer's e-mail, or null when the page must ask for one. */
  email: string | null;
  cancelUrl: string | null;
}

/** The open session: plan, e-mail, "Pay $15.00 (test card)" (POST /checkout/:id/pay) and "Cancel and go back". */
export function checkoutPage(view: CheckoutView): string {
  const emailBlock =
    view.email === null
      ? `<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required>`
      : `<dl><dt>Email</dt><dd>${escapeHtml(view.email)}</dd></dl>`;
  const cancel = view.cancelUrl === null ? '' : `<p><a href="${escapeHtml(view.cancelUrl)}">Cancel and go back</a></p>`;
  return layout(
    CHECKOUT_LABEL,
    `Subscribe to ${view.productName}`,
    `<dl>
<dt>Plan</dt><dd>${escapeHtml(view.productName)}</dd>
<dt>Price</dt><dd>${escapeHtml(view.priceLabel)}</dd>
${view.quantity > 1 ? `<dt>Quantity</dt><dd>${escapeHtml(view.quantity)}</dd>\n` : ''}<dt>Due today</dt><dd>${escapeHtml(view.totalLabel)}</dd>
</dl>
<form method="post" action="/checkout/${escapeHtml(encodeURIComponent(view.sessionId))}/pay">
${emailBlock}
<p class="muted">Payment uses the test card 4242 4242 4242 4242. Nothing is charged: this is a local stand-in for Stripe Checkout.</p>
<button type="submit">Pay ${escapeHtml(view.totalLabel)} (test card)</button>
</form>
${cancel}`,
  );
}

/** A session that can no longer be paid: completed (link to the success URL) or expired (link to the cancel URL). */
export function checkoutClosedPage(view: { status: 'complete' | 'expired'; successUrl: string | null; cancelUrl: string | null }): string {
  if (view.status === 'complete') {
    const link = view.successUrl === null ? '' : `<p><a href="${escapeHtml(view.successUrl)}">Continue</a></p>`;
    return layout(CHECKOUT_LABEL, 'This checkout is already complete', `<p>The subscription was created; there is nothing left to pay.</p>\n${link}`);
  }
  const link = view.cancelUrl === null ? '' : `<p><a href="${escapeHtml(view.cancelUrl)}">Go back</a></p>`;
  return layout(
    CHECKOUT_LABEL,
    'This checkout has expired',
    `<p>The checkout session expired before it was paid. Start a new checkout to subscribe.</p>\n${link}`,
  );
}

/** The customer's current subscription as the portal shows it (dates preformatted). */
export interface PortalSubscriptionView {
  id: string;
  productName: string;
  priceLabel: string;
  status: string;
  periodStart: string;
  periodEnd: string;
  /** Next charge date, or null when the subscription ends at the period end. */
  nextBillingDate: string | null;
  cancelAtPeriodEnd: boolean;
  /** Amount of the open (unpaid) invoices, e.g. "$15.00", or null when none. */
  openInvoiceAmount: string | null;
}

/** Everything on the portal page. */
export interface PortalView {
  portalId: string;
  customerEmail: string | null;
  returnUrl: string | null;
  subscription: PortalSubscriptionView | null;
  /** Other paid prices to switch to. */
  switchOptions: Array<{ priceId: string; label: string }>;
  /** A fixed confirmation line after an action, or null. */
  notice: string | null;
  /** An error line (already a plain sentence), or null. */
  error: string | null;
}

/** The portal: subscription details, switch/cancel/resume forms, a "Test clock" simulation section, a return link. */
export function portalPage(view: PortalView): string {
  const base = `/portal/${encodeURIComponent(view.portalId)}`;
  const action = (name: string, label: string, secondary = false, fields = ''): string =>
    `<form class="inline" method="post" action="${escapeHtml(`${base}/${name}`)}">${view.subscription ? `<input type="hidden" name="subscription" value="${escapeHtml(view.subscription.id)}">` : ''}${fields}<button type="submit"${secondary ? ' class="secondary"' : ''}>${escapeHtml(label)}</button></form>`;
  const parts: string[] = [];
  if (view.notice !== null) parts.push(`<p class="notice" role="status">${escapeHtml(view.notice)}</p>`);
  if (view.error !== null) parts.push(`<p class="error" role="alert">${escapeHtml(view.error)}</p>`);
  if (view.customerEmail !== null) parts.push(`<p class="muted">Signed in as ${escapeHtml(view.customerEmail)}</p>`);
  const sub = view.subscription;
  if (sub === null) {
    parts.push('<p>You have no active subscription.</p>');
  } else {
    parts.push(`<h2>Current plan</h2>
<dl>
<dt>Plan</dt><dd>${escapeHtml(sub.productName)} — ${escapeHtml(sub.priceLabel)}</dd>
<dt>Status</dt><dd>${escapeHtml(sub.status)}</dd>
<dt>Current period</dt><dd>${escapeHtml(sub.periodStart)} – ${escapeHtml(sub.periodEnd)}</dd>
<dt>${sub.cancelAtPeriodEnd ? 'Ends on' : 'Next billing date'}</dt><dd>${escapeHtml(sub.nextBillingDate ?? sub.periodEnd)}</dd>
<dt>Cancels at period end</dt><dd>${sub.cancelAtPeriodEnd ? 'yes' : 'no'}</dd>
${sub.openInvoiceAmount !== null ? `<dt>Unpaid</dt><dd>${escapeHtml(sub.openInvoiceAmount)}</dd>\n` : ''}</dl>`);
    if (view.switchOptions.length > 0) {
      parts.push(`<h2>Change plan</h2>
<p class="muted">Takes effect now; the difference for the rest of the period is charged or credited at once (prorated).</p>
<ul>
${view.switchOptions.map((o) => `<li>${action('switch', `Switch to ${o.label}`, true, `<input type="hidden" name="price" value="${escapeHtml(o.priceId)}">`)}</li>`).join('\n')}
</ul>`);
    }
    parts.push(`<h2>Cancel</h2>
${
  sub.cancelAtPeriodEnd
    ? `<p>Your plan ends on ${escapeHtml(sub.periodEnd)}.</p>\n${action('resume', 'Keep my subscription')}`
    : `<p>Cancel at the end of the current period (${escapeHtml(sub.periodEnd)}).</p>\n${action('cancel', 'Cancel subscription', true)}`
}`);
    parts.push(`<section class="simulation" aria-labelledby="test-clock">
<h2 id="test-clock">Test clock (simulation)</h2>
<p class="muted">Simulates time passing for this subscription only. No real time passes and nothing is charged.</p>
<p>${action('advance', 'Advance to period end (renewal succeeds)', true)}</p>
<p>${action('advance-failed', 'Advance to period end (renewal payment fails)', true)}</p>
${sub.openInvoiceAmount !== null ? `<p>${action('pay', `Pay the open invoice (${sub.openInvoiceAmount}) with an updated card`)}</p>` : ''}
</section>`);
  }
  if (view.returnUrl !== null) parts.push(`<p><a href="${escapeHtml(view.returnUrl)}">Return to Tradewind</a></p>`);
  return layout(PORTAL_LABEL, 'Manage your subscription', parts.join('\n'));
}

/** A plain message page under the given label (unknown ids, errors). */
export function messagePage(label: string, heading: string, message: string, link?: { href: string; text: string }): string {
  return layout(label, heading, `<p>${escapeHtml(message)}</p>${link ? `\n<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>` : ''}`);
}
