/**
 * The Live page (/dashboard/live) in jsdom against a scripted ws-fanout: what it says about the plan's
 * connections, the subject picker limited to the plan, the trades it shows, the plan-limit state naming
 * the holders of the slot, revoked credentials, and the socket closed when the page goes away.
 */
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import Live from '../src/pages/dashboard/Live';
import { json, renderInDashboard, testCredentials } from './dashboard-fixtures';

/** The page's WebSocket: the test plays the server. */
class ScriptedSocket {
  static all: ScriptedSocket[] = [];
  onopen: ((e: unknown) => void) | null = null;
  onmessage: ((e: { data: unknown }) => void) | null = null;
  onclose: ((e: { code: number; reason: string }) => void) | null = null;
  onerror: ((e: unknown) => void) | null = null;
  readonly sent: string[] = [];
  closedByClient = false;
  constructor(readonly url: string) {
    ScriptedSocket.all.push(this);
  }
  send(data: string) {
    this.sent.push(data);
  }
  close() {
    this.closedByClient = true;
  }
  push(frame: object | string) {
    act(() => this.onmessage?.({ data: typeof frame === 'string' ? frame : JSON.stringify(frame) }));
  }
  serverClose(code: number, reason: string) {
    act(() => this.onclose?.({ code, reason }));
  }
}

/** Starter credentials (test data, a key pair made for this test) whose JWT names the seed's user: the client checks that; nothing here verifies signatures. */
const STARTER = {
  ...testCredentials,
  plan: 'starter' as const,
  subjects: ['basic.pumpfun', 'basic.bonk'],
  user_jwt: `e30.${Buffer.from(JSON.stringify({ sub: 'UCEFYAJNBQCXTWZMDC3VNXWJEMVUXS3AAQXJIKYE7NTXTWACUQN4FNTE' })).toString('base64url')}.sig`,
  user_nkey_seed: 'SUAKTKVZ67S3QNS77KS4YCCTSJ2SEEBFUQFV7I3M4I6MZC62A766HB5OU4',
};

afterEach(() => {
  ScriptedSocket.all = [];
  vi.unstubAllGlobals();
});

async function openPage() {
  vi.stubGlobal('WebSocket', ScriptedSocket);
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => json(STARTER)),
  );
  const view = renderInDashboard(<Live />, { path: '/dashboard/live' });
  await screen.findByTestId('live-slot-note');
  await vi.waitFor(() => expect(ScriptedSocket.all).toHaveLength(1));
  return { view, server: ScriptedSocket.all[0]! };
}

describe('the Live page', () => {
  it('when it opens on Starter, then it says it uses the one connection, offers only the plan’s subjects, shows the trades the stream sends, and closes the socket when it goes away', async () => {
    const { view, server } = await openPage();
    expect(screen.getByTestId('live-slot-note').textContent).toContain('This preview uses 1 of your 1 WebSocket connection while it is open');
    const pumpswap = screen.getByRole('radio', { name: /premium\.pumpswap/ });
    expect(pumpswap).toHaveProperty('disabled', true);
    expect(pumpswap.closest('label')!.textContent).toContain('Plus plan and above');
    expect(screen.getByRole('radio', { name: /basic\.pumpfun/ })).toHaveProperty('checked', true);

    expect(server.url).toBe('ws://localhost:9223');
    server.push({ type: 'authenticated', plan: 'starter', subjects: ['basic.pumpfun', 'basic.bonk'], expires_at_ms: null });
    expect(JSON.parse(server.sent.at(-1)!)).toEqual({ subject: 'basic.pumpfun' });
    server.push({ type: 'subscribed', subject: 'basic.pumpfun', filter: null, seq: 7 });
    expect(await screen.findByText(/Live: streaming/)).toBeTruthy();
    server.push(
      '{"seq":8,"source":"pumpfun","transaction_type":"SELL","mint":"5qDerhe7hTPFHjjRYoWbiWKGpwyBLPM85dzQnkd3pump","symbol":"LEDOG","sol_amount_ui":1.5,"price_sol":3.05e-8,"user":"GPxL1o9PT8cBe5xYCnDr3RdBZanPS9cNPSco2zWMGtZs","signature":"661yA5s6uxUsggTcT4cZ6yyMfNmF4mCZzxLnCb1zBrSY3YhAiouYXBitiPvkngBEKxaeGcpXiek6qXDajiRr9wuY"}',
    );
    const row = await screen.findByRole('row', { name: /LEDOG/ });
    expect(within(row).getByText('SELL')).toBeTruthy();
    expect(within(row).getByText('1.50')).toBeTruthy();
    expect(within(row).getByText('GPxL…GtZs')).toBeTruthy();
    expect(within(row).getByRole('link').getAttribute('href')).toBe(
      'https://solscan.io/tx/661yA5s6uxUsggTcT4cZ6yyMfNmF4mCZzxLnCb1zBrSY3YhAiouYXBitiPvkngBEKxaeGcpXiek6qXDajiRr9wuY',
    );
    await userEvent.click(within(row).getByRole('button', { name: 'Trade 8: show its JSON' }));
    expect(screen.getByTestId('live-raw-json').textContent).toContain('"symbol": "LEDOG"');
    expect(server.closedByClient).toBe(false);
    view.unmount();
    expect(server.closedByClient).toBe(true);
  });

  it('when the login is refused with connection_limit, then the page names the holder, links to the plan page and says when it tries again', async () => {
    const { view, server } = await openPage();
    expect(server.closedByClient).toBe(false);
    server.push({
      type: 'error',
      code: 'connection_limit',
      message: 'connection limit reached: the starter plan allows 1 concurrent connection; the pro plan allows 5',
      holders: [{ connected_at: '2026-11-30T05:00:00.000Z', address: '203.0.113.7', user_agent: 'my-bot/2.1', origin: null }],
    });
    server.serverClose(4429, 'connection_limit');
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByRole('heading').textContent).toBe('All your WebSocket connections are in use');
    expect(within(alert).getByTestId('live-holders').textContent).toMatch(/Connected at 05:00:00 UTC \(.+ ago\) from 203\.0\.113\.7/);
    expect(within(alert).getByTestId('live-holders').textContent).toContain('my-bot/2.1');
    expect(within(alert).getByRole('link', { name: 'upgrade your plan' }).getAttribute('href')).toBe('/dashboard/plan');
    expect(alert.textContent).toContain('This page tries again in 1 s'); // the client's first wait
    view.unmount();
  });

  it('when revoked credentials are replaced by ones of a plan without the subject on screen, then the new connection follows the plan’s first subject', async () => {
    const plus = { ...STARTER, plan: 'plus' as const, subjects: ['basic.pumpfun', 'basic.bonk', 'premium.pumpswap', 'premium.raydium'] };
    const answers = [plus, STARTER];
    vi.stubGlobal('WebSocket', ScriptedSocket);
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => (String(url).includes('/api/nats') ? json(answers.shift() ?? STARTER) : json({}, 404))),
    );
    renderInDashboard(<Live />, { path: '/dashboard/live' });
    await userEvent.click(await screen.findByRole('radio', { name: /premium\.pumpswap/ }));
    const first = ScriptedSocket.all[0]!;
    first.push({ type: 'error', code: 'revoked', message: 'these credentials have been revoked' });
    first.serverClose(4401, 'revoked');
    await userEvent.click(await screen.findByRole('button', { name: 'Fetch new credentials and reconnect' }));
    await vi.waitFor(() => expect(ScriptedSocket.all).toHaveLength(2));
    const second = ScriptedSocket.all[1]!;
    second.push({ type: 'authenticated', plan: 'starter', subjects: ['basic.pumpfun', 'basic.bonk'], expires_at_ms: null });
    expect(JSON.parse(second.sent.at(-1)!)).toEqual({ subject: 'basic.pumpfun' });
    expect(screen.getByRole('radio', { name: /basic\.pumpfun/ })).toHaveProperty('checked', true);
    expect(screen.getByRole('radio', { name: /premium\.pumpswap/ })).toHaveProperty('disabled', true);
  });

  it('when the credentials are revoked, then the page explains it and offers to fetch new ones', async () => {
    const { server } = await openPage();
    server.push({ type: 'error', code: 'revoked', message: 'these credentials have been revoked' });
    server.serverClose(4401, 'revoked');
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByRole('heading').textContent).toBe('These credentials were rotated or revoked');
    expect(within(alert).getByRole('button', { name: 'Fetch new credentials and reconnect' })).toBeTruthy();
  });
});
