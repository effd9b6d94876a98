import { fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { User } from '../src/api';
import { DASHBOARD_LINKS, Header, NAV } from '../src/components/Layout';
import { PUBLIC_PATHS } from '../src/route-paths';
import { StaticAuthProvider } from '../src/session/session';
import { STREAM_ARTICLE_PATHS } from '../src/site';

const ADA: User = {
  id: '7d3b2c1e-0000-4000-8000-000000000001',
  email: 'ada.lovelace@example.com',
  name: 'Ada',
  avatar_url: null,
  plan: 'plus',
  metadata: { tier: 'plus', billing_period: 'monthly', subscription_status: 'active', subscription_type: 'paid', trial_end_date: null },
  created_at: '2026-11-21T10:00:00.000Z',
};

function renderHeader(user: User | null = null) {
  return render(
    <MemoryRouter>
      <StaticAuthProvider user={user}>
        <Header />
      </StaticAuthProvider>
    </MemoryRouter>,
  );
}

function mainNav() {
  return within(screen.getByRole('navigation', { name: 'Main' }));
}

describe('Header', () => {
  it('when signed out, then it shows "Sign In" to /login and "Get Started" to /pricing, and no user menu', () => {
    renderHeader();
    expect(screen.getByRole('link', { name: 'Sign In' }).getAttribute('href')).toBe('/login');
    expect(screen.getByRole('link', { name: 'Get Started' }).getAttribute('href')).toBe('/pricing');
    expect(screen.queryByTestId('user-display-name')).toBeNull();
  });

  it('when the mobile menu opens signed out, then it offers the same Sign In (/login) and Get Started (/pricing)', () => {
    renderHeader();
    fireEvent.click(screen.getByRole('button', { name: 'Open menu' }));
    const mobile = document.getElementById('mobile-menu')!;
    expect(mobile.hidden).toBe(false);
    expect(within(mobile).getByRole('link', { name: 'Sign In' }).getAttribute('href')).toBe('/login');
    expect(within(mobile).getByRole('link', { name: 'Get Started' }).getAttribute('href')).toBe('/pricing');
  });

  it('when the header renders, then the nav has "Pump.fun Stream" and "Letsbonk.fun Stream", leading to existing public pages', () => {
    renderHeader();
    const pump = mainNav().getByRole('link', { name: 'Pump.fun Stream' });
    const bonk = mainNav().getByRole('link', { name: 'Letsbonk.fun Stream' });
    expect(pump.getAttribute('href')).toBe('/pump-fun-api');
    expect(bonk.getAttribute('href')).toBe('/letsbonk-fun-api');
    expect(STREAM_ARTICLE_PATHS).toEqual({ pumpFun: pump.getAttribute('href'), letsBonk: bonk.getAttribute('href') });
    // No placeholder routes: every nav target is a prerendered public page.
    for (const entry of NAV) expect(PUBLIC_PATHS, entry.label).toContain(entry.to);
  });

  it('when signed in, then the user menu shows the name and plan label, the four dashboard links and Sign out', () => {
    renderHeader(ADA);
    expect(screen.queryByRole('link', { name: 'Sign In' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Get Started' })).toBeNull();
    expect(screen.getByTestId('user-display-name').textContent).toBe('Ada');
    expect(screen.getByTestId('user-plan-label').textContent).toBe('Plus plan');
    fireEvent.click(screen.getByRole('button', { name: /Ada/ }));
    const menu = screen.getByRole('menu', { name: 'Account' });
    const items = within(menu).getAllByRole('menuitem');
    expect(items.map((i) => [i.textContent, i.getAttribute('href')])).toEqual([
      ['Dashboard', '/dashboard'],
      ['Plan', '/dashboard/plan'],
      ['Docs', '/dashboard/docs'],
      ['Settings', '/dashboard/settings'],
      ['Sign out', null],
    ]);
    expect(DASHBOARD_LINKS).toHaveLength(4);
  });

  it('when the user has no name, then the menu shows the part of the e-mail before the @, else "User"; no plan reads Starter', () => {
    const { unmount } = renderHeader({ ...ADA, name: null, plan: null as unknown as User['plan'] });
    expect(screen.getByTestId('user-display-name').textContent).toBe('ada.lovelace');
    expect(screen.getByTestId('user-plan-label').textContent).toBe('Starter plan');
    unmount();
    renderHeader({ ...ADA, name: '  ', email: null as unknown as string });
    expect(screen.getByTestId('user-display-name').textContent).toBe('User');
  });

  it('when the mobile menu opens signed in, then it lists the four dashboard links', () => {
    renderHeader(ADA);
    fireEvent.click(screen.getByRole('button', { name: 'Open menu' }));
    const mobile = within(screen.getByRole('navigation', { name: 'Mobile' }));
    for (const l of DASHBOARD_LINKS) expect(mobile.getByRole('link', { name: l.label }).getAttribute('href')).toBe(l.to);
    expect(mobile.queryByRole('link', { name: 'Sign In' })).toBeNull();
  });
});
