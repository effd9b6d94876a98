/**
 * Article: the Solana WebSocket guide (WebSocket Guide, FAQ). Covers Solana's own RPC PubSub
 * WebSocket and Tradewind's trade stream side by side.
 *
 * Sources of the facts stated here:
 * - Solana RPC PubSub methods, parameters, notifications, default port 8900, default commitment
 *   `finalized`, commitment levels and filter criteria: https://solana.com/docs/rpc/websocket and
 *   https://solana.com/docs/rpc (solana-foundation/solana-com content/docs/rpc/…).
 * - SPL Token account size 165 bytes, mint at offset 0, owner at offset 32:
 *   https://solana.com/developers/guides/javascript/get-program-accounts.
 * - Tradewind's protocol, limits and close codes: docs/websocket.md (§1–§7) and docs/nats.md;
 *   the benchmark figures: docs/websocket.md §9 (measured 2026-11-25). Tradewind's own use of the
 *   RPC WebSocket: docs/live-sources.md and services/ingest/src/live/rpc-websocket.ts.
 * - Reconnect rule of the specification's article examples (section 9): up to 10 attempts,
 *   exponential backoff from 1000 ms capped at 30000 ms (also what @tradewind/client does).
 */
import { Link } from 'react-router';
import { PLANS, cheapestPlanWhere } from '@tradewind/contracts/plans';
import { Code, Note, Section, defineSections, sectionList, type FaqEntry } from '../../components/blog/article';
import { WS_ERROR_CODES, WS_OTHER_CLOSE_CODES } from '../api-reference';
import { SITE } from '../../site';

const S = defineSections({
  whatItIs: 'What a Solana WebSocket is',
  gettingStarted: 'Getting started',
  subscriptionMethods: 'Subscription methods',
  commitmentLevels: 'Commitment levels',
  filtering: 'Filtering',
  connectionManagement: 'Connection management',
  productionExamples: 'Production examples',
  performance: 'Performance',
  migrationFromPolling: 'Migrating from polling',
  alternatives: 'Alternatives',
  conclusion: 'Conclusion',
});

export const sections = sectionList(S);

const { starter, plus, pro } = PLANS;
const replayPlan = cheapestPlanWhere((p) => p.replay) ?? pro;

/** What a client should do after each close code (the codes themselves come from the API reference). */
const CLOSE_ADVICE: ReadonlyArray<{ close: number; advice: string }> = [
  { close: 4400, advice: 'Fix the request: a malformed frame before authentication. Retrying the same frame fails again.' },
  { close: 4401, advice: 'Do not retry with the same credentials: renew or fetch them from the dashboard first.' },
  { close: 4408, advice: 'Send credentials sooner: they must arrive within 10 seconds of connecting. Retry.' },
  { close: 4429, advice: 'All connections of the plan are in use, or too many failed logins: back off and retry.' },
  { close: 4413, advice: 'Your client read too slowly: move work off the read loop, reconnect and resume.' },
  { close: 4503, advice: 'Temporary: the server could not check credentials. Back off and retry.' },
  { close: 1001, advice: 'The server is shutting down (a deployment): reconnect and resume.' },
  { close: 1006, advice: 'The link died (missed pongs or a network drop): reconnect and resume.' },
  { close: 1009, advice: 'A frame over 16 KiB: send smaller filters.' },
  { close: 1011, advice: 'An unexpected server error: back off and retry.' },
];

/** Error codes (from the API reference) that end with `close`, or the close-only reason. */
function codesFor(close: number): string {
  const codes = WS_ERROR_CODES.filter((c) => c.close === close).map((c) => c.code);
  const other = WS_OTHER_CLOSE_CODES.filter((c) => c.close === close && c.reason).map((c) => c.reason);
  const all = [...new Set([...codes, ...other])];
  return all.length > 0 ? all.join(', ') : '(no error frame)';
}

export const faq: FaqEntry[] = [
  {
    question: 'Which port does the Solana RPC WebSocket use?',
    answer:
      'The PubSub endpoint listens on port 8900 by default. A local solana-test-validator serves HTTP JSON-RPC on 8899 and the WebSocket on 8900, the RPC port plus one, which is also how @solana/web3.js derives a WebSocket URL from an HTTP URL that names a port. Hosted RPC providers usually serve both on the same host name, with https:// for HTTP and wss:// for the WebSocket.',
  },
  {
    question: 'Which commitment level should I subscribe with?',
    answer:
      'processed is the fastest and can report transactions from a block the cluster later skips; confirmed means a supermajority of the cluster voted on the block, and Solana recommends it as the balance of speed and rollback safety; finalized is the safest and the slowest. Subscriptions default to finalized when you omit commitment, so set it explicitly. A common split: watch the market at processed or confirmed, confirm your own transactions at confirmed or finalized. On Tradewind you need not choose: trades stream at processed, and with "slots": true each slot’s confirmed, finalized or dead status follows its trades.',
  },
  {
    question: 'Why does logsSubscribe refuse two addresses in mentions?',
    answer:
      'The mentions filter currently accepts exactly one public key per subscription; listing more is an error. Open one logsSubscribe per program or account you want to watch. Tradewind’s own ingest does exactly that: one subscription per trade program.',
  },
  {
    question: 'How do I avoid missing messages when the connection drops?',
    answer: `Solana’s RPC WebSocket has no replay: after a reconnect you subscribe again and fill the gap over HTTP, for example with getSignaturesForAddress and an until signature. Tradewind’s stream numbers every trade with seq; reconnect and subscribe with resume_after set to the last seq you received and you get every missed trade once, in order. Every plan can resume from the last 5 minutes; ${replayPlan.name} can go back as far as the stream keeps.`,
  },
  {
    question: 'Is Tradewind’s WebSocket a Solana RPC endpoint?',
    answer:
      'No. It does not speak JSON-RPC and does not accept accountSubscribe or logsSubscribe. It streams trades of four programs (Pump.fun, LetsBonk.fun, PumpSwap and Raydium CPMM) that Tradewind has already fetched and decoded, as JSON messages with a sequence number for resuming.',
  },
  {
    question: 'Do I need a paid plan to try Tradewind’s stream?',
    answer: `No. ${starter.name} is free and includes basic.pumpfun and basic.bonk with ${starter.connections} concurrent connection per transport. ${plus.name} ($${plus.monthlyUsd} a month) adds premium.pumpswap and premium.raydium; ${pro.name} ($${pro.monthlyUsd} a month) adds ${pro.connections} connections and replay of history.`,
  },
];

export default function SolanaWebsocket() {
  return (
    <>
      <p>
        “Solana WebSocket” means two different things depending on who says it. For a Solana developer it is the PubSub endpoint of an RPC node: a JSON-RPC 2.0
        connection that pushes a notification whenever an account, a program’s accounts, a transaction’s logs, a signature or a slot changes. For a trader it
        often means a ready-made stream of decoded trades. This guide covers both: how Solana’s own RPC WebSocket works, method by method, and how Tradewind’s
        trade stream, which is built on top of Solana data, differs from it. Along the way it covers commitment levels, server-side filters, reconnecting
        without losing data, measured performance and what to choose instead when a WebSocket is not the right tool.
      </p>

      <Section s={S.whatItIs}>
        <p>
          A Solana RPC node answers two kinds of requests. HTTP JSON-RPC is request and response: you ask for an account, a transaction or a block and get one
          answer. The <strong>RPC PubSub</strong> WebSocket is subscription based: you open one long-lived connection to <code>ws://&lt;address&gt;/</code> or{' '}
          <code>wss://&lt;address&gt;/</code>, send a subscribe request, and the node sends you a message every time the thing you subscribed to changes. Both
          speak JSON-RPC 2.0: every request carries <code>jsonrpc</code>, <code>id</code>, <code>method</code> and <code>params</code>.
        </p>
        <p>
          The PubSub endpoint listens on <strong>port 8900</strong> by default. On a local validator that is the HTTP RPC port, 8899, plus one;{' '}
          <code>@solana/web3.js</code> derives a WebSocket URL the same way when an HTTP URL names a port. Hosted providers normally serve the WebSocket on the
          same host as HTTP, with <code>wss://</code> in front. Solana’s public endpoints, such as <code>api.mainnet-beta.solana.com</code>, are shared and rate
          limited (Solana’s cluster documentation lists the limits and notes they can change), so anything beyond experiments belongs on your own node or a
          provider’s.
        </p>
        <p>A subscription goes through three steps:</p>
        <ol>
          <li>
            You send a request such as <code>accountSubscribe</code>. The node answers with a <strong>subscription id</strong>, a number.
          </li>
          <li>
            Notifications arrive as JSON-RPC messages without an <code>id</code>, named after the method (<code>accountNotification</code>,{' '}
            <code>logsNotification</code>, …) and carrying the subscription id in <code>params.subscription</code>, so one connection can multiplex many
            subscriptions.
          </li>
          <li>
            You stop with the matching unsubscribe method (<code>accountUnsubscribe</code>, …) and the id. Closing the socket ends every subscription on it.
          </li>
        </ol>
        <p>
          Two properties shape everything else in this guide. First, the RPC WebSocket has <strong>no history</strong>: a notification missed while you were
          disconnected is gone, and after a reconnect the old subscription ids mean nothing. Second, it delivers <strong>raw chain data</strong>: account bytes,
          log lines, slot numbers. Turning log lines into “wallet X bought 2.9 million tokens of mint Y for 0.13 SOL” is your job.
        </p>
        <p>
          Tradewind’s stream sits one level higher. It listens to the Solana programs behind Pump.fun, LetsBonk.fun (Raydium LaunchLab), PumpSwap and Raydium
          CPMM, decodes every instruction with the programs’ published interface definitions, and publishes each trade as one JSON message on a subject:{' '}
          <code>basic.pumpfun</code>, <code>basic.bonk</code>, <code>premium.pumpswap</code> or <code>premium.raydium</code>. Its WebSocket endpoint listens on{' '}
          <strong>port 9223</strong> (<code>{SITE.wsUrl}</code> on a local stack; the dashboard shows yours), authenticates you with the JWT and NKey seed from
          your dashboard, and numbers every trade with a sequence, <code>seq</code>, so a client that reconnects can ask for exactly what it missed.
        </p>
      </Section>

      <Section s={S.gettingStarted}>
        <h3>Solana’s RPC WebSocket in two minutes</h3>
        <p>
          The quickest way to see PubSub is a local validator and a command-line WebSocket client. With the Solana CLI installed,{' '}
          <code>solana-test-validator</code> starts a single-node cluster with HTTP RPC on 8899 and PubSub on 8900. <code>wscat</code> (an npm package) opens a
          socket and lets you type frames:
        </p>
        <Code
          label="terminal"
          lang="sh"
          code={`
solana-test-validator            # in one terminal: RPC on :8899, PubSub on :8900
npx wscat -c ws://127.0.0.1:8900 # in another
> {"jsonrpc":"2.0","id":1,"method":"slotSubscribe"}
< {"jsonrpc":"2.0","result":0,"id":1}
< {"jsonrpc":"2.0","method":"slotNotification","params":{"result":{"parent":75,"root":44,"slot":76},"subscription":0}}
`}
        />
        <p>
          The first answer carries the subscription id (here 0); every later frame is a notification for it. In a program the same exchange needs a little
          bookkeeping: match answers to requests by <code>id</code>, then route notifications by <code>params.subscription</code>.
        </p>
        <Code
          label="slots.ts (Node.js 22+, npm install ws)"
          lang="ts"
          code={`
import WebSocket from 'ws';

type Handler = (result: unknown) => void;
const ws = new WebSocket(process.env.SOLANA_WS_URL ?? 'ws://127.0.0.1:8900');
const pending = new Map<number, { method: string; onNotify: Handler }>(); // request id -> request
const bySubscription = new Map<number, Handler>(); // subscription id -> handler
let nextId = 1;

function subscribe(method: string, params: unknown[], onNotify: Handler): void {
  const id = nextId++;
  pending.set(id, { method, onNotify });
  ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
}

ws.on('open', () => {
  subscribe('slotSubscribe', [], (r) => console.log('slot', (r as { slot: number }).slot));
});

ws.on('message', (data) => {
  const msg = JSON.parse(data.toString());
  const request = msg.id !== undefined ? pending.get(msg.id) : undefined;
  if (request) {
    // The answer to a subscribe request: result is the subscription id.
    pending.delete(msg.id);
    if (msg.error) return console.error(request.method, 'refused:', msg.error.message);
    bySubscription.set(msg.result, request.onNotify);
  } else if (msg.params?.subscription !== undefined) {
    // A notification: route it by subscription id.
    bySubscription.get(msg.params.subscription)?.(msg.params.result);
  }
});
`}
        />
        <h3>Tradewind’s stream in two minutes</h3>
        <p>
          Tradewind’s protocol is smaller because the server does the decoding. After you connect, the server sends a challenge; you answer with your
          credentials, then name a subject, then read JSON trades. You can try it with <code>wscat</code> too, with one caveat: credentials must arrive within
          10 seconds of connecting, so have the line ready to paste.
        </p>
        <Code
          label="terminal"
          lang="sh"
          code={`
npx wscat -c ${SITE.wsUrl}
< {"type":"challenge","nonce":"…"}
> {"jwt":"eyJ…","nkey":"SU…"}
< {"type":"authenticated","plan":"starter","subjects":["basic.pumpfun","basic.bonk"],"expires_at_ms":…}
> {"subject":"basic.pumpfun"}
< {"type":"subscribed","subject":"basic.pumpfun","filter":null,"seq":48213}
< {"seq":48214,"source":"pumpfun","transaction_type":"BUY",…,"schema_version":2,"mint":"…",…,"sol_amount_ui":0.129814469,…,"type":"trade","data":{…}}
`}
        />
        <p>
          The JWT and the NKey seed (it starts with <code>SU</code>) are on the dashboard’s connection page; the same pair also works for native NATS on port
          4223. Sending the seed is the simplest form. In a program, prefer signing the challenge’s nonce with the seed and sending{' '}
          <code>{`{"jwt","sig"}`}</code> instead, so the seed never leaves your machine; the reconnect example below does that. One rule keeps the message loop
          simple: control messages always have a <code>type</code> field, never <code>"trade"</code>; trade messages have no <code>type</code>, or{' '}
          <code>{'"type":"trade"'}</code> (pump.fun trades).
        </p>
      </Section>

      <Section s={S.subscriptionMethods}>
        <p>
          Solana’s PubSub API has a handful of methods that cover most needs. Each has a matching unsubscribe method that takes the subscription id and answers{' '}
          <code>true</code>.
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">method</th>
                <th scope="col">parameters</th>
                <th scope="col">notifies</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>
                  <code>accountSubscribe</code>
                </td>
                <td>
                  account public key; <code>commitment</code>, <code>encoding</code>
                </td>
                <td>
                  the account’s lamports or data changed (same shape as <code>getAccountInfo</code>)
                </td>
              </tr>
              <tr>
                <td>
                  <code>programSubscribe</code>
                </td>
                <td>
                  program id; <code>commitment</code>, <code>encoding</code>, <code>filters</code>
                </td>
                <td>
                  any account owned by the program changed: <code>{`{pubkey, account}`}</code>
                </td>
              </tr>
              <tr>
                <td>
                  <code>logsSubscribe</code>
                </td>
                <td>
                  <code>"all"</code>, <code>"allWithVotes"</code> or <code>{`{mentions: [one pubkey]}`}</code>; <code>commitment</code>
                </td>
                <td>
                  a transaction’s <code>signature</code>, <code>err</code> and <code>logs</code>
                </td>
              </tr>
              <tr>
                <td>
                  <code>signatureSubscribe</code>
                </td>
                <td>
                  transaction signature; <code>commitment</code>, <code>enableReceivedNotification</code>
                </td>
                <td>once, when the transaction reaches the commitment; then the subscription ends by itself</td>
              </tr>
              <tr>
                <td>
                  <code>slotSubscribe</code>
                </td>
                <td>none</td>
                <td>
                  every slot the node processes: <code>parent</code>, <code>root</code>, <code>slot</code>
                </td>
              </tr>
            </tbody>
          </table>
        </div>
        <p>The request for each looks like this (one request per line; the ids are arbitrary):</p>
        <Code
          label="requests"
          lang="json"
          code={`
{"jsonrpc":"2.0","id":1,"method":"accountSubscribe","params":["<account pubkey>",{"encoding":"base64","commitment":"confirmed"}]}
{"jsonrpc":"2.0","id":2,"method":"programSubscribe","params":["<program id>",{"encoding":"base64","commitment":"confirmed","filters":[{"dataSize":165}]}]}
{"jsonrpc":"2.0","id":3,"method":"logsSubscribe","params":[{"mentions":["<program id>"]},{"commitment":"confirmed"}]}
{"jsonrpc":"2.0","id":4,"method":"signatureSubscribe","params":["<first signature of the transaction>",{"commitment":"finalized","enableReceivedNotification":false}]}
{"jsonrpc":"2.0","id":5,"method":"slotSubscribe"}
{"jsonrpc":"2.0","id":6,"method":"logsUnsubscribe","params":[24040]}
`}
        />
        <p>A few details that trip people up:</p>
        <ul>
          <li>
            <strong>Encodings.</strong> Account data can come as <code>base58</code>, <code>base64</code>, <code>base64+zstd</code> or <code>jsonParsed</code>.
            Solana’s documentation calls base58 slow; base64 is the sensible default. <code>jsonParsed</code> works only for programs the node has a parser for
            (SPL Token, Token-2022, Stake, Vote and a few others) and silently falls back to binary otherwise: check whether <code>data</code> is a string.
          </li>
          <li>
            <strong>logsSubscribe gives you logs, not the transaction.</strong> The notification carries the signature, the error (or <code>null</code>) and the
            log lines. To know the accounts and amounts you usually fetch the transaction with HTTP <code>getTransaction</code>, which does not serve{' '}
            <code>processed</code>.
          </li>
          <li>
            <strong>signatureSubscribe is one-shot</strong> and expects the transaction’s first signature. With <code>enableReceivedNotification</code> you also
            get a <code>"receivedSignature"</code> notice when the node receives the transaction, before it is processed.
          </li>
          <li>
            <strong>More methods exist.</strong> <code>rootSubscribe</code>, <code>slotsUpdatesSubscribe</code> and <code>voteSubscribe</code> serve specialised
            needs. <code>blockSubscribe</code> streams whole blocks but is marked unstable and only works on a validator started with{' '}
            <code>--rpc-pubsub-enable-block-subscription</code>, so not every endpoint offers it.
          </li>
        </ul>
        <p>
          Tradewind’s stream has a different vocabulary because its unit is a trade, not an account. Every request is a JSON object sent after authentication:
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">you send</th>
                <th scope="col">what it does</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>
                  <code>{`{"subject":"basic.pumpfun"}`}</code>
                </td>
                <td>
                  live trades of the subject; the answer <code>subscribed</code> names the subject’s last <code>seq</code>
                </td>
              </tr>
              <tr>
                <td>
                  <code>{`{"subject":…,"filter":{…}}`}</code>
                </td>
                <td>only matching trades; sending a new filter replaces the old one in place, with no gap and no duplicate</td>
              </tr>
              <tr>
                <td>
                  <code>{`{"subject":…,"resume_after":48213}`}</code>
                </td>
                <td>
                  every trade after that <code>seq</code> you missed, then <code>replay_caught_up</code>, then live (every plan)
                </td>
              </tr>
              <tr>
                <td>
                  <code>{`{"subject":…,"replay":{"from":"2026-11-21T10:00:00Z"}}`}</code>
                </td>
                <td>history from a time or a sequence, then live ({replayPlan.name})</td>
              </tr>
              <tr>
                <td>
                  <code>{`{"unsubscribe":"basic.pumpfun"}`}</code>
                </td>
                <td>stop the subject; other subjects on the connection continue</td>
              </tr>
            </tbody>
          </table>
        </div>
        <p>
          {starter.name} includes <code>basic.pumpfun</code> and <code>basic.bonk</code>; {plus.name} and {pro.name} add <code>premium.pumpswap</code> and{' '}
          <code>premium.raydium</code>. A subject outside your plan is refused with <code>subject_not_in_plan</code>, naming the cheapest plan that includes it,
          and the connection stays open.
        </p>
      </Section>

      <Section s={S.commitmentLevels}>
        <p>
          Solana nodes see a block before the cluster agrees on it. The <strong>commitment</strong> you ask for decides how far that agreement must have gone
          before a change is reported. There are three levels, from least to most final:
        </p>
        <ul>
          <li>
            <code>processed</code>: the node’s most recent block. It is the fastest, and the block may still be skipped by the cluster, so a change you see can
            disappear.
          </li>
          <li>
            <code>confirmed</code>: a block voted on by a supermajority of the cluster (optimistic confirmation). Solana recommends it for processing dependent
            transactions in series, as the balance of speed and rollback safety.
          </li>
          <li>
            <code>finalized</code>: a block a supermajority of the cluster has confirmed as having reached maximum lockout. It will not be rolled back; it is
            also the slowest level, trailing <code>confirmed</code>.
          </li>
        </ul>
        <p>
          For subscriptions, an omitted commitment means <code>finalized</code>. That default surprises people who expect “real time”: set the level explicitly
          on every request. Not every method supports every level: <code>blockSubscribe</code> and HTTP <code>getTransaction</code> refuse{' '}
          <code>processed</code>, so a pipeline that hears about a transaction at <code>processed</code> through <code>logsSubscribe</code> cannot fetch it
          until it is at least confirmed.
        </p>
        <p>
          A sensible split: watch prices, order flow and new tokens at <code>processed</code> or <code>confirmed</code>, where a rare skipped block costs you a
          stale signal; confirm anything that moves money, such as your own transaction landing, with <code>signatureSubscribe</code> at <code>confirmed</code>{' '}
          or <code>finalized</code>.
        </p>
        <p>
          Every Tradewind trade states the level at which it was seen in its <code>commitment</code> field. It is the level the ingest source subscribed at: the
          RPC source defaults to <code>confirmed</code> (because <code>getTransaction</code> refuses <code>processed</code>), the Yellowstone gRPC source to{' '}
          <code>processed</code>. A trade message is published once, at that level. What happens to its block afterwards comes as a message of its own: the{' '}
          <code>slots</code> subject carries, for every slot the trades came from, its <code>confirmed</code> and <code>finalized</code> status, or{' '}
          <code>dead</code> when the cluster skipped it (the slot was left on an abandoned fork, or the node could not replay it), in which case none of its
          trades happened.
        </p>
        <p>
          On the WebSocket, add <code>"slots": true</code> to a subscription: after the trades of each slot you then receive that slot’s status, in stream order
          and resumable like the trades, for the slots you were actually sent trades from. So a bot can act at <code>processed</code> speed and still learn,
          about 0.4 s later, that the trade was confirmed, or that it must undo what it did. With the TypeScript client that is{' '}
          <code>await client.waitForSlot(trade, 'confirmed')</code>, which rejects with <code>SlotDeadError</code> when the slot dies. Natively, subscribe to{' '}
          <code>slots</code> beside your trade subject. The WebSocket and NATS pages of the docs describe the message field by field.
        </p>
      </Section>

      <Section s={S.filtering}>
        <p>
          A subscription you do not filter sends you everything, and on Solana “everything” is a lot. Both APIs let the server do the filtering, so the bytes
          never cross the network.
        </p>
        <h3>Solana: dataSize and memcmp</h3>
        <p>
          <code>programSubscribe</code> (like HTTP <code>getProgramAccounts</code>) accepts <code>filters</code>, and an account must pass <strong>all</strong>{' '}
          of them:
        </p>
        <ul>
          <li>
            <code>dataSize</code> compares the length of the account’s data with a number.
          </li>
          <li>
            <code>memcmp</code> compares bytes at an <code>offset</code> of the account’s data with <code>bytes</code>, given as base58 (the default) or base64
            with <code>encoding</code>; at most 128 decoded bytes.
          </li>
        </ul>
        <p>
          The classic example is token accounts. An account of the SPL Token program is exactly <strong>165 bytes</strong>: the mint at offset 0, the owner at
          offset 32, then the amount and other fields. To hear about every token account a wallet owns, subscribe to the Token program with a size filter and
          the wallet’s key at offset 32; to watch every holder of one mint, put the mint at offset 0 instead:
        </p>
        <Code
          label="programSubscribe: token accounts of one wallet"
          lang="json"
          code={`
{
  "jsonrpc": "2.0", "id": 7, "method": "programSubscribe",
  "params": [
    "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
    {
      "encoding": "jsonParsed",
      "commitment": "confirmed",
      "filters": [
        { "dataSize": 165 },
        { "memcmp": { "offset": 32, "bytes": "<wallet public key, base58>" } }
      ]
    }
  ]
}
`}
        />
        <p>
          Two caveats. The 165-byte size describes the original Token program’s accounts; a Token-2022 account that carries extensions is longer, so subscribe
          to the Token-2022 program separately and filter on the owner alone. That matters for memecoins: newer Pump.fun tokens are Token-2022 mints (their
          CREATE messages name the token program in <code>token_program</code>). And keep the size filter even when <code>memcmp</code> looks sufficient: it
          excludes the program’s accounts with other layouts (a mint is 82 bytes, a multisig account 355), whose bytes at offset 32 mean something else.
        </p>
        <p>
          <code>logsSubscribe</code> has only one filter, <code>mentions</code>, and it takes a single public key per subscription: listing two is an error. To
          follow four programs you open four subscriptions.
        </p>
        <h3>Tradewind: filters on decoded fields</h3>
        <p>
          Tradewind’s filters work on the decoded trade instead of raw bytes. Add a <code>filter</code> object to a subscribe request; every key is optional and
          every key you give must match:
        </p>
        <Code
          label="a filtered subscription"
          lang="json"
          code={`
{"subject":"basic.pumpfun","filter":{"mints":["<mint>"],"accounts":["<wallet or pool>"],"types":["CREATE","BUY"],"min_sol":0.5}}
`}
        />
        <ul>
          <li>
            <code>mints</code>: the trade’s token mints (on LaunchLab and PumpSwap both the base and quote mint, on Raydium CPMM the input, output and pool
            mints).
          </li>
          <li>
            <code>accounts</code>: the trader, the creator and the pool (bonding curve, pool state or pool).
          </li>
          <li>
            <code>types</code>: <code>transaction_type</code> values of the subject; <code>["CREATE"]</code> gives you new tokens only, <code>["MIGRATE"]</code>{' '}
            graduations.
          </li>
          <li>
            <code>min_sol</code>: the trade’s SOL amount, compared exactly in lamports. A trade with no SOL side never passes a <code>min_sol</code> above zero.
          </li>
        </ul>
        <p>
          Each list holds up to 1,000 entries. A malformed filter (an unknown key, a string that is not a base58 public key, an empty list, a type the subject
          does not have) is refused with <code>bad_filter</code>, which says which value is wrong, and the subscription keeps its previous filter. Sending a new
          filter for a subscribed subject replaces the old one in place: the next message is judged by the new filter, with no gap and no duplicate, which lets
          a bot widen or narrow its watch list without reconnecting. <code>{`"filter": null`}</code> removes it.
        </p>
      </Section>

      <Section s={S.connectionManagement}>
        <p>
          Every long-lived connection ends eventually: a deployment restarts the server, a laptop changes networks, a proxy drops an idle socket, credentials
          expire. A client is production-ready when it survives these without losing data or hammering the server. Four parts do that work.
        </p>
        <h3>1. Know when the link is dead</h3>
        <p>
          A TCP connection can die without either side hearing about it. Tradewind’s server pings every connection every 10 seconds and drops one that misses
          two pongs (standard WebSocket clients answer pings automatically), and it sends a subscribed client a{' '}
          <code>{`{"type":"heartbeat","slot":…,"seq":…,"subjects":{…}}`}</code> after 5 quiet seconds. So on the client side, 15 seconds without any frame at
          all means the link is gone. The heartbeat also tells a quiet market (heartbeats arrive, <code>seq</code> unchanged) from a dead stream (nothing
          arrives). On Solana’s RPC WebSocket a <code>slotSubscribe</code> gives the same kind of steady traffic: a slot is expected every 400 milliseconds, so
          a silent connection is a broken one.
        </p>
        <h3>2. Retry with exponential backoff, and stop eventually</h3>
        <p>
          Reconnect with a delay that starts at 1,000 ms and doubles after each failed attempt, capped at 30,000 ms: 1 s, 2 s, 4 s, 8 s, 16 s, then 30 s. Reset
          the count after a connection that authenticated successfully. Give up after 10 consecutive failures and report it, rather than retrying for ever
          against a problem only a human can fix. Add a little random jitter if you run many clients, so they do not all return in the same second after an
          outage.
        </p>
        <h3>3. Do not retry what cannot succeed</h3>
        <p>
          Close codes say why a connection ended. On Tradewind, 4401 means the credentials were refused and 4400 means the request was malformed: retrying the
          same thing fails again. Everything else is worth a retry with backoff. The table lists each close code, the error codes the server sends before it,
          and what to do:
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">close</th>
                <th scope="col">error codes</th>
                <th scope="col">what to do</th>
              </tr>
            </thead>
            <tbody>
              {CLOSE_ADVICE.map((row) => (
                <tr key={row.close}>
                  <td>{row.close}</td>
                  <td>
                    <code>{codesFor(row.close)}</code>
                  </td>
                  <td>{row.advice}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <h3>4. Resume where you stopped</h3>
        <p>
          On Solana’s RPC WebSocket a reconnect starts from scratch: subscribe again (the new subscription ids differ from the old ones) and fetch what you
          missed over HTTP, for example with <code>getSignaturesForAddress</code> and <code>until</code> set to the last signature you processed. On Tradewind,
          remember the <code>seq</code> of the last trade you handled and subscribe with <code>resume_after</code>; the server sends every trade you missed,
          once and in order, then continues live. Every plan can resume from the last 5 minutes; {replayPlan.name} can resume from anywhere in the stream’s
          retention. Beyond the window the server answers <code>resume_too_old</code> with <code>oldest_seq</code>, so you know exactly which range is lost.
        </p>
        <p>
          Here are all four together, in TypeScript, for Tradewind’s stream. The same <code>backoffMs</code> and attempt budget work for a Solana RPC client, as
          the next section shows.
        </p>
        <Code
          label="reconnect.ts (Node.js 22+, npm install ws @nats-io/nkeys; run with npx tsx reconnect.ts)"
          lang="ts"
          code={`
import WebSocket from 'ws';
import { fromSeed } from '@nats-io/nkeys';

const MAX_ATTEMPTS = 10; // consecutive failed attempts before giving up
const BASE_DELAY_MS = 1_000; // first retry after 1 s
const MAX_DELAY_MS = 30_000; // never wait longer than 30 s
const WATCHDOG_MS = 15_000; // 3 x the server's 5 s heartbeat
const FATAL = new Set([4400, 4401]); // fix the request or renew the credentials first

/** Delay before attempt n (1-based): 1 s, 2 s, 4 s, 8 s, 16 s, then 30 s. */
export function backoffMs(attempt: number): number {
  return Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
}

const url = process.env.TRADEWIND_WS_URL ?? '${SITE.wsUrl}';
const jwt = process.env.TRADEWIND_JWT!;
const key = fromSeed(new TextEncoder().encode(process.env.TRADEWIND_NKEY_SEED!));
const subject = 'basic.pumpfun';

let failures = 0;
let lastSeq: number | null = null; // seq of the last trade handled: where to resume

function connect(): void {
  const ws = new WebSocket(url);
  let watchdog: NodeJS.Timeout | undefined;
  const alive = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => ws.terminate(), WATCHDOG_MS);
  };

  ws.on('open', alive);
  ws.on('message', (data) => {
    alive();
    const msg = JSON.parse(data.toString());
    if (msg.type === undefined || msg.type === 'trade') {
      // A trade (no "type", or "trade"). Never handle one twice across a reconnect.
      if (lastSeq !== null && msg.seq <= lastSeq) return;
      lastSeq = msg.seq;
      return onTrade(msg);
    }
    if (msg.type === 'challenge') {
      // Sign the nonce: the seed never leaves this process.
      const sig = Buffer.from(key.sign(new TextEncoder().encode(msg.nonce))).toString('base64url');
      ws.send(JSON.stringify({ jwt, sig }));
    } else if (msg.type === 'authenticated') {
      failures = 0; // a good connection resets the budget
      ws.send(JSON.stringify(lastSeq === null ? { subject } : { subject, resume_after: lastSeq }));
    } else if (msg.type === 'error') {
      console.error(msg.code, msg.message);
      // Past the resume window: the message names the range lost; carry on live.
      if (msg.code === 'resume_too_old') ws.send(JSON.stringify({ subject }));
    }
  });

  ws.on('error', (err) => console.error('socket error:', err.message));
  ws.on('close', (code, reason) => {
    clearTimeout(watchdog);
    if (FATAL.has(code)) {
      console.error('not retrying:', code, reason.toString());
      process.exitCode = 1;
      return;
    }
    failures += 1;
    if (failures > MAX_ATTEMPTS) {
      console.error('giving up after', MAX_ATTEMPTS, 'attempts; last close', code);
      process.exitCode = 1;
      return;
    }
    const delay = backoffMs(failures);
    console.log('closed', code, '- attempt', failures, 'of', MAX_ATTEMPTS, 'in', delay, 'ms');
    setTimeout(connect, delay);
  });
}

function onTrade(t: { seq: number; transaction_type: string; mint: string; sol_amount_ui?: number }): void {
  console.log(t.seq, t.transaction_type, t.mint, t.sol_amount_ui ?? '');
}

connect();
`}
        />
        <p>
          In Node.js you can also use <code>@tradewind/client</code>, the TypeScript client that ships with the WebSocket starter template. It implements the
          same policy (1 s doubling to 30 s, 10 consecutive failed attempts, the 15-second watchdog, resume by <code>seq</code>) and reports a lost range as a
          typed <code>gap</code> event instead of a log line.
        </p>
      </Section>

      <Section s={S.productionExamples}>
        <h3>How Tradewind itself uses Solana’s RPC WebSocket</h3>
        <p>Tradewind’s ingest service can read the chain from any plain RPC provider, and its design is a useful template for anyone building on PubSub:</p>
        <ul>
          <li>
            <strong>
              One <code>logsSubscribe</code> per program
            </strong>
            , with <code>mentions</code> set to that program’s id, because <code>mentions</code> takes a single key. Failed transactions (<code>err</code> not
            null) are skipped and counted.
          </li>
          <li>
            <strong>
              A <code>slotSubscribe</code>
            </strong>{' '}
            alongside, for two reasons: it tells how far the node’s tip is ahead of the last processed transaction (a lag metric), and its steady traffic makes
            a silent connection easy to spot. After 30 seconds without data the connection is dropped and reopened.
          </li>
          <li>
            <strong>
              HTTP <code>getTransaction</code>
            </strong>{' '}
            for each notified signature, in <code>base64</code> with <code>maxSupportedTransactionVersion</code> set (without it, versioned transactions are
            refused). Up to 16 fetches run at once, but results are handed on in notification order.
          </li>
          <li>
            <strong>Gap filling</strong> after every reconnect: for each program, <code>getSignaturesForAddress</code> with <code>until</code> set to the last
            signature processed, paged, merged with new notifications in slot order, so nothing is missed and nothing is processed twice.
          </li>
          <li>
            <strong>A checkpoint</strong> of the last published slot and signature, written every second, so a restarted process continues where the previous
            one stopped.
          </li>
        </ul>
        <p>
          That is roughly what any serious PubSub consumer ends up with. It costs one HTTP request per transaction; the alternative is a Yellowstone gRPC
          stream, which delivers whole transactions and resumes from a slot (Tradewind supports both sources).
        </p>
        <h3>A resilient RPC PubSub client</h3>
        <p>
          The core of such a consumer is a client that remembers what it subscribed to and subscribes again after every reconnect, using the same backoff rule:
        </p>
        <Code
          label="pubsub.ts (Node.js 22+, npm install ws)"
          lang="ts"
          code={`
import WebSocket from 'ws';

/** Delay before attempt n (1-based): 1 s doubling, capped at 30 s (as in reconnect.ts). */
const backoffMs = (attempt: number) => Math.min(30_000, 1_000 * 2 ** (attempt - 1));

type Handler = (result: unknown) => void;
interface Wanted { method: string; params: unknown[]; onNotify: Handler }

/** Keeps subscriptions alive across reconnects; calls onReconnect so the caller can fill the gap over HTTP. */
export class ResilientPubSub {
  readonly #wanted: Wanted[] = [];
  readonly #bySubscription = new Map<number, Handler>();
  readonly #byRequest = new Map<number, Wanted>();
  #ws: WebSocket | null = null;
  #nextId = 1;
  #failures = 0;

  constructor(private readonly url: string, private readonly onReconnect: () => void, private readonly maxAttempts = 10) {}

  subscribe(method: string, params: unknown[], onNotify: Handler): void {
    const w = { method, params, onNotify };
    this.#wanted.push(w);
    if (this.#ws?.readyState === WebSocket.OPEN) this.#send(w);
  }

  connect(): void {
    const ws = new WebSocket(this.url);
    this.#ws = ws;
    let silence: NodeJS.Timeout | undefined;
    const alive = () => {
      clearTimeout(silence);
      silence = setTimeout(() => ws.terminate(), 30_000);
    };
    ws.on('open', () => {
      alive();
      this.#bySubscription.clear(); // old ids mean nothing on a new connection
      for (const w of this.#wanted) this.#send(w);
      if (this.#failures > 0) this.onReconnect();
      this.#failures = 0;
    });
    ws.on('message', (data) => {
      alive();
      const msg = JSON.parse(data.toString());
      const w = msg.id !== undefined ? this.#byRequest.get(msg.id) : undefined;
      if (w) {
        this.#byRequest.delete(msg.id);
        if (msg.error) return console.error(w.method, 'refused:', msg.error.message);
        this.#bySubscription.set(msg.result, w.onNotify);
      } else if (msg.params?.subscription !== undefined) {
        this.#bySubscription.get(msg.params.subscription)?.(msg.params.result);
      }
    });
    ws.on('error', (err) => console.error('socket error:', err.message));
    ws.on('close', () => {
      clearTimeout(silence);
      this.#failures += 1;
      if (this.#failures > this.maxAttempts) return console.error('giving up after', this.maxAttempts, 'attempts');
      setTimeout(() => this.connect(), backoffMs(this.#failures));
    });
  }

  #send(w: Wanted): void {
    const id = this.#nextId++;
    this.#byRequest.set(id, w);
    this.#ws!.send(JSON.stringify({ jsonrpc: '2.0', id, method: w.method, params: w.params }));
  }
}

// Usage: new-transaction notices for one program, with slots as a liveness signal.
const client = new ResilientPubSub(process.env.SOLANA_WS_URL!, () => console.log('reconnected: backfill with getSignaturesForAddress'));
client.subscribe('slotSubscribe', [], () => {});
client.subscribe('logsSubscribe', [{ mentions: ['6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P'] }, { commitment: 'confirmed' }], (r) => {
  const { value } = r as { value: { signature: string; err: unknown } };
  if (value.err === null) console.log('pump.fun transaction', value.signature);
});
client.connect();
`}
        />
        <h3>A new-token watcher on Tradewind</h3>
        <p>
          The same job on Tradewind needs no transaction fetching and no decoding: subscribe to both launchpad subjects with a filter for CREATE messages, and
          each new token arrives with its mint, name, symbol, metadata URI and creator. This is a Starter-plan example (both subjects are included for free):
        </p>
        <Code
          label="new-tokens.ts (@tradewind/client, shipped with the WebSocket starter template)"
          lang="ts"
          code={`
import { TradewindClient } from '@tradewind/client';

const client = new TradewindClient({
  url: process.env.TRADEWIND_WS_URL ?? '${SITE.wsUrl}',
  jwt: process.env.TRADEWIND_JWT!,
  seed: process.env.TRADEWIND_NKEY_SEED!, // signs the challenge; never sent
});
client.on('gap', (g) => console.warn('missed', g.subject, 'after seq', g.afterSeq));

for (const subject of ['basic.pumpfun', 'basic.bonk'] as const) {
  client.subscribe(subject, { filter: { types: ['CREATE'] } });
}
void client.connect();

for await (const t of client.trades()) {
  // CREATE messages carry the new token's metadata and its creator.
  if (t.source === 'pumpfun') {
    console.log('pump.fun', t.mint, t.symbol, t.name, 'creator', t.creator ?? t.user, t.uri);
  } else if (t.source === 'bonk') {
    const m = t.base_mint_param; // LaunchLab: {decimals, name, symbol, uri}
    console.log('launchlab', t.base_mint, m?.symbol, m?.name, 'creator', t.creator, m?.uri);
  }
}
`}
        />
        <h3>Following one wallet across venues</h3>
        <p>
          To copy-watch a wallet, put it in <code>accounts</code> and subscribe to every subject your plan includes; add <code>min_sol</code> to ignore dust. On{' '}
          {plus.name} and {pro.name} that follows the wallet from the bonding curves to PumpSwap and Raydium CPMM:
        </p>
        <Code
          label="requests after authentication"
          lang="json"
          code={`
{"subject":"basic.pumpfun","filter":{"accounts":["<wallet>"],"min_sol":0.1}}
{"subject":"basic.bonk","filter":{"accounts":["<wallet>"],"min_sol":0.1}}
{"subject":"premium.pumpswap","filter":{"accounts":["<wallet>"],"min_sol":0.1}}
{"subject":"premium.raydium","filter":{"accounts":["<wallet>"],"min_sol":0.1}}
`}
        />
        <h3>Confirming your own transaction</h3>
        <p>
          A bot that trades sends its own transactions through an RPC provider (Tradewind is read-only). To learn when one lands, open{' '}
          <code>signatureSubscribe</code> for its first signature at <code>confirmed</code> before you send it, so there is no window in which the notification
          can be missed; a <code>null</code> <code>err</code> means it succeeded, an error object means it landed and failed. If the transaction’s blockhash
          expires with no notification, check it once with <code>getSignatureStatuses</code>; a transaction that never landed can be rebuilt with a fresh
          blockhash and sent again.
        </p>
      </Section>

      <Section s={S.performance}>
        <p>
          Speed claims about WebSocket feeds are easy to make and hard to check, so this section quotes only what we measured, with the date, the machine and
          the baseline.
        </p>
        <p>
          Tradewind’s repository contains a benchmark that runs the WebSocket server against plain NATS subscribers in one run: it publishes a real 1,091-byte
          Pump.fun buy to <code>basic.pumpfun</code> at fixed rates and measures how WebSocket clients receive it compared with{' '}
          <strong>nats-server’s own fan-out</strong> of the same messages to the same number of core subscribers. Latency runs from the publish time written
          into the message to the moment a subscriber reads it; it does not include the time from the chain to the publisher. Measured on{' '}
          <strong>2026-11-25</strong> on a 2-core development machine (Node.js 20, nats-server 2.9.10), where subscribers, servers and publisher share the two
          cores, so absolute figures drift 2–3× between runs and the ratios are the meaningful part:
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">figure</th>
                <th scope="col">Tradewind WebSocket</th>
                <th scope="col">nats-server (baseline)</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>latency p50 / p99 / max, 1 subscriber at 2,000 msg/s</td>
                <td>0.51 / 5.2 / 17.4 ms</td>
                <td>0.27 / 16.3 / 39.7 ms</td>
              </tr>
              <tr>
                <td>latency p50 / p99 / max, 100 subscribers at 2,000 msg/s</td>
                <td>3.1 / 45.5 / 70.4 ms</td>
                <td>6.3 / 254.7 / 455.2 ms</td>
              </tr>
              <tr>
                <td>highest rate kept up, 100 subscribers</td>
                <td>500,000 deliveries/s</td>
                <td>500,000 deliveries/s</td>
              </tr>
              <tr>
                <td>highest rate kept up, 1,000 subscribers</td>
                <td>500,000 deliveries/s</td>
                <td>200,000 deliveries/s</td>
              </tr>
              <tr>
                <td>messages lost, duplicated or reordered, every step</td>
                <td>0 / 0 / 0</td>
                <td>0 / 0 / 0</td>
              </tr>
            </tbody>
          </table>
        </div>
        <p>
          “Kept up” means every subscriber received every message within one second of the publisher stopping; a delivery is one message to one subscriber. Read
          honestly, the numbers say three things. The WebSocket path costs about a quarter of a millisecond more than core NATS at the median (0.51 against 0.27
          ms), the price of reading from a durable stream with sequence numbers. Its tail latency was lower than nats-server’s in this run. And our own target
          of a p99 at or under 1.3 ms for one subscriber was not met on this shared machine (5.2 ms), nor by nats-server’s core subscribers in the same run
          (16.3 ms). The same one-subscriber step on the machine with nothing else running gave 0.37 / 2.89 / 15.95 ms against nats-server’s 0.25 / 11.20 /
          21.34 ms.
        </p>
        <p>What you control on the client side matters as much as the server:</p>
        <ul>
          <li>
            <strong>Keep the read loop fast.</strong> Parse, enqueue, return. Do slow work (database writes, RPC calls, signing) in a worker with its own
            bounded queue. Tradewind disconnects a client with 4413 once more than 8 MiB are queued for it, rather than buffering without limit.
          </li>
          <li>
            <strong>Filter on the server.</strong> A <code>mints</code> or <code>min_sol</code> filter cuts the bytes you receive and parse. On Solana,{' '}
            <code>dataSize</code> and <code>memcmp</code> do the same for account streams.
          </li>
          <li>
            <strong>Choose encodings deliberately.</strong> base58 is slow to produce and to decode; base64 (or <code>base64+zstd</code> for large accounts) is
            cheaper, <code>jsonParsed</code> convenient but larger.
          </li>
          <li>
            <strong>Avoid firehoses you do not need.</strong> <code>logsSubscribe</code> with <code>"all"</code> reports every non-vote transaction on the
            cluster.
          </li>
          <li>
            <strong>Run close to the source.</strong> Network distance to the server adds to every figure above.
          </li>
        </ul>
      </Section>

      <Section s={S.migrationFromPolling}>
        <p>
          Many projects start by polling: every few seconds, call <code>getSignaturesForAddress</code> for a program or wallet, then <code>getTransaction</code>{' '}
          for each new signature. It is simple and it works, but it has three costs. Latency is half the polling interval on average, before any processing.
          Every poll spends request quota even when nothing happened. And the loop has to track the last signature it saw, page through bursts and cope with
          rate limits.
        </p>
        <p>Moving to a subscription does not mean throwing the poller away. The safest migration keeps it as the backfill:</p>
        <ol>
          <li>
            <strong>Make processing idempotent.</strong> Key everything you store by signature (and, for trades, the instruction’s position), so handling a
            transaction twice is harmless.
          </li>
          <li>
            <strong>Add the subscription</strong> (<code>logsSubscribe</code> with <code>mentions</code>, or <code>accountSubscribe</code> for a handful of
            accounts) and feed its notifications into the same processing path as the poller.
          </li>
          <li>
            <strong>Turn the poller into a gap filler.</strong> Run it once at start and once after every reconnect, with <code>until</code> set to the last
            signature processed, instead of on a timer.
          </li>
          <li>
            <strong>Measure, then retire the timer.</strong> Compare what each path delivered for a few days; when the subscription plus gap filling misses
            nothing, stop the periodic polling.
          </li>
        </ol>
        <p>If what you poll for is trades on the launchpads, PumpSwap or Raydium CPMM, the migration can skip the fetching and decoding entirely:</p>
        <Code
          label="before: polling (sketch)"
          lang="ts"
          code={`
let until: string | undefined;
setInterval(async () => {
  const sigs = await rpc('getSignaturesForAddress', [PROGRAM_ID, { until, limit: 1000, commitment: 'confirmed' }]);
  if (sigs.length > 0) until = sigs[0].signature;
  for (const s of sigs.reverse()) {
    const tx = await rpc('getTransaction', [s.signature, { encoding: 'base64', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }]);
    handle(decodeWithIdl(tx)); // your decoder for the program's instructions and events
  }
}, 5_000);
`}
        />
        <Code
          label="after: one subscription (sketch)"
          lang="ts"
          code={`
// Authenticate as in reconnect.ts, then:
ws.send(JSON.stringify(lastSeq === null ? { subject: 'basic.pumpfun' } : { subject: 'basic.pumpfun', resume_after: lastSeq }));
// Each message is already a decoded trade: { seq, signature, instruction_path, transaction_type, mint, ... }
`}
        />
        <p>
          The idempotency rule still applies: de-duplicate by <code>signature</code> plus <code>instruction_path</code>, since one transaction can contain
          several trades.
        </p>
      </Section>

      <Section s={S.alternatives}>
        <p>A WebSocket is one of several ways to get Solana data in real time. Each fits a different job:</p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">option</th>
                <th scope="col">what you get</th>
                <th scope="col">after a disconnect</th>
                <th scope="col">good for</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>HTTP polling</td>
                <td>whatever you ask for, when you ask</td>
                <td>nothing to recover; you ask again</td>
                <td>dashboards, low volumes, backfills</td>
              </tr>
              <tr>
                <td>Solana RPC WebSocket</td>
                <td>raw account, log, signature and slot notifications</td>
                <td>subscribe again, fill the gap over HTTP</td>
                <td>any program or account; wallets; confirmations</td>
              </tr>
              <tr>
                <td>Yellowstone (Geyser) gRPC</td>
                <td>whole transactions and accounts, filtered by account</td>
                <td>resume from a slot</td>
                <td>indexers and high-volume pipelines that decode themselves</td>
              </tr>
              <tr>
                <td>Tradewind WebSocket (port 9223)</td>
                <td>decoded trades of Pump.fun, LetsBonk.fun, PumpSwap, Raydium CPMM as JSON</td>
                <td>
                  <code>resume_after</code> the last <code>seq</code>
                </td>
                <td>bots, alerts and analytics on those venues, in any language</td>
              </tr>
              <tr>
                <td>Tradewind native NATS (port 4223)</td>
                <td>the same messages through any NATS client</td>
                <td>JetStream consumers; replay on {replayPlan.name}</td>
                <td>services that already use NATS, or need consumers with acknowledgements</td>
              </tr>
            </tbody>
          </table>
        </div>
        <p>
          The honest boundary: Tradewind covers four programs. If you need arbitrary accounts, other DEXs, NFT marketplaces or your own program, use the RPC
          WebSocket or Yellowstone and decode yourself. If you trade or analyse launchpad tokens and the AMMs they graduate to, a decoded stream saves you the
          fetching, the decoding, the IDL upgrades and the gap filling described above.
        </p>
      </Section>

      <Section s={S.conclusion}>
        <p>
          Solana’s RPC WebSocket is a general tool: five core methods, three commitment levels, byte-level filters, and no memory of what you missed. Used well,
          it needs an explicit commitment on every request, one <code>logsSubscribe</code> per address, filters such as <code>dataSize</code> 165 with{' '}
          <code>memcmp</code> for token accounts, a watchdog, a reconnect policy with exponential backoff (up to 10 attempts, from 1 second to 30 seconds) and
          an HTTP backfill after every reconnect. Tradewind’s stream is a specialised tool on top of it: decoded trades, server-side filters on decoded fields,
          and resume by sequence so a reconnect loses nothing.
        </p>
        <p>
          To try the stream, start on the free {starter.name} plan, which carries every Pump.fun and LetsBonk.fun trade, and compare the paid plans on the{' '}
          <Link to="/pricing">pricing page</Link>. The <Link to="/how-it-works">how it works</Link> page walks through the three steps from sign-in to your
          first message, with the starter templates; the complete protocol reference is in the <Link to="/dashboard/docs">API documentation</Link> once you are
          signed in. For the market these trades come from, read our <Link to="/solana-memecoin">guide to Solana memecoins</Link>.
        </p>
        <Note title="Sources">
          <p>
            Solana RPC methods and parameters:{' '}
            <a href="https://solana.com/docs/rpc/websocket" rel="noopener noreferrer">
              solana.com/docs/rpc/websocket
            </a>
            ; commitment levels and filter criteria:{' '}
            <a href="https://solana.com/docs/rpc" rel="noopener noreferrer">
              solana.com/docs/rpc
            </a>
            ; token account layout:{' '}
            <a href="https://solana.com/developers/guides/javascript/get-program-accounts" rel="noopener noreferrer">
              Solana’s getProgramAccounts guide
            </a>
            . Tradewind figures: the benchmark in our repository’s WebSocket protocol documentation, run on 2026-11-25.
          </p>
        </Note>
      </Section>
    </>
  );
}
