import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PLANS, PLAN_IDS, cheapestPlanFor } from '@tradewind/contracts/plans';
import type { User } from '../src/api';
import { WS_CONTROL_MESSAGES, WS_ERROR_CODES } from '../src/content/api-reference';
import { STARTER_TEMPLATES, templateFileUrl } from '../src/content/templates';
import Docs, { schemaSectionId } from '../src/pages/dashboard/Docs';
import { StaticAuthProvider } from '../src/session/session';

const repoFile = (path: string) => resolve(import.meta.dirname, '../..', path);
const SUBJECTS = ['basic.pumpfun', 'basic.bonk', 'premium.pumpswap', 'premium.raydium'] as const;
const schemaOf = (subject: string) =>
  JSON.parse(readFileSync(repoFile(`packages/contracts/schemas/${subject}.schema.json`), 'utf8')) as { properties: Record<string, unknown> };

const USER: User = {
  id: '7bf6c16a-6f16-414f-bb3f-dbd2047c059a',
  email: 'dev@example.com',
  name: 'Dev',
  avatar_url: null,
  plan: 'pro',
  metadata: { tier: 'pro', billing_period: 'monthly', subscription_status: 'active', subscription_type: 'paid', trial_end_date: null },
  created_at: '2026-11-21T10:00:00.000Z',
};

function renderDocs(user: User | null = null) {
  return render(
    <MemoryRouter initialEntries={['/dashboard/docs']}>
      <StaticAuthProvider user={user}>
        <Docs />
      </StaticAuthProvider>
    </MemoryRouter>,
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('API reference page', () => {
  it('renders a section per subject listing every top-level property of its JSON Schema', () => {
    const { container } = renderDocs();
    for (const subject of SUBJECTS) {
      const section = container.querySelector<HTMLElement>(`#${schemaSectionId(subject)}`);
      expect(section, subject).not.toBeNull();
      expect(within(section!).getByRole('heading', { level: 3 }).textContent).toBe(subject);
      const rendered = [...section!.querySelectorAll('tr[data-field]')].map((tr) => tr.getAttribute('data-field'));
      const properties = Object.keys(schemaOf(subject).properties);
      expect(properties.length).toBeGreaterThan(50);
      for (const name of properties) expect(rendered, `${subject}.${name}`).toContain(name);
      // Each field's description comes from the schema.
      const first = properties[0]!;
      const description = (schemaOf(subject).properties[first] as { description?: string }).description;
      if (description) expect(section!.querySelector(`tr[data-field="${first}"]`)!.textContent).toContain(description);
    }
  });

  it('renders the slot status schema (every plan) with each of its fields, and the "slots": true request and slot message in the WebSocket tables', () => {
    const { container } = renderDocs();
    const section = container.querySelector<HTMLElement>(`#${schemaSectionId('slots')}`);
    expect(section).not.toBeNull();
    expect(within(section!).getByRole('heading', { level: 3 }).textContent).toBe('slots');
    expect(section!.textContent).toContain('every plan');
    const schema = JSON.parse(readFileSync(repoFile('packages/contracts/schemas/slots.schema.json'), 'utf8')) as { properties: Record<string, unknown> };
    const rendered = [...section!.querySelectorAll('tr[data-field]')].map((tr) => tr.getAttribute('data-field'));
    for (const name of Object.keys(schema.properties)) expect(rendered, `slots.${name}`).toContain(name);
    expect(container.querySelector('#websocket')!.textContent).toContain('{"subject":"basic.pumpfun","slots":true}');
    expect(WS_CONTROL_MESSAGES.map((m) => m.type)).toContain('slot');
  });

  it('when a schema makes fields alternatives (premium.raydium: oneOf over the SWAP limits), then the page says exactly one of them is set, in the list and in each field’s row', () => {
    // The rule as the schema states it: on SWAP, one branch has minimum_amount_out a string and max_amount_in null, the other the reverse.
    const raydium = JSON.parse(readFileSync(repoFile('packages/contracts/schemas/premium.raydium.schema.json'), 'utf8')) as {
      allOf: Array<{ if: unknown; then: { oneOf?: Array<{ properties: Record<string, { type: string }> }> } }>;
    };
    const swap = raydium.allOf.find((p) => JSON.stringify(p.if) === '{"properties":{"transaction_type":{"const":"SWAP"}}}')!;
    expect(swap.then.oneOf!.map((b) => Object.entries(b.properties).map(([k, v]) => `${k}:${v.type}`))).toEqual([
      ['minimum_amount_out:string', 'max_amount_in:null'],
      ['minimum_amount_out:null', 'max_amount_in:string'],
    ]);
    const rule = 'exactly one of minimum_amount_out, max_amount_in is set (a string); the other is null';
    const { container } = renderDocs();
    const section = container.querySelector<HTMLElement>(`#${schemaSectionId('premium.raydium')}`)!;
    expect([...section.querySelectorAll('.docs-alternatives li')].map((li) => li.textContent)).toEqual([`transaction_type = SWAP: ${rule}.`]);
    for (const field of ['minimum_amount_out', 'max_amount_in']) {
      expect(section.querySelector(`tr[data-field="${field}"] .docs-schema-desc`)!.textContent, field).toContain(
        `Alternatives: when transaction_type = SWAP, ${rule}.`,
      );
    }
    expect(section.querySelector('tr[data-field="base_input"]')!.textContent).not.toContain('Alternatives');
    // Schemas without object-level alternatives have no such list (basic.bonk's oneOf is one field's nullable type).
    for (const subject of ['basic.pumpfun', 'basic.bonk', 'premium.pumpswap']) {
      expect(container.querySelector(`#${schemaSectionId(subject)} .docs-alternatives`), subject).toBeNull();
    }
  });

  it('renders the subjects-per-plan table from the plans catalogue', () => {
    const { container } = renderDocs();
    const rows = container.querySelectorAll('#subjects .docs-plan-table tbody tr');
    expect([...rows].map((r) => r.getAttribute('data-subject'))).toEqual([...SUBJECTS]);
    for (const subject of SUBJECTS) {
      const row = container.querySelector(`#subjects tr[data-subject="${subject}"]`)!;
      for (const id of PLAN_IDS) {
        const included = (PLANS[id].subjects as readonly string[]).includes(subject);
        const cell = row.querySelector(`td[data-plan="${id}"]`)!;
        expect(cell.textContent, `${subject} on ${id}`).toBe(included ? 'Included' : 'Not included');
      }
      expect(row.querySelector('td[data-cheapest]')!.textContent).toBe(cheapestPlanFor(subject)!.name);
    }
    expect(container.querySelector('tr[data-subject="premium.pumpswap"] td[data-cheapest]')!.textContent).toBe('Plus');
    expect(container.querySelector('tr[data-subject="basic.bonk"] td[data-cheapest]')!.textContent).toBe('Starter');
  });

  it('shows the code samples from the templates, speaking the documented message shapes', () => {
    renderDocs();
    const code = (label: string) => screen.getByRole('region', { name: label }).textContent ?? '';
    const templateFile = (path: string) => readFileSync(repoFile(path), 'utf8');
    for (const file of ['examples/websocket/client.mjs', 'examples/python/client.py', 'examples/typescript/src/main.ts']) {
      expect(code(file), file).toBe(templateFile(file));
    }
    const js = code('examples/websocket/client.mjs');
    const py = code('examples/python/client.py');
    for (const sample of [js, py]) {
      // Authentication answers ({jwt, sig} / {jwt, nkey}), subscribe request, close code that stops reconnecting.
      for (const shape of ['nonce', 'jwt', 'sig', 'nkey', 'subject', 'code', 'message', '4401']) expect(sample).toContain(shape);
      for (const type of ['challenge', 'authenticated', 'subscribed', 'unsubscribed', 'plan_changed', 'error']) {
        expect(WS_CONTROL_MESSAGES.map((m) => m.type)).toContain(type);
        expect(sample).toMatch(new RegExp(`['"]${type}['"]`));
      }
    }
    const nats = code('examples/typescript/src/main.ts');
    for (const s of ['credsAuthenticator', "'$JS.REPLAY.API'", "'TRADES'", 'AckPolicy.None', 'issuer_account']) expect(nats).toContain(s);
  });

  it('lists every documented WebSocket error code with its close code', () => {
    const { container } = renderDocs();
    const rows = [...container.querySelectorAll('.docs-errors-table tbody tr')];
    expect(rows).toHaveLength(WS_ERROR_CODES.length);
    const cells = (code: string) => rows.filter((r) => r.getAttribute('data-code') === code).map((r) => r.lastElementChild!.textContent);
    expect(cells('nkey_mismatch')).toEqual(['4401']);
    expect(cells('connection_limit')).toEqual(['4429']);
    expect(cells('auth_timeout')).toEqual(['4408']);
    expect(cells('subject_not_in_plan')).toEqual(['stays open']);
    expect(cells('unavailable')).toEqual(['4503', 'stays open', 'stays open', 'stays open']);
    expect(cells('bad_json')).toEqual(['4400 before authentication, stays open after']);
  });

  it('links every starter template file and has a table of contents for its sections', () => {
    const { container } = renderDocs();
    for (const t of STARTER_TEMPLATES) {
      for (const f of t.files) {
        const link = container.querySelector(`a[href="${templateFileUrl(f)}"]`);
        expect(link, f).not.toBeNull();
      }
    }
    const toc = screen.getByRole('navigation', { name: 'On this page' });
    const targets = within(toc)
      .getAllByRole('link')
      .map((a) => a.getAttribute('href')!);
    expect(targets).toContain('#websocket');
    expect(targets).toContain('#nats');
    expect(targets).toContain('#errors');
    for (const href of targets) expect(container.querySelector(href), href).not.toBeNull();
    expect(screen.getAllByRole('heading', { level: 1 }).map((h) => h.textContent)).toEqual(['API reference']);
  });

  it('is noindex with the canonical path /dashboard/docs', async () => {
    renderDocs();
    await waitFor(() => expect(document.head.querySelector('meta[name="robots"]')?.getAttribute('content')).toBe('noindex'));
    expect(document.head.querySelector<HTMLLinkElement>('link[rel="canonical"]')!.href).toMatch(/\/dashboard\/docs$/);
  });

  it('shows the defaults signed out, without calling the API', () => {
    const fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
    renderDocs();
    expect(screen.getByTestId('ws-endpoint').textContent).toBe('ws://localhost:9223');
    expect(screen.getByTestId('nats-endpoint').textContent).toBe('nats://localhost:4223');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('fills the signed-in user’s endpoints from GET /api/nats into the samples, never the seed', async () => {
    const seed = 'SUAMCIYCKGKAQ37JU3WF5R4667U52KCMIPR6PVEVK6CHKNJ5BVWB3L3FHI';
    const fetchMock = vi.fn(
      async () =>
        new Response(
          JSON.stringify({
            nats_connection: 'tls://stream.tradewind.test:4223',
            ws_connection: 'wss://stream.tradewind.test:9223',
            user_jwt: 'eyJhbGciOi.payload.sig',
            user_nkey_seed: seed,
            plan: 'pro',
            subjects: [...PLANS.pro.subjects],
            max_connections: 5,
            account_public_key: 'ABO6VZSYS2WJSPIVTXSCSHFNP6CLVWRBO7OYCBUNZS4OKBH54BHDN2R7',
          }),
          { status: 200, headers: { 'content-type': 'application/json' } },
        ),
    );
    vi.stubGlobal('fetch', fetchMock);
    const { container } = renderDocs(USER);
    await waitFor(() => expect(screen.getByTestId('ws-endpoint').textContent).toBe('wss://stream.tradewind.test:9223'));
    expect(screen.getByTestId('nats-endpoint').textContent).toBe('tls://stream.tradewind.test:4223');
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/nats');
    expect((init.headers as Record<string, string>).authorization).toBe('Bearer test-access-token');
    expect(screen.getByRole('region', { name: 'Run (WebSocket (Node.js))' }).textContent).toContain('export TRADEWIND_WS_URL=wss://stream.tradewind.test:9223');
    expect(screen.getByRole('region', { name: 'Run (TypeScript (native NATS))' }).textContent).toContain(
      'export TRADEWIND_NATS_URL=tls://stream.tradewind.test:4223',
    );
    expect(container.textContent).toContain("const name = 'ABO6VZSYS2WJSPIVTXSCSHFNP6CLVWRBO7OYCBUNZS4OKBH54BHDN2R7';");
    expect(container.textContent).toContain('These are the endpoints of your account (Pro plan)');
    expect(container.innerHTML).not.toContain(seed);
  });

  it('keeps the defaults when GET /api/nats fails', async () => {
    const fetchMock = vi.fn(async () => new Response(JSON.stringify({ error: 'unavailable', message: 'Failed to fetch NATS credentials' }), { status: 500 }));
    vi.stubGlobal('fetch', fetchMock);
    renderDocs(USER);
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    await new Promise((r) => setTimeout(r, 0));
    expect(screen.getByTestId('ws-endpoint').textContent).toBe('ws://localhost:9223');
    expect(screen.getByText(/These are the default endpoints/)).toBeTruthy();
  });
});
