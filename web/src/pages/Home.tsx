import { Link } from 'react-router';
import { PLANS, PLAN_IDS, cheapestPlanFor } from '@tradewind/contracts/plans';
import { BlogCarousel } from '../components/marketing/BlogCarousel';
import { HeroTape } from '../components/marketing/HeroTape';
import { TokenPanel } from '../components/marketing/TokenPanel';
import { BLOG_POSTS } from '../content/blog/posts';
import { formatUsd, SUBJECT_SOURCES } from '../lib/pricing';
import { Seo } from '../seo';
import { useAuth } from '../session/session';
import './home.css';

export const HOME_TITLE = 'Tradewind — real-time Solana trade data over WebSocket and NATS';

/** The four TRADES subjects, what they carry, in catalogue order of availability. */
const SOURCES: readonly { subject: string; text: string }[] = [
  { subject: 'basic.pumpfun', text: 'Buys, sells and token creations on the Pump.fun bonding curve, decoded with the official IDL.' },
  { subject: 'basic.bonk', text: 'LetsBonk.fun launches and trades on Raydium LaunchLab, with pool and curve fields.' },
  { subject: 'premium.pumpswap', text: 'Swaps, pool creations, deposits and withdrawals on PumpSwap, where Pump.fun tokens trade after graduating.' },
  { subject: 'premium.raydium', text: 'Raydium CPMM swaps, deposits and withdrawals, with reserves and SOL price for WSOL pools.' },
];

/** A call to action: the path it opens and its visible label. */
export interface HomeAction {
  to: string;
  label: string;
}

/**
 * The home page's calls to action by sign-in state (specification section 2, "Home (/)"): the
 * primary button opens /dashboard when signed in, else /pricing; the secondary 'See How It Works'
 * opens /how-it-works; the bottom 'Start Your Free Trial' opens /pricing and is absent (null) when
 * signed in. While the session loads the page shows the signed-out set, so prerender and
 * hydration agree.
 */
export function homeActions(signedIn: boolean): { primary: HomeAction; secondary: HomeAction; bottom: HomeAction | null } {
  const secondary = { to: '/how-it-works', label: 'See How It Works' };
  return signedIn
    ? { primary: { to: '/dashboard', label: 'Go to Dashboard' }, secondary, bottom: null }
    : { primary: { to: '/pricing', label: 'Get Started' }, secondary, bottom: { to: '/pricing', label: 'Start Your Free Trial' } };
}

export default function Home() {
  const { status } = useAuth();
  const actions = homeActions(status === 'signed-in');
  const starter = PLANS.starter;

  return (
    <>
      <Seo
        title={HOME_TITLE}
        description="Decoded Pump.fun, LetsBonk.fun, PumpSwap and Raydium CPMM trades as JSON, streamed in real time over WebSocket and native NATS JetStream. Free Starter plan."
        path="/"
      />

      <section className="home-hero">
        <div className="container home-hero-grid">
          <div className="home-hero-text">
            <p className="badge">Solana trade data, decoded</p>
            <h1>Real-time Solana trades over WebSocket and NATS</h1>
            <p className="home-lead">
              Tradewind decodes every Pump.fun, LetsBonk.fun, PumpSwap and Raydium CPMM trade and streams it to you as JSON, over a WebSocket or a native NATS
              JetStream connection. Sign in with Google, take your credentials from the dashboard and subscribe.
            </p>
            <div className="home-actions">
              <Link to={actions.primary.to} className="btn btn-primary" data-testid="home-primary">
                {actions.primary.label}
              </Link>
              <Link to={actions.secondary.to} className="btn btn-secondary" data-testid="home-secondary">
                {actions.secondary.label}
              </Link>
            </div>
            <p className="muted home-hero-note">
              The {starter.name} plan is free: {starter.subjects.map((s) => SUBJECT_SOURCES[s]).join(' and ')} trades, {starter.connections} connection per
              transport.
            </p>
          </div>
          <HeroTape />
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="home-tokens-title">
        <div className="container">
          <h2 id="home-tokens-title">Most traded tokens right now</h2>
          <p className="muted">Computed by Tradewind from its own decoded trades: the tokens with the most SOL traded in the last 24 hours.</p>
          <TokenPanel />
        </div>
      </section>

      <section className="section" aria-labelledby="home-sources-title">
        <div className="container">
          <h2 id="home-sources-title">Four sources, four subjects</h2>
          <p className="muted">Each source is one subject. Subscribe to the ones your plan includes; every message is one decoded trade.</p>
          <ul className="grid grid-2 home-sources">
            {SOURCES.map((s) => {
              const plan = cheapestPlanFor(s.subject);
              return (
                <li key={s.subject} className="card">
                  <h3>{SUBJECT_SOURCES[s.subject]}</h3>
                  <p>
                    <code>{s.subject}</code>{' '}
                    <span className="badge">{plan ? (plan.id === 'starter' ? 'Every plan' : `${plan.name} and above`) : 'Not in any plan'}</span>
                  </p>
                  <p className="muted">{s.text}</p>
                </li>
              );
            })}
          </ul>
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="home-transports-title">
        <div className="container">
          <h2 id="home-transports-title">Two ways to connect</h2>
          <div className="grid grid-2">
            <div className="card">
              <h3>WebSocket, port 9223</h3>
              <p>
                Open a socket, send your user JWT and NKey seed (or a signature of the server’s challenge), then send{' '}
                <code>{'{"subject":"basic.pumpfun"}'}</code>. Trades arrive as JSON text frames with no <code>type</code> or with{' '}
                <code>{'"type":"trade"'}</code>; control messages carry any other <code>type</code>.
              </p>
              <Link to="/how-it-works">See the code</Link>
            </div>
            <div className="card">
              <h3>Native NATS JetStream, port 4223</h3>
              <p>
                Use the <code>.creds</code> file from your dashboard with any NATS client and subscribe to the TRADES subjects of your plan. On {PLANS.pro.name}
                , replay history with a JetStream consumer.
              </p>
              <Link to="/pump-fun-api#nats">Read the NATS guide</Link>
            </div>
          </div>
          <p className="muted home-transport-note">Both use the same credentials: a NATS user JWT and NKey, issued and rotated in your dashboard.</p>
        </div>
      </section>

      <section className="section" aria-labelledby="home-plans-title">
        <div className="container">
          <h2 id="home-plans-title">Plans</h2>
          <ul className="grid grid-3 home-plans">
            {PLAN_IDS.map((id) => {
              const p = PLANS[id];
              return (
                <li key={id} className="card">
                  <h3>{p.name}</h3>
                  <p className="home-plan-price">
                    {p.monthlyUsd === 0 ? (
                      'Free'
                    ) : (
                      <>
                        {formatUsd(p.monthlyUsd)}
                        <span className="muted">/month</span>
                      </>
                    )}
                  </p>
                  <ul className="home-plan-facts">
                    <li>{p.subjects.map((s) => SUBJECT_SOURCES[s]).join(', ')}</li>
                    <li>
                      {p.connections} concurrent connection{p.connections === 1 ? '' : 's'} per transport
                    </li>
                    <li>{p.requestsPerMinute.toLocaleString('en-US')} control requests per minute</li>
                    <li>{p.replay ? 'Replay of trade history' : 'Live trades (no history replay)'}</li>
                  </ul>
                </li>
              );
            })}
          </ul>
          <p>
            <Link to="/pricing">Compare plans and yearly prices</Link>
          </p>
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="home-measured-title">
        <div className="container container-narrow">
          <h2 id="home-measured-title">Measured, not promised</h2>
          <p>
            We only quote figures we have measured. The live token panel above is computed by our token-price service; on the development machine (2 cores,
            local Redis 7), on 2026-11-21, it interpreted and applied <strong>4,975 trade messages per second</strong> and answered{' '}
            <strong>1,145 uncached top-20 reads per second</strong> over 650 ranked tokens. Answers are cached for one second, so extra visitors cost nothing.
          </p>
          <p>
            The stream itself, on the same machine on 2026-11-25, measured side by side with NATS&apos;s own fan-out of the same 1&nbsp;KB trades: our WebSocket
            edge kept up with <strong>500,000 deliveries per second</strong> to 1,000 subscribers (NATS: 200,000), with a median latency of{' '}
            <strong>0.5&nbsp;ms</strong> for one subscriber at 2,000 trades per second (NATS: 0.27&nbsp;ms), and lost, duplicated or reordered{' '}
            <strong>no message</strong> at any rate. Every trade carries its stream sequence, so a client that reconnects resumes without a gap.
          </p>
          <p className="muted">
            Sources: the token-price benchmark (<code>npm run bench -- token-price</code>), docs/token-price.md; the stream benchmark (
            <code>npm run bench -- fanout</code>), docs/websocket.md.
          </p>
        </div>
      </section>

      <section className="section" aria-labelledby="home-blog-title">
        <div className="container">
          <h2 id="home-blog-title">From the blog</h2>
          <BlogCarousel posts={BLOG_POSTS} />
        </div>
      </section>

      {actions.bottom ? (
        <section className="section section-alt home-bottom" aria-labelledby="home-bottom-title">
          <div className="container center">
            <h2 id="home-bottom-title">Start streaming Solana trades</h2>
            <p className="muted">Sign in with Google and the {starter.name} plan is yours, free, with no card.</p>
            <Link to={actions.bottom.to} className="btn btn-primary" data-testid="home-bottom">
              {actions.bottom.label}
            </Link>
          </div>
        </section>
      ) : null}
    </>
  );
}
