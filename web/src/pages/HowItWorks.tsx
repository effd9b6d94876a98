import { Link } from 'react-router';
import { STARTER_TEMPLATES, templateFileUrl } from '../content/templates';
import { SITE } from '../site';
import { Seo } from '../seo';
import { useAuth } from '../session/session';
import './how-it-works.css';

/**
 * The WebSocket sample, exactly the protocol of docs/websocket.md: connect, answer the challenge
 * with `{"jwt","nkey"}`, wait for `{"type":"authenticated"}`, subscribe with `{"subject"}`; frames
 * without `type` or with `"type": "trade"` (basic.pumpfun, message schema version 2) are trades.
 */
export function websocketSample(wsUrl: string): string {
  return `// Node.js 22+ or a browser: the standard WebSocket API.
const JWT = process.env.TRADEWIND_JWT;        // user JWT from your dashboard
const NKEY = process.env.TRADEWIND_NKEY_SEED; // NKey seed (SU…) from your dashboard

const ws = new WebSocket('${wsUrl}');

ws.onmessage = (event) => {
  const msg = JSON.parse(event.data);
  if (msg.type === 'challenge') {
    // 1. Authenticate with your NATS credentials.
    ws.send(JSON.stringify({ jwt: JWT, nkey: NKEY }));
  } else if (msg.type === 'authenticated') {
    // 2. Subscribe to a subject of your plan (msg.subjects lists them).
    ws.send(JSON.stringify({ subject: 'basic.pumpfun' }));
  } else if (msg.type === 'error') {
    console.error(msg.code, msg.message);
  } else if (msg.type === undefined || msg.type === 'trade') {
    // 3. Decoded trades: no "type", or "type": "trade" (pump.fun).
    //    Every other "type" is a control message.
    console.log(msg.transaction_type, msg.mint, msg.signature);
  }
};

ws.onclose = (event) => console.log('closed', event.code, event.reason);`;
}

const STEPS = [
  {
    title: 'Sign in with Google',
    text: 'One click, no password. Your account starts on the free Starter plan; upgrade any time from the pricing page.',
  },
  {
    title: 'Get your JWT and NKey in the dashboard',
    text: 'The dashboard shows your NATS user JWT, your NKey seed and the connection URLs, each with a copy button, and a .creds file for NATS clients.',
  },
  {
    title: 'Connect and subscribe',
    text: 'Open a WebSocket on port 9223 or a native NATS connection on port 4223, authenticate, and subscribe to the subjects of your plan.',
  },
] as const;

const FEATURES = [
  { title: 'Connection details with copy', text: 'WebSocket and NATS URLs, your user JWT and NKey seed, each one click away from your clipboard.' },
  { title: 'Plan and billing portal', text: 'See your plan, its limits and next billing date; change or cancel it in the Stripe billing portal.' },
  { title: 'API documentation', text: 'The WebSocket protocol, NATS subjects, message fields and error codes, next to your credentials.' },
  { title: 'Credential rotation', text: 'Issue a new JWT and NKey at any time: the old ones are revoked and their connections closed.' },
  { title: 'Settings', text: 'Your profile from Google, security (including credential rotation), connection details and notification preferences.' },
] as const;

export default function HowItWorks() {
  const { status } = useAuth();
  const signedIn = status === 'signed-in';
  return (
    <>
      <Seo
        title="How it works: from sign-in to your first decoded trade"
        description="Sign in with Google, copy your NATS JWT and NKey from the dashboard, and stream decoded Solana trades over WebSocket or NATS JetStream. Starter templates included."
        path="/how-it-works"
      />
      <section className="section">
        <div className="container">
          <h1>How Tradewind works</h1>
          <p className="hiw-lead muted">Three steps from nothing to a stream of decoded Solana trades.</p>
          <ol className="hiw-steps">
            {STEPS.map((s, i) => (
              <li key={s.title} className="card">
                <span className="hiw-step-number" aria-hidden="true">
                  {i + 1}
                </span>
                <h2 className="hiw-step-title">
                  <span className="sr-only">Step {i + 1}: </span>
                  {s.title}
                </h2>
                <p className="muted">{s.text}</p>
              </li>
            ))}
          </ol>
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="hiw-code-title">
        <div className="container container-narrow">
          <h2 id="hiw-code-title">Connect over WebSocket</h2>
          <p>
            The server greets you with a <code>challenge</code>; answer with your JWT and NKey seed. After <code>{'{"type":"authenticated"}'}</code>, send{' '}
            <code>{'{"subject":"basic.pumpfun"}'}</code>. Control messages always have a <code>type</code>; trades have none, or <code>{'"type":"trade"'}</code>{' '}
            (pump.fun trades), a type no control message uses.
          </p>
          <pre tabIndex={0} aria-label="WebSocket example in JavaScript" className="hiw-code">
            <code>{websocketSample(SITE.wsUrl)}</code>
          </pre>
          <p className="muted">
            To keep the seed on your machine, sign the challenge’s nonce with your NKey and send <code>{'{"jwt","sig"}'}</code> instead; the Python template
            does this.
          </p>
        </div>
      </section>

      <section className="section" aria-labelledby="hiw-templates-title">
        <div className="container">
          <h2 id="hiw-templates-title">Starter templates</h2>
          <p className="muted">Three small programs you can download and run against your credentials.</p>
          <ul className="grid grid-3 hiw-templates">
            {STARTER_TEMPLATES.map((t) => (
              <li key={t.id} className="card">
                <h3>{t.title}</h3>
                <p>
                  <span className="badge">{t.transport}</span>
                </p>
                <p className="muted">{t.summary}</p>
                <p className="hiw-run-label">Run it:</p>
                <pre className="hiw-run" tabIndex={0} aria-label={`Command to run the ${t.title} template`}>
                  <code>{t.run}</code>
                </pre>
                <h4 className="hiw-files-title">Files</h4>
                <ul className="hiw-files">
                  {t.files.map((f) => (
                    <li key={f}>
                      <a href={templateFileUrl(f)} download>
                        {f}
                      </a>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="hiw-dashboard-title">
        <div className="container">
          <h2 id="hiw-dashboard-title">What the dashboard gives you</h2>
          <ul className="grid grid-3 hiw-features">
            {FEATURES.map((f) => (
              <li key={f.title} className="card">
                <h3>{f.title}</h3>
                <p className="muted">{f.text}</p>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section className="section" aria-labelledby="hiw-cta-title">
        <div className="container center">
          <h2 id="hiw-cta-title">Ready to connect?</h2>
          {signedIn ? (
            <Link to="/dashboard" className="btn btn-primary">
              Open your dashboard
            </Link>
          ) : (
            <Link to="/login" className="btn btn-primary">
              Sign in with Google
            </Link>
          )}
          <p className="muted hiw-cta-note">
            Compare the plans on the <Link to="/pricing">pricing page</Link>.
          </p>
        </div>
      </section>
    </>
  );
}
