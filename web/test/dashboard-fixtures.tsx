import type { User } from '../src/api';

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
