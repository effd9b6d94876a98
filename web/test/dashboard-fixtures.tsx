import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import type { NatsCredentials, User } from '../src/api';
import { StaticAuthProvider } from '../src/session/session';
import { ThemeProvider } from '../src/theme';
import { ToastProvider } from '../src/components/Toast';

/** A signed-in user for component tests. */
export function testUser(over: Partial<User> = {}, meta: Partial<User['metadata']> = {}): User {
  return {
    id: '11111111-1111-4111-8111-111111111111',
    email: 'ada@example.com',
    name: 'Ada Lovelace',
    avatar_url: null,
    plan: 'starter',
    metadata: { tier: 'starter', billing_period: 'indefinite', subscription_status: 'active', subscription_type: 'free', trial_end_date: null, ...meta },
    created_at: '2026-03-01T12:00:00.000Z',
    ...over,
  };
}

/** A JSON `Response`. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** A `GET /api/nats` answer of a Plus user (test data, not real credentials). */
export const testCredentials: NatsCredentials = {
  nats_connection: 'nats://localhost:4223',
  ws_connection: 'ws://localhost:9223',
  user_jwt: 'eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.payload.sig',
  user_nkey_seed: 'SUAMLK2ZNL35WSMW37E7UD4VZ7ELPKW7DHC3BWBSD2GCZ7IUQQXZIORRBU',
  plan: 'plus',
  subjects: ['basic.pumpfun', 'basic.bonk', 'premium.pumpswap', 'premium.raydium'],
  max_connections: 1,
  requests_per_minute: 1000,
  replay: false,
  account_public_key: 'A',
  user_public_key: 'U',
  issued_at: '2026-11-21T10:00:00.000Z',
  expires_at: '2027-11-21T10:00:00.000Z',
};

/** Renders `ui` as a dashboard page: router at `path`, a fixed signed-in `user` (null: signed out), theme and toasts. */
export function renderInDashboard(ui: ReactNode, { user = testUser(), path = '/dashboard' }: { user?: User | null; path?: string } = {}) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <StaticAuthProvider user={user}>
        <ThemeProvider>
          <ToastProvider>{ui}</ToastProvider>
        </ThemeProvider>
      </StaticAuthProvider>
    </MemoryRouter>,
  );
}
