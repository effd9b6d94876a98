/**
 * Article /tradewind-vs-pumpportal (API Comparison, FAQ). PumpPortal facts are quoted from its own
 * documentation with the date we read it; Tradewind figures come from the plans catalogue and our
 * dated benchmark (docs/websocket.md section 9). Material of the retired article
 * pumpswap-raydium-cpmm-premium-subjects lives here now.
 */
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { PLANS } from '@tradewind/contracts/plans';
import { Code, Note, Section, defineSections, sectionList, type FaqEntry } from '../../components/blog/article';
import { STARTER_TEMPLATES } from '../templates';

const S = defineSections({
  atAGlance: 'At a glance',
  costMath: 'Cost math: a fee per message against a flat plan',
  latency: 'Latency: what is measured and what is not',
  security: 'Security',
  developerExperience: 'Developer experience',
  pumpswap: 'What the PumpSwap data contains',
  liquidity: 'Pool creation and liquidity changes',
  upgrading: 'Upgrading without reconnecting',
  templates: 'Starter templates',
  moving: 'Moving a PumpPortal subscription to Tradewind',
  whenToChoose: 'When to choose each',
  conclusion: 'Conclusion',
});

export const sections = sectionList(S);

const { starter, plus, pro } = PLANS;

/** When we read PumpPortal's pages (pumpportal.fun/fees, /data-api/pump-swap, /FAQ and its home page). */
const READ_ON = '25 November 2026';

/**
 * PumpPortal's published charge for PumpSwap data: 0.01 SOL per 10,000 messages
 * (pumpportal.fun/fees and pumpportal.fun/data-api/pump-swap, read on {@link READ_ON}).
 */
export const PUMPPORTAL_SOL_PER_10K = 0.01;
/** The worked example's baseline rate, trades per second (an assumption, stated in the article). */
export const BASELINE_TRADES_PER_SECOND = 200;
/** SOL prices of the worked example's table, USD (inputs, not quotes). */
export const EXAMPLE_SOL_PRICES = [100, 150, 200, 318] as const;
const SECONDS_PER_DAY = 86_400;
const DAYS_PER_MONTH = 30;

/** Messages a day at `perSecond`: perSecond × 86,400. */
export function messagesPerDay(perSecond: number): number {
  return perSecond * SECONDS_PER_DAY;
}

/** PumpPortal's PumpSwap data charge for `messages` messages, in SOL: messages / 10,000 × 0.01. */
export function pumpPortalSol(messages: number): number {
  return (messages / 10_000) * PUMPPORTAL_SOL_PER_10K;
}

/** A Tradewind plan's monthly price spread over 30 days, USD per day (e.g. Pro: 35 / 30 ≈ 1.17). */
export function planUsdPerDay(monthlyUsd: number): number {
  return monthlyUsd / DAYS_PER_MONTH;
}

const usd = (n: number, digits = 2) => `$${n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
const num = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The worked example with the reader's own inputs: trades per second and SOL price. */
function CostCalculator() {
  const id = useId();
  const [rate, setRate] = useState<number>(BASELINE_TRADES_PER_SECOND);
  const [solUsd, setSolUsd] = useState<number>(150);
  const perDay = messagesPerDay(rate);
  const sol = pumpPortalSol(perDay);
  const valid = Number.isFinite(rate) && rate >= 0 && Number.isFinite(solUsd) && solUsd >= 0;
  return (
    <figure className="card blog-calculator" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>Try your own numbers</figcaption>
      <p>
        <label htmlFor={`${id}-rate`}>PumpSwap messages per second</label>{' '}
        <input id={`${id}-rate`} type="number" min={0} step="any" value={Number.isFinite(rate) ? rate : ''} onChange={(e) => setRate(e.target.valueAsNumber)} />
      </p>
      <p>
        <label htmlFor={`${id}-sol`}>SOL price in USD</label>{' '}
        <input
          id={`${id}-sol`}
          type="number"
          min={0}
          step="any"
          value={Number.isFinite(solUsd) ? solUsd : ''}
          onChange={(e) => setSolUsd(e.target.valueAsNumber)}
        />
      </p>
      {valid ? (
        <p role="status" data-testid="calculator-result">
          {num(perDay)} messages a day cost {num(sol, 2)} SOL ({usd(sol * solUsd)}) a day at PumpPortal’s published rate; {plus.name} is{' '}
          {usd(planUsdPerDay(plus.monthlyUsd))} and {pro.name} {usd(planUsdPerDay(pro.monthlyUsd))} a day.
        </p>
      ) : (
        <p role="status" data-testid="calculator-result">
          Enter a rate and a price of zero or more.
        </p>
      )}
    </figure>
  );
}

export const faq: FaqEntry[] = [
  {
    question: 'Is PumpPortal’s data free?',
    answer: `PumpPortal’s fees page (read on ${READ_ON}) says there is no charge to use its Data API for trades on the pump.fun bonding curve, and that PumpSwap trading data needs an API key and costs 0.01 SOL per 10,000 trades streamed, charged to the wallet linked to the key. Tradewind’s ${starter.name} plan is free too, and covers the Pump.fun and LetsBonk.fun bonding curves.`,
  },
  {
    question: 'How much does PumpSwap data cost at 200 trades per second?',
    answer: `200 trades a second is 17,280,000 a day. At 0.01 SOL per 10,000 that is 17.28 SOL a day: about $2,592 at $150 per SOL, or about $5,500 at $318. Tradewind’s ${plus.name} plan, which includes PumpSwap, costs $${plus.monthlyUsd} a month (${usd(planUsdPerDay(plus.monthlyUsd))} a day); ${pro.name} costs $${pro.monthlyUsd} (${usd(planUsdPerDay(pro.monthlyUsd))} a day).`,
  },
  {
    question: 'Is Tradewind faster than PumpPortal?',
    answer:
      'We have not measured PumpPortal, and its pages we read publish no data-delivery latency, so we make no claim either way. We publish our own dated benchmark of Tradewind’s delivery path and show how to compare two feeds yourself by recording which one delivers each signature first.',
  },
  {
    question: 'Can I trade through Tradewind?',
    answer:
      'No. Tradewind is a read-only data feed. PumpPortal also offers transaction APIs (its fees page lists 0.5% per Local trade and 1% per Lightning trade); with Tradewind your program signs and sends its own transactions through an RPC provider.',
  },
];

export default function TradewindVsPumpportal() {
  return (
    <>
      <p>
        PumpPortal is a well-known third-party API for Pump.fun: a WebSocket data feed and HTTP endpoints that build or send trades. Tradewind is a subscription
        data service that streams decoded trades from Pump.fun, LetsBonk.fun, PumpSwap and Raydium CPMM over WebSocket and native NATS. If you are choosing a
        data feed for a bot or a dashboard, the two overlap, and the differences that matter are how each charges, how fast and how reliable delivery is, how
        you authenticate, and how much code you write. This comparison quotes PumpPortal only from its own documentation, with the date we read it; it quotes
        Tradewind from the plan catalogue the service enforces and from our own dated measurements. Where neither side has published a number, we say so.
      </p>

      <Section s={S.atAGlance}>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col"></th>
                <th scope="col">PumpPortal (its documentation, read {READ_ON})</th>
                <th scope="col">Tradewind</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row">Pump.fun bonding-curve data</th>
                <td>no charge for the Data API</td>
                <td>
                  <code>basic.pumpfun</code>, every plan including the free {starter.name}
                </td>
              </tr>
              <tr>
                <th scope="row">PumpSwap data</th>
                <td>API key with a linked wallet holding at least 0.02 SOL; 0.01 SOL per 10,000 messages</td>
                <td>
                  <code>premium.pumpswap</code>, flat from ${plus.monthlyUsd} a month ({plus.name})
                </td>
              </tr>
              <tr>
                <th scope="row">LetsBonk.fun and Raydium CPMM</th>
                <td>not covered by the pages we read</td>
                <td>
                  <code>basic.bonk</code> (every plan), <code>premium.raydium</code> ({plus.name} and {pro.name})
                </td>
              </tr>
              <tr>
                <th scope="row">Trading</th>
                <td>Local Transaction API, 0.5% per trade; Lightning Transaction API, 1% per trade</td>
                <td>none: read-only</td>
              </tr>
              <tr>
                <th scope="row">Transports</th>
                <td>WebSocket</td>
                <td>WebSocket (port 9223) and native NATS JetStream (port 4223)</td>
              </tr>
              <tr>
                <th scope="row">Authentication</th>
                <td>none for free data; an API key in the connection URL for PumpSwap data</td>
                <td>user JWT plus a signature of a challenge by your NKey</td>
              </tr>
              <tr>
                <th scope="row">Catching up after a disconnect</th>
                <td>not described in the pages we read</td>
                <td>
                  <code>resume_after</code> on every plan (5 minutes); replay of the stream’s retention on {pro.name}
                </td>
              </tr>
            </tbody>
          </table>
        </div>
        <p>
          “Not described in the pages we read” means exactly that: we read PumpPortal’s home page, its fees page, its PumpSwap data page and its FAQ. PumpPortal
          may offer more elsewhere or may have changed since; check its documentation before deciding.
        </p>
      </Section>

      <Section s={S.costMath}>
        <p>
          The pricing models are different in kind. PumpPortal’s fees page, read on {READ_ON}, says: there is no charge for Data API trades on the pump.fun
          bonding curve; after tokens migrate to PumpSwap, trading data is only available to users who subscribe with an API key, and every 10,000 PumpSwap
          trades streamed cost 0.01 SOL, charged to the wallet linked to the key. Its PumpSwap data page adds that the wallet must hold at least 0.02 SOL, and
          that a connection whose wallet holds less is restricted to bonding-curve trades. Tradewind charges a flat monthly price per plan, whatever the number
          of messages. So the comparison depends on one input, how many PumpSwap messages you receive, and one market price, SOL’s.
        </p>
        <p>
          Take a baseline of {BASELINE_TRADES_PER_SECOND} PumpSwap trades per second. This is an assumption for the example, not a measurement of PumpSwap’s
          volume, which varies by the hour. The arithmetic:
        </p>
        <ol>
          <li>
            Messages a day: {BASELINE_TRADES_PER_SECOND} × 86,400 seconds = {num(messagesPerDay(BASELINE_TRADES_PER_SECOND))}, that is 17.28 million.
          </li>
          <li>
            PumpPortal’s charge: {num(messagesPerDay(BASELINE_TRADES_PER_SECOND))} / 10,000 × {PUMPPORTAL_SOL_PER_10K} SOL ={' '}
            {num(pumpPortalSol(messagesPerDay(BASELINE_TRADES_PER_SECOND)), 2)} SOL a day.
          </li>
          <li>In dollars, at a SOL price you choose. The table shows a few; at $318 per SOL the charge is about $5,500 a day.</li>
          <li>
            Tradewind: the monthly price divided by 30 days. {plus.name}, the cheapest plan with PumpSwap, is ${plus.monthlyUsd} / 30 ={' '}
            {usd(planUsdPerDay(plus.monthlyUsd))} a day; {pro.name} is ${pro.monthlyUsd} / 30 = {usd(planUsdPerDay(pro.monthlyUsd))} a day, or{' '}
            {usd(planUsdPerDay(pro.annualMonthlyUsd))} billed yearly.
          </li>
        </ol>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">SOL price (input)</th>
                <th scope="col">PumpPortal, {num(pumpPortalSol(messagesPerDay(BASELINE_TRADES_PER_SECOND)), 2)} SOL a day</th>
                <th scope="col">Tradewind {plus.name}, a day</th>
                <th scope="col">Tradewind {pro.name}, a day</th>
              </tr>
            </thead>
            <tbody>
              {EXAMPLE_SOL_PRICES.map((price) => (
                <tr key={price}>
                  <th scope="row">{usd(price, 0)}</th>
                  <td>{usd(pumpPortalSol(messagesPerDay(BASELINE_TRADES_PER_SECOND)) * price, 0)}</td>
                  <td>{usd(planUsdPerDay(plus.monthlyUsd))}</td>
                  <td>{usd(planUsdPerDay(pro.monthlyUsd))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <CostCalculator />
        <p>
          The break-even point is low. At $150 per SOL, 10,000 PumpSwap messages cost $1.50 at PumpPortal, so {plus.name}’s ${plus.monthlyUsd} a month buys the
          same as 100,000 messages a month, about one message every 26 seconds. Any bot that follows PumpSwap as a whole passes that within minutes on an active
          day. Below it, for example a script that watches a single pool that rarely trades, the per-message model is cheaper.
        </p>
        <p>
          Three things the arithmetic leaves out. First, the two meters count different things: PumpPortal charges for messages you receive on the subscriptions
          you choose (per token or per account, in its examples), while Tradewind’s price does not depend on what you subscribe to, so a filter changes your
          bandwidth, not your bill. Second, PumpPortal’s charge is in SOL, so its dollar cost moves with the market; Tradewind’s is in dollars. Third, for
          bonding-curve data alone both are free: PumpPortal’s Data API for bonding-curve trades and Tradewind’s {starter.name} plan. There the choice is about
          the other sections of this article.
        </p>
      </Section>

      <Section s={S.latency}>
        <p>
          Latency is the claim most often made and least often measured. The time from a trade landing on Solana to a message in your program has four parts:
          how the provider learns about the transaction (a Geyser plugin such as Yellowstone gRPC sees it as a validator processes it; RPC log subscriptions and{' '}
          <code>getTransaction</code> come later), the commitment level it waits for (<code>processed</code> is earliest but may be rolled back;{' '}
          <code>confirmed</code> and <code>finalized</code> take longer), decoding, and delivery to you. Here is what is published for each side:
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">part of the path</th>
                <th scope="col">PumpPortal</th>
                <th scope="col">Tradewind</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>chain to provider</td>
                <td>not published in the pages we read</td>
                <td>
                  depends on the deployment’s live source (Yellowstone gRPC at <code>processed</code> by default, or RPC at <code>confirmed</code>); not
                  benchmarked end to end. Every message states its <code>commitment</code>.
                </td>
              </tr>
              <tr>
                <td>delivery, 1 subscriber at 2,000 msg/s, p50 / p99</td>
                <td>not published</td>
                <td>0.51 / 5.2 ms (nats-server’s own subscribers in the same run: 0.27 / 16.3 ms)</td>
              </tr>
              <tr>
                <td>delivery, 100 subscribers at 2,000 msg/s, p50 / p99</td>
                <td>not published</td>
                <td>3.1 / 45.5 ms (nats-server: 6.3 / 254.7 ms)</td>
              </tr>
              <tr>
                <td>highest rate kept up, 1,000 subscribers</td>
                <td>not published</td>
                <td>500,000 deliveries per second (nats-server: 200,000)</td>
              </tr>
              <tr>
                <td>messages lost, duplicated or reordered</td>
                <td>not published</td>
                <td>0 / 0 / 0 at every step of the benchmark</td>
              </tr>
            </tbody>
          </table>
        </div>
        <p>
          Tradewind’s figures come from the WebSocket server’s benchmark, measured on 25 November 2026 on a 2-core development machine with nats-server 2.9.10
          as the baseline, and publishing a real 1,091-byte Pump.fun buy. On a shared 2-core machine absolute figures drift two- to three-fold between runs, so
          read the comparison with the baseline rather than any single cell. PumpPortal’s FAQ does state that trades placed through it average under 1 second to
          execution; that is about sending transactions, not about data delivery, so it does not belong in this table.
        </p>
        <p>
          The only latency comparison worth trusting is one you run yourself, on your own network, at the same time. Subscribe to the same activity on both
          feeds and record, for each transaction signature, which feed delivered it first and by how much:
        </p>
        <Code
          label="first-seen.mjs"
          lang="js"
          code={`
// Call seen(feed, signature) from each feed's message handler; prints who was first, per signature.
// Adapt how you read the signature to each provider's message format.
const firstSeen = new Map(); // signature → { feed, at }
const leads = { tradewind: [], other: [] };

export function seen(feed, signature) {
  const at = performance.now();
  const first = firstSeen.get(signature);
  if (!first) return void firstSeen.set(signature, { feed, at });
  if (first.feed === feed || first.done) return;
  first.done = true;
  leads[first.feed].push(at - first.at);
}

setInterval(() => {
  for (const [feed, ms] of Object.entries(leads)) {
    const sorted = [...ms].sort((a, b) => a - b);
    const p50 = sorted[Math.floor(sorted.length / 2)] ?? 0;
    console.log(\`\${feed} first \${ms.length} times, median lead \${p50.toFixed(1)} ms\`);
  }
}, 60_000);
`}
        />
        <p>
          Run it for a day, not a minute: both feeds depend on upstream sources whose delay varies, and a fair result also counts the signatures one feed
          delivered and the other never did.
        </p>
      </Section>

      <Section s={S.security}>
        <p>A data feed’s security questions are who can use your access, what they can do with it, and what you risk if a secret leaks.</p>
        <p>
          <strong>Tradewind</strong> uses the NATS credential model. Your access is a user JWT signed for your account and an NKey, an Ed25519 key pair whose
          seed stays with you. The WebSocket server sends a random challenge, and your client answers with the JWT and a signature of the challenge, so the seed
          never crosses the network. The server checks the JWT the way nats-server does: the signature chain up to the operator, expiry, revocations and
          possession of the key. Permissions are per subject and enforced by the servers, not by client code: customer credentials may subscribe to their plan’s
          subjects and never publish. Connection limits belong to the account, so a leaked credential cannot multiply your connections. If a seed leaks,
          rotating it in the dashboard revokes the old key and closes every connection that uses it.
        </p>
        <p>
          <strong>PumpPortal</strong>’s free data requires no credential at all, which is the simplest possible start. For PumpSwap data, its documentation
          shows the API key passed in the WebSocket URL’s query string (<code>wss://pumpportal.fun/api/data?api-key=…</code>), and the key is linked to a wallet
          that is charged per message. A key in a URL tends to end up in logs, so keep such URLs out of shared logging. PumpPortal’s home page describes its
          Lightning Transaction API as sending transactions for you and recommends its Local Transaction API when you need full security and control over your
          transactions; that is a trading concern rather than a data one, and Tradewind has no equivalent because it never touches your trades.
        </p>
        <Note title="What leaks cost">
          <p>
            A leaked Tradewind credential gives read access to market data under your plan’s limits until you rotate it; it cannot spend anything. A leaked key
            that is linked to a funded wallet and billed per message can cost money for as long as someone streams with it, which is a reason to keep that
            wallet’s balance small.
          </p>
        </Note>
      </Section>

      <Section s={S.developerExperience}>
        <p>
          PumpPortal’s strength is how little it asks of you: connect to a WebSocket, send a JSON message with a <code>method</code> such as{' '}
          <code>subscribeTokenTrade</code> or <code>subscribeAccountTrade</code> and a list of keys, and read JSON. Its documentation shows this in Python and
          JavaScript in a dozen lines. If your goal is a quick script, that is hard to beat.
        </p>
        <p>Tradewind asks a little more at the start and gives more back when a program has to keep running:</p>
        <ul>
          <li>
            <strong>Exact values.</strong> Raw on-chain integers arrive as decimal strings, so no amount is rounded by a JSON number; derived values in human
            units sit next to them with their unit in the name (<code>sol_amount_ui</code>, <code>price_sol</code>).
          </li>
          <li>
            <strong>Documented messages.</strong> Field names are those of each program’s official IDL, and every subject has a JSON Schema listing every field,
            its type, unit and meaning. The schema forbids unlisted fields, so the documentation cannot fall behind the messages.
          </li>
          <li>
            <strong>No silent loss.</strong> Every trade carries its stream sequence as <code>seq</code>. A client either receives every message of its subjects
            in order or is disconnected with a reason, and resubscribing with <code>resume_after</code> recovers what it missed, on every plan, with no gap and
            no duplicate.
          </li>
          <li>
            <strong>Server-side filters</strong> by mint, account, transaction type or minimum SOL amount, changeable in place without resubscribing; on native
            NATS, per-mint subjects.
          </li>
          <li>
            <strong>Two transports</strong> with byte-identical messages: WebSocket for browsers and any language, native NATS for languages with a NATS client,
            which brings reconnects, standard credential files and JetStream consumers for replay.
          </li>
          <li>
            <strong>A client library</strong>, <code>@tradewind/client</code>, that signs the challenge, reconnects with backoff, resumes by <code>seq</code>,
            reports gaps as events and watches for dead links.
          </li>
          <li>
            <strong>Control messages</strong> that tell you about changes you did not ask for: <code>plan_changed</code> when your plan changes on a live
            connection, <code>unsubscribed</code> with a reason, heartbeats every 5 quiet seconds.
          </li>
        </ul>
        <p>
          The costs of that design are real too: a handshake to implement if you do not use a template or the library, credentials to keep safe, and no trading
          API, so a bot that trades needs an RPC provider of its own. The <Link to="/pump-fun-api">Pump.fun API guide</Link> walks through the whole protocol.
        </p>
      </Section>

      <Section s={S.pumpswap}>
        <p>
          <code>premium.pumpswap</code> carries PumpSwap’s BUY, SELL, CREATE_POOL, DEPOSIT and WITHDRAW. Every message names the <code>pool</code>, its{' '}
          <code>base_mint</code> (the token, repeated as <code>mint</code> so it matches <code>basic.pumpfun</code>), its <code>quote_mint</code> (WSOL for SOL
          pools) and the pool’s vaults. Trades add the event’s amounts and fees, and derived values:
        </p>
        <ul>
          <li>
            <code>base_amount_out</code> (buy) or <code>base_amount_in</code> (sell), the tokens traded, and <code>user_quote_amount</code>, the SOL the trader
            paid (buy, fees included) or received (sell).
          </li>
          <li>
            <code>lp_fee</code>, <code>protocol_fee</code> and <code>coin_creator_fee</code> with their basis points.
          </li>
          <li>
            <code>pool_base_token_reserves</code> and <code>pool_quote_token_reserves</code>, the vault balances <strong>before</strong> the trade, and the
            derived <code>pool_base_token_reserves_after</code> and <code>pool_quote_token_reserves_after</code>.
          </li>
          <li>
            <code>price_sol</code>, the pool’s constant-product spot price after the trade, including the pool’s virtual quote reserves where the event carries
            them; <code>sol_amount_ui</code> and <code>token_amount_ui</code>.
          </li>
          <li>
            <code>tokenIn</code>, <code>tokenOut</code>, <code>amountIn</code> (fees included), <code>amountOut</code>, <code>fee</code> (all three fees),{' '}
            <code>txHash</code> and <code>poolAddress</code>: the same swap under common names, <code>null</code> on pool and liquidity events.
          </li>
        </ul>
        <p>A real PumpSwap buy from the project’s recording of mainnet transactions (selected fields):</p>
        <Code
          label="premium.pumpswap BUY (excerpt)"
          lang="json"
          code={`
{
  "source": "pumpswap", "transaction_type": "BUY",
  "signature": "59GXCxvQmz3KT7H4taZrjHmU2XjxWZ2hws7jtSSDoVjceD4MyA3nTCDLCnZ6hBX9qVakhzshT7B2kbMsV21DU1yZ",
  "instruction_path": [4], "schema_version": 2, "timestamp": "1749119986",
  "base_amount_out": "1806759473",
  "pool_base_token_reserves": "11366011985444", "pool_quote_token_reserves": "2872707314402",
  "lp_fee": "913446", "protocol_fee": "228362",
  "pool": "Ef7wUrbarRXHNMMgBs8cstSkzRttnstjMsniaq7zMp6j",
  "coin_creator_fee": "228362",
  "quote_mint": "So11111111111111111111111111111111111111112",
  "mint": "npB9cxTzwUiGt7jk2dXZa52xZve8SgVD6Et9Bpipump", "side": "buy",
  "pool_base_token_reserves_after": "11364205225971", "pool_quote_token_reserves_after": "2873164950607",
  "user_quote_amount": "458092929",
  "token_amount_ui": 1806.759473, "sol_amount_ui": 0.458092929, "price_sol": 0.00025282585921986516,
  "tokenIn": "So11111111111111111111111111111111111111112",
  "tokenOut": "npB9cxTzwUiGt7jk2dXZa52xZve8SgVD6Et9Bpipump",
  "amountIn": "458092929", "amountOut": "1806759473", "fee": "1370170",
  "txHash": "59GXCxvQmz3KT7H4taZrjHmU2XjxWZ2hws7jtSSDoVjceD4MyA3nTCDLCnZ6hBX9qVakhzshT7B2kbMsV21DU1yZ",
  "poolAddress": "Ef7wUrbarRXHNMMgBs8cstSkzRttnstjMsniaq7zMp6j"
}
`}
        />
        <p>
          PumpSwap also has 2026 instruction variants (<code>buy_v2</code>, <code>sell_v2</code> and others) that its published IDL does not describe yet. Those
          are counted as unknown and not published, rather than decoded by guesswork; the decoding documentation lists this limit.
        </p>
      </Section>

      <Section s={S.liquidity}>
        <p>
          Trades are not the only thing that moves a pool’s price. Both premium subjects also report the events that change a pool’s liquidity, with the same
          field conventions as trades:
        </p>
        <ul>
          <li>
            <strong>CREATE_POOL</strong> is a pool’s first message. On PumpSwap it carries the CreatePoolEvent: the creator, the LP mint, the base and quote
            amounts deposited and the LP tokens minted, so the initial price is known before the first trade. On Raydium CPMM it carries the pool’s two mints,
            their vaults, the creator’s initial amounts and <code>open_time</code>, the moment swaps open; with one WSOL side it also states the initial{' '}
            <code>price_sol</code>.
          </li>
          <li>
            <strong>DEPOSIT</strong> and <strong>WITHDRAW</strong> report liquidity providers adding or removing both sides of a pool and the LP tokens minted
            or burned. A large withdrawal thins a pool, so the same trade size moves the price further afterwards; if your strategy sizes orders from pool
            depth, these messages matter as much as the trades.
          </li>
        </ul>
        <p>
          None of these messages has a <code>side</code>, so a consumer that only wants trades can filter on <code>transaction_type</code>: BUY and SELL on
          PumpSwap, SWAP on Raydium CPMM. Reserve fields let you keep a pool’s state without reading the chain: on PumpSwap every message gives the vault
          balances before and after the instruction, and on Raydium CPMM the swap event gives the reserves the curve priced with, from which{' '}
          <code>price_sol</code> is computed.
        </p>
      </Section>

      <Section s={S.upgrading}>
        <p>
          You can upgrade from the dashboard’s plan page at any time. Your credentials stay the same; what changes is your account’s plan, and Tradewind applies
          it to connections that are already open:
        </p>
        <ul>
          <li>
            <strong>WebSocket</strong>: the server sends <code>plan_changed</code> with the new plan and subjects. Send{' '}
            <code>{`{"subject":"premium.pumpswap"}`}</code> on the same socket; no reconnect is needed.
          </li>
          <li>
            <strong>Native NATS</strong>: the NATS server cannot widen a live connection’s permissions, so your connection is closed and your client reconnects
            with the same <code>.creds</code> file, now allowed the premium subjects. Subscribe to them once the client reports the reconnect; a subscription
            the server refused before the upgrade stays closed and has to be made again.
          </li>
        </ul>
        <p>
          A downgrade works the same way in reverse: on the WebSocket each premium subscription ends with <code>unsubscribed</code> and{' '}
          <code>{`"reason":"plan_changed"`}</code> while the launchpad subjects keep flowing. Handling <code>plan_changed</code> in a bot is covered in the{' '}
          <Link to="/pump-fun-api">Pump.fun API guide</Link>, and the protocol details are in the <Link to="/dashboard/docs">API documentation</Link>.
        </p>
      </Section>

      <Section s={S.templates}>
        <p>
          Both services show code you can copy. PumpPortal’s documentation has short Python and JavaScript examples on its pages. Tradewind ships three complete
          starter templates in its repository, downloadable from the <Link to="/how-it-works">how it works</Link> page:
        </p>
        <ul>
          {STARTER_TEMPLATES.map((t) => (
            <li key={t.id}>
              <strong>{t.title}</strong>, over {t.transport}: {t.summary}
            </li>
          ))}
        </ul>
        <p>
          Each is a program rather than a snippet: it reads a <code>.creds</code> file, handles every close code, resumes after a reconnect and prints one trade
          per line as the exact JSON the server sent, so it can feed <code>jq</code> or another program from the first minute.
        </p>
      </Section>

      <Section s={S.moving}>
        <p>
          If you already have a PumpPortal client, most of its subscriptions have a direct equivalent. PumpPortal’s documentation subscribes by method and a
          list of keys; Tradewind subscribes to a subject and narrows it with a server-side filter, which you can change later on the same connection without
          resubscribing:
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">PumpPortal (its documented methods)</th>
                <th scope="col">Tradewind</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>
                  <code>{`{"method":"subscribeTokenTrade","keys":[<mints>]}`}</code>
                </td>
                <td>
                  <code>{`{"subject":"basic.pumpfun","filter":{"mints":[<mints>]}}`}</code>, and the same on <code>premium.pumpswap</code> for graduated tokens
                </td>
              </tr>
              <tr>
                <td>
                  <code>{`{"method":"subscribeAccountTrade","keys":[<wallets>]}`}</code>
                </td>
                <td>
                  <code>{`{"subject":"basic.pumpfun","filter":{"accounts":[<wallets>]}}`}</code>: the trader, the creator or the pool
                </td>
              </tr>
              <tr>
                <td>new tokens, graduations</td>
                <td>
                  <code>{`"filter":{"types":["CREATE"]}`}</code> and <code>{`"filter":{"types":["MIGRATE"]}`}</code>
                </td>
              </tr>
            </tbody>
          </table>
        </div>
        <p>Four differences to plan for when you port the client:</p>
        <ul>
          <li>
            <strong>Authentication first.</strong> Wait for the server’s <code>challenge</code>, answer with your JWT and a signature, and subscribe only after{' '}
            <code>authenticated</code>. The templates and <code>@tradewind/client</code> do this for you.
          </li>
          <li>
            <strong>Two kinds of message.</strong> Control messages have a <code>type</code>; trades have none, or <code>{'"type":"trade"'}</code> (pump.fun).
            Branch on that before reading trade fields.
          </li>
          <li>
            <strong>Field names and units.</strong> Tradewind’s fields are the program’s own names in snake_case (plus a few camelCase summaries such as{' '}
            <code>txHash</code>), raw amounts are decimal strings in base units (lamports, token base units), and human-unit values end in <code>_ui</code>. Map
            your fields once, in one function, and parse raw amounts with <code>BigInt</code> where you compute with them.
          </li>
          <li>
            <strong>Keep your position.</strong> Store the last <code>seq</code> per subject. After a reconnect, subscribing with <code>resume_after</code>{' '}
            gives you what you missed; this replaces any re-scan or “catch-up” logic your old client had.
          </li>
        </ul>
        <p>
          A safe way to switch is to run both clients side by side for a day with the first-seen script above, compare what each delivered, and then turn the
          old one off.
        </p>
      </Section>

      <Section s={S.whenToChoose}>
        <p>
          <strong>Choose PumpPortal</strong> when you want to place trades through an API, which Tradewind does not do; when you only need Pump.fun
          bonding-curve data for a script and want no account at all; or when you follow a handful of quiet PumpSwap pools, where a per-message charge stays
          below a monthly plan.
        </p>
        <p>
          <strong>Choose Tradewind</strong> when you follow PumpSwap or Raydium CPMM at volume and want a cost that does not grow with activity; when you need
          LetsBonk.fun as well as Pump.fun; when a missed trade matters and you want resume after every disconnect, and replay on {pro.name}; when you prefer
          native NATS; or when you want exact integer amounts and documented schemas.
        </p>
        <p>
          Many teams use both: a data feed for what they watch, and a transaction service or their own RPC for what they send. Data and trading are separate
          concerns, and nothing in either service requires the other.
        </p>
      </Section>

      <Section s={S.conclusion}>
        <p>
          On price, the two meet where the per-message fee crosses a flat plan, and for PumpSwap data at any sustained rate that happens early: at the{' '}
          {BASELINE_TRADES_PER_SECOND}-trades-per-second example, 17.28 SOL a day against {usd(planUsdPerDay(pro.monthlyUsd))} a day for {pro.name}. On latency,
          neither side publishes an end-to-end figure; we publish our delivery-path benchmark with its date and baseline, and you can measure both feeds
          yourself. On security and tooling, Tradewind trades a little setup for keys that never leave your machine, server-enforced permissions and resume
          without gaps. Start on the free {starter.name} plan, compare plans on the <Link to="/pricing">pricing page</Link>, and read the protocol in the{' '}
          <Link to="/dashboard/docs">API documentation</Link>.
        </p>
      </Section>
    </>
  );
}
