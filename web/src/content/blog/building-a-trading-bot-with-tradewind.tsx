/** Article: Building a trading bot on Tradewind (Tutorials, FAQ). */
import { Link } from 'react-router';
import { PLANS, PLAN_IDS } from '@tradewind/lib/plans';
import { Code, Note, Section, defineSections, sectionList, type FaqEntry } from '../../components/blog/article';
import { SITE } from '../../site';

const S = defineSections({
  shape: 'The shape of a reliable consumer',
  readLoop: 'Keep the read loop fast',
  skeleton: 'A bot skeleton',
  dedup: 'De-duplicate by signature and instruction path',
  limits: 'Connection and request limits',
  reconnect: 'Reconnect with backoff, but not always',
  planChanges: 'Plan changes and expiring credentials',
  monitoring: 'Monitoring what matters',
  replay: 'Catching up after downtime on Pro',
  checklist: 'A checklist before going live',
});

export const sections = sectionList(S);

const { starter, plus, pro } = PLANS;

export const faq: FaqEntry[] = [
  {
    question: 'How many connections can my bot open?',
    answer: `As many as your plan allows per transport: ${PLAN_IDS.map((id) => `${PLANS[id].name} ${PLANS[id].connections}`).join(', ')}. The count is shared by all credentials of your account across every server, so a connection beyond it is closed with code 4429 (WebSocket) or refused by the NATS server.`,
  },
  {
    question: 'What happens if my bot cannot keep up with the stream?',
    answer:
      'The server queues up to 8 MiB of messages for a WebSocket client. Beyond that it closes the connection with code 4413 (slow_consumer) instead of buffering without limit. Keep the read loop fast, process in a worker with its own bounded queue, and reconnect after a 4413.',
  },
  {
    question: 'Can I receive the same trade twice?',
    answer:
      'The decoder publishes each trade with a unique id and the stream drops a republished duplicate, so a live subscription sees each message once. Duplicates appear when you overlap a replay with what you already processed, or run two consumers; de-duplicate with <signature>:<instruction path> (plus :COMPLETE for COMPLETE messages).',
  },
  {
    question: 'Can Tradewind place trades for my bot?',
    answer:
      'No. Tradewind is a read-only market data feed: customer credentials may subscribe but never publish. Your bot signs and sends its own transactions to Solana through an RPC provider of your choice.',
  },
  {
    question: 'Which plan should a bot use?',
    answer: `${starter.name} is enough for a bot that trades on Pump.fun and LetsBonk.fun bonding curves. ${plus.name} ($${plus.monthlyUsd} a month) adds PumpSwap and Raydium CPMM. ${pro.name} ($${pro.monthlyUsd} a month) adds ${pro.connections} connections per transport and replay of history, which lets a restarted bot catch up on what it missed.`,
  },
];

export default function BuildingATradingBotWithTradewind() {
  return (
    <>
      <p>
        The first version of a trading bot usually looks like the tutorial: open a socket, print trades, react. It
        works until the first deployment restarts the server, the first burst of activity outruns the strategy, or the
        first plan change arrives on a live connection. This article is about the second version, the one that keeps
        running. It covers the structure of a robust Tradewind consumer, the server’s limits and how to stay within
        them, when to reconnect and when to stop, and what to monitor. The examples use the WebSocket protocol; the
        same ideas carry over to native NATS.
      </p>

      <Section s={S.shape}>
        <p>A consumer that survives production has three parts with clear boundaries:</p>
        <ol>
          <li>
            <strong>A connection</strong> that authenticates, subscribes, parses frames and hands trade messages on.
            It never waits for your strategy.
          </li>
          <li>
            <strong>A bounded queue</strong> between the connection and the strategy, with a written-down policy for
            what happens when it is full.
          </li>
          <li>
            <strong>Workers</strong> that run the strategy: filters, signals, and the calls that send transactions to
            Solana through your RPC provider. Tradewind is read-only; it never trades for you.
          </li>
        </ol>
        <p>
          Around them sit two pieces of state: the set of recently processed message ids, for de-duplication, and the
          position in the stream, so a restart knows where to resume. Keeping the parts separate is what lets you reason
          about each failure on its own: a slow RPC call fills the queue, not the socket; a dropped socket pauses
          input, not the strategy.
        </p>
      </Section>

      <Section s={S.readLoop}>
        <p>
          The WebSocket server applies a named policy to slow clients: a bounded buffer, then a disconnect with a
          reason. When more than 8 MiB of messages are queued for your socket as a new message is fanned out, the
          server closes the connection with code <strong>4413</strong> and reason <code>slow_consumer</code>. No error
          frame is sent, since it would wait behind the backlog. Replays are gentler: a replay pauses at 1 MiB of
          queued data and resumes when you have read it, but a replay paused for more than 30 seconds ends the same way.
        </p>
        <p>
          The practical rule: the message handler of the socket should do nothing but parse, de-duplicate and enqueue.
          Anything that waits (an RPC call, a database write, a network request to your own services) belongs in a
          worker. JSON parsing of one message is cheap; awaiting a network round trip inside the handler is what makes
          a client slow.
        </p>
      </Section>

      <Section s={S.skeleton}>
        <p>
          Here is a complete skeleton in TypeScript for Node.js. It signs the challenge, subscribes to the launchpad
          subjects, de-duplicates, enqueues into a bounded queue and runs one worker. When the queue overflows it does
          what the server does: it closes the connection and starts again, rather than silently dropping trades.
        </p>
        <Code
          label="bot.ts"
          lang="ts"
          code={`
// npm install ws @nats-io/nkeys && npm install -D @types/ws tsx   ·   run: npx tsx bot.ts
import WebSocket from 'ws';
import { fromSeed } from '@nats-io/nkeys';

interface Trade {
  source: string;
  transaction_type: string;
  signature: string;
  instruction_path: number[];
  block_time_ms: number | null;
  mint?: string;
  side?: 'buy' | 'sell';
  price_sol?: number;
  sol_amount_ui?: number;
}

/** Remembers the last \`max\` ids; add() is false for an id already seen. */
class RecentIds {
  private readonly ids = new Set<string>();
  constructor(private readonly max: number) {}
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value as string);
    return true;
  }
}

const URL = process.env.TRADEWIND_WS_URL ?? '${SITE.wsUrl}';
const JWT = process.env.TRADEWIND_JWT ?? '';
const KEY = fromSeed(new TextEncoder().encode(process.env.TRADEWIND_NKEY_SEED ?? ''));
const SUBJECTS = ['basic.pumpfun', 'basic.bonk'];
const MAX_QUEUE = 10_000;
const FATAL = new Set([4400, 4401]);

const queue: Trade[] = [];
const seen = new RecentIds(200_000);
const stats = { received: 0, duplicates: 0, processed: 0, overflows: 0, reconnects: 0, lastTradeAt: 0 };
let attempt = 0;

function messageId(t: Trade): string {
  const id = \`\${t.signature}:\${t.instruction_path.join('.')}\`;
  return t.transaction_type === 'COMPLETE' ? \`\${id}:COMPLETE\` : id;
}

function connect(): void {
  const ws = new WebSocket(URL);
  ws.on('message', (data) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    const msg = JSON.parse(data.toString());
    if (msg.type === 'challenge') {
      const sig = Buffer.from(KEY.sign(new TextEncoder().encode(msg.nonce))).toString('base64url');
      ws.send(JSON.stringify({ jwt: JWT, sig }));
    } else if (msg.type === 'authenticated') {
      attempt = 0;
      for (const subject of SUBJECTS) ws.send(JSON.stringify({ subject }));
    } else if (msg.type !== undefined) {
      console.log('control:', JSON.stringify(msg)); // subscribed, plan_changed, unsubscribed, error
    } else {
      const trade = msg as Trade;
      stats.received++;
      if (!seen.add(messageId(trade))) { stats.duplicates++; return; }
      if (queue.length >= MAX_QUEUE) { stats.overflows++; ws.close(4000, 'local queue full'); return; }
      queue.push(trade);
      stats.lastTradeAt = Date.now();
    }
  });
  ws.on('error', (err) => console.error('socket error:', err.message));
  ws.on('close', (code, reason) => {
    if (FATAL.has(code)) { console.error(\`stopping: \${code} \${reason}\`); process.exit(1); }
    const base = code === 4429 ? 30_000 : 1_000;
    const delay = Math.min(60_000, base * 2 ** attempt++) * (0.5 + Math.random() / 2);
    stats.reconnects++;
    setTimeout(connect, delay);
  });
}

async function strategy(t: Trade): Promise<void> {
  if (t.transaction_type === 'BUY' && (t.sol_amount_ui ?? 0) >= 5) {
    console.log(\`large buy: \${t.sol_amount_ui} SOL of \${t.mint} at \${t.price_sol}\`);
  }
}

async function worker(): Promise<void> {
  for (;;) {
    const t = queue.shift();
    if (!t) { await new Promise((r) => setTimeout(r, 5)); continue; }
    try { await strategy(t); stats.processed++; } catch (err) { console.error('strategy failed:', err); }
  }
}

setInterval(() => console.log(JSON.stringify({ ...stats, queued: queue.length })), 10_000);
connect();
void worker();
`}
        />
        <p>
          The example strategy only logs buys of 5 SOL or more; replace it with yours. If your strategy needs several
          workers, keep per-token ordering in mind: trades of one mint should go to the same worker, for example by
          hashing the mint, so that a later trade is never handled before an earlier one.
        </p>
      </Section>

      <Section s={S.dedup}>
        <p>
          A transaction can contain several trades, so a signature alone is not a unique key. The decoder’s id is{' '}
          <code>{'<signature>:<instruction path joined by .>'}</code>, with <code>:COMPLETE</code> appended for
          COMPLETE messages, which share their buy’s path. It is published as the <code>Nats-Msg-Id</code> header and
          the stream drops republished duplicates, so a single live subscription sees each message once. Your own
          duplicates come from overlap: a replay that starts a little before your last processed trade, two instances
          of the bot during a rolling deployment, or the same trade reaching you over both transports. The{' '}
          <code>RecentIds</code> class above keeps the newest 200,000 ids; size it to cover the longest overlap you
          create.
        </p>
      </Section>

      <Section s={S.limits}>
        <p>
          Two limits come from your plan. Both are counted per customer account and shared by every server, so
          restarting a bot or rotating its key does not reset them.
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr><th scope="col">plan</th><th scope="col">concurrent connections per transport</th><th scope="col">control requests per minute</th></tr>
            </thead>
            <tbody>
              {PLAN_IDS.map((id) => (
                <tr key={id}>
                  <th scope="row">{PLANS[id].name}</th>
                  <td>{PLANS[id].connections}</td>
                  <td>{PLANS[id].requestsPerMinute.toLocaleString('en-US')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p>
          A connection beyond the limit receives <code>connection_limit</code> and close code <strong>4429</strong>.
          Control requests are authentication, subscribe, replay and unsubscribe; going over the budget answers{' '}
          <code>rate_limited</code> with the time to retry, and the connection stays open. Trade messages never count.
          A bot that subscribes once and then listens uses a handful of requests per connection; one that subscribes and
          unsubscribes per token will reach the limit quickly and should subscribe to the whole subject and filter
          locally instead.
        </p>
        <p>
          Slots are leases of 30 seconds, renewed while the connection lives. If your process is killed without
          closing its socket, the slot is released within one lease, which is why the skeleton waits 30 seconds or more
          after a 4429 before trying again.
        </p>
      </Section>

      <Section s={S.reconnect}>
        <p>Sort the close codes into three groups and treat each differently:</p>
        <ul>
          <li>
            <strong>Retry with backoff</strong>: 1001 (server shutting down, for example during a deployment), 1006 (the
            connection dropped without a close frame), 1011 (internal error), 4503 (credential resolver unavailable),
            4408 (authentication took longer than 10 seconds) and 4413 (slow consumer, after you fix the cause).
          </li>
          <li>
            <strong>Retry slowly</strong>: 4429. Another connection holds your plan’s slot; start at 30 seconds.
          </li>
          <li>
            <strong>Stop and alert</strong>: 4401 (credentials invalid, expired or revoked) and 4400 (a malformed
            request, which is a bug). Retrying these with the same input cannot succeed.
          </li>
        </ul>
        <p>
          Exponential backoff with jitter, reset after a successful authentication, keeps a fleet of bots from
          reconnecting in lockstep after a server restart. Cap the delay (the skeleton uses 60 seconds) so a bot does
          not sleep for hours after a long outage.
        </p>
      </Section>

      <Section s={S.planChanges}>
        <p>
          Plans change while bots run: an upgrade from the dashboard, a downgrade when a subscription ends. The
          WebSocket server applies the change to your open connections. You receive <code>plan_changed</code> with the
          new plan and subjects; after a downgrade, each subject the new plan lacks ends with <code>unsubscribed</code>{' '}
          and <code>{`"reason":"plan_changed"`}</code>, and if the new plan allows fewer connections, exactly the
          surplus is closed with 4429. Log these messages prominently: a bot that silently stops receiving PumpSwap
          trades looks healthy unless you check.
        </p>
        <p>
          Credentials expire too. The <code>authenticated</code> message carries <code>expires_at_ms</code>; when that
          moment passes the server closes the connection with <code>expired</code> and 4401. Alert well before it, and
          load fresh credentials from the dashboard. If you rotate credentials, every connection using the old key is
          closed and refused afterwards, so deploy the new ones first.
        </p>
      </Section>

      <Section s={S.monitoring}>
        <p>Five numbers tell you most of what you need to know about a running consumer:</p>
        <ul>
          <li>
            <strong>Messages received per subject</strong>, and the time since the last one. Activity on the
            launchpads varies, so alert on silence that is unusual for the hour rather than on a fixed rate.
          </li>
          <li>
            <strong>Data age</strong>: your clock minus <code>block_time_ms</code> of the newest trade. It grows when
            you fall behind and when the upstream is behind; comparing it with the time since the last message tells
            you which.
          </li>
          <li>
            <strong>Queue depth</strong> and overflows. A queue that only grows means the strategy is slower than the
            stream.
          </li>
          <li>
            <strong>Reconnects by close code</strong>. A few 1001s during deployments are normal; repeated 4413s are
            not.
          </li>
          <li>
            <strong>Duplicates dropped</strong>. Non-zero after a replay is expected; non-zero during steady live
            operation means two consumers are running.
          </li>
        </ul>
        <Note title="Replayed data on a development stack">
          <p>
            On a local Tradewind stack without a live Solana source, the ingest service replays recorded mainnet
            transactions and marks each copy with <code>"replayed": true</code>; their <code>block_time_ms</code> is
            the original, months old. Exclude such messages from data-age alerts while testing.
          </p>
        </Note>
      </Section>

      <Section s={S.replay}>
        <p>
          On {pro.name}, a restarted bot does not have to accept a gap. Record the time of the last trade you processed,
          and after reconnecting subscribe with a replay from slightly before it:
        </p>
        <Code
          label="client → server"
          lang="json"
          code={`{"subject":"basic.pumpfun","replay":{"from":"2026-11-21T10:00:00Z"}}`}
        />
        <p>
          The server answers <code>subscribed</code> with the <code>first_seq</code> it starts from, sends the stored
          trades in stream order and then continues with live trades on the same consumer, with no gap and no duplicate
          between the two. <code>replay_caught_up</code> marks the switch, which is a good moment to let the strategy
          act again if it should not trade on stale prices. Your de-duplication set absorbs the overlap you chose. History
          goes back as far as the stream’s retention, 24 hours by default, and each connection may run up to 4 replays
          at once. With native NATS the same history is available through a JetStream consumer, as the{' '}
          <Link to="/blog/nats-jetstream-solana-trades">NATS guide</Link> shows.
        </p>
      </Section>

      <Section s={S.checklist}>
        <ul>
          <li>The socket handler only parses, de-duplicates and enqueues.</li>
          <li>The queue is bounded, and overflow has a defined behaviour that is logged.</li>
          <li>Close codes are sorted into retry, retry slowly and stop; backoff has jitter and a cap.</li>
          <li><code>plan_changed</code>, <code>unsubscribed</code> and <code>error</code> messages are logged and alerted on.</li>
          <li>Credentials are loaded from the environment or a secret store, and their expiry is watched.</li>
          <li>The bot opens no more connections than the plan allows, and one bot instance runs at a time.</li>
          <li>On {pro.name}: the last processed time is persisted, and startup replays from it.</li>
        </ul>
        <p>
          Start from the <Link to="/blog/stream-pump-fun-trades-websocket">WebSocket tutorial</Link> if you have not
          connected yet, and keep the <Link to="/dashboard/docs">API documentation</Link> at hand for the complete list
          of messages and limits.
        </p>
      </Section>
    </>
  );
}
