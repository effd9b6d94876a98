import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { ComponentType } from 'react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PLANS } from '@tradewind/contracts/plans';
import type { User } from '../src/api';
import { STARTER_TEMPLATES } from '../src/content/templates';
import Community, { communityChannels, communityFaq } from '../src/pages/Community';
import { THEME_STORAGE_KEY } from '../src/theme';
import { SIDEBAR_STORAGE_KEY } from '../src/pages/dashboard/DashboardLayout';
import HowItWorks, { websocketSample } from '../src/pages/HowItWorks';
import Privacy from '../src/pages/Privacy';
import Terms from '../src/pages/Terms';
import { StaticAuthProvider } from '../src/session/session';
import { SITE } from '../src/site';

const USER: User = {
  id: '7d3b2c1e-0000-4000-8000-000000000001',
  email: 'ada@example.com',
  name: 'Ada',
  avatar_url: null,
  plan: 'starter',
  metadata: { tier: 'starter', billing_period: 'indefinite', subscription_status: 'active', subscription_type: 'free', trial_end_date: null },
  created_at: '2026-11-21T10:00:00.000Z',
};

function renderPage(Page: ComponentType, user: User | null = null) {
  return render(
    <MemoryRouter>
      <StaticAuthProvider user={user}>
        <Page />
      </StaticAuthProvider>
    </MemoryRouter>,
  );
}

function jsonLd(): Array<Record<string, unknown>> {
  return Array.from(document.head.querySelectorAll('script[data-route-jsonld]')).map((s) => JSON.parse(s.textContent!));
}

function canonical(): string | null {
  return document.head.querySelector<HTMLLinkElement>('link[rel="canonical"]')?.getAttribute('href') ?? null;
}

describe('How it works', () => {
  it('three steps, in order', () => {
    renderPage(HowItWorks);
    expect(screen.getAllByRole('heading', { level: 1 })).toHaveLength(1);
    const steps = screen
      .getAllByRole('heading', { level: 2 })
      .slice(0, 3)
      .map((h) => h.textContent);
    expect(steps).toEqual(['Step 1: Sign in with Google', 'Step 2: Get your JWT and NKey in the dashboard', 'Step 3: Connect and subscribe']);
  });

  it('the three starter templates with their run command and file links', () => {
    renderPage(HowItWorks);
    expect(STARTER_TEMPLATES).toHaveLength(3);
    for (const t of STARTER_TEMPLATES) {
      const card = screen.getByRole('heading', { name: t.title, level: 3 }).closest('li')!;
      expect(within(card).getByText(t.summary)).toBeTruthy();
      expect(within(card).getByText(t.transport)).toBeTruthy();
      expect(within(card).getByText(t.run)).toBeTruthy();
      const links = within(card)
        .getAllByRole('link')
        .map((a) => a.getAttribute('href'));
      expect(links).toEqual(t.files.map((f) => `/${f}`));
    }
  });

  it('the WebSocket sample follows docs/websocket.md', () => {
    const code = websocketSample('ws://localhost:9223');
    expect(code).toContain("new WebSocket('ws://localhost:9223')");
    expect(code).toContain("msg.type === 'challenge'");
    expect(code).toContain('ws.send(JSON.stringify({ jwt: JWT, nkey: NKEY }))');
    expect(code).toContain("msg.type === 'authenticated'");
    expect(code).toContain("ws.send(JSON.stringify({ subject: 'basic.pumpfun' }))");
    expect(code).toContain('msg.type === undefined');
    // Authentication is sent before subscribing, and only after the server's answer.
    expect(code.indexOf('jwt: JWT')).toBeLessThan(code.indexOf("msg.type === 'authenticated'"));
    expect(code.indexOf("msg.type === 'authenticated'")).toBeLessThan(code.indexOf("subject: 'basic.pumpfun'"));
    renderPage(HowItWorks);
    expect(screen.getByLabelText('WebSocket example in JavaScript').textContent).toBe(websocketSample(SITE.wsUrl));
  });

  it('dashboard features and a link to /login when signed out', () => {
    renderPage(HowItWorks);
    for (const f of ['Connection details with copy', 'Plan and billing portal', 'API documentation', 'Credential rotation', 'Settings']) {
      expect(screen.getByRole('heading', { name: f, level: 3 })).toBeTruthy();
    }
    expect(screen.getByRole('link', { name: 'Sign in with Google' }).getAttribute('href')).toBe('/login');
  });

  it('signed in, the call to action opens the dashboard', () => {
    renderPage(HowItWorks, USER);
    expect(screen.queryByRole('link', { name: 'Sign in with Google' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Open your dashboard' }).getAttribute('href')).toBe('/dashboard');
  });

  it('has its own title and canonical path', async () => {
    renderPage(HowItWorks);
    await waitFor(() => expect(document.title).toBe('How it works: from sign-in to your first decoded trade | Tradewind'));
    expect(canonical()).toBe(`${SITE.url}/how-it-works`);
  });
});

describe('Community', () => {
  it('without configured invites, the cards say so and link nowhere', () => {
    expect(SITE.discordUrl).toBeUndefined();
    expect(SITE.telegramUrl).toBeUndefined();
    renderPage(Community);
    expect(screen.getByTestId('channel-discord').textContent).toContain('The Discord invite is not published for this deployment.');
    expect(screen.getByTestId('channel-telegram').textContent).toContain('The Telegram invite is not published for this deployment.');
    expect(within(screen.getByTestId('channel-discord')).queryByRole('link')).toBeNull();
  });

  it('states the spec response times (Telegram under 30 minutes, Discord under 1 hour) on each card and as targets', () => {
    renderPage(Community);
    expect(screen.getByTestId('response-telegram').textContent).toBe('Response time: under 30 minutes');
    expect(screen.getByTestId('response-discord').textContent).toBe('Response time: under 1 hour');
    const section = screen.getByRole('region', { name: 'Response times' });
    expect(section.textContent).toContain('These are our targets for a first answer, not contractual guarantees');
    expect(section.textContent).toContain('Telegram: under 30 minutes.');
    expect(section.textContent).toContain('Discord: under 1 hour.');
  });

  it('each channel card lists its features (the spec channel fields: name, description, link, features, responseTime)', () => {
    renderPage(Community);
    for (const c of communityChannels()) {
      const card = screen.getByTestId(`channel-${c.name.toLowerCase()}`);
      expect(c.features.length).toBeGreaterThan(0);
      for (const f of c.features) expect(within(card).getByText(f).tagName).toBe('LI');
    }
  });

  it('explains how to ask for more than Pro allows', () => {
    renderPage(Community);
    const section = screen.getByRole('region', { name: 'Need more connections?' });
    expect(section.textContent).toContain(`${PLANS.pro.name} allows ${PLANS.pro.connections} concurrent connections per transport`);
    expect(section.id).toBe('more-connections');
  });

  it('FAQ disclosures and FAQPage structured data', async () => {
    renderPage(Community);
    const q = screen.getByRole('button', { name: /Is the community free/ });
    expect(q.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(q);
    expect(q.getAttribute('aria-expanded')).toBe('true');
    await waitFor(() => expect(jsonLd().some((o) => o['@type'] === 'FAQPage')).toBe(true));
    const faq = jsonLd().find((o) => o['@type'] === 'FAQPage') as { mainEntity: { name: string }[] };
    expect(faq.mainEntity.map((m) => m.name)).toEqual(communityFaq().map((f) => f.question));
    expect(document.title).toBe('Community and support | Tradewind');
  });
});

describe('Community with configured links', () => {
  afterEach(() => {
    vi.doUnmock('../src/site');
    vi.resetModules();
  });

  it('links the configured Discord and Telegram invites', async () => {
    vi.resetModules();
    vi.doMock('../src/site', async (importOriginal) => {
      const real = await importOriginal<typeof import('../src/site')>();
      return {
        ...real,
        SITE: { ...real.SITE, discordUrl: 'https://discord.example/invite', telegramUrl: 'https://t.example/tw', supportEmail: 'help@example.org' },
      };
    });
    const { default: Page } = await import('../src/pages/Community');
    const { StaticAuthProvider: Provider } = await import('../src/session/session');
    render(
      <MemoryRouter>
        <Provider>
          <Page />
        </Provider>
      </MemoryRouter>,
    );
    expect(screen.getByRole('link', { name: /Join us on Discord/ }).getAttribute('href')).toBe('https://discord.example/invite');
    expect(screen.getByRole('link', { name: /Join us on Telegram/ }).getAttribute('href')).toBe('https://t.example/tw');
    expect(screen.queryByText(/not published for this deployment/)).toBeNull();
    expect(screen.getAllByRole('link', { name: 'help@example.org' })[0]!.getAttribute('href')).toBe('mailto:help@example.org');
  });
});

describe('Privacy and Terms', () => {
  it('privacy: dated, names the real cookies and storage, and what is stored', () => {
    renderPage(Privacy);
    expect(screen.getAllByRole('heading', { level: 1 })).toHaveLength(1);
    expect(screen.getByText('29 November 2026').getAttribute('datetime')).toBe('2026-11-29');
    const text = document.body.textContent!;
    // Every localStorage key the app writes is named (theme, dashboard sidebar).
    for (const key of [THEME_STORAGE_KEY, SIDEBAR_STORAGE_KEY]) expect(text).toContain(key);
    for (const s of ['Stay Updated', 'newest 200', 'one-click unsubscribe link', 'kept until you unsubscribe']) expect(text).toContain(s);
    for (const s of [
      'tw_refresh',
      'tw_oauth_state',
      'tw-theme',
      'Stripe',
      'your card details never reach Tradewind',
      'encrypted at rest',
      'never written to a log',
      'Service logs never contain secrets',
      'public on-chain Solana data',
    ]) {
      expect(text).toContain(s);
    }
    for (const s of ['name', 'e-mail address', 'profile picture']) expect(text).toContain(s);
  });

  it('without a support address, the contact is the community page', () => {
    expect(SITE.supportEmail).toBeUndefined();
    renderPage(Privacy);
    const links = screen.getAllByRole('link', { name: 'our community and support page' });
    expect(links.length).toBeGreaterThan(0);
    for (const a of links) expect(a.getAttribute('href')).toBe('/community');
    expect(screen.queryByRole('link', { name: /@/ })).toBeNull();
  });

  it('terms: plans from the catalogue, Stripe proration and cancellation at period end, as-is data', async () => {
    renderPage(Terms);
    const table = screen.getByRole('table');
    const pro = within(table).getByRole('rowheader', { name: 'Pro' }).closest('tr')!;
    expect(
      within(pro)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['$35/month, or $336/year billed yearly', 'basic.pumpfun, basic.bonk, premium.pumpswap, premium.raydium', '5', '10,000', 'Yes']);
    const text = document.body.textContent!;
    for (const s of ['prorated difference', 'end of the period', 'as-is', 'is financial advice', 'Replay data is labelled', 'Fair use of connections']) {
      expect(text).toContain(s);
    }
    expect(screen.getByText('21 November 2026').getAttribute('datetime')).toBe('2026-11-21');
    await waitFor(() => expect(document.title).toBe('Terms of Service | Tradewind'));
    expect(canonical()).toBe(`${SITE.url}/terms`);
  });
});
