/**
 * The HTTP load of the rolling-restart class (chaos/rolling.ts): users signing in and using the API through
 * the load balancer's public origin, as the web app does, recording every answer.
 *
 * One iteration of a loop is one browser session:
 *   GET  /auth/login?login_hint=<email>     auth → 302 to the local OpenID provider (dev/src/local-oidc.ts)
 *   GET  <provider>/authorize?…              the provider → 302 back to /auth/callback (not through the balancer)
 *   GET  /auth/callback?code&state           auth → 302 to /dashboard, refresh cookie set
 *   POST /auth/token                          auth → 200 session with the access token
 *   GET  /api/nats                            credential-issuer → 200 the user's NATS credentials
 *   GET  /api/get-subscription                billing → 200
 *   GET  /api/birdeye/tokens                  token-price → 200 the ticker
 *   GET  /  and  GET /api/openapi.json        web → 200
 * Users come from a fixed pool per loop, so sign-ins are new users at first and returning users after.
 * A request without an answer within {@link REQUEST_TIMEOUT_MS} is recorded as `no answer`; a step whose
 * answer is not the expected one ends the iteration (the rest of it would only fail for that reason).
 */

import type { HttpOutcome } from './rolling-tally.js';

/** A request that gets no answer within this long counts as dropped, ms. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** One request and what came back: the record rolling-tally.ts judges (its HttpOutcome). */
export type HttpRecord = HttpOutcome;

/** Keeps cookies for the `/auth` path, as a browser does for auth's HttpOnly cookies. */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  header(): Record<string, string> {
    return this.cookies.size === 0 ? {} : { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }
  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The HTTP load: `loops` concurrent sessions until {@link stop}. */
export class HttpLoad {
  readonly records: HttpRecord[] = [];
  /** Iterations that reached their last step. */
  completed = 0;
  private running = true;
  private readonly done: Promise<void>;

  /**
   * @param options.origin the balancer's public origin (PUBLIC_URL).
   * @param options.oidcIssuer the local provider's issuer (its `/authorize` is called directly, as a browser does).
   * @param options.pauseMs wait between two steps of one loop, ms.
   * @param options.usersPerLoop size of each loop's user pool.
   */
  constructor(private readonly options: { origin: string; oidcIssuer: string; loops: number; pauseMs: number; usersPerLoop: number; tag: string }) {
    this.done = Promise.all(Array.from({ length: options.loops }, (_, i) => this.loop(i))).then(() => undefined);
  }

  /** Stops after the step in progress of every loop. */
  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }

  private async loop(index: number): Promise<void> {
    let n = 0;
    while (this.running) {
      const email = `rolling-${this.options.tag}-${index}-${n++ % this.options.usersPerLoop}@example.com`;
      await this.session(email).catch(() => undefined);
      await sleep(this.options.pauseMs);
    }
  }

  /** One request through `fetch` with manual redirects; records it. @returns the response, or undefined when none came. */
  private async request(
    service: string,
    method: 'GET' | 'POST',
    url: string,
    expect: (status: number, location: string) => boolean,
    headers: Record<string, string> = {},
  ): Promise<Response | undefined> {
    const at = Date.now();
    const route = `${method} ${new URL(url).pathname}`;
    try {
      const res = await fetch(url, { method, headers, redirect: 'manual', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      const body = await res.arrayBuffer();
      const expected = expect(res.status, res.headers.get('location') ?? '');
      const replica = res.headers.get('x-upstream-replica') ?? '';
      const location = res.headers.get('location') ?? '';
      const detail = expected ? replica : `${replica} ${location.slice(0, 120)} ${Buffer.from(body).toString('utf8').slice(0, 160)}`.trim();
      this.records.push({ service, route, at, durationMs: Date.now() - at, status: res.status, expected, detail });
      return expected ? new Response(body, { status: res.status, headers: res.headers }) : undefined;
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      const detail = e.name === 'TimeoutError' ? `no answer within ${REQUEST_TIMEOUT_MS} ms` : (e.cause?.code ?? e.message);
      this.records.push({ service, route, at, durationMs: Date.now() - at, status: 'no answer', expected: false, detail });
      return undefined;
    }
  }

  private async session(email: string): Promise<void> {
    const { origin, oidcIssuer, pauseMs } = this.options;
    const jar = new CookieJar();
    const is = (want: number) => (status: number) => status === want;
    const redirectTo = (prefix: string) => (status: number, location: string) => status === 302 && location.startsWith(prefix);
    const step = async <T>(f: () => Promise<T>) => {
      if (!this.running) return undefined;
      const v = await f();
      await sleep(pauseMs);
      return v;
    };
    const login = await step(() => this.request('auth', 'GET', `${origin}/auth/login?login_hint=${encodeURIComponent(email)}`, redirectTo(oidcIssuer)));
    if (!login) return;
    jar.store(login);
    const provider = await step(() => this.request('local-oidc', 'GET', login.headers.get('location')!, redirectTo(`${origin}/auth/callback`)));
    if (!provider) return;
    // The callback must land on the dashboard: a redirect to /login?error=… is a failed sign-in.
    const landed = await step(() => this.request('auth', 'GET', provider.headers.get('location')!, redirectTo(`${origin}/dashboard`), jar.header()));
    if (!landed) return;
    jar.store(landed);
    const token = await step(() => this.request('auth', 'POST', `${origin}/auth/token`, is(200), jar.header()));
    const access = token ? ((await token.json()) as { access_token?: string }).access_token : undefined;
    if (!access) return;
    const bearer = { authorization: `Bearer ${access}` };
    await step(() => this.request('credential-issuer', 'GET', `${origin}/api/nats`, is(200), bearer));
    await step(() => this.request('billing', 'GET', `${origin}/api/get-subscription`, is(200), bearer));
    await step(() => this.request('token-price', 'GET', `${origin}/api/birdeye/tokens`, is(200)));
    await step(() => this.request('web', 'GET', `${origin}/`, is(200)));
    const last = await step(() => this.request('web', 'GET', `${origin}/api/openapi.json`, is(200)));
    if (last) this.completed++;
  }
}
