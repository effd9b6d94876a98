/**
 * Article /pump-fun-api (API Guide, featured, FAQ): the implementation guide to the Pump.fun
 * stream. Material of the retired articles stream-pump-fun-trades-websocket,
 * nats-jetstream-solana-trades and building-a-trading-bot-with-tradewind lives here now.
 */
import { Link } from 'react-router';
import { PLANS, PLAN_IDS } from '@tradewind/contracts/plans';
import { Code, Note, Section, defineSections, sectionList, type FaqEntry } from '../../components/blog/article';
import { STARTER_TEMPLATES, templateFileUrl } from '../templates';
import { SITE } from '../../site';
import { PlanLimitsTable } from '../../components/marketing/PlanLimitsTable';

const S = defineSections({
  whatYouGet: 'What the Pump.fun stream carries',
  whatYouNeed: 'What you need',
  handshake: 'The handshake: challenge, credentials, authenticated',
  firstClient: 'A complete client',
  tradeMessage: 'Reading a trade message',
  pumpfun: 'How a Pump.fun trade is decoded',
  filters: 'Filtering on the server: new tokens, one mint, large trades',
  controlMessages: 'Control messages to handle',
  errors: 'Errors and close codes',
  reconnect: 'Reconnecting without losing your place',
  nats: 'The same stream over native NATS',
  readLoop: 'From a first client to a reliable bot',
  graduation: 'Following a token after it graduates',
  templates: 'Starter templates',
  performance: 'Performance: what we measured',
  conclusion: 'Conclusion',
});

export const sections = sectionList(S);

const { starter, plus, pro } = PLANS;

export const faq: FaqEntry[] = [
  {
    question: 'Do I need a paid plan to stream Pump.fun trades?',
    answer: `No. basic.pumpfun and basic.bonk are part of every plan, including the free ${starter.name} plan, which allows ${starter.connections} concurrent connection per transport and ${starter.requestsPerMinute} control requests per minute. The paid plans add the PumpSwap and Raydium CPMM subjects, more connections and, on ${pro.name}, replay of history.`,
  },
  {
    question: 'Should I send my NKey seed or a signature of the challenge?',
    answer:
      'Both are accepted. Signing the challenge nonce with your NKey and sending {"jwt","sig"} keeps the seed on your machine, so it is the better choice whenever your language has an Ed25519 NKey library. Sending {"jwt","nkey"} is simpler for a first test.',
  },
  {
    question: 'Why was my connection closed with code 4429?',
    answer: `Your plan's concurrent connections were already taken (${starter.name}: ${starter.connections}, ${plus.name}: ${plus.connections}, ${pro.name}: ${pro.connections}). Close the other connection or wait: a slot held by a connection that died without closing is freed when its 30-second lease runs out.`,
  },
  {
    question: 'Can I get the trades I missed while I was disconnected?',
    answer: `Yes, on every plan: every trade carries its TRADES stream sequence as "seq"; reconnect and subscribe with {"subject": …, "resume_after": <the last seq you received>} and the server sends every trade you missed, once and in order, then continues live. Every plan can resume from the last 5 minutes; on ${pro.name} you can go back as far as the stream keeps (24 hours by default) and also replay from a time with {"replay":{"from": …}}.`,
  },
  {
    question: 'Does Tradewind publish an uptime guarantee?',
    answer:
      'No. We do not publish an uptime percentage we have not measured over a long period. What the design does promise is that a client never loses a trade silently: it either receives every message of its subjects in order, or is disconnected with a reason and can resume from its last seq.',
  },
  {
    question: 'Can Tradewind place trades for my bot?',
    answer:
      'No. Tradewind is a read-only market data feed: customer credentials may subscribe but never publish. Your bot signs and sends its own transactions to Solana through an RPC provider of your choice.',
  },
];

export default function PumpFunApi() {
  return (
    <>
      <p>
        Pump.fun is the launchpad where most new Solana memecoins start: anyone can create a token, and the token trades at once against a bonding curve, a
        program that prices it by formula until enough has been bought for it to move to a real market. Every one of those actions is a Solana transaction, and
        Tradewind decodes each of them into one JSON message on the subject <code>basic.pumpfun</code>. This guide is the complete implementation path: what the
        stream carries, how to authenticate and subscribe over WebSocket, what every important field of a trade means and how it is decoded, how to filter on
        the server, which errors to expect, how to reconnect without losing a trade, how to use native NATS instead, and how to grow a first client into a bot
        that keeps running. Everything here follows the protocol as the servers implement it and the messages as the decoder produces them; the samples are real
        mainnet transactions.
      </p>

      <Section s={S.whatYouGet}>
        <p>
          Tradewind reads the Pump.fun program (<code>6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P</code>) from the chain, decodes every instruction and event of
          it with the program’s official interface description, and publishes one message per instruction. On <code>basic.pumpfun</code> the{' '}
          <code>transaction_type</code> of a message is one of five values:
        </p>
        <ul>
          <li>
            <strong>CREATE</strong>: a new token, with its name, symbol, metadata URI, mint, bonding curve and creator.
          </li>
          <li>
            <strong>BUY</strong> and <strong>SELL</strong>: a trade on the curve, with amounts, reserves, fees and the derived price.
          </li>
          <li>
            <strong>COMPLETE</strong>: the buy that filled the curve; the token no longer trades on it.
          </li>
          <li>
            <strong>MIGRATE</strong>: the curve’s liquidity moved to a PumpSwap pool, where trading continues.
          </li>
        </ul>
        <p>
          The same pipeline publishes LetsBonk.fun on <code>basic.bonk</code>, and the two AMMs where graduated tokens keep trading, PumpSwap and Raydium CPMM,
          on <code>premium.pumpswap</code> and <code>premium.raydium</code>. What each plan includes is read from the same catalogue that enforces it:
        </p>
        <PlanLimitsTable priceColumns={[{ header: 'price', cell: (p) => (p.monthlyUsd === 0 ? 'free' : `$${p.monthlyUsd} a month`) }]} />
        <p>
          There are two ways to receive the stream, with the same credentials and byte-identical messages: a WebSocket on port 9223, which works from browsers
          and from any language with a WebSocket library, and native NATS on port 4223, for languages with a NATS client. Most of this guide uses the WebSocket;
          the native section shows what changes.
        </p>
      </Section>

      <Section s={S.whatYouNeed}>
        <p>
          You need a Tradewind account. The {starter.name} plan costs nothing and includes both launchpad subjects, <code>basic.pumpfun</code> and{' '}
          <code>basic.bonk</code>, with {starter.connections} concurrent connection per transport. Sign in, open the dashboard and look at the connection
          details. They contain three things this guide uses:
        </p>
        <ul>
          <li>
            <code>ws_connection</code>, the WebSocket URL. On a local development stack it is <code>{SITE.wsUrl}</code>; the WebSocket server listens on port
            9223.
          </li>
          <li>
            <code>user_jwt</code>, your NATS user JWT. It names your account and, through the account, your plan.
          </li>
          <li>
            <code>user_nkey_seed</code>, the private NKey seed that belongs to the JWT. It starts with <code>SU</code>. Treat it like a password: anyone holding
            the JWT and the seed can use your plan’s connections.
          </li>
        </ul>
        <p>
          The same JWT and seed also work for native NATS on port 4223, covered further down. For this guide install Node.js 22 or newer and two packages:{' '}
          <code>ws</code>, a WebSocket client, and <code>@nats-io/nkeys</code>, the NATS project’s NKey library, which we use to sign the server’s challenge.
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
          Every frame in both directions is a JSON text frame. The server starts the conversation: as soon as the socket opens it sends a challenge containing a
          random nonce of 32 base64url characters.
        </p>
        <Code label="server → client" lang="json" code={`{"type":"challenge","nonce":"<32 base64url characters>"}`} />
        <p>You answer with your credentials in one of two forms. The simple form sends the seed itself:</p>
        <Code label="client → server" lang="json" code={`{"jwt":"<user JWT>","nkey":"<user NKey seed, SU…>"}`} />
        <p>
          The safer form never sends the seed. You sign the nonce’s UTF-8 bytes with your NKey (an Ed25519 key) and send the signature, base64url-encoded. The
          server checks that the signature was made by the key named in the JWT, which proves you hold the seed without revealing it:
        </p>
        <Code label="client → server" lang="json" code={`{"jwt":"<user JWT>","sig":"<base64url signature of nonce>"}`} />
        <p>
          The server verifies the credentials the way the NATS server does: the JWT’s signature chain up to the operator, its expiry, the account’s revocations
          and possession of the key. When everything checks out it answers with your plan, the subjects you may subscribe to and the moment your JWT expires
          (milliseconds since the epoch, or <code>null</code>):
        </p>
        <Code
          label="server → client"
          lang="json"
          code={`{"type":"authenticated","plan":"starter","subjects":["basic.pumpfun","basic.bonk"],"expires_at_ms":1795248000000}`}
        />
        <p>
          You have 10 seconds from connecting to send credentials. After that the server sends <code>auth_timeout</code> and closes the socket with code 4408.
          Once authenticated, you subscribe by sending <code>{`{"subject":"basic.pumpfun"}`}</code>. The server confirms with{' '}
          <code>{`{"type":"subscribed","subject":"basic.pumpfun","filter":null,"seq":48213}`}</code> (<code>seq</code>: the subject’s last stream sequence when
          the subscription started) and then streams trades. A connection can hold several subjects at once, and{' '}
          <code>{`{"unsubscribe":"basic.pumpfun"}`}</code> stops one of them.
        </p>
      </Section>

      <Section s={S.firstClient}>
        <p>
          Here is the whole exchange as one file. It signs the challenge rather than sending the seed, subscribes to the subject given on the command line
          (default <code>basic.pumpfun</code>) and prints buys and sells. The rule that makes the message loop simple: control messages always have a{' '}
          <code>type</code> field, never <code>"trade"</code>; trade messages have no <code>type</code>, or <code>{'"type":"trade"'}</code> (pump.fun trades).
        </p>
        <Code
          label="client.mjs"
          lang="js"
          code={`
// Node.js 22+: npm install ws @nats-io/nkeys
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
  if (msg.type === undefined || msg.type === 'trade') return onTrade(msg); // a trade: no "type", or "trade"
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
          Run it with <code>node client.mjs</code>, or <code>node client.mjs basic.bonk</code> for LetsBonk.fun trades. If you would rather send the seed for a
          first test, replace the two signing lines with <code>{`ws.send(JSON.stringify({ jwt, nkey: seed }))`}</code>; the server accepts either form.
        </p>
      </Section>

      <Section s={S.tradeMessage}>
        <p>
          Every message on <code>basic.pumpfun</code> follows the subject’s JSON Schema. Below is a real one: the decoder’s output for a pump.fun buy recorded
          from mainnet in July 2025 (signature <code>2ghHZX…STszhc</code>, one of the transactions bundled with Tradewind for testing), reformatted over several
          lines.
        </p>
        <Code
          label="a basic.pumpfun BUY message"
          lang="json"
          code={`
{
  "source": "pumpfun", "transaction_type": "BUY",
  "signature": "2ghHZXwyU6K1Q8KMJbLJg37ktmyctKmdzzZKGDvHk1MR865dDYyo8SfrKvmvijT43P6hdu6ozPtATiMeg2STszhc",
  "slot": 356410419, "commitment": "confirmed", "block_time_ms": 1753751878000, "instruction_path": [2],
  "program_id": "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P", "schema_version": 2,
  "mint": "7k2255ueF3Ecnnjf9odEu7so3gmXKS8E29atDWmFpump",
  "sol_amount": "129814469", "token_amount": "2878556000000", "is_buy": true,
  "user": "3HeEuccBzrTvWBvQGuiVgqbJcCpzTd4mFZjbKQoz5BYg", "timestamp": "1753751878",
  "virtual_sol_reserves": "38165815301", "virtual_token_reserves": "843424927552285",
  "real_sol_reserves": "8165815301", "real_token_reserves": "563524927552285",
  "fee_recipient": "CebN5WGQ4jvEPvsVU4EoHEpgzq1VV7AbicfhtW4xC9iM", "fee_basis_points": "95", "fee": "1233238",
  "creator": "3JCST4EZJoJT6rJhjNn6e4KRK2pg79JoAye7zdCPMMdK", "creator_fee_basis_points": "5", "creator_fee": "64908",
  "side": "buy", "bonding_curve": "9A5TEByiBsj1RXZfe6cDr3tLn89vXtrZ11QsFWf13Njm",
  "sol_amount_ui": 0.129814469, "token_amount_ui": 2878556, "price_sol": 4.525099277271961e-8,
  "type": "trade",
  "data": {
    "symbol": null, "price": 4.525099277271961e-8, "volume": 0.129814469, "side": "buy",
    "timestamp": 1753751878000,
    "txHash": "2ghHZXwyU6K1Q8KMJbLJg37ktmyctKmdzzZKGDvHk1MR865dDYyo8SfrKvmvijT43P6hdu6ozPtATiMeg2STszhc",
    "poolAddress": "9A5TEByiBsj1RXZfe6cDr3tLn89vXtrZ11QsFWf13Njm"
  }
}
`}
        />
        <p>A few rules make these messages easy to consume:</p>
        <ul>
          <li>
            Raw on-chain integers (u64, i64) are <strong>decimal strings</strong>, because they can exceed the range a JSON number holds exactly.{' '}
            <code>sol_amount</code> is in lamports, <code>token_amount</code> in the token’s base units (pump.fun mints have 6 decimals). Parse them with{' '}
            <code>BigInt</code> when you do arithmetic.
          </li>
          <li>
            Fields whose name ends in <code>_ui</code>, and <code>price_sol</code>, are derived numbers in human units: SOL, whole tokens, and SOL per token.{' '}
            <code>price_sol</code> is the bonding curve’s spot price after the trade, (virtual_sol_reserves / 1e9) / (virtual_token_reserves / 1e6). Curves
            quoted in another mint carry <code>price_quote</code> and <code>quote_amount_ui</code> instead.
          </li>
          <li>
            <code>schema_version</code> is 2. <code>data</code> repeats the essentials in one place (symbol, price and volume in SOL, side, timestamp in ms,{' '}
            <code>txHash</code>, <code>poolAddress</code>); a member that does not apply or is unknown is <code>null</code> (ingest never saw this token’s
            CREATE, so no symbol).
          </li>
          <li>
            <code>transaction_type</code> is one of CREATE, BUY, SELL, COMPLETE (this buy filled the bonding curve) and MIGRATE (the curve’s liquidity moved to
            a PumpSwap pool). Check it before reading trade fields.
          </li>
          <li>
            Fields an older event layout lacks are <strong>absent</strong>, not zero: a 2024 trade has no <code>creator</code> or fee fields. Code defensively
            with optional access.
          </li>
          <li>
            <code>signature</code> plus <code>instruction_path</code> identifies a message: one transaction can contain several trades, for instance when a
            router or bot calls pump.fun more than once.
          </li>
          <li>
            Over WebSocket each message starts with <code>seq</code>, its sequence in the TRADES stream (<code>{'{"seq":48213,"source":"pumpfun",…}'}</code>):
            remember the last one, it is where you resume after a disconnect. <code>commitment</code> says how final the transaction was when it was decoded (
            <code>processed</code>, <code>confirmed</code> or <code>finalized</code>).
          </li>
        </ul>
      </Section>

      <Section s={S.pumpfun}>
        <p>
          A Solana transaction does not say “Alice bought 2.8 million tokens for 0.13 SOL”. It says that programs were invoked with some bytes and accounts,
          that other programs were invoked from inside them, and that some log lines were written. The decoder turns that into trades in three moves. It matches
          each Pump.fun instruction by the 8-byte discriminator at the start of its data, using the official IDL of the program (from the{' '}
          <code>@pump-fun/pump-sdk</code> package), and names its accounts from the IDL. It finds the instruction’s <strong>event</strong>, because only the
          event says what actually happened: instruction arguments state a maximum price or a minimum output, the event states the amounts. Events arrive either
          as <code>Program data:</code> log lines or as a self-invocation of the program, and the decoder reads both, preferring the logs, which are cheaper to
          decode. Finally it reads the event’s fields in the IDL’s order and stops cleanly at the end of the bytes, because event layouts grow: Pump.fun’s
          TradeEvent was 121 bytes in 2024, 217 bytes from mid-2025 (adding the fee recipient, fees and creator fee) and 350 bytes in 2026. Fields an older
          layout lacks are absent from the message, never zero. A failed transaction produces nothing.
        </p>
        <p>
          A CREATE message carries the token’s identity and the curve’s starting reserves. This one is the decoder’s output for a real 2026 launch (signature{' '}
          <code>5EDHe1…bafYuZ</code>), shortened to its main fields:
        </p>
        <Code
          label="a basic.pumpfun CREATE message (main fields)"
          lang="json"
          code={`
{
  "source": "pumpfun", "transaction_type": "CREATE", "instruction_path": [0], "schema_version": 2,
  "name": "NYXORA", "symbol": "NYXORA",
  "uri": "https://ipfs.io/ipfs/bafkreiguttiiufcl24xtnzgxvvonh7b535a3dh6txrjgwax2hyecsyj46i",
  "mint": "7YD6ZHb39jGb33ki2iFd7kHK11yMkSFCc9kvjJscpump",
  "bonding_curve": "9hgcsTpZP48Ttku3uhg5gZ388YFCfErayJ5rHSru9PF7",
  "user": "5zsxd4pGNCQpwyKiBWZ95nCTPsEPoS62xEGnjpW6FRy7",
  "creator": "5zsxd4pGNCQpwyKiBWZ95nCTPsEPoS62xEGnjpW6FRy7",
  "timestamp": "1785328607",
  "virtual_token_reserves": "1073000000000000", "virtual_sol_reserves": "30000000000",
  "real_token_reserves": "793100000000000", "token_total_supply": "1000000000000000",
  "token_program": "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
  "type": "trade",
  "data": {
    "symbol": "NYXORA", "price": 2.7958993476234855e-8, "volume": null, "side": null,
    "timestamp": 1785328607000,
    "txHash": "5EDHe12KqokKkhDLY8n5cs7hYs5g49mNFTMKHARafs9FMVBYcG1rYf7VD4h1zd19G7zaXGNLqqyTsczPXbbafYuZ",
    "poolAddress": "9hgcsTpZP48Ttku3uhg5gZ388YFCfErayJ5rHSru9PF7"
  }
}
`}
        />
        <p>
          On <code>basic.pumpfun</code>, <code>transaction_type</code> is CREATE, BUY, SELL, COMPLETE or MIGRATE. Every buy instruction variant becomes BUY and
          every sell variant SELL, with <code>side</code> taken from the event’s <code>is_buy</code>. A trade message holds every TradeEvent field present in
          the bytes, plus the <code>bonding_curve</code> account and derived values. For the real July 2025 buy shown above, the raw and derived fields relate
          like this:
        </p>
        <Code
          label="check-pumpfun.mjs"
          lang="js"
          code={`
// Fields of the basic.pumpfun BUY in transaction 2ghHZX…STszhc (mainnet, July 2025)
const t = {
  sol_amount: '129814469', token_amount: '2878556000000',
  virtual_sol_reserves: '38165815301', virtual_token_reserves: '843424927552285',
  fee_basis_points: '95', fee: '1233238', creator_fee_basis_points: '5', creator_fee: '64908',
};

// price_sol: spot price of the curve after the trade (SOL has 9 decimals, pump.fun mints 6)
console.log((Number(t.virtual_sol_reserves) / 1e9) / (Number(t.virtual_token_reserves) / 1e6));
// → 4.525099277271961e-8, the message's price_sol

console.log(Number(t.sol_amount) / 1e9, Number(t.token_amount) / 1e6);
// → 0.129814469 2878556, the message's sol_amount_ui and token_amount_ui

// Exact arithmetic on lamports: use BigInt, never floats
const curvePlusFees = BigInt(t.sol_amount) + BigInt(t.fee) + BigInt(t.creator_fee);
console.log(curvePlusFees); // → 131112615n lamports: into the curve, plus protocol and creator fees
`}
        />
        <p>
          <code>sol_amount</code> is what entered (or, for a sell, left) the bonding curve, excluding fees; <code>fee</code> and <code>creator_fee</code> are
          the protocol and creator fees in lamports, 95 and 5 basis points here. On 2026 curves quoted in another mint, such as USDC, <code>sol_amount</code> is
          0, <code>price_sol</code> is absent, and <code>price_quote</code> and <code>quote_amount_ui</code> take their place. <code>name</code> and{' '}
          <code>symbol</code> are added to a trade when the token was created in the same transaction.
        </p>
        <p>
          The buy that fills the bonding curve is followed by a <strong>COMPLETE</strong> message with the same <code>instruction_path</code>.{' '}
          <strong>MIGRATE</strong> reports the curve’s liquidity moving to a PumpSwap pool: the <code>pool</code>, <code>mint_amount</code>,{' '}
          <code>sol_amount</code> and <code>pool_migration_fee</code>. A migrate instruction that moved nothing (the curve was already migrated) produces no
          message.
        </p>
      </Section>

      <Section s={S.filters}>
        <p>
          A subscription can carry a filter, and the server then sends only the trades that match it. That saves the bandwidth and the parsing of everything you
          would throw away. Every key is optional and every key you give must match:
        </p>
        <Code
          label="client → server"
          lang="json"
          code={`{"subject":"basic.pumpfun","filter":{"types":["CREATE"]}}
{"subject":"basic.pumpfun","filter":{"mints":["7k2255ueF3Ecnnjf9odEu7so3gmXKS8E29atDWmFpump"]}}
{"subject":"basic.pumpfun","filter":{"types":["BUY","SELL"],"min_sol":0.5}}
{"subject":"basic.pumpfun","filter":{"accounts":["<wallet or bonding curve>"]}}`}
        />
        <ul>
          <li>
            <code>types</code> takes <code>transaction_type</code> values: <code>["CREATE"]</code> is a feed of new tokens, <code>["MIGRATE"]</code> a feed of
            graduations.
          </li>
          <li>
            <code>mints</code> follows tokens by mint address, up to 1,000 of them per list.
          </li>
          <li>
            <code>accounts</code> matches the trader, the creator or the bonding curve, which is how you follow a wallet.
          </li>
          <li>
            <code>min_sol</code> is the trade’s SOL amount in SOL, compared exactly in lamports. A curve quoted in another mint has no SOL side and never passes
            a <code>min_sol</code> above 0.
          </li>
        </ul>
        <p>
          Sending the same subject again with a new filter replaces the filter in place: the next message is judged by the new one, with no gap and no
          duplicate, so a bot can add a mint to its watch list without resubscribing. <code>{'"filter": null'}</code> removes it. A malformed filter, such as a
          string that is not a 32-byte base58 key or an unknown type, is refused with <code>bad_filter</code>, which says which value is wrong, and the
          subscription keeps its previous filter. On native NATS the equivalent of a mint filter is a subject: every trade is also published on{' '}
          <code>basic.pumpfun.mint.&lt;mint&gt;</code>.
        </p>
      </Section>

      <Section s={S.controlMessages}>
        <p>
          Besides <code>challenge</code>, <code>authenticated</code> and <code>subscribed</code>, a long-running client should understand three more control
          messages, because they report changes you did not ask for:
        </p>
        <ul>
          <li>
            <code>plan_changed</code> arrives when your account’s plan changes while you are connected. After an upgrade the new subjects can be subscribed on
            the same socket at once, with the same credentials.
          </li>
          <li>
            <code>unsubscribed</code> with <code>{`"reason":"plan_changed"`}</code> follows a downgrade for each subject the new plan no longer includes. The
            connection stays open and the other subjects keep flowing.
          </li>
          <li>
            <code>replay_caught_up</code> tells a {pro.name} client that a replay has delivered all stored history and the messages that follow are live.
          </li>
        </ul>
        <p>
          A JWT that expires while connected ends the connection with <code>expired</code> and close code 4401, just as the NATS server ends native connections.
          The <code>expires_at_ms</code> value of <code>authenticated</code> tells you when that will happen; the dashboard re-issues a JWT for the same key
          when it is close to expiry.
        </p>
      </Section>

      <Section s={S.errors}>
        <p>
          Every refusal is <code>{`{"type":"error","code":…,"message":…}`}</code>. Some leave the connection usable; the fatal ones are followed by a close
          frame whose reason is the error code. The ones you are likely to meet:
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">code</th>
                <th scope="col">meaning</th>
                <th scope="col">close</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>
                  <code>subject_not_in_plan</code>
                </td>
                <td>The subject needs another plan; the message names the cheapest one that includes it.</td>
                <td>stays open</td>
              </tr>
              <tr>
                <td>
                  <code>unknown_subject</code>
                </td>
                <td>Not one of the four TRADES subjects.</td>
                <td>stays open</td>
              </tr>
              <tr>
                <td>
                  <code>rate_limited</code>
                </td>
                <td>
                  Too many control requests this minute ({starter.name}: {starter.requestsPerMinute}).
                </td>
                <td>stays open</td>
              </tr>
              <tr>
                <td>
                  <code>invalid_jwt</code>, <code>nkey_mismatch</code>, <code>expired</code>, <code>revoked</code>
                </td>
                <td>The credentials were refused.</td>
                <td>4401</td>
              </tr>
              <tr>
                <td>
                  <code>auth_timeout</code>
                </td>
                <td>No credentials within 10 seconds.</td>
                <td>4408</td>
              </tr>
              <tr>
                <td>
                  <code>connection_limit</code>
                </td>
                <td>All of the plan’s concurrent connections are in use.</td>
                <td>4429</td>
              </tr>
              <tr>
                <td>
                  <code>bad_json</code>, <code>missing_fields</code>
                </td>
                <td>A malformed frame before authentication.</td>
                <td>4400</td>
              </tr>
              <tr>
                <td>
                  <code>unavailable</code>
                </td>
                <td>The credential resolver could not be reached during authentication.</td>
                <td>4503</td>
              </tr>
            </tbody>
          </table>
        </div>
        <p>
          Two close codes come without an error frame. <strong>4413</strong> (<code>slow_consumer</code>) means more than 8 MiB of messages were queued for your
          socket because your client was not reading fast enough; the server disconnects rather than buffer without limit. <strong>1001</strong> means the
          server is shutting down, for example during a deployment. Both are reasons to reconnect, and 4413 is also a reason to move slow work off the socket’s
          read loop.
        </p>
      </Section>

      <Section s={S.reconnect}>
        <p>
          Connections end: deployments, network changes, an expired JWT. A good client sorts close codes into those worth retrying and those that need a human.
          Retrying 4401 with the same credentials fails again, and hammering the server after 4429 only burns your request budget. The loop below retries
          everything else with exponential backoff (1 s doubling to 30 s), resets the delay after a successful authentication, and resubscribes with{' '}
          <code>resume_after</code> set to the <code>seq</code> of the last trade it saw, so nothing is lost in between and nothing arrives twice — on every
          plan. It also treats 15 seconds without any frame as a dead link: a subscribed connection gets a <code>heartbeat</code> after 5 quiet seconds.
        </p>
        <p>
          In Node.js, the client library <code>@tradewind/client</code> (the WebSocket starter template ships it) does all of this for you; the loop shows what
          it does, for other languages.
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
    } else if (msg.type === undefined || msg.type === 'trade') {
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
          Two details deserve a comment. First, <code>seq</code> is the message's sequence in the TRADES stream: it grows with every stored trade (across all
          subjects, so the numbers of one subject have gaps between them), which is why a plain <code>{'<='}</code> comparison is enough to drop a message seen
          before. Second, 4429 gets the same backoff as everything else: a connection slot held by a process that died without closing its socket is freed when
          its 30-second lease expires, or sooner when the server notices the missing pongs.
        </p>
        <Note title="How far back a resume reaches">
          <p>
            Every plan resumes from the last 5 minutes. On {pro.name} (${pro.monthlyUsd} a month) a resume reaches as far back as the stream keeps, and{' '}
            <code>{'{"replay":{"from": …}}'}</code> replays from a time. Past the window the server answers <code>resume_too_old</code> with the oldest sequence
            it still holds, so your bot knows exactly which range it missed.
          </p>
        </Note>
      </Section>

      <Section s={S.nats}>
        <p>
          Tradewind is built on NATS JetStream: the decoder publishes every trade into a stream called <code>TRADES</code>, and the WebSocket server is one
          consumer of that stream among others. You can skip the WebSocket layer and connect to NATS directly on port 4223 with the same credentials, using any
          official NATS client library or the <code>nats</code> command-line tool. A NATS client library already authenticates from a standard credentials file,
          reconnects and re-subscribes on its own, and gives you JetStream consumers for replay, so if your stack has one (Go, Rust, Python, Java, .NET and
          JavaScript all do) native NATS is usually the shorter path.
        </p>
        <p>
          The dashboard lets you download your JWT and seed as a standard <code>.creds</code> file, the format every NATS client reads. Keep it out of version
          control and container images and mount it at run time. The quickest check that it works is the CLI:
        </p>
        <Code
          label="terminal"
          lang="sh"
          code={`
nats --server ${SITE.natsUrl} --creds ./tradewind.creds sub basic.pumpfun
nats --server ${SITE.natsUrl} --creds ./tradewind.creds sub 'basic.pumpfun.mint.<MINT>'   # one token only
`}
        />
        <p>
          Your account imports exactly the subjects of your plan, so the NATS server itself refuses anything else: a {starter.name} user subscribing to{' '}
          <code>premium.pumpswap</code> gets <code>Permissions Violation for Subscription to "premium.pumpswap"</code> while the allowed subscriptions keep
          receiving. Publishing is refused on every plan. Connection limits are the plan’s, enforced per account, so a second native connection on{' '}
          {starter.name} or {plus.name} is refused with <code>maximum account active connections exceeded</code>. In Node.js, nats.js version 3 looks like this:
        </p>
        <Code
          label="subscribe.ts"
          lang="ts"
          code={`
// npm install @nats-io/transport-node   ·   run: npx tsx subscribe.ts basic.pumpfun
import { readFile } from 'node:fs/promises';
import { connect, credsAuthenticator } from '@nats-io/transport-node';

const nc = await connect({
  servers: process.env.TRADEWIND_NATS_URL ?? '${SITE.natsUrl}',
  authenticator: credsAuthenticator(new Uint8Array(await readFile('./tradewind.creds'))),
  name: 'my-pumpfun-consumer',
  maxReconnectAttempts: -1, // keep reconnecting (the default gives up after 10 attempts)
});

for (const subject of process.argv.slice(2)) {
  const sub = nc.subscribe(subject);
  sub.closed.then((err) => { if (err) console.error(\`\${subject}: \${err.message}\`); }); // permissions
  (async () => {
    for await (const m of sub) {
      const t = m.json<{ transaction_type: string; mint?: string; price_sol?: number }>();
      console.log(m.subject, t.transaction_type, t.mint, t.price_sol ?? '');
    }
  })();
}
await nc.closed();
`}
        />
        <p>
          Core NATS subscriptions like these are live only. On {pro.name}, history is read with a JetStream pull consumer of your own, named after your
          account’s public key, under the API prefix <code>$JS.REPLAY.API</code>; its <code>m.seq</code> is the same stream sequence the WebSocket sends as{' '}
          <code>seq</code>, so “resume after sequence N” means the same thing on both transports. When your plan changes, Tradewind closes your native
          connections once and your client reconnects with the same credentials under the new plan; the project’s integration tests check that this happens
          within 5 seconds.
        </p>
      </Section>

      <Section s={S.readLoop}>
        <p>
          The first version of a bot looks like the client above. It works until the first deployment restarts the server, the first burst of activity outruns
          the strategy, or the first plan change arrives on a live connection. Three habits make the second version, the one that keeps running.
        </p>
        <p>
          <strong>Keep the read loop fast.</strong> The WebSocket server applies a named policy to slow clients: when more than 8 MiB of messages are queued for
          your socket, it closes the connection with code 4413 rather than buffer without limit. The socket’s message handler should only parse, de-duplicate
          and put the trade on a bounded queue of your own; anything that waits, such as an RPC call, a database write or a request to your own services,
          belongs in a worker that reads that queue. When your queue overflows, do what the server does: close, reconnect and resume, rather than drop trades
          silently. If several workers run in parallel, send all trades of one mint to the same worker, so a later trade is never handled before an earlier one.
        </p>
        <p>
          <strong>De-duplicate by signature and instruction path.</strong> One transaction can contain several trades, so the signature alone is not a unique
          key. The decoder’s id is <code>{'<signature>:<instruction path joined by .>'}</code>, with <code>:COMPLETE</code> appended for COMPLETE messages,
          which share their buy’s path. The stream already drops republished duplicates, so a single live subscription sees each message once; your own
          duplicates come from overlap, such as two instances of the bot during a rolling deployment or a replay that starts before your last processed trade.
        </p>
        <Code
          label="message-id.ts"
          lang="ts"
          code={`
export function messageId(t: { signature: string; instruction_path: number[]; transaction_type: string }): string {
  const id = \`\${t.signature}:\${t.instruction_path.join('.')}\`;
  return t.transaction_type === 'COMPLETE' ? \`\${id}:COMPLETE\` : id;
}
`}
        />
        <p>
          <strong>Monitor five numbers.</strong> Messages received per subject and the time since the last one (alert on silence that is unusual for the hour,
          not on a fixed rate; heartbeats tell a quiet market from a dead link); data age, your clock minus the newest trade’s <code>block_time_ms</code>; your
          queue depth and its overflows; reconnects by close code (a few 1001s during deployments are normal, repeated 4413s are not); and duplicates dropped,
          which should be zero in steady live operation. Log <code>plan_changed</code> and <code>unsubscribed</code> prominently: a bot that silently stops
          receiving a subject looks healthy unless you check.
        </p>
      </Section>

      <Section s={S.graduation}>
        <p>
          A Pump.fun token that fills its bonding curve does not stop trading; it moves. The launchpad subject reports the move itself, so you can see it coming
          even on {starter.name}: <strong>COMPLETE</strong> follows the buy that filled the curve, and <strong>MIGRATE</strong> reports the liquidity moving to
          PumpSwap with the new <code>pool</code>, <code>mint_amount</code>, <code>sol_amount</code> and <code>pool_migration_fee</code>. Every trade after that
          happens in the PumpSwap pool, which <code>premium.pumpswap</code> carries from the {plus.name} plan up. Both subjects use <code>mint</code> for the
          token, so following one token across the two is a few lines:
        </p>
        <Code
          label="follow-graduations.mjs"
          lang="js"
          code={`
// Call onMessage(msg) for every trade message of basic.pumpfun and premium.pumpswap.
const graduated = new Map(); // mint → PumpSwap pool

export function onMessage(msg) {
  if (msg.source === 'pumpfun' && msg.transaction_type === 'MIGRATE') {
    graduated.set(msg.mint, msg.pool);
    console.log(\`\${msg.mint} graduated to PumpSwap pool \${msg.pool}\`);
    return;
  }
  if (msg.source === 'pumpswap' && graduated.get(msg.mint) === msg.pool) {
    if (msg.transaction_type === 'BUY' || msg.transaction_type === 'SELL') {
      console.log(\`\${msg.side} \${msg.token_amount_ui} \${msg.mint} at \${msg.price_sol} SOL\`);
    }
  }
}
`}
        />
        <p>
          What the PumpSwap messages contain, and what streaming them costs here and elsewhere, is worked through in{' '}
          <Link to="/tradewind-vs-pumpportal">Tradewind vs PumpPortal</Link>.
        </p>
      </Section>

      <Section s={S.templates}>
        <p>
          You do not have to start from an empty folder. The repository ships three starter templates, each a complete program that reads your credentials from
          a <code>.creds</code> file, subscribes and prints one trade per line as the exact JSON the server sent, with status and errors on stderr. Each links
          to its files on this site:
        </p>
        <ul>
          {STARTER_TEMPLATES.map((t) => (
            <li key={t.id}>
              <strong>{t.title}</strong> ({t.transport}): {t.summary} Files:{' '}
              {t.files.map((f, i) => (
                <span key={f}>
                  {i > 0 ? ', ' : ''}
                  <a href={templateFileUrl(f)}>{f.split('/').pop()}</a>
                </span>
              ))}
              . Run: <code>{t.run}</code>
            </li>
          ))}
        </ul>
        <p>
          The two WebSocket templates implement everything in this guide: the challenge signed with your NKey, one subscription per subject, reconnects with
          backoff from 1 second doubling to 30 seconds and giving up after 10 failed attempts in a row, resume by <code>seq</code> with duplicates dropped, a
          reported gap when a resume is too old, and a 15-second watchdog. The TypeScript template uses native NATS and, on {pro.name}, replays from a time or a
          stream sequence. The <Link to="/how-it-works">how it works</Link> page walks through the same three steps with the protocol sample.
        </p>
      </Section>

      <Section s={S.performance}>
        <p>
          We publish only figures we have measured, with the date, the machine and the baseline. The WebSocket server’s benchmark (
          <code>npm run bench -- fanout</code> in the repository) publishes a real 1,091-byte Pump.fun buy to <code>basic.pumpfun</code> at fixed rates and
          receives it either through Tradewind’s WebSocket server or through plain NATS subscriptions to the same nats-server, the baseline. Measured on 25
          November 2026 on a 2-core development machine (Node 20, nats-server 2.9.10, subscribers, servers and publisher sharing the two cores):
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">figure</th>
                <th scope="col">Tradewind WebSocket</th>
                <th scope="col">NATS core subscribers</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>highest rate kept up, 100 subscribers (deliveries per second)</td>
                <td>500,000</td>
                <td>500,000</td>
              </tr>
              <tr>
                <td>highest rate kept up, 1,000 subscribers</td>
                <td>500,000</td>
                <td>200,000</td>
              </tr>
              <tr>
                <td>latency p50 / p99, 1 subscriber at 2,000 msg/s</td>
                <td>0.51 / 5.2 ms</td>
                <td>0.27 / 16.3 ms</td>
              </tr>
              <tr>
                <td>latency p50 / p99, 100 subscribers at 2,000 msg/s</td>
                <td>3.1 / 45.5 ms</td>
                <td>6.3 / 254.7 ms</td>
              </tr>
              <tr>
                <td>messages lost, duplicated or reordered</td>
                <td>0 / 0 / 0</td>
                <td>0 / 0 / 0</td>
              </tr>
            </tbody>
          </table>
        </div>
        <p>
          Two honest caveats. First, these numbers cover Tradewind’s own delivery path, from the moment a decoded trade is published to the moment your socket
          receives it; they do not include the time between a transaction landing on Solana and the decoder seeing it, which depends on the live source a
          deployment reads (Yellowstone gRPC or an RPC node). Second, absolute figures on a shared 2-core machine drift two- to three-fold between runs, so
          compare the columns rather than quote one cell; our target of a p99 at or below 1.3 ms for one subscriber is not met on this machine, and nor is it by
          nats-server’s own subscribers in the same run.
        </p>
      </Section>

      <Section s={S.conclusion}>
        <p>
          A Pump.fun integration comes down to a few rules. Authenticate by signing the challenge so your seed stays home. Subscribe to{' '}
          <code>basic.pumpfun</code>, with a filter if you only need part of it. Read raw amounts as decimal strings and derived values from the{' '}
          <code>_ui</code> fields and <code>price_sol</code>. Treat close codes by kind, and resume with the last <code>seq</code> so a reconnect costs you
          nothing. Keep the read loop fast and de-duplicate by signature and instruction path. The {starter.name} plan is enough for all of it; move up when you
          need the AMM subjects, more connections or history.
        </p>
        <p>
          From here: the <Link to="/solana-websocket">Solana WebSocket guide</Link> explains the RPC node subscriptions this stream saves you from maintaining,
          the <Link to="/letsbonk-fun-api">LetsBonk.fun API guide</Link> covers the other launchpad, and{' '}
          <Link to="/tradewind-vs-pumpportal">Tradewind vs PumpPortal</Link> compares costs and trade-offs with a well-known alternative. The complete protocol
          reference, with every control message and limit, is in the <Link to="/dashboard/docs">API documentation</Link> in your dashboard.
        </p>
      </Section>
    </>
  );
}
