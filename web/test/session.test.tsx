import { act, render, screen } from '@testing-library/react';
import type { Session, SessionClient } from '@tradewind/contracts/session-client';
import { describe, expect, it, vi } from 'vitest';
import type { User } from '../src/api';
import { SessionProvider, useAuth } from '../src/session/session';

const user: User = {
  id: 'u1',
  email: 'ada@example.com',
  name: 'Ada',
  avatar_url: null,
  plan: 'plus',
  metadata: { tier: 'plus', billing_period: 'monthly', subscription_status: 'active', subscription_type: 'paid', trial_end_date: null },
  created_at: '2026-11-01T00:00:00.000Z',
} as User;

const session: Session<User> = {
  access_token: 'at',
  refresh_token: 'rt',
  expires_in: 900,
  expires_at: Math.floor(Date.now() / 1000) + 900,
  token_type: 'bearer',
  user,
} as Session<User>;

/** A client whose refresh signs in at once and whose server sign-out is held until `finish`. */
function heldClient(outcome: 'ok' | 'network-error') {
  let finish!: () => void;
  const held = new Promise<void>((resolve, reject) => {
    finish = () => (outcome === 'ok' ? resolve() : reject(new TypeError('Failed to fetch')));
  });
  const client: SessionClient<User> = {
    session: () => session,
    setSession: () => undefined,
    refresh: async () => session,
    accessToken: async () => 'at',
    signOut: vi.fn(() => held),
    dispose: () => undefined,
  };
  return { client, finish };
}

function Probe() {
  const auth = useAuth();
  return (
    <div>
      <p data-testid="state">{`${auth.status}|${auth.user?.name ?? 'none'}|${auth.loggingOut ? 'logging-out' : 'idle'}`}</p>
      <button type="button" onClick={() => void auth.signOut()}>
        out
      </button>
    </div>
  );
}

describe('SessionProvider sign-out (spec §4: flag, clear, go to /, sign out on the server)', () => {
  it.each(['ok', 'network-error'] as const)(
    'when signing out (%s at auth), then the tab is signed out at once, the logging-out flag holds until auth answers, and nothing rejects',
    async (outcome) => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      const { client, finish } = heldClient(outcome);
      render(
        <SessionProvider client={client}>
          <Probe />
        </SessionProvider>,
      );
      await act(async () => {
        screen.getByRole('button', { name: 'out' }).click();
      });
      expect(screen.getByTestId('state').textContent).toBe('signed-out|none|logging-out');
      expect(client.signOut).toHaveBeenCalledTimes(1);
      await act(async () => {
        finish();
        await Promise.resolve();
      });
      expect(screen.getByTestId('state').textContent).toBe('signed-out|none|idle');
      expect(warn).toHaveBeenCalledTimes(outcome === 'ok' ? 0 : 1);
      warn.mockRestore();
    },
  );
});
