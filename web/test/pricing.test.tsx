import { fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { PLANS, annualSavingPercent, annualTotalUsd, maxAnnualSavingPercent } from '@tradewind/contracts/plans';
import type { User } from '../src/api';
import { comparisonRows, formatUsd, planCtaHref, planPrice, SUBJECT_SOURCES } from '../src/lib/pricing';
import Pricing, { pricingFaq } from '../src/pages/Pricing';
import { StaticAuthProvider } from '../src/session/session';

const USER: User = {
  id: '7d3b2c1e-0000-4000-8000-000000000001',
  email: 'ada@example.com',
  name: 'Ada',
  avatar_url: null,
  plan: 'starter',
  metadata: { tier: 'starter', billing_period: 'indefinite', subscription_status: 'active', subscription_type: 'free', trial_end_date: null },
  created_at: '2026-11-21T10:00:00.000Z',
};

function renderPricing(user: User | null = null) {
  return render(
    <MemoryRouter>
      <StaticAuthProvider user={user}>
        <Pricing />
      </StaticAuthProvider>
    </MemoryRouter>,
  );
}

const href = (id: string) => screen.getByTestId(`cta-${id}`).getAttribute('href');

describe('pricing helpers', () => {
  it('the catalogue gives the savings the page shows', () => {
    // Plus 15 → 12 (20 %), Pro 35 → 28 (20 %): checked against the catalogue, not typed prices.
    expect(annualSavingPercent(PLANS.plus)).toBe(20);
    expect(annualSavingPercent(PLANS.pro)).toBe(20);
    expect(maxAnnualSavingPercent()).toBe(20);
  });
  it('planPrice: monthly and yearly lines', () => {
    expect(planPrice(PLANS.plus, 'monthly')).toEqual({ perMonth: '$15', billedYearly: null, saving: null });
    expect(planPrice(PLANS.plus, 'yearly')).toEqual({ perMonth: '$12', billedYearly: 'billed $144 yearly', saving: 'Save 20%' });
    expect(planPrice(PLANS.pro, 'yearly')).toEqual({ perMonth: '$28', billedYearly: 'billed $336 yearly', saving: 'Save 20%' });
    expect(planPrice(PLANS.starter, 'yearly')).toEqual({ perMonth: '$0', billedYearly: null, saving: null });
  });
  it('formatUsd', () => {
    expect(formatUsd(0)).toBe('$0');
    expect(formatUsd(336)).toBe('$336');
    expect(formatUsd(12.5)).toBe('$12.50');
  });
  it('planCtaHref per plan, period and sign-in state', () => {
    expect(planCtaHref('starter', 'yearly', false)).toBe('/login');
    expect(planCtaHref('starter', 'monthly', true)).toBe('/dashboard');
    expect(planCtaHref('plus', 'monthly', false)).toBe('/login?tier=plus&period=monthly');
    expect(planCtaHref('pro', 'yearly', true)).toBe('/payment?tier=pro&period=yearly');
  });
  it('comparison rows come from the catalogue', () => {
    const rows = comparisonRows(SUBJECT_SOURCES);
    const byLabel = Object.fromEntries(rows.map((r) => [r.label, r.cells]));
    expect(byLabel['Concurrent connections per transport']).toEqual(['1', '1', '5']);
    expect(byLabel['Control requests per minute']).toEqual(['100', '1,000', '10,000']);
    expect(byLabel['Replay of trade history']).toEqual(['Not included', 'Not included', 'Included']);
    expect(byLabel['PumpSwap (premium.pumpswap)']).toEqual(['Not included', 'Included', 'Included']);
    expect(byLabel['Pump.fun (basic.pumpfun)']).toEqual(['Included', 'Included', 'Included']);
    expect(byLabel['Transports']).toEqual(Array(3).fill('WebSocket and native NATS JetStream'));
  });
});

describe('Pricing page', () => {
  it('shows the banner from maxAnnualSavingPercent()', () => {
    renderPricing();
    expect(screen.getByTestId('pricing-banner').textContent).toBe(`Save up to ${maxAnnualSavingPercent()}% with yearly billing`);
    expect(screen.getByTestId('pricing-banner').textContent).toBe('Save up to 20% with yearly billing');
    expect(screen.getAllByRole('heading', { level: 1 })).toHaveLength(1);
  });

  it('monthly prices by default, no savings shown', () => {
    renderPricing();
    expect(screen.getByRole('button', { name: 'Monthly' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByTestId('price-starter').textContent).toBe('$0');
    expect(screen.getByTestId('price-plus').textContent).toBe(`$${PLANS.plus.monthlyUsd}`);
    expect(screen.getByTestId('price-pro').textContent).toBe('$35');
    expect(screen.getByTestId('billing-plus').textContent).toBe('billed monthly');
    expect(screen.queryByTestId('saving-plus')).toBeNull();
    expect(screen.queryByTestId('saving-pro')).toBeNull();
  });

  it('annual prices with yearly total and saving per plan', () => {
    renderPricing();
    fireEvent.click(screen.getByRole('button', { name: 'Annual' }));
    expect(screen.getByRole('button', { name: 'Annual' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByTestId('price-plus').textContent).toBe('$12');
    expect(screen.getByTestId('billing-plus').textContent).toBe('billed $144 yearly');
    expect(screen.getByTestId('saving-plus').textContent).toBe('Save 20%');
    expect(screen.getByTestId('price-pro').textContent).toBe('$28');
    expect(screen.getByTestId('billing-pro').textContent).toBe(`billed $${annualTotalUsd(PLANS.pro)} yearly`);
    expect(screen.getByTestId('saving-pro').textContent).toBe('Save 20%');
    expect(screen.getByTestId('price-starter').textContent).toBe('$0');
    expect(screen.queryByTestId('saving-starter')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Monthly' }));
    expect(screen.getByTestId('price-plus').textContent).toBe('$15');
    expect(screen.queryByTestId('saving-plus')).toBeNull();
  });

  it('signed out: buttons lead to sign-in with tier and period', () => {
    renderPricing();
    expect(href('starter')).toBe('/login');
    expect(href('plus')).toBe('/login?tier=plus&period=monthly');
    expect(href('pro')).toBe('/login?tier=pro&period=monthly');
    fireEvent.click(screen.getByRole('button', { name: 'Annual' }));
    expect(href('starter')).toBe('/login');
    expect(href('plus')).toBe('/login?tier=plus&period=yearly');
    expect(href('pro')).toBe('/login?tier=pro&period=yearly');
    expect(screen.getByTestId('cta-plus').textContent).toBe('Choose Plus');
  });

  it('signed in: buttons lead to payment with tier and period, Starter to the dashboard', () => {
    renderPricing(USER);
    expect(href('starter')).toBe('/dashboard');
    expect(href('plus')).toBe('/payment?tier=plus&period=monthly');
    expect(href('pro')).toBe('/payment?tier=pro&period=monthly');
    fireEvent.click(screen.getByRole('button', { name: 'Annual' }));
    expect(href('plus')).toBe('/payment?tier=plus&period=yearly');
    expect(href('pro')).toBe('/payment?tier=pro&period=yearly');
    expect(screen.getByTestId('cta-starter').textContent).toBe('Open dashboard');
  });

  it('has the comparison table and a "Need More Connections?" link to /community', () => {
    renderPricing();
    const table = screen.getByRole('table');
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(headers).toEqual(['Feature', 'Starter', 'Plus', 'Pro']);
    const conn = within(table).getByRole('rowheader', { name: 'Concurrent connections per transport' }).closest('tr')!;
    expect(
      within(conn)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['1', '1', '5']);
    screen.getByRole('heading', { name: 'Need More Connections?' });
    expect(screen.getByRole('link', { name: 'Contact us on the community page' }).getAttribute('href')).toBe('/community');
  });

  it('FAQ disclosures toggle aria-expanded and their answer', () => {
    renderPricing();
    const q = screen.getByRole('button', { name: /What counts as a connection/ });
    expect(q.getAttribute('aria-expanded')).toBe('false');
    const answer = document.getElementById(q.getAttribute('aria-controls')!)!;
    expect(answer.hidden).toBe(true);
    fireEvent.click(q);
    expect(q.getAttribute('aria-expanded')).toBe('true');
    expect(answer.hidden).toBe(false);
    expect(answer.textContent).toContain('5 WebSocket connections and 5 NATS connections');
    fireEvent.click(q);
    expect(answer.hidden).toBe(true);
  });

  it('when the page renders, then the Pro card, and only it, is marked "Most Popular"', () => {
    renderPricing();
    expect(within(screen.getByTestId('plan-pro')).getByTestId('most-popular').textContent).toBe('Most Popular');
    expect(screen.getAllByTestId('most-popular')).toHaveLength(1);
    expect(screen.getByTestId('plan-pro').className).toContain('pricing-card-featured');
    expect(screen.getByTestId('plan-plus').className).not.toContain('pricing-card-featured');
  });

  it('when the catalogue is read, then the banner says "Save up to 20%" (the largest rounded (monthly − yearly) / monthly)', () => {
    renderPricing();
    const largest = Math.max(
      ...Object.values(PLANS).map((p) => (p.monthlyUsd === 0 ? 0 : Math.round(((p.monthlyUsd - p.annualMonthlyUsd) / p.monthlyUsd) * 100))),
    );
    expect(largest).toBe(20);
    expect(screen.getByTestId('pricing-banner').textContent!.startsWith('Save up to 20%')).toBe(true);
  });

  it('when the FAQ is read, then plan changes are immediate with proration and payment promises cards only', () => {
    const faq = pricingFaq();
    const change = faq.find((f) => f.question === 'Can I change or cancel my plan?')!;
    expect(change.answer).toContain('Plan changes take effect immediately with proration');
    const pay = faq.find((f) => f.question === 'How do I pay?')!;
    expect(pay.answer).toContain('By credit or debit card, through Stripe Checkout');
    expect(pay.answer).not.toMatch(/paypal|crypto|bitcoin/i);
  });

  it('when Annual is chosen, then each paid plan shows its annual total as the annual monthly price × 12', () => {
    renderPricing();
    fireEvent.click(screen.getByRole('button', { name: 'Annual' }));
    expect(screen.getByTestId('billing-plus').textContent).toBe(`billed $${PLANS.plus.annualMonthlyUsd * 12} yearly`);
    expect(screen.getByTestId('billing-pro').textContent).toBe('billed $336 yearly');
  });

  it('publishes the FAQ as FAQPage structured data', () => {
    renderPricing();
    const scripts = Array.from(document.head.querySelectorAll('script[data-route-jsonld]'));
    const faq = scripts.map((s) => JSON.parse(s.textContent!)).find((o) => o['@type'] === 'FAQPage');
    expect(faq.mainEntity).toHaveLength(pricingFaq().length);
    expect(faq.mainEntity[0].name).toBe('Is the Starter plan really free?');
    expect(document.title).toBe('Pricing: Starter, Plus and Pro plans | Tradewind');
  });
});
