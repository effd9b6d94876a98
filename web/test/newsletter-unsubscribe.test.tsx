import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryRouter } from 'react-router';
import { AppShell } from '../src/App';
import { APP_PATHS, PUBLIC_PATHS } from '../src/route-paths';
import { UNSUBSCRIBE_NO_TOKEN_MESSAGE } from '../src/lib/newsletter';
import { StaticAuthProvider } from '../src/session/session';
import { json } from './dashboard-fixtures';

/** A token as auth makes them (two base64url halves of 32 bytes); the stand-in API below does not check it. */
const TOKEN = `${'a'.repeat(43)}.${'b'.repeat(43)}`;

interface Sent {
  url: string;
  method: string | undefined;
  body: unknown;
}

/** Answers `POST /api/newsletter/unsubscribe` with `answer` and records every request the page makes. */
function unsubscribeApi(answer: () => Response | Promise<Response>) {
  const sent: Sent[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      sent.push({ url, method: init?.method, body: init?.body });
      return answer();
    }),
  );
  return sent;
}

/** The whole app (App.tsx's route table inside the site layout) at `url`, signed out. */
function renderApp(url: string) {
  return render(
    <MemoryRouter initialEntries={[url]}>
      <StaticAuthProvider>
        <AppShell />
      </StaticAuthProvider>
    </MemoryRouter>,
  );
}

const unsubscribeCalls = (sent: Sent[]) => sent.filter((s) => s.url.startsWith('/api/newsletter/unsubscribe'));

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('newsletter unsubscribe page', () => {
  it('when the link from a mail is opened, then the router shows the page and nothing is unsubscribed until the button is pressed', async () => {
    const sent = unsubscribeApi(() => json({ unsubscribed: true }));
    renderApp(`/newsletter/unsubscribe?token=${TOKEN}`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Unsubscribe from the newsletter' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Unsubscribe' })).toBeTruthy();
    // Opening the page (what a mail scanner does) sends nothing.
    await new Promise((r) => setTimeout(r, 50));
    expect(unsubscribeCalls(sent)).toEqual([]);
    // The server serves the app shell for the path, never indexed.
    expect(APP_PATHS).toContain('/newsletter/unsubscribe');
    expect(PUBLIC_PATHS).not.toContain('/newsletter/unsubscribe');
  });

  it('when Unsubscribe is pressed, then the token is POSTed once without a body or session, the button is busy meanwhile, and the page says the address is deleted', async () => {
    let answer!: (r: Response) => void;
    const sent = unsubscribeApi(() => new Promise<Response>((r) => (answer = r)));
    const user = userEvent.setup();
    renderApp(`/newsletter/unsubscribe?token=${TOKEN}`);
    await user.click(await screen.findByRole('button', { name: 'Unsubscribe' }));
    const busy = screen.getByRole('button', { name: 'Unsubscribing…' }) as HTMLButtonElement;
    expect(busy.disabled).toBe(true);
    await user.click(busy);
    const calls = unsubscribeCalls(sent);
    expect(calls).toEqual([{ url: `/api/newsletter/unsubscribe?token=${TOKEN}`, method: 'POST', body: undefined }]);
    answer(json({ unsubscribed: true }));
    const status = await screen.findByRole('status');
    expect(status.textContent).toMatch(/You are unsubscribed\. Your e-mail address has been deleted from our list/);
    expect(screen.queryByRole('button', { name: /Unsubscribe/ })).toBeNull();
  });

  it('when auth refuses the token (400 invalid_unsubscribe_token), then its reason is shown and no button invites a retry that cannot work', async () => {
    const reason = 'This unsubscribe link is not valid: it was changed, or it was not made by Tradewind.';
    unsubscribeApi(() => json({ status: 400, code: 'invalid_unsubscribe_token', message: reason }, 400));
    const user = userEvent.setup();
    renderApp(`/newsletter/unsubscribe?token=${TOKEN}`);
    await user.click(await screen.findByRole('button', { name: 'Unsubscribe' }));
    expect((await screen.findByRole('alert')).textContent).toBe(reason);
    expect(screen.queryByRole('button', { name: /Unsubscribe|Try again/ })).toBeNull();
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('when the network fails, then the page says so and offers to try again, which can succeed', async () => {
    let fail = true;
    const sent = unsubscribeApi(() => {
      if (fail) throw new TypeError('Failed to fetch');
      return json({ unsubscribed: true });
    });
    const user = userEvent.setup();
    renderApp(`/newsletter/unsubscribe?token=${TOKEN}`);
    await user.click(await screen.findByRole('button', { name: 'Unsubscribe' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/Could not reach Tradewind/);
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect((await screen.findByRole('status')).textContent).toMatch(/You are unsubscribed/);
    expect(unsubscribeCalls(sent)).toHaveLength(2);
  });

  it('when the link has no token, then the page says the link is incomplete and sends nothing', async () => {
    const sent = unsubscribeApi(() => json({ unsubscribed: true }));
    renderApp('/newsletter/unsubscribe');
    expect((await screen.findByRole('alert')).textContent).toBe(UNSUBSCRIBE_NO_TOKEN_MESSAGE);
    expect(screen.queryByRole('button', { name: /Unsubscribe/ })).toBeNull();
    expect(unsubscribeCalls(sent)).toEqual([]);
  });
});
