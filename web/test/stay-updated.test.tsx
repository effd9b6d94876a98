import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryRouter } from 'react-router';
import { StayUpdated } from '../src/components/marketing/StayUpdated';
import { NEWSLETTER_EMPTY_MESSAGE, NEWSLETTER_RATE_LIMITED_MESSAGE } from '../src/lib/newsletter';
import Blog from '../src/pages/Blog';
import { StaticAuthProvider } from '../src/session/session';
import { json } from './dashboard-fixtures';

interface Sent {
  url: string;
  method: string | undefined;
  headers: Record<string, string>;
  body: unknown;
}

/** Answers `POST /api/newsletter` with `answer` (a Response, or a promise for one) and records what was sent. */
function newsletterApi(answer: () => Response | Promise<Response>) {
  const sent: Sent[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      sent.push({
        url,
        method: init?.method,
        headers: (init?.headers ?? {}) as Record<string, string>,
        body: init?.body ? JSON.parse(String(init.body)) : undefined,
      });
      return answer();
    }),
  );
  return sent;
}

function box() {
  return screen.getByRole('region', { name: 'Stay Updated' });
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('Stay Updated', () => {
  it('has the heading, an e-mail input and a Subscribe button, and says what is stored with a link to the privacy policy', () => {
    render(
      <MemoryRouter>
        <StayUpdated />
      </MemoryRouter>,
    );
    expect(screen.getByText(/We store the address and the date you gave it/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'privacy policy' }).getAttribute('href')).toBe('/privacy');
    const input = within(box()).getByLabelText('E-mail address') as HTMLInputElement;
    expect(input.type).toBe('email');
    expect(input.autocomplete).toBe('email');
    expect(within(box()).getByRole('button', { name: 'Subscribe' })).toBeTruthy();
    expect(within(box()).getByRole('link', { name: 'RSS feed' }).getAttribute('href')).toBe('/blog/rss.xml');
  });

  it('when an address is subscribed, then it is sent without a session, the button is disabled meanwhile, and the page says the address is stored', async () => {
    let answer!: (r: Response) => void;
    const sent = newsletterApi(() => new Promise<Response>((r) => (answer = r)));
    const user = userEvent.setup();
    render(
      <MemoryRouter>
        <StayUpdated />
      </MemoryRouter>,
    );
    await user.type(screen.getByLabelText('E-mail address'), '  Ada@Example.com ');
    await user.click(screen.getByRole('button', { name: 'Subscribe' }));
    const busy = screen.getByRole('button', { name: 'Subscribing…' }) as HTMLButtonElement;
    expect(busy.disabled).toBe(true);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe('/api/newsletter');
    expect(sent[0]!.method).toBe('POST');
    expect(sent[0]!.body).toEqual({ email: 'Ada@Example.com' }); // an e-mail input drops the outer spaces
    expect(sent[0]!.headers.authorization).toBeUndefined();
    answer(json({ subscribed: true, email: 'Ada@example.com' }, 201));
    const status = await screen.findByRole('status');
    // The stored address as auth answered it.
    expect(status.textContent).toBe('Subscribed: Ada@example.com is stored on our list for new-article announcements.');
    expect((screen.getByLabelText('E-mail address') as HTMLInputElement).value).toBe('');
    expect((screen.getByRole('button', { name: 'Subscribe' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('when the address is already stored (200), then it says the same', async () => {
    newsletterApi(() => json({ subscribed: true, email: 'ada@example.com' }, 200));
    const user = userEvent.setup();
    render(
      <MemoryRouter>
        <StayUpdated />
      </MemoryRouter>,
    );
    await user.type(screen.getByLabelText('E-mail address'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Subscribe' }));
    expect((await screen.findByRole('status')).textContent).toBe('Subscribed: ada@example.com is stored on our list for new-article announcements.');
  });

  it('when auth refuses the address (400 invalid_email), then its message shows, tied to the field, and the text stays', async () => {
    newsletterApi(() => json({ status: 400, code: 'invalid_email', message: 'That does not look like an e-mail address' }, 400));
    const user = userEvent.setup();
    render(
      <MemoryRouter>
        <StayUpdated />
      </MemoryRouter>,
    );
    const input = screen.getByLabelText('E-mail address') as HTMLInputElement;
    await user.type(input, 'ada@');
    await user.click(screen.getByRole('button', { name: 'Subscribe' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('That does not look like an e-mail address');
    expect(input.value).toBe('ada@');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(input.getAttribute('aria-describedby')).toBe(alert.id);
    expect(document.activeElement).toBe(input);
    expect(screen.queryByRole('status')).toBeNull();
  });

  it("when rate limited (429), then it asks to wait, in the server's words when it gives some", async () => {
    let body: unknown = { code: 'rate_limited' };
    newsletterApi(() => json(body, 429));
    const user = userEvent.setup();
    render(
      <MemoryRouter>
        <StayUpdated />
      </MemoryRouter>,
    );
    await user.type(screen.getByLabelText('E-mail address'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Subscribe' }));
    expect((await screen.findByRole('alert')).textContent).toBe(NEWSLETTER_RATE_LIMITED_MESSAGE);
    body = { code: 'rate_limited', message: 'Too many requests; try again in 60 s' };
    await user.click(screen.getByRole('button', { name: 'Subscribe' }));
    expect((await screen.findByText('Too many requests; try again in 60 s')).getAttribute('role')).toBe('alert');
  });

  it('when the network fails, then it says so', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    const user = userEvent.setup();
    render(
      <MemoryRouter>
        <StayUpdated />
      </MemoryRouter>,
    );
    await user.type(screen.getByLabelText('E-mail address'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Subscribe' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Could not reach Tradewind. Check your connection and try again.');
  });

  it('when sent empty, then it asks for an address and sends nothing', async () => {
    const sent = newsletterApi(() => json({}, 500));
    const user = userEvent.setup();
    render(
      <MemoryRouter>
        <StayUpdated />
      </MemoryRouter>,
    );
    await user.type(screen.getByLabelText('E-mail address'), '   ');
    await user.click(screen.getByRole('button', { name: 'Subscribe' }));
    expect(screen.getByRole('alert').textContent).toBe(NEWSLETTER_EMPTY_MESSAGE);
    expect(sent).toHaveLength(0);
  });

  it('is the box on /blog', () => {
    render(
      <MemoryRouter initialEntries={['/blog']}>
        <StaticAuthProvider>
          <Blog />
        </StaticAuthProvider>
      </MemoryRouter>,
    );
    expect((within(box()).getByLabelText('E-mail address') as HTMLInputElement).type).toBe('email');
    expect(within(box()).getByRole('button', { name: 'Subscribe' })).toBeTruthy();
  });
});
