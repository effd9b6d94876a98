import { useState } from 'react';
import { Link } from 'react-router';
import { PLANS, PLAN_IDS, maxAnnualSavingPercent, type PlanId } from '@tradewind/contracts/plans';
import { Faq, faqJsonLd, type FaqItem } from '../components/marketing/Faq';
import {
  allPlans,
  comparisonRows,
  MOST_POPULAR_LABEL,
  MOST_POPULAR_PLAN,
  planCtaHref,
  planCtaLabel,
  planPrice,
  SUBJECT_SOURCES,
  type BillingPeriod,
} from '../lib/pricing';

export { MOST_POPULAR_LABEL, MOST_POPULAR_PLAN };
import { Seo } from '../seo';
import { useAuth } from '../session/session';
import './pricing.css';

/**
 * The pricing page's questions; every figure in them comes from the catalogue.
 * Payment methods: billing creates Stripe Checkout sessions without `payment_method_types`
 * (services/billing/src/service.ts), so Checkout offers the methods enabled in Tradewind's Stripe
 * account that support subscriptions, cards always among them. The answer promises cards only.
 */
export function pricingFaq(): FaqItem[] {
  const { starter, plus, pro } = PLANS;
  return [
    {
      question: `Is the ${starter.name} plan really free?`,
      answer: `Yes. ${starter.name} costs nothing and needs no card: sign in with Google and you get ${starter.subjects.join(' and ')} with ${starter.connections} connection per transport and ${starter.requestsPerMinute.toLocaleString('en-US')} control requests per minute.`,
    },
    {
      question: 'What counts as a connection?',
      answer: `One open WebSocket, or one native NATS connection. The limit is counted per transport: on ${pro.name} you may hold ${pro.connections} WebSocket connections and ${pro.connections} NATS connections at the same time. A connection over the limit is refused with connection_limit.`,
    },
    {
      question: 'What is a control request?',
      answer: 'Authenticating, subscribing, replaying and unsubscribing are control requests. Trade messages you receive are not counted.',
    },
    {
      question: 'What does replay do?',
      answer: `On ${pro.name} you can subscribe from a past time or stream sequence and receive the stored trades, then the live feed, with no gap and no duplicate. History is kept for the TRADES stream's retention (24 hours by default).`,
    },
    {
      question: 'Can I change or cancel my plan?',
      answer: `Yes. Plan changes take effect immediately with proration: a change between ${plus.name} and ${pro.name}, or between monthly and yearly billing, applies at once and the prorated difference is charged or credited on the spot. Manage and cancel in the billing portal linked from your dashboard; a cancellation takes effect at the end of the period you paid for, then you are back on ${starter.name}.`,
    },
    {
      question: 'How do I pay?',
      answer:
        'By credit or debit card, through Stripe Checkout. Depending on your country and device, Checkout may also list other payment methods enabled on our Stripe account. Your payment details go to Stripe and never reach Tradewind.',
    },
    {
      question: `I need more than ${pro.connections} connections.`,
      answer: 'Tell us on the community page what you need: how many connections, which subjects and which transport.',
    },
  ];
}

export default function Pricing() {
  const { status } = useAuth();
  const signedIn = status === 'signed-in';
  const [period, setPeriod] = useState<BillingPeriod>('monthly');
  const maxSaving = maxAnnualSavingPercent();
  const plans = allPlans();
  const rows = comparisonRows(SUBJECT_SOURCES);
  const faq = pricingFaq();

  return (
    <>
      <Seo
        title="Pricing: Starter, Plus and Pro plans"
        description={`Start free with Pump.fun and LetsBonk.fun trades. Plus and Pro add PumpSwap and Raydium CPMM, more connections and replay. Save up to ${maxSaving}% billed yearly.`}
        path="/pricing"
        jsonLd={[faqJsonLd(faq)]}
      />
      <section className="section pricing-hero">
        <div className="container center">
          <h1>Pricing</h1>
          <p className="pricing-lead muted">
            Every plan streams decoded trades over WebSocket and native NATS JetStream. Pick the sources and connections you need.
          </p>
          {maxSaving > 0 ? (
            <p className="pricing-banner" data-testid="pricing-banner">
              Save up to {maxSaving}% with yearly billing
            </p>
          ) : null}
          <div className="pricing-toggle" role="group" aria-label="Billing period">
            <button type="button" aria-pressed={period === 'monthly'} onClick={() => setPeriod('monthly')}>
              Monthly
            </button>
            <button type="button" aria-pressed={period === 'yearly'} onClick={() => setPeriod('yearly')}>
              Annual
            </button>
          </div>
        </div>
      </section>

      <section className="pricing-plans" aria-label="Plans">
        <div className="container">
          <ul className="pricing-cards">
            {plans.map((p) => {
              const price = planPrice(p, period);
              const featured = p.id === MOST_POPULAR_PLAN;
              return (
                <li key={p.id} className={`card pricing-card${featured ? ' pricing-card-featured' : ''}`} data-testid={`plan-${p.id}`}>
                  <h2>{p.name}</h2>
                  {featured ? (
                    <p className="badge pricing-popular" data-testid="most-popular">
                      {MOST_POPULAR_LABEL}
                    </p>
                  ) : null}
                  <p className="pricing-price">
                    <span className="pricing-amount" data-testid={`price-${p.id}`}>
                      {price.perMonth}
                    </span>
                    <span className="muted">/month</span>
                  </p>
                  <p className="pricing-billing muted" data-testid={`billing-${p.id}`}>
                    {price.billedYearly ?? (p.monthlyUsd === 0 ? 'Free, no card needed' : 'billed monthly')}
                  </p>
                  {price.saving ? (
                    <p className="pricing-saving" data-testid={`saving-${p.id}`}>
                      {price.saving}
                    </p>
                  ) : null}
                  <ul className="pricing-features">
                    {p.features.map((f) => (
                      <li key={f}>{f}</li>
                    ))}
                  </ul>
                  <Link
                    to={planCtaHref(p.id, period, signedIn)}
                    className={`btn btn-block ${featured ? 'btn-primary' : 'btn-secondary'}`}
                    data-testid={`cta-${p.id}`}
                    aria-label={`${planCtaLabel(p.id, signedIn)}${p.monthlyUsd > 0 ? `, billed ${period}` : ''}`}
                  >
                    {planCtaLabel(p.id, signedIn)}
                  </Link>
                </li>
              );
            })}
          </ul>
        </div>
      </section>

      <section className="section" aria-labelledby="pricing-compare-title">
        <div className="container">
          <h2 id="pricing-compare-title">Compare plans</h2>
          <div className="table-wrap">
            <table className="pricing-table">
              <caption className="sr-only">What each plan includes</caption>
              <thead>
                <tr>
                  <th scope="col">Feature</th>
                  {PLAN_IDS.map((id) => (
                    <th key={id} scope="col">
                      {PLANS[id].name}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.label}>
                    <th scope="row">{r.label}</th>
                    {r.cells.map((cell, i) => (
                      <td key={PLAN_IDS[i]}>{cell}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="pricing-more-title">
        <div className="container container-narrow center">
          <h2 id="pricing-more-title">Need More Connections?</h2>
          <p>
            {PLANS.pro.name} allows {PLANS.pro.connections} concurrent connections per transport. If your system needs more, tell us what you are building and
            we will work out a plan with you.
          </p>
          <Link to="/community" className="btn btn-secondary">
            Contact us on the community page
          </Link>
        </div>
      </section>

      <section className="section" aria-labelledby="pricing-faq-title">
        <div className="container container-narrow">
          <h2 id="pricing-faq-title">Frequently asked questions</h2>
          <Faq items={faq} />
        </div>
      </section>
    </>
  );
}
