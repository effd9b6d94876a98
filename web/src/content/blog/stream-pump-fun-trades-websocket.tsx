/** Article: Stream Pump.fun trades in real time over WebSocket (Tutorials, featured, FAQ). */
import { Link } from 'react-router';
import { PLANS } from '@tradewind/lib/plans';
import { Code, Note, Section, defineSections, sectionList, type FaqEntry } from '../../components/blog/article';
import { SITE } from '../../site';

const S = defineSections({
  whatYouNeed: 'What you need',
  handshake: 'The handshake: challenge, credentials, authenticated',
  firstClient: 'A complete client',
  tradeMessage: 'Reading a trade message',
  controlMessages: 'Control messages to handle',
  errors: 'Errors and close codes',
  reconnect: 'Reconnecting without losing your place',
  nextSteps: 'Next steps',
});

export const sections = sectionList(S);

const starter = PLANS.starter;
const pro = PLANS.pro;

export const faq: FaqEntry[] = [
  {
    question: 'Do I need a paid plan to stream Pump.fun trades?',
    answer: `No. basic.pumpfun and basic.bonk are part of every plan, including the free ${starter.name} plan, which allows ${starter.connections} concurrent connection and ${starter.requestsPerMinute} control requests per minute. The paid plans add the PumpSwap and Raydium CPMM subjects, more connections and, on ${pro.name}, replay of history.`,
  },
  {
    question: 'Should I send my NKey seed or a signature of the challenge?',
    answer:
      'Both are accepted. Signing the challenge nonce with your NKey and sending {"jwt","sig"} keeps the seed on your machine, so it is the better choice whenever your language has an Ed25519 NKey library. Sending {"jwt","nkey"} is simpler for a first test.',
  },
  {
    question: 'Why was my connection closed with code 4429?',
    answer: `Your plan's concurrent connections were already taken (${starter.name}: ${starter.connections}, ${PLANS.plus.name}: ${PLANS.plus.connections}, ${pro.name}: ${pro.connections}). Close the other connection or wait: a slot held by a connection that died without closing is freed when its 30-second lease runs out.`,
  },
  {
    question: 'Can I get the trades I missed while I was disconnected?',
    answer: `Yes, on every plan: every trade carries its TRADES stream sequence as "seq"; reconnect and subscribe with {"subject": …, "resume_after": <the last seq you received>} and the server sends every trade you missed, once and in order, then continues live. Every plan can resume from the last 5 minutes; on ${pro.name} you can go back as far as the stream keeps (24 hours by default) and also replay from a time with {"replay":{"from": …}}.`,
  },
  {
    question: 'Does the WebSocket change the JSON that the decoder publishes?',
    answer:
      'No. Trade messages are the exact bytes published on NATS, never parsed or re-serialised by the WebSocket server, so a WebSocket client and a native NATS client see identical messages.',
  },
];

export default function StreamPumpFunTradesWebsocket() {
  return (
    <>
      <p>
        Tradewind decodes every Pump.fun trade from the Solana chain and publishes it as one JSON message on the
        subject <code>basic.pumpfun</code>. This tutorial takes you from an empty folder to a Node.js program that
        connects to the WebSocket endpoint, authenticates with the credentials from your dashboard, subscribes, prints
        each buy and sell, and reconnects correctly when the connection drops. Everything here follows the protocol as
        the WebSocket server implements it; the same steps work from any language that has a WebSocket client.
      </p>

      <Section s={S.whatYouNeed}>
        <p>
          You need a Tradewind account. The {starter.name} plan costs nothing and includes both launchpad subjects,{' '}
          <code>basic.pumpfun</code> and <code>basic.bonk</code>, with {starter.connections} concurrent connection per
          transport. Sign in, open the dashboard and look at the connection details. They contain three things this
          tutorial uses:
        </p>
        <ul>
          <li>
            <code>ws_connection</code>, the WebSocket URL. On a local development stack it is{' '}
            <code>{SITE.wsUrl}</code>; the WebSocket server listens on port 9223.
          </li>
          <li>
            <code>user_jwt</code>, your NATS user JWT. It names your account and, through the account, your plan.
          </li>
          <li>
            <code>user_nkey_seed</code>, the private NKey seed that belongs to the JWT. It starts with <code>SU</code>.
            Treat it like a password: anyone holding the JWT and the seed can use your plan’s connections.
          </li>
        </ul>
        <p>
          The same JWT and seed also work for native NATS on port 4223, which is the subject of a separate guide. For
          this tutorial install Node.js 20 or newer and two packages: <code>ws</code>, a WebSocket client, and{' '}
          <code>@nats-io/nkeys</code>, the NATS project’s NKey library, which we use to sign the server’s challenge.
        </p>
        <Code
          label="terminal"
          lang="sh"
          code={`
mkdir tradewind-ws && cd tradewind-ws
npm init -y && npm pkg set type=module
npm install ws @nats-io/nkeys
export TRADEWIND_JWT='eyJ…'        # user_jwt from the dashboard
export TRADEWIND_NKEY_SEED='SU…'   # user_nkey_seed from the dashboard
`}
        />
      </Section>

      <Section s={S.handshake}>
        <p>
          Every frame in both directions is a JSON text frame. The server starts the conversation: as soon as the socket
          opens it sends a challenge containing a random nonce of 32 base64url characters.
        </p>
        <Code label="server → client" lang="json" code={`{"type":"challenge","nonce":"<32 base64url characters>"}`} />
        <p>You answer with your credentials in one of two forms. The simple form sends the seed itself:</p>
        <Code label="client → server" lang="json" code={`{"jwt":"<user JWT>","nkey":"<user NKey seed, SU…>"}`} />
        <p>
          The safer form never sends the seed. You sign the nonce’s UTF-8 bytes with your NKey (an Ed25519 key) and send
          the signature, base64url-encoded. The server checks that the signature was made by the key named in the JWT,
          which proves you hold the seed without revealing it:
        </p>
        <Code label="client → server" lang="json" code={`{"jwt":"<user JWT>","sig":"<base64url signature of nonce>"}`} />
        <p>
          The server verifies the credentials the way the NATS server does: the JWT’s signature chain up to the
          operator, its expiry, the account’s revocations and possession of the key. When everything checks out it
          answers with your plan, the subjects you may subscribe to and the moment your JWT expires (milliseconds since
          the epoch, or <code>null</code>):
        </p>
        <Code
          label="server → client"
          lang="json"
          code={`{"type":"authenticated","plan":"starter","subjects":["basic.pumpfun","basic.bonk"],"expires_at_ms":1795248000000}`}
        />
        <p>
          You have 10 seconds from connecting to send credentials. After that the server sends{' '}
          <code>auth_timeout</code> and closes the socket with code 4408. Once authenticated, you subscribe by sending{' '}
          <code>{`{"subject":"basic.pumpfun"}`}</code>. The server confirms with{' '}
          <code>{`{"type":"subscribed","subject":"basic.pumpfun"}`}</code> and then streams trades. A connection can
          hold several subjects at once, and <code>{`{"unsubscribe":"basic.pumpfun"}`}</code> stops one of them.
        </p>
      </Section>

      <Section s={S.firstClient}>
        <p>
          Here is the whole exchange as one file. It signs the challenge rather than sending the seed, subscribes to the
          subject given on the command line (default <code>basic.pumpfun</code>) and prints buys and sells. The rule that
          makes the message loop simple: control messages always have a <code>type</code> field, trade messages never do.
        </p>
        <Code
          label="client.mjs"
          lang="js"
          code={`
// Node.js 20+: npm install ws @nats-io/nkeys
import WebSocket from 'ws';
import { fromSeed } from '@nats-io/nkeys';

const url = process.env.TRADEWIND_WS_URL ?? '${SITE.wsUrl}';
const jwt = process.env.TRADEWIND_JWT;
const seed = process.env.TRADEWIND_NKEY_SEED;
const subject = process.argv[2] ?? 'basic.pumpfun';
const utf8 = new TextEncoder();

const ws = new WebSocket(url);

ws.on('message', (data) => {
  const msg = JSON.parse(data.toString('utf8'));
  if (msg.type === undefined) return onTrade(msg); // trade messages never carry "type"
  switch (msg.type) {
    case 'challenge': {
      // Sign the nonce: the seed never leaves this process.
      const key = fromSeed(utf8.encode(seed));
      const sig = Buffer.from(key.sign(utf8.encode(msg.nonce))).toString('base64url');
      ws.send(JSON.stringify({ jwt, sig }));
      break;
    }
    case 'authenticated':
      console.log(\`plan \${msg.plan}; may subscribe to \${msg.subjects.join(', ')}\`);
      ws.send(JSON.stringify({ subject }));
      break;
    case 'subscribed':
      console.log(\`subscribed to \${msg.subject}\`);
      break;
    case 'error':
      console.error(\`error \${msg.code}: \${msg.message}\`);
      break;
    default:
      console.log('control message', msg);
  }
});

ws.on('close', (code, reason) => console.log(\`closed: \${code} \${reason.toString()}\`));
ws.on('error', (err) => console.error('socket error:', err.message));

function onTrade(t) {
  if (t.transaction_type !== 'BUY' && t.transaction_type !== 'SELL') return;
  const price = t.price_sol !== undefined ? \`\${t.price_sol} SOL\` : \`\${t.price_quote} (quote)\`;
  console.log(\`\${t.side} \${t.token_amount_ui} of \${t.mint} for \${t.sol_amount_ui} SOL, price \${price}\`);
}
`}
        />
        <p>
          Run it with <code>node client.mjs</code>, or <code>node client.mjs basic.bonk</code> for LetsBonk.fun trades.
          If you would rather send the seed for a first test, replace the two signing lines with{' '}
          <code>{`ws.send(JSON.stringify({ jwt, nkey: seed }))`}</code>; the server accepts either form.
        </p>
      </Section>

      <Section s={S.tradeMessage}>
        <p>
          Every message on <code>basic.pumpfun</code> follows the subject’s JSON Schema. Below is a real one: the decoder’s
          output for a pump.fun buy recorded from mainnet in July 2025 (signature <code>2ghHZX…STszhc</code>, one of the
          transactions bundled with Tradewind for testing), reformatted over several lines.
        </p>
        <Code
          label="a basic.pumpfun BUY message"
          lang="json"
          code={`
{
  "source": "pumpfun", "transaction_type": "BUY",
  "signature": "2ghHZXwyU6K1Q8KMJbLJg37ktmyctKmdzzZKGDvHk1MR865dDYyo8SfrKvmvijT43P6hdu6ozPtATiMeg2STszhc",
  "slot": 356410419, "commitment": "confirmed", "block_time_ms": 1753751878000, "instruction_path": [2],
  "program_id": "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P",
  "mint": "7k2255ueF3Ecnnjf9odEu7so3gmXKS8E29atDWmFpump",
  "sol_amount": "129814469", "token_amount": "2878556000000", "is_buy": true,
  "user": "3HeEuccBzrTvWBvQGuiVgqbJcCpzTd4mFZjbKQoz5BYg", "timestamp": "1753751878",
  "virtual_sol_reserves": "38165815301", "virtual_token_reserves": "843424927552285",
  "real_sol_reserves": "8165815301", "real_token_reserves": "563524927552285",
  "fee_recipient": "CebN5WGQ4jvEPvsVU4EoHEpgzq1VV7AbicfhtW4xC9iM", "fee_basis_points": "95", "fee": "1233238",
  "creator": "3JCST4EZJoJT6rJhjNn6e4KRK2pg79JoAye7zdCPMMdK", "creator_fee_basis_points": "5", "creator_fee": "64908",
  "side": "buy", "bonding_curve": "9A5TEByiBsj1RXZfe6cDr3tLn89vXtrZ11QsFWf13Njm",
  "sol_amount_ui": 0.129814469, "token_amount_ui": 2878556, "price_sol": 4.525099277271961e-8
}
`}
        />
        <p>A few rules make these messages easy to consume:</p>
        <ul>
          <li>
            Raw on-chain integers (u64, i64) are <strong>decimal strings</strong>, because they can exceed the range a
            JSON number holds exactly. <code>sol_amount</code> is in lamports, <code>token_amount</code> in the token’s
            base units (pump.fun mints have 6 decimals). Parse them with <code>BigInt</code> when you do arithmetic.
          </li>
          <li>
            Fields whose name ends in <code>_ui</code>, and <code>price_sol</code>, are derived numbers in human units:
            SOL, whole tokens, and SOL per token. <code>price_sol</code> is the bonding curve’s spot price after the trade,
            (virtual_sol_reserves / 1e9) / (virtual_token_reserves / 1e6). Curves quoted in another mint carry{' '}
            <code>price_quote</code> and <code>quote_amount_ui</code> instead.
          </li>
          <li>
            <code>transaction_type</code> is one of CREATE, BUY, SELL, COMPLETE (this buy filled the bonding curve) and
            MIGRATE (the curve’s liquidity moved to a PumpSwap pool). Check it before reading trade fields.
          </li>
          <li>
            Fields an older event layout lacks are <strong>absent</strong>, not zero: a 2024 trade has no{' '}
            <code>creator</code> or fee fields. Code defensively with optional access.
          </li>
          <li>
            <code>signature</code> plus <code>instruction_path</code> identifies a message: one transaction can contain
            several trades, for instance when a router or bot calls pump.fun more than once.
          </li>
          <li>
            Over WebSocket each message starts with <code>seq</code>, its sequence in the TRADES stream (
            <code>{'{"seq":48213,"source":"pumpfun",…}'}</code>): remember the last one, it is where you resume after a
            disconnect. <code>commitment</code> says how final the transaction was when it was decoded (
            <code>processed</code>, <code>confirmed</code> or <code>finalized</code>).
          </li>
        </ul>
      </Section>

      <Section s={S.controlMessages}>
        <p>
          Besides <code>challenge</code>, <code>authenticated</code> and <code>subscribed</code>, a long-running client
          should understand three more control messages, because they report changes you did not ask for:
        </p>
        <ul>
          <li>
            <code>plan_changed</code> arrives when your account’s plan changes while you are connected. After an upgrade
            the new subjects can be subscribed on the same socket at once, with the same credentials.
          </li>
          <li>
            <code>unsubscribed</code> with <code>{`"reason":"plan_changed"`}</code> follows a downgrade for each subject
            the new plan no longer includes. The connection stays open and the other subjects keep flowing.
          </li>
          <li>
            <code>replay_caught_up</code> tells a {pro.name} client that a replay has delivered all stored history and
            the messages that follow are live.
          </li>
        </ul>
        <p>
          A JWT that expires while connected ends the connection with <code>expired</code> and close code 4401, just as
          the NATS server ends native connections. The <code>expires_at_ms</code> value of <code>authenticated</code>{' '}
          tells you when that will happen; the dashboard re-issues a JWT for the same key when it is close to expiry.
        </p>
      </Section>

      <Section s={S.errors}>
        <p>
          Every refusal is <code>{`{"type":"error","code":…,"message":…}`}</code>. Some leave the connection usable; the
          fatal ones are followed by a close frame whose reason is the error code. The ones you are likely to meet:
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr><th scope="col">code</th><th scope="col">meaning</th><th scope="col">close</th></tr>
            </thead>
            <tbody>
              <tr><td><code>subject_not_in_plan</code></td><td>The subject needs another plan; the message names the cheapest one that includes it.</td><td>stays open</td></tr>
              <tr><td><code>unknown_subject</code></td><td>Not one of the four TRADES subjects.</td><td>stays open</td></tr>
              <tr><td><code>rate_limited</code></td><td>Too many control requests this minute ({starter.name}: {starter.requestsPerMinute}).</td><td>stays open</td></tr>
              <tr><td><code>invalid_jwt</code>, <code>nkey_mismatch</code>, <code>expired</code>, <code>revoked</code></td><td>The credentials were refused.</td><td>4401</td></tr>
              <tr><td><code>auth_timeout</code></td><td>No credentials within 10 seconds.</td><td>4408</td></tr>
              <tr><td><code>connection_limit</code></td><td>All of the plan’s concurrent connections are in use.</td><td>4429</td></tr>
              <tr><td><code>bad_json</code>, <code>missing_fields</code></td><td>A malformed frame before authentication.</td><td>4400</td></tr>
              <tr><td><code>unavailable</code></td><td>The credential resolver could not be reached during authentication.</td><td>4503</td></tr>
            </tbody>
          </table>
        </div>
        <p>
          Two close codes come without an error frame. <strong>4413</strong> (<code>slow_consumer</code>) means more
          than 8 MiB of messages were queued for your socket because your client was not reading fast enough; the server
          disconnects rather than buffer without limit. <strong>1001</strong> means the server is shutting down, for
          example during a deployment. Both are reasons to reconnect, and 4413 is also a reason to move slow work off
          the socket’s read loop.
        </p>
      </Section>

      <Section s={S.reconnect}>
        <p>
          Connections end: deployments, network changes, an expired JWT. A good client sorts close codes into those worth
          retrying and those that need a human. Retrying 4401 with the same credentials fails again, and hammering the
          server after 4429 only burns your request budget. The loop below retries everything else with exponential
          backoff (1 s doubling to 30 s), resets the delay after a successful authentication, and resubscribes with{' '}
          <code>resume_after</code> set to the <code>seq</code> of the last trade it saw, so nothing is lost in between
          and nothing arrives twice — on every plan. It also treats 15 seconds without any frame as a dead link: a
          subscribed connection gets a <code>heartbeat</code> after 5 quiet seconds.
        </p>
        <p>
          In Node.js, the client library <code>@tradewind/client</code> (the WebSocket starter template ships it) does all
          of this for you; the loop shows what it does, for other languages.
        </p>
        <Code
          label="reconnect.mjs"
          lang="js"
          code={`
import WebSocket from 'ws';
import { fromSeed } from '@nats-io/nkeys';

const url = process.env.TRADEWIND_WS_URL ?? '${SITE.wsUrl}';
const jwt = process.env.TRADEWIND_JWT;
const key = fromSeed(new TextEncoder().encode(process.env.TRADEWIND_NKEY_SEED));
const subject = 'basic.pumpfun';
const FATAL = new Set([4400, 4401]); // fix the request or renew the credentials first

let attempt = 0;
let lastSeq = null; // seq of the last trade received: where to resume
let watchdog;

function connect() {
  const ws = new WebSocket(url);
  const alive = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => ws.terminate(), 15_000); // 3 × the 5 s heartbeat
  };
  ws.on('open', alive);
  ws.on('message', (data) => {
    alive();
    const msg = JSON.parse(data.toString('utf8'));
    if (msg.type === 'challenge') {
      const sig = Buffer.from(key.sign(new TextEncoder().encode(msg.nonce))).toString('base64url');
      ws.send(JSON.stringify({ jwt, sig }));
    } else if (msg.type === 'authenticated') {
      attempt = 0;
      ws.send(JSON.stringify(lastSeq === null ? { subject } : { subject, resume_after: lastSeq }));
    } else if (msg.type === 'error') {
      console.error(msg.code, msg.message);
      // Gone past the resume window: say so, then carry on live.
      if (msg.code === 'resume_too_old') ws.send(JSON.stringify({ subject }));
    } else if (msg.type === undefined) {
      if (lastSeq !== null && msg.seq <= lastSeq) return; // never twice
      lastSeq = msg.seq;
      console.log(msg.seq, msg.transaction_type, msg.mint, msg.price_sol);
    }
  });
  ws.on('error', (err) => console.error('socket error:', err.message));
  ws.on('close', (code, reason) => {
    clearTimeout(watchdog);
    if (FATAL.has(code)) return console.error(\`not retrying: \${code} \${reason}\`);
    const delay = Math.min(30_000, 1_000 * 2 ** attempt++);
    console.log(\`closed \${code}; reconnecting in \${delay} ms\`);
    setTimeout(connect, delay);
  });
}

connect();
`}
        />
        <p>
          Two details deserve a comment. First, <code>seq</code> is the message's sequence in the TRADES stream: it
          grows with every stored trade (across all subjects, so the numbers of one subject have gaps between them), which
          is why a plain <code>{'<='}</code> comparison is enough to drop a message seen before. Second, 4429 gets the same
          backoff as everything else: a connection slot held by a process that died without closing its socket is freed
          when its 30-second lease expires, or sooner when the server notices the missing pongs.
        </p>
        <Note title="How far back a resume reaches">
          <p>
            Every plan resumes from the last 5 minutes. On {pro.name} (${pro.monthlyUsd} a month) a resume reaches as far
            back as the stream keeps, and <code>{'{"replay":{"from": …}}'}</code> replays from a time. Past the window the
            server answers <code>resume_too_old</code> with the oldest sequence it still holds, so your bot knows exactly
            which range it missed.
          </p>
        </Note>
      </Section>

      <Section s={S.nextSteps}>
        <p>
          You now have a client that authenticates without exposing its seed, reads trade messages correctly and survives
          restarts. From here, the <Link to="/blog/decoding-pump-fun-and-letsbonk-trades">field-by-field guide to decoded
          trades</Link> explains every value in the message above, and{' '}
          <Link to="/blog/building-a-trading-bot-with-tradewind">building a trading bot on Tradewind</Link> turns this
          loop into a consumer with back-pressure, monitoring and clean handling of plan changes. If you prefer a NATS
          client library to a raw WebSocket, the <Link to="/blog/nats-jetstream-solana-trades">NATS JetStream
          guide</Link> uses the same credentials on port 4223. The complete protocol reference, with every control
          message and limit, is in the <Link to="/dashboard/docs">API documentation</Link> in your dashboard.
        </p>
      </Section>
    </>
  );
}
