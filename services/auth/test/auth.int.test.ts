import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeJwt } from 'jose';
import { jetstream } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import {
  AuthServiceClient,
  AuthServiceService,
  EVENTS_STREAM,
  SubscriptionChanged,
  decodeEvent,
  encodeEvent,
  newEventMeta,
  AppError,
} from '@tradewind/contracts';
import { callUnary, createAccessTokenVerifier, grpcCredentials, createLogger } from '@tradewind/lib';
import { authGrpcService } from '../src/grpc/auth-service.js';
import { createSessionClient, type Session } from '@tradewind/contracts/session-client';
import type { UserJson } from '../src/index.js';
import { Browser, signIn, startHarness, type Harness } from './support.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('auth');
});

afterAll(async () => {
  await h?.close();
});

/** Signs in and exchanges the refresh cookie for a session, as the web app does after the redirect. */
async function signedIn(email: string, query?: string): Promise<{ browser: Browser; session: Session<UserJson>; location: string }> {
  const browser = new Browser();
  const { location } = await signIn(h, browser, { email, name: `Name of ${email}`, ...(query ? { query } : {}) });
  const res = await browser.post(`${h.publicUrl}/auth/token`);
  expect(res.status).toBe(200);
  return { browser, session: (await res.json()) as Session<UserJson>, location };
}

/** Every user.created event currently in EVENTS, decoded, with its Nats-Msg-Id. */
async function userCreatedEvents(): Promise<Array<{ msgId: string | undefined; event: ReturnType<typeof decodeEvent<'user.created'>> }>> {
  await h.app.relay.drain();
  const info = await h.jsm.streams.info(EVENTS_STREAM);
  const out = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await h.jsm.streams.getMessage(EVENTS_STREAM, { seq });
    if (m && m.subject === 'user.created') out.push({ msgId: m.header?.get('Nats-Msg-Id'), event: decodeEvent('user.created', m.data) });
  }
  return out;
}

/** `tradewind_auth_users_created_total` now. */
async function usersCreated(): Promise<number> {
  const metric = await h.registry.getSingleMetric('tradewind_auth_users_created_total')?.get();
  return metric?.values[0]?.value ?? 0;
}

describe('sign-in through the local OpenID Connect provider', () => {
  it('when a person signs in for the first time, then a starter user is created, user.created is published once and the browser lands on /dashboard', async () => {
    const { session, location } = await signedIn('alice@example.com');
    expect(location).toBe(`${h.publicUrl}/dashboard`);
    expect(session).toMatchObject({ token_type: 'bearer', expires_in: 900 });
    expect(session.expires_at).toBeGreaterThan(Date.now() / 1000 + 800);
    expect(session.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.user).toMatchObject({
      email: 'alice@example.com',
      name: 'Name of alice@example.com',
      avatar_url: '',
      plan: 'starter',
      metadata: { tier: 'starter', billing_period: 'indefinite', subscription_status: 'active', subscription_type: 'free', trial_end_date: null },
    });
    const events = (await userCreatedEvents()).filter((e) => e.event.email === 'alice@example.com');
    expect(events).toHaveLength(1);
    expect(events[0]!.event).toMatchObject({ userId: session.user.id, plan: 'starter', billingPeriod: 'indefinite', identityProvider: 'local-oidc' });
    expect(events[0]!.event.meta).toMatchObject({ schemaVersion: 1, producer: 'auth' });
    expect(events[0]!.msgId).toBe(events[0]!.event.meta!.eventId);
    const outbox = await h.db.selectFrom('outbox').selectAll().where('id', '=', events[0]!.event.meta!.eventId).executeTakeFirstOrThrow();
    expect(outbox.published_at).not.toBeNull();
  });

  it('when the same person signs in again, then the same user comes back and no second user.created is emitted nor user counted', async () => {
    const before = await usersCreated();
    const first = await signedIn('bob@example.com');
    expect(await usersCreated()).toBe(before + 1);
    const second = await signedIn('bob@example.com');
    expect(await usersCreated()).toBe(before + 1);
    expect(second.session.user.id).toBe(first.session.user.id);
    expect(second.session.refresh_token).not.toBe(first.session.refresh_token);
    const events = (await userCreatedEvents()).filter((e) => e.event.email === 'bob@example.com');
    expect(events).toHaveLength(1);
    const users = await h.db.selectFrom('users').select('id').where('email', '=', 'bob@example.com').execute();
    expect(users).toHaveLength(1);
  });

  it('when the local provider page is shown, then it is labelled as local and its form completes the sign-in', async () => {
    const browser = new Browser();
    const start = await browser.get(`${h.publicUrl}/auth/login`);
    const page = await browser.get(start.headers.get('location')!);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Local sign-in — not Google');
    expect(html).toContain('LOCAL DEVELOPMENT PROVIDER');
    // Submit the form the way the browser would: its hidden fields plus the typed email and name.
    const action = new URL('/authorize', h.oidc.issuer);
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) action.searchParams.set(m[1]!, m[2]!.replace(/&amp;/g, '&'));
    action.searchParams.set('login_hint', 'Carol@Example.com');
    action.searchParams.set('local_name', 'Carol');
    const back = await browser.get(action.toString());
    const done = await browser.get(back.headers.get('location')!);
    expect(done.headers.get('location')).toBe(`${h.publicUrl}/dashboard`);
    const res = await browser.post(`${h.publicUrl}/auth/token`);
    expect(((await res.json()) as Session<UserJson>).user).toMatchObject({ email: 'carol@example.com', name: 'Carol' });
  });

  it('when /auth/provider is asked, then it names the local provider', async () => {
    const res = await fetch(`${h.publicUrl}/auth/provider`);
    expect(await res.json()).toEqual({ provider: 'local-oidc', label: 'Local sign-in (development provider, not Google)', local: true });
  });
});

describe('a plan chosen before sign-in', () => {
  it.each([
    ['tier=plus&period=yearly', '/payment?tier=plus&period=yearly'],
    ['tier=pro&period=monthly', '/payment?tier=pro&period=monthly'],
    ['tier=pro', '/payment?tier=pro&period=monthly'],
    ['tier=starter&period=yearly', '/dashboard'],
    ['', '/dashboard'],
  ])('when sign-in starts with "%s", then the callback sends the browser to %s', async (query, destination) => {
    const { location } = await signIn(h, new Browser(), { email: 'dave@example.com', query });
    expect(location).toBe(`${h.publicUrl}${destination}`);
  });

  it.each([
    ['tier=gold&period=monthly', 'tier must be starter, plus or pro'],
    ['tier=plus&period=weekly', 'period must be monthly or yearly'],
    ['period=yearly', 'period was given without a tier'],
  ])('when sign-in starts with "%s", then it goes back to /login with a readable reason and never reaches the provider', async (query, reason) => {
    const res = await new Browser().get(`${h.publicUrl}/auth/login?${query}`);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(`${h.publicUrl}/login`);
    expect(location.searchParams.get('error')).toBe('invalid_plan');
    expect(location.searchParams.get('error_description')).toContain(reason);
  });
});

describe('sign-in failures', () => {
  it('when the person cancels at the provider, then the browser lands on /login with "Sign-in was cancelled."', async () => {
    const browser = new Browser();
    const start = await browser.get(`${h.publicUrl}/auth/login?tier=plus`);
    const cancel = new URL(start.headers.get('location')!);
    cancel.searchParams.set('error', 'access_denied');
    const back = await browser.get(cancel.toString());
    const done = await browser.get(back.headers.get('location')!);
    const location = new URL(done.headers.get('location')!);
    expect(location.pathname).toBe('/login');
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('error_description')).toBe('Sign-in was cancelled.');
    expect(browser.cookies.has('tw_refresh')).toBe(false);
  });

  it('when the callback comes without the state cookie (another browser), then it is refused as invalid_state', async () => {
    const browser = new Browser();
    const start = await browser.get(`${h.publicUrl}/auth/login`);
    const authorize = new URL(start.headers.get('location')!);
    authorize.searchParams.set('login_hint', 'mallory@example.com');
    const back = await browser.get(authorize.toString());
    const done = await new Browser().get(back.headers.get('location')!);
    expect(new URL(done.headers.get('location')!).searchParams.get('error')).toBe('invalid_state');
  });

  it('when a callback URL is replayed, then the second use is refused and creates no session', async () => {
    const browser = new Browser();
    const start = await browser.get(`${h.publicUrl}/auth/login`);
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const authorize = new URL(start.headers.get('location')!);
    authorize.searchParams.set('login_hint', 'erin@example.com');
    const callbackUrl = (await browser.get(authorize.toString())).headers.get('location')!;
    const first = await browser.get(callbackUrl);
    expect(first.headers.get('location')).toBe(`${h.publicUrl}/dashboard`);
    const replay = new Browser();
    replay.cookies.set('tw_oauth_state', state);
    const second = await replay.get(callbackUrl);
    expect(new URL(second.headers.get('location')!).searchParams.get('error')).toBe('invalid_state');
    expect(replay.cookies.has('tw_refresh')).toBe(false);
  });

  it("when a code is redeemed with another sign-in's PKCE verifier, then the provider refuses it and the browser lands on /login", async () => {
    const browser = new Browser();
    const a = await browser.get(`${h.publicUrl}/auth/login`);
    const codeForA = new URL(a.headers.get('location')!);
    codeForA.searchParams.set('login_hint', 'frank@example.com');
    const callbackA = new URL((await browser.get(codeForA.toString())).headers.get('location')!);
    const b = await browser.get(`${h.publicUrl}/auth/login`); // the cookie now holds B's state
    const stateB = new URL(b.headers.get('location')!).searchParams.get('state')!;
    callbackA.searchParams.set('state', stateB);
    const done = await browser.get(callbackA.toString());
    const location = new URL(done.headers.get('location')!);
    expect(location.pathname).toBe('/login');
    expect(location.searchParams.get('error')).toBe('invalid_grant');
    expect(await h.db.selectFrom('users').select('id').where('email', '=', 'frank@example.com').execute()).toHaveLength(0);
  });
});

describe('sessions', () => {
  it('when an access token is presented, then auth and any service verifying with the JWKS accept it', async () => {
    const { session } = await signedIn('grace@example.com');
    const me = await fetch(`${h.publicUrl}/auth/user`, { headers: { authorization: `Bearer ${session.access_token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual(session.user);
    const verify = createAccessTokenVerifier(`${h.publicUrl}/auth/.well-known/jwks.json`, `${h.publicUrl}/auth`);
    const claims = await verify(`Bearer ${session.access_token}`);
    expect(claims).toMatchObject({ userId: session.user.id, plan: 'starter', email: 'grace@example.com', expiresAt: session.expires_at });
    const current = await fetch(`${h.publicUrl}/auth/session`, { headers: { authorization: `Bearer ${session.access_token}` } });
    expect(((await current.json()) as { session: { id: string } }).session.id).toBe(claims.sessionId);
  });

  it.each([
    ['no Authorization header', undefined],
    ['a malformed token', 'Bearer not-a-jwt'],
    ['a token signed by someone else', 'Bearer eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl'],
  ])('when /auth/user is called with %s, then it answers 401 {"status":401,"message":"No active session"}', async (_what, authorization) => {
    const res = await fetch(`${h.publicUrl}/auth/user`, { headers: authorization ? { authorization } : {} });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ status: 401, message: 'No active session' });
  });

  it('when the access token has expired, then it is refused everywhere and a refresh yields a working one', async () => {
    const { session, browser } = await signedIn('heidi@example.com');
    const verify = createAccessTokenVerifier(`${h.publicUrl}/auth/.well-known/jwks.json`, `${h.publicUrl}/auth`);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 16 * 60 * 1000 });
    try {
      const res = await fetch(`${h.publicUrl}/auth/user`, { headers: { authorization: `Bearer ${session.access_token}` } });
      expect(res.status).toBe(401);
      await expect(verify(`Bearer ${session.access_token}`)).rejects.toMatchObject({ code: 'unauthenticated', message: 'No active session' });
      const refreshed = await browser.post(`${h.publicUrl}/auth/token`);
      expect(refreshed.status).toBe(200);
      const next = (await refreshed.json()) as Session<UserJson>;
      expect((await fetch(`${h.publicUrl}/auth/user`, { headers: { authorization: `Bearer ${next.access_token}` } })).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it('when a refresh token is used, then it is rotated: the new pair works and the old token is spent', async () => {
    const { session } = await signedIn('ivan@example.com');
    const res = await fetch(`${h.publicUrl}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: session.refresh_token }),
    });
    expect(res.status).toBe(200);
    const next = (await res.json()) as Session<UserJson>;
    expect(next.refresh_token).not.toBe(session.refresh_token);
    expect(next.access_token).not.toBe(session.access_token);
    expect(decodeJwt(next.access_token).sid).toBe(decodeJwt(session.access_token).sid);
    expect(res.headers.getSetCookie().some((c) => c.startsWith(`tw_refresh=${next.refresh_token};`) && /HttpOnly/i.test(c) && /Path=\/auth/i.test(c))).toBe(
      true,
    );
  });

  it('when a rotated refresh token is presented again, then the whole session is revoked', async () => {
    const { session } = await signedIn('judy@example.com');
    const post = (token: string) =>
      fetch(`${h.publicUrl}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: token }) });
    const next = (await (await post(session.refresh_token)).json()) as Session<UserJson>;
    const reuse = await post(session.refresh_token);
    expect(reuse.status).toBe(401);
    expect(await reuse.json()).toMatchObject({ status: 401, message: expect.stringContaining('already used') });
    const successor = await post(next.refresh_token);
    expect(successor.status).toBe(401);
    expect(await successor.json()).toEqual({ status: 401, message: 'No active session' });
    const me = await fetch(`${h.publicUrl}/auth/user`, { headers: { authorization: `Bearer ${next.access_token}` } });
    expect(me.status).toBe(401);
    const row = await h.db
      .selectFrom('sessions')
      .select(['revoked_reason'])
      .where('id', '=', String(decodeJwt(next.access_token).sid))
      .executeTakeFirstOrThrow();
    expect(row.revoked_reason).toBe('refresh_token_reuse');
  });

  it('when a user logs out, then the access token stops working at auth and the refresh token is dead', async () => {
    const { session, browser } = await signedIn('ken@example.com');
    const out = await browser.post(`${h.publicUrl}/auth/logout`, undefined, { authorization: `Bearer ${session.access_token}` });
    expect(out.status).toBe(204);
    expect(browser.cookies.has('tw_refresh')).toBe(false);
    expect((await fetch(`${h.publicUrl}/auth/user`, { headers: { authorization: `Bearer ${session.access_token}` } })).status).toBe(401);
    const refresh = await fetch(`${h.publicUrl}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: session.refresh_token }),
    });
    expect(refresh.status).toBe(401);
    const again = await browser.post(`${h.publicUrl}/auth/logout`, undefined, { authorization: `Bearer ${session.access_token}` });
    expect(again.status).toBe(401);
  });

  it('when the session client holds a session near expiry, then it refreshes on its own before expiry', async () => {
    const { session } = await signedIn('leo@example.com');
    const changes: Array<Session<UserJson> | null> = [];
    // expires_at - margin is about 1.5 s from now: the timer must fire and rotate once.
    const margin = session.expires_at - Math.floor(Date.now() / 1000) - 1.5;
    const client = createSessionClient<UserJson>({ baseUrl: h.publicUrl, refreshMarginSeconds: margin, onChange: (s) => changes.push(s) });
    client.setSession(session);
    await vi.waitFor(() => expect(changes.length).toBeGreaterThanOrEqual(1), { timeout: 6_000, interval: 100 });
    client.dispose();
    const refreshed = changes[0]!;
    expect(refreshed.refresh_token).not.toBe(session.refresh_token);
    expect(refreshed.user.id).toBe(session.user.id);
    expect(await client.accessToken()).toBe(client.session()!.access_token);
    await client.signOut();
    expect((await fetch(`${h.publicUrl}/auth/user`, { headers: { authorization: `Bearer ${refreshed.access_token}` } })).status).toBe(401);
  });

  it('when /auth/token gets a refresh_token that is not a string, then it answers 400 with status, code and message', async () => {
    const res = await fetch(`${h.publicUrl}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: 42 }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ status: 400, code: 'invalid_argument', message: 'refresh_token must be a string' });
  });
});

describe('gRPC AuthService', () => {
  const client = () => new AuthServiceClient(`127.0.0.1:${h.grpcPort}`, grpcCredentials.createInsecure());

  it('when GetUser asks for a signed-in user, then it returns the record; unknown ids are NOT_FOUND and bad ids INVALID_ARGUMENT', async () => {
    const { session } = await signedIn('mike@example.com');
    const c = client();
    try {
      const res = await callUnary(c.getUser.bind(c), { userId: session.user.id });
      expect(res.user).toMatchObject({
        id: session.user.id,
        email: 'mike@example.com',
        plan: 'starter',
        metadata: { tier: 'starter', billingPeriod: 'indefinite', subscriptionType: 'free', subscriptionStatus: 'active' },
      });
      await expect(callUnary(c.getUser.bind(c), { userId: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'not_found' });
      await expect(callUnary(c.getUser.bind(c), { userId: 'nope' })).rejects.toMatchObject({ code: 'invalid_argument', message: 'user_id must be a UUID' });
    } finally {
      c.close();
    }
  });

  it('when another service looks for a way to change a plan over gRPC, then there is none: AuthService answers GetUser only (billing owns plan state; it reaches auth as subscription.changed)', () => {
    expect(Object.keys(AuthServiceService)).toEqual(['getUser']);
    expect(Object.keys(authGrpcService(h.db, createLogger({ service: 'auth', level: 'silent' })).implementation)).toEqual(['getUser']);
  });
});

describe('outbox', () => {
  it('when the outbox relay is not running at sign-in, then the user is still created and user.created is published once the relay runs again', async () => {
    await h.app.relay.stop();
    const { session } = await signedIn('olga@example.com');
    const pending = await h.db.selectFrom('outbox').select('id').where('published_at', 'is', null).execute();
    expect(pending.length).toBeGreaterThanOrEqual(1);
    h.app.relay.start();
    await vi.waitFor(
      async () => {
        const rows = await h.db.selectFrom('outbox').select('id').where('published_at', 'is', null).execute();
        expect(rows).toHaveLength(0);
      },
      { timeout: 5_000, interval: 100 },
    );
    const events = (await userCreatedEvents()).filter((e) => e.event.userId === session.user.id);
    expect(events).toHaveLength(1);
  });
});

describe('subscription.changed from billing', () => {
  /** Publishes a subscription.changed as billing's relay would (Nats-Msg-Id = event id). */
  async function publishChange(userId: string, version: bigint, plan: string, billingPeriod: string, status = 'active') {
    const event = SubscriptionChanged.create({
      meta: newEventMeta('subscription.changed', 'billing'),
      userId,
      plan,
      previousPlan: 'starter',
      billingPeriod,
      previousBillingPeriod: 'indefinite',
      subscriptionStatus: status,
      previousSubscriptionStatus: 'active',
      subscriptionType: plan === 'starter' ? 'free' : 'paid',
      version,
      reason: 'plan_changed',
    });
    const hdrs = natsHeaders();
    hdrs.set('Nats-Msg-Id', event.meta!.eventId);
    await jetstream(h.nc).publish('subscription.changed', encodeEvent('subscription.changed', event), { headers: hdrs });
    return event.meta!.eventId;
  }

  async function userOf(session: Session<UserJson>): Promise<UserJson> {
    return (await (await fetch(`${h.publicUrl}/auth/user`, { headers: { authorization: `Bearer ${session.access_token}` } })).json()) as UserJson;
  }

  it('when billing reports a plan change, then the user record and the next access token follow it; an older version arriving later is skipped', async () => {
    const { browser, session } = await signedIn('subscriber@example.com');
    await publishChange(session.user.id, 2n, 'pro', 'yearly');
    await vi.waitFor(
      async () =>
        expect((await userOf(session)).metadata).toMatchObject({
          tier: 'pro',
          billing_period: 'yearly',
          subscription_status: 'active',
          subscription_type: 'paid',
        }),
      { timeout: 10_000, interval: 50 },
    );
    const older = await publishChange(session.user.id, 1n, 'plus', 'monthly');
    await vi.waitFor(
      async () => expect(await h.db.selectFrom('processed_events').select('event_id').where('event_id', '=', older).executeTakeFirst()).toBeDefined(),
      { timeout: 10_000, interval: 50 },
    );
    expect((await userOf(session)).metadata).toMatchObject({ tier: 'pro', billing_period: 'yearly' });
    await publishChange(session.user.id, 3n, 'pro', 'yearly', 'past_due');
    await vi.waitFor(async () => expect((await userOf(session)).metadata.subscription_status).toBe('past_due'), { timeout: 10_000, interval: 50 });
    const refreshed = await browser.post(`${h.publicUrl}/auth/token`);
    const next = (await refreshed.json()) as Session<UserJson>;
    expect(decodeJwt(next.access_token).plan).toBe('pro');
  });
});
