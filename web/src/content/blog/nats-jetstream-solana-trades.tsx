/** Article: Native NATS JetStream for Solana trade data (Guides). */
import { Link } from 'react-router';
import { PLANS, PLAN_IDS } from '@tradewind/lib/plans';
import { Code, Note, Section, defineSections, sectionList } from '../../components/blog/article';
import { SITE } from '../../site';

const S = defineSections({
  whyNative: 'Why connect natively',
  credsFile: 'Getting your .creds file',
  subjects: 'Subjects per plan',
  natsCli: 'A first look with the nats CLI',
  natsJs: 'Subscribing from Node.js with nats.js',
  permissions: 'Permission errors and connection limits',
  planChanges: 'Plan changes and key rotation on a live connection',
  replay: 'Replaying history on Pro with a JetStream consumer',
  summary: 'Summary',
});

export const sections = sectionList(S);

const { starter, plus, pro } = PLANS;

export default function NatsJetstreamSolanaTrades() {
  return (
    <>
      <p>
        Tradewind is built on NATS JetStream. The decoder publishes every trade into a stream called{' '}
        <code>TRADES</code>, and the WebSocket server is one consumer of that stream among others. You can skip the
        WebSocket layer and connect to NATS directly on port 4223, with the same credentials, using any of the official
        NATS client libraries or the <code>nats</code> command-line tool. This guide shows how: where the credentials
        come from, which subjects your plan opens, what a refused subscription looks like, what happens to a live
        connection when your plan changes, and how {pro.name} customers read stored history with a JetStream consumer
        of their own.
      </p>

      <Section s={S.whyNative}>
        <p>
          Both transports carry byte-identical messages; the WebSocket server forwards exactly what was published on
          NATS. The difference is the client. With a raw WebSocket you implement the handshake, reconnects and
          subscriptions yourself. A NATS client library already does this: it authenticates from a standard credentials
          file, reconnects on its own, re-subscribes after a reconnect, and gives you JetStream consumers for replay.
          If your stack has a NATS client (Go, Rust, Python, Java, .NET, JavaScript and others all do), native NATS is
          usually the shorter path. The WebSocket is the better fit for browsers and for languages without a NATS
          library.
        </p>
        <p>
          Connections are counted per transport: your plan’s limit applies to WebSocket connections and, separately, to
          native NATS connections. On {pro.name} that is {pro.connections} of each.
        </p>
      </Section>

      <Section s={S.credsFile}>
        <p>
          Tradewind’s NATS server runs in operator mode: clients authenticate with a user JWT and an NKey rather than a
          password. When you sign up, Tradewind creates a NATS account just for you, holding your plan’s connection
          limit and subject permissions, and a user in that account. Your dashboard shows that user’s JWT and NKey seed,
          and lets you download both as a standard <code>.creds</code> file, the format every NATS client and the CLI
          read. Behind the button is <code>GET /api/nats?format=creds</code>. The file looks like this:
        </p>
        <Code
          label="tradewind.creds"
          lang="text"
          code={`
-----BEGIN NATS USER JWT-----
eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ…
------END NATS USER JWT------

************************* IMPORTANT *************************
NKEY Seed printed below can be used to sign and prove identity.
NKEYs are sensitive and should be treated as secrets.

-----BEGIN USER NKEY SEED-----
SUA…
------END USER NKEY SEED------
`}
        />
        <p>
          Keep it out of version control and out of container images; mount it at run time instead. The JWT is valid
          for a year and is re-signed for the same key when it gets close to expiry, so a downloaded file keeps working
          until you rotate your credentials. The connection details in the dashboard also show the NATS URL; on a local
          development stack it is <code>{SITE.natsUrl}</code>.
        </p>
      </Section>

      <Section s={S.subjects}>
        <p>
          Trades are published on four subjects, one per on-chain program. Your account imports exactly the subjects of
          your plan from the services’ account, so a subscription outside your plan is refused by the NATS server
          itself, whatever a client asks for.
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">subject</th>
                <th scope="col">program</th>
                {PLAN_IDS.map((id) => (
                  <th scope="col" key={id}>{PLANS[id].name}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {(
                [
                  ['basic.pumpfun', 'Pump.fun bonding curves'],
                  ['basic.bonk', 'LetsBonk.fun (Raydium LaunchLab)'],
                  ['premium.pumpswap', 'PumpSwap AMM'],
                  ['premium.raydium', 'Raydium CPMM'],
                ] as const
              ).map(([subject, program]) => (
                <tr key={subject}>
                  <td><code>{subject}</code></td>
                  <td>{program}</td>
                  {PLAN_IDS.map((id) => (
                    <td key={id}>{(PLANS[id].subjects as readonly string[]).includes(subject) ? 'included' : '—'}</td>
                  ))}
                </tr>
              ))}
              <tr>
                <td colSpan={2}>Concurrent connections per transport</td>
                {PLAN_IDS.map((id) => (
                  <td key={id}>{PLANS[id].connections}</td>
                ))}
              </tr>
              <tr>
                <td colSpan={2}>Replay of history</td>
                {PLAN_IDS.map((id) => (
                  <td key={id}>{PLANS[id].replay ? 'included' : '—'}</td>
                ))}
              </tr>
            </tbody>
          </table>
        </div>
        <p>
          The prices today are {starter.name} free, {plus.name} ${plus.monthlyUsd} a month and {pro.name} $
          {pro.monthlyUsd} a month. Subscribe to each subject by its full name: the
          permissions of your account name the subjects of your plan one by one, and those names are what the
          examples below use.
        </p>
      </Section>

      <Section s={S.natsCli}>
        <p>
          The quickest check that your credentials work is the official <code>nats</code> CLI. Point it at the server
          with your <code>.creds</code> file and subscribe:
        </p>
        <Code
          label="terminal"
          lang="sh"
          code={`
nats --server ${SITE.natsUrl} --creds ./tradewind.creds sub basic.pumpfun
`}
        />
        <p>
          Each trade is printed as it arrives, one JSON object per message. The payload is the same JSON the WebSocket
          delivers: decimal strings for raw integers, <code>_ui</code> fields and <code>price_sol</code> in human units,
          and <code>signature</code> plus <code>instruction_path</code> identifying the trade. Run the
          same command with <code>basic.bonk</code> in a second terminal to watch LetsBonk.fun as well.
        </p>
      </Section>

      <Section s={S.natsJs}>
        <p>
          In Node.js the current NATS client is nats.js version 3, split into packages:{' '}
          <code>@nats-io/transport-node</code> for the connection and <code>@nats-io/jetstream</code> for JetStream. The
          program below subscribes to the subjects named on the command line and reports the connection’s status
          changes. Two options matter for a long-running consumer: <code>maxReconnectAttempts: -1</code> keeps the client
          reconnecting for ever (the default gives up after ten attempts), and a <code>name</code> helps you recognise the
          connection in logs.
        </p>
        <Code
          label="subscribe.ts"
          lang="ts"
          code={`
// npm install @nats-io/transport-node   ·   run: npx tsx subscribe.ts basic.pumpfun basic.bonk
import { readFile } from 'node:fs/promises';
import { connect, credsAuthenticator } from '@nats-io/transport-node';

const creds = new Uint8Array(await readFile(process.env.TRADEWIND_CREDS ?? './tradewind.creds'));
const nc = await connect({
  servers: process.env.TRADEWIND_NATS_URL ?? '${SITE.natsUrl}',
  authenticator: credsAuthenticator(creds),
  name: 'my-trade-consumer',
  maxReconnectAttempts: -1,
});

(async () => {
  for await (const s of nc.status()) console.log('status:', s.type);
})();

interface Trade {
  transaction_type: string;
  signature: string;
  instruction_path: number[];
  mint?: string;
  base_mint?: string;
  price_sol?: number;
}

for (const subject of process.argv.slice(2)) {
  const sub = nc.subscribe(subject);
  // Resolves with an Error when the server refuses the subscription (permissions).
  sub.closed.then((err) => {
    if (err) console.error(\`\${subject}: \${err.message}\`);
  });
  (async () => {
    for await (const m of sub) {
      const t = m.json<Trade>();
      console.log(m.subject, t.transaction_type, t.mint ?? t.base_mint, t.price_sol ?? '');
    }
  })();
}

await nc.closed();
`}
        />
        <p>
          Core NATS subscriptions like these are live only: they receive what is published while they are connected.
          That is the right default for a trading feed. Recovering what was published while you were away is what
          replay, below, is for.
        </p>
      </Section>

      <Section s={S.permissions}>
        <p>
          Suppose a {starter.name} user runs the program with <code>premium.pumpswap</code>. The NATS server refuses the
          subscription with <code>Permissions Violation for Subscription to "premium.pumpswap"</code>. In nats.js the
          subscription’s <code>closed</code> promise resolves with that error and a status event of type{' '}
          <code>error</code> is emitted; the connection itself stays up and the allowed subscriptions keep receiving.
          Publishing is refused on every plan: customer credentials may only subscribe.
        </p>
        <p>
          Connection limits are enforced by the server per account. Your account’s limit is your plan’s concurrent
          connections, so a second native connection on {starter.name} or {plus.name}, or a sixth on {pro.name}, is
          refused with <code>maximum account active connections exceeded</code>. Because the limit belongs to the
          account, all credentials you ever issued share it: rotating your key does not give you extra connections.
        </p>
        <Note title="One consumer, many strategies">
          <p>
            If several parts of your system need the feed, run one connection and fan the messages out inside your
            process or your own message bus, rather than opening a connection per strategy. It keeps you inside your
            plan’s limit and means each message crosses the network once.
          </p>
        </Note>
      </Section>

      <Section s={S.planChanges}>
        <p>
          The NATS server (version 2.9 in Tradewind’s deployment) does not change a live connection’s permissions when its
          account changes. So when your plan changes, Tradewind re-authorises your account: it briefly sets the
          account’s connection limit to zero, which closes your native connections, and then applies the new claims.
          NATS clients reconnect on their own with the <strong>same credentials</strong> and get the new plan at once.
          After an upgrade the same <code>.creds</code> file receives <code>premium.pumpswap</code> and{' '}
          <code>premium.raydium</code>; after a downgrade those subscriptions are refused again. The project’s
          integration tests check that the live connection is dropped within 5 seconds of the change.
        </p>
        <p>
          Reconnects landing in the short window between the two updates are refused once and retried. With nats.js 3.3
          the project observed that a client whose reconnect lands exactly in that window can stop reconnecting, so a
          long-running client should connect again itself when a <code>disconnect</code> status is not followed by{' '}
          <code>reconnect</code> within a few seconds:
        </p>
        <Code
          label="watchdog.ts"
          lang="ts"
          code={`
import type { NatsConnection } from '@nats-io/transport-node';

/** Calls reconnect() when a disconnect is not followed by a reconnect within \`graceMs\`. */
export function watchReconnects(nc: NatsConnection, reconnect: () => void, graceMs = 10_000): void {
  let timer: NodeJS.Timeout | undefined;
  (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') timer ??= setTimeout(reconnect, graceMs);
      if (s.type === 'reconnect') { clearTimeout(timer); timer = undefined; }
    }
  })();
}
`}
        />
        <p>
          Rotating your credentials in the dashboard is different: it issues a new key, revokes the old one and closes
          the account’s connections, so a client still holding the old <code>.creds</code> file is refused at
          reconnect. Download the new file and restart the client. The dashboard allows 20 rotations in 24 hours.
        </p>
      </Section>

      <Section s={S.replay}>
        <p>
          The <code>TRADES</code> stream keeps 24 hours of trades by default. {pro.name} customers can read that history
          natively with a JetStream pull consumer of their own. For isolation, the history lives in a mirror of{' '}
          <code>TRADES</code> in a separate account whose only export is the pull-consumer API. Your account imports it
          under the API prefix <code>$JS.REPLAY.API</code>, and you may only create and read a consumer named after your
          own <strong>account public key</strong>, the <code>account_public_key</code> value in your connection details.
          The mirror keeps the original stream sequences, so “from sequence N” means the same thing natively and on the
          WebSocket.
        </p>
        <Code
          label="replay.ts"
          lang="ts"
          code={`
// npm install @nats-io/transport-node @nats-io/jetstream
import { readFile } from 'node:fs/promises';
import { connect, credsAuthenticator } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';

const nc = await connect({
  servers: process.env.TRADEWIND_NATS_URL ?? '${SITE.natsUrl}',
  authenticator: credsAuthenticator(new Uint8Array(await readFile('./tradewind.creds'))),
});
const opts = { apiPrefix: '$JS.REPLAY.API', checkAPI: false };
const name = process.env.TRADEWIND_ACCOUNT!; // account_public_key from the dashboard

const jsm = await jetstreamManager(nc, opts);
await jsm.consumers.delete('TRADES', name).catch(() => undefined); // a previous run's consumer
await jsm.consumers.add('TRADES', {
  name,
  filter_subject: 'basic.pumpfun',
  deliver_policy: DeliverPolicy.StartTime,
  opt_start_time: new Date(Date.now() - 60 * 60 * 1000).toISOString(), // the last hour
  ack_policy: AckPolicy.None,
  inactive_threshold: 300e9, // nanoseconds: removed 5 minutes after you stop reading
});

const consumer = await jetstream(nc, opts).consumers.get('TRADES', name);
for await (const m of await consumer.consume()) {
  const t = m.json<{ transaction_type: string; mint: string; price_sol?: number }>();
  console.log(m.seq, t.transaction_type, t.mint, t.price_sol);
}
`}
        />
        <p>
          The consumer starts at the first stored message at or after the start time and carries on into live messages
          as they are mirrored. <code>m.seq</code> is the <code>TRADES</code> stream sequence: store the last one you
          processed, and after a restart create the consumer with <code>DeliverPolicy.StartSequence</code> and{' '}
          <code>opt_start_seq</code> set to that value plus one to continue exactly where you stopped. Because the
          consumer name is fixed to your account, there is one native replay consumer per account at a time; the
          program deletes a leftover one before creating its own. If your plan loses replay, the import is removed and
          Tradewind deletes the consumer.
        </p>
        <p>
          If you replay over the WebSocket instead, the server runs an equivalent ordered consumer for you and switches
          from history to live with no gap and no duplicate; the{' '}
          <Link to="/blog/stream-pump-fun-trades-websocket">WebSocket tutorial</Link> shows the request.
        </p>
      </Section>

      <Section s={S.summary}>
        <p>
          Download the <code>.creds</code> file, point any NATS client at port 4223 and subscribe to the subjects of
          your plan. Let the client reconnect by itself, add a watchdog for the rare reconnect that does not come back,
          and keep one connection per process. On {pro.name}, a consumer named after your account public key gives you
          the last day of trades by time or by sequence. For the meaning of every field in the messages, read{' '}
          <Link to="/blog/decoding-pump-fun-and-letsbonk-trades">what a decoded trade contains</Link>; for the full
          reference, open the <Link to="/dashboard/docs">API documentation</Link>.
        </p>
      </Section>
    </>
  );
}
