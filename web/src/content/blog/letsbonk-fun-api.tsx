/**
 * Article /letsbonk-fun-api (API Guide, tags API Guide and Technical, FAQ). Material of the
 * retired article decoding-pump-fun-and-letsbonk-trades lives here now.
 */
import { Link } from 'react-router';
import { PLANS, PLAN_IDS } from '@tradewind/contracts/plans';
import { Code, Section, defineSections, sectionList, type FaqEntry } from '../../components/blog/article';
import { STARTER_TEMPLATES, templateFileUrl } from '../templates';
import { SITE } from '../../site';
import { PlanLimitsTable } from '../../components/marketing/PlanLimitsTable';

const S = defineSections({
  whatItIs: 'What the LetsBonk.fun API is',
  coreFunctionality: 'Core functionality: launches, trades and migrations',
  newTokens: 'New tokens: symbol, creation time, supply and creator',
  letsbonk: 'Trades on the curve',
  conventions: 'Field conventions',
  layouts: 'How the decoder keeps up with program changes',
  messageIds: 'Message ids and de-duplication',
  verification: 'How the decoder is checked against the chain',
  apiProviders: 'API providers: three ways to get LetsBonk.fun data',
  pricingLimits: 'Pricing and limits',
  gettingStarted: 'Getting started',
  raydium: 'After graduation: Raydium CPMM',
  building: 'What you can build on it',
  conclusion: 'Conclusion',
});

export const sections = sectionList(S);

const { starter, plus, pro } = PLANS;
const python = STARTER_TEMPLATES.find((t) => t.id === 'python');

export const faq: FaqEntry[] = [
  {
    question: 'Is LetsBonk.fun data included in the free plan?',
    answer: `Yes. basic.bonk is part of every plan, including ${starter.name}, which costs nothing and allows ${starter.connections} concurrent connection per transport and ${starter.requestsPerMinute} control requests per minute.`,
  },
  {
    question: 'How do I get only LetsBonk.fun tokens and not other LaunchLab platforms?',
    answer:
      'Every basic.bonk message carries platform_config and a boolean is_letsbonk, true when the pool belongs to LetsBonk.fun’s platform config. Keep the messages where is_letsbonk is true.',
  },
  {
    question: 'Where do I find a new token’s symbol, supply and creator?',
    answer:
      'In the CREATE message: base_mint_param.symbol (with name, decimals and metadata uri), curve_param.data.supply (in base units; divide by 10 to the power of decimals), creator, and block_time_ms for the creation time.',
  },
  {
    question: 'What happens to a LetsBonk.fun token after it graduates?',
    answer: `basic.bonk sends a MIGRATE message naming the new Raydium pool (migrate_to raydium_cpmm or raydium_amm_v4, and amm_pool). Trades in a Raydium CPMM pool are on premium.raydium, from the ${plus.name} plan up; Raydium AMM v4 pools are not decoded by Tradewind.`,
  },
  {
    question: 'Can I see LetsBonk.fun trades I missed?',
    answer: `Yes. Over WebSocket, resubscribe with resume_after set to the last seq you received: every plan resumes from the last 5 minutes. ${pro.name} can replay the stream's whole retention (24 hours by default), over WebSocket or with a native JetStream consumer.`,
  },
];

export default function LetsbonkFunApi() {
  return (
    <>
      <p>
        LetsBonk.fun is a Solana token launchpad built around the BONK community: like Pump.fun, it lets anyone create a token that trades at once on a bonding
        curve, and moves the token to an automated market maker once the curve has raised enough. For traders, bots and dashboards, the interesting part is the
        flow of events: which tokens were just created and by whom, who is buying and selling them at what price, and which ones graduate. This guide explains
        what a LetsBonk.fun API gives you and how Tradewind’s stream of it works: what the stream is, its core functionality field by field with real mainnet
        samples, the kinds of providers you can choose from, pricing and limits, and a first working client.
      </p>

      <Section s={S.whatItIs}>
        <p>
          LetsBonk.fun does not run a program of its own. Its tokens are created and traded by <strong>Raydium LaunchLab</strong>, Raydium’s launchpad program
          at <code>LanMV9sAd7wArD4vJFi2qDdfnVhFxYSUg6eADduJ3uj</code>, which serves several launch platforms. Each platform is identified on chain by its own{' '}
          <code>PlatformConfig</code> account, which sets its fees and branding; every pool records the platform config it was created under. LetsBonk.fun’s is{' '}
          <code>FfYek5vEz23cMkWsdJwG2oa6EphsvXSHrGpdALN4g6W1</code>.
        </p>
        <p>
          In this guide, a “LetsBonk.fun API” means programmatic, real-time access to that on-chain activity: a feed you subscribe to, which tells you about
          each new token, each trade on a curve and each graduation, decoded into named fields. Tradewind publishes all LaunchLab activity on one subject,{' '}
          <code>basic.bonk</code>, and marks each message with the platform it belongs to, so you can keep LetsBonk.fun’s tokens or watch every LaunchLab
          platform at once. The same stream is available over WebSocket on port 9223 and native NATS on port 4223, with the same credentials and byte-identical
          messages.
        </p>
        <p>
          What a stream is not: it does not place trades and it does not hold state for you. Tradewind is read-only; your program signs and sends its own
          transactions through an RPC provider, and if you need a token’s current state you either keep it from the messages (every trade carries the curve’s
          reserves after it) or read the chain.
        </p>
      </Section>

      <Section s={S.coreFunctionality}>
        <p>
          Every message on <code>basic.bonk</code> is one LaunchLab instruction, and its <code>transaction_type</code> says which kind:
        </p>
        <ul>
          <li>
            <strong>CREATE</strong>: a pool was initialised for a new token. It carries the token’s name, symbol, decimals and metadata URI, the curve’s
            parameters (total supply, how much of it the curve sells and how much SOL it must raise), the vesting parameters and the creator.
          </li>
          <li>
            <strong>BUY</strong> and <strong>SELL</strong>: a trade on the bonding curve, with the amounts in and out, the curve’s virtual and real reserves
            before and after, the protocol, platform and share fees, the trade direction and the pool’s status, plus derived values in human units and the spot
            price.
          </li>
          <li>
            <strong>MIGRATE</strong>: the curve has raised its target and its liquidity moved to a Raydium pool. <code>migrate_to</code> says which kind (
            <code>raydium_cpmm</code> or <code>raydium_amm_v4</code>) and <code>amm_pool</code> names the new pool.
          </li>
        </ul>
        <p>
          Every message also carries what identifies and locates it: <code>source</code> (always <code>"bonk"</code>), <code>signature</code>, <code>slot</code>
          , <code>commitment</code> (how final the transaction was when it was decoded: <code>processed</code>, <code>confirmed</code> or <code>finalized</code>
          ), <code>block_time_ms</code>, <code>instruction_path</code>, <code>program_id</code>, the <code>pool_state</code>, <code>base_mint</code> (the
          launched token), <code>quote_mint</code> (WSOL for SOL pools), <code>global_config</code>, <code>platform_config</code> and <code>is_letsbonk</code>.
          Each subject has a JSON Schema that lists every field with its type, unit and meaning, and forbids fields it does not list.
        </p>
      </Section>

      <Section s={S.newTokens}>
        <p>
          New tokens are what most LetsBonk.fun integrations start with, and the CREATE message holds the four data items people ask for first: the{' '}
          <strong>token symbol</strong>, the <strong>creation timestamp</strong>, the <strong>total supply</strong> and the <strong>creator address</strong>.
          Here is the decoder’s output for a real pool creation from June 2025 (signature <code>mqSGNw…dT74u8</code>), reformatted over several lines:
        </p>
        <Code
          label="a basic.bonk CREATE message"
          lang="json"
          code={`
{
  "source": "bonk", "transaction_type": "CREATE",
  "signature": "mqSGNwKK8GZW7PztnYDat3F85BWf7JRWfm5k4ToKpKzkoGmQgyr2bwpm47md7jLck4Yc7pmXuciE73Tf8dT74u8",
  "slot": 345646824, "commitment": "confirmed", "block_time_ms": 1749468265000, "instruction_path": [2],
  "program_id": "LanMV9sAd7wArD4vJFi2qDdfnVhFxYSUg6eADduJ3uj", "schema_version": 2,
  "payer": "FeGbW3kbwQnV42hxUAFfbupVzDU5sKhcHswvtRbrYpn5",
  "creator": "FeGbW3kbwQnV42hxUAFfbupVzDU5sKhcHswvtRbrYpn5",
  "pool_state": "7SUXJsAtzPEY7Aq7e8tRjPJR7VrxUkZ6erKGuprnitNa",
  "base_mint": "AqFe2tk1BRx6czUuRPGUZ8mtvcBGDZYsG6oPvELwzray",
  "quote_mint": "So11111111111111111111111111111111111111112",
  "base_vault": "72EcyfaNFB7mbwihuQFvqdPKyGJLzeRLtvN3LdBoTpkE",
  "quote_vault": "FY85BxnA7VWDTd1yV96a3oU4Um5MguQUdW7seZAV2QzQ",
  "global_config": "6s1xP3hpbAfFoNtUNF8mfHsjr2Bd97JxFJRWLbL6aHuX",
  "platform_config": "4Bu96XjU84XjPDSpveTVf6LYGCkfW5FK7SNkREWcEfV4",
  "config": "6s1xP3hpbAfFoNtUNF8mfHsjr2Bd97JxFJRWLbL6aHuX",
  "base_mint_param": {
    "decimals": 6, "name": "PenguX", "symbol": "PEX",
    "uri": "https://ipfs.io/ipfs/bafkreic5ycsovdyioagcsgawljbz3yy3s6f6oxivjtqd6y4acrsr6f6tsa"
  },
  "curve_param": {
    "variant": "Constant",
    "data": { "supply": "1000000000000000", "total_base_sell": "800000000000000",
              "total_quote_fund_raising": "30000000000", "migrate_type": 1 }
  },
  "vesting_param": { "total_locked_amount": "0", "cliff_period": "0", "unlock_period": "0" },
  "is_letsbonk": false
}
`}
        />
        <p>Reading the four items from it:</p>
        <ul>
          <li>
            <strong>Token symbol</strong>: <code>base_mint_param.symbol</code>, here <code>PEX</code>, next to the name <code>PenguX</code>, the{' '}
            <code>decimals</code> and the metadata <code>uri</code>, which points at the token’s image and description.
          </li>
          <li>
            <strong>Creation timestamp</strong>: <code>block_time_ms</code>, the block time in milliseconds since the epoch; 1749468265000 is 9 June 2025,
            11:24:25 UTC. It is <code>null</code> in the rare case the source did not report a block time, and <code>slot</code> orders events exactly either
            way.
          </li>
          <li>
            <strong>Total supply</strong>: <code>curve_param.data.supply</code> in base units, 1,000,000,000,000,000, which with 6 decimals is 1,000,000,000
            tokens. The curve sells <code>total_base_sell</code> of them (800 million here) and migrates once it has raised{' '}
            <code>total_quote_fund_raising</code> lamports, 30 SOL.
          </li>
          <li>
            <strong>Creator address</strong>: <code>creator</code>, the wallet that created the pool, here also the <code>payer</code> of the transaction.
          </li>
        </ul>
        <p>
          This particular pool was created under another LaunchLab platform, hence <code>{'"is_letsbonk": false'}</code>; a LetsBonk.fun creation has the same
          fields with <code>platform_config</code> <code>FfYek5…4g6W1</code> and <code>is_letsbonk</code> true. The same transaction also contains the creator’s
          first buy, which arrives as a separate BUY message right after the CREATE, with <code>instruction_path</code> <code>[6]</code>. Creators buying in the
          same transaction as the launch is common, and a bot that looks at new tokens usually wants to see that first buy too.
        </p>
      </Section>

      <Section s={S.letsbonk}>
        <p>
          A LetsBonk.fun buy from July 2025 (signature <code>3USu3Y…Cy81aKf</code>), as the decoder publishes it. This one is on LetsBonk.fun’s platform config,
          so <code>is_letsbonk</code> is true:
        </p>
        <Code
          label="a basic.bonk BUY message"
          lang="json"
          code={`
{
  "source": "bonk", "transaction_type": "BUY",
  "signature": "3USu3YAsg2qBXKmMqZg4UUgJLj9yNmwQ2oyewmbZ1WtyqWmhGhd2B7aru976UCkEjV1w9AR8XjSpE1WxmCy81aKf",
  "slot": 356560168, "commitment": "confirmed", "block_time_ms": 1753811735000, "instruction_path": [6],
  "program_id": "LanMV9sAd7wArD4vJFi2qDdfnVhFxYSUg6eADduJ3uj", "schema_version": 2,
  "payer": "5yJ6hdVHDVax48F5Z9K2kLNzXzqsyqbbsmATMTi5Vyju",
  "pool_state": "D5y6T2Ep483fEup9mRC3LJSK7cd4Larxz46aE6YoGQsG",
  "base_mint": "4HhNdqkmMsMV9Z3d85sPYDw1MR3DpXRrxknRTLYXN22h",
  "quote_mint": "So11111111111111111111111111111111111111112",
  "base_vault": "DseH6RGScEzRyv6GH4ezFYzafJLQpjxqm1XtSjad58zE",
  "quote_vault": "GD5tL7DJZKqendD9c14zKQJM5VkQfYRppp5NAxp91YS7",
  "global_config": "6s1xP3hpbAfFoNtUNF8mfHsjr2Bd97JxFJRWLbL6aHuX",
  "platform_config": "FfYek5vEz23cMkWsdJwG2oa6EphsvXSHrGpdALN4g6W1",
  "user_base_token": "D1PgLcnRduWF6dUD69vdATAdfNWnooAjEn3S9aVedqkX",
  "user_quote_token": "9Qa86ocVNCrBdPz6kn7gcTpuX37bvAY9tunZaQNkobdJ",
  "total_base_sell": "793100000000000",
  "virtual_base": "1073025605596382", "virtual_quote": "30000852951",
  "real_base_before": "145510965933100", "real_quote_before": "4706613681",
  "real_base_after": "162478786778369", "real_quote_after": "5353378970",
  "amount_in": "654952192", "amount_out": "16967820845269",
  "protocol_fee": "1637381", "platform_fee": "6549522", "share_fee": "0",
  "trade_direction": "Buy", "pool_status": "Fund", "side": "buy",
  "sol_amount": "654952192", "token_amount": "16967820845269",
  "sol_amount_ui": 0.654952192, "token_amount_ui": 16967820.845269, "price_sol": 3.882747288809769e-8,
  "is_letsbonk": true
}
`}
        />
        <p>
          BUY and SELL messages carry the instruction accounts (<code>pool_state</code>, <code>base_mint</code>, <code>quote_mint</code>, the vaults, the
          trader’s token accounts) and every TradeEvent field: <code>amount_in</code> and <code>amount_out</code>, the virtual and real reserves before and
          after, the protocol, platform and share fees, <code>trade_direction</code> and <code>pool_status</code>. To make the two launchpads comparable,{' '}
          <code>sol_amount</code> is the quote side (amount in on a buy, amount out on a sell) and <code>token_amount</code> the base side. The spot price
          follows Raydium’s SDK:
        </p>
        <Code
          label="check-bonk.mjs"
          lang="js"
          code={`
// Fields of the basic.bonk BUY in transaction 3USu3Y…Cy81aKf (mainnet, July 2025; base token has 6 decimals)
const t = {
  virtual_base: '1073025605596382', virtual_quote: '30000852951',
  real_base_after: '162478786778369', real_quote_before: '4706613681', real_quote_after: '5353378970',
  amount_in: '654952192', protocol_fee: '1637381', platform_fee: '6549522', share_fee: '0',
};
const baseDecimals = 6;

const price = (Number(t.virtual_quote) + Number(t.real_quote_after))
  / (Number(t.virtual_base) - Number(t.real_base_after)) * 10 ** (baseDecimals - 9);
console.log(price); // → 3.882747288809769e-8 SOL per token, the message's price_sol

// The curve's quote grew by what the buyer paid minus the fees:
const fees = BigInt(t.protocol_fee) + BigInt(t.platform_fee) + BigInt(t.share_fee);
console.log(BigInt(t.real_quote_after) - BigInt(t.real_quote_before) === BigInt(t.amount_in) - fees); // → true
`}
        />
        <p>
          Pools quoted in a mint other than WSOL exist too; there <code>price_quote</code> and <code>quote_amount_ui</code> replace <code>price_sol</code> and{' '}
          <code>sol_amount_ui</code>. A MIGRATE message says where the liquidity went (<code>migrate_to</code>: <code>raydium_amm_v4</code> or{' '}
          <code>raydium_cpmm</code>) and the new <code>amm_pool</code>.
        </p>
      </Section>

      <Section s={S.conventions}>
        <p>The same conventions hold on all four subjects:</p>
        <ul>
          <li>
            Field names are the IDL’s, in snake_case: <code>virtual_sol_reserves</code>, <code>real_quote_after</code>. The exceptions are summaries in
            camelCase: <code>data</code> on <code>basic.pumpfun</code>, <code>tokenIn</code> … <code>poolAddress</code> on <code>premium.pumpswap</code>. Every
            message states <code>{'"schema_version": 2'}</code>.
          </li>
          <li>
            u64, i64 and u128 values are <strong>decimal strings</strong>, so no precision is lost in JSON. Small integers are numbers. Public keys are base58
            strings.
          </li>
          <li>
            Enums are variant names (<code>"Buy"</code>, <code>"Fund"</code>).
          </li>
          <li>
            Derived human-unit values say their unit in the name: <code>sol_amount_ui</code> in SOL, <code>token_amount_ui</code> in whole tokens,{' '}
            <code>price_sol</code> in SOL per token.
          </li>
          <li>
            Every message carries <code>source</code>, <code>transaction_type</code>, <code>signature</code>, <code>slot</code>, <code>block_time_ms</code>{' '}
            (block time in milliseconds), <code>instruction_path</code> and <code>program_id</code>. Each subject has a JSON Schema with every field’s type,
            unit and description.
          </li>
        </ul>
      </Section>

      <Section s={S.layouts}>
        <p>
          Event layouts grow. Pump.fun’s TradeEvent was 121 bytes in 2024 and early 2025, 217 bytes from mid-2025 (adding the fee recipient, fees and creator
          fee) and 350 bytes in 2026 (adding quote mints, volume tracking and cashback fields). Usually a newer layout only appends fields, so an older event is
          a prefix of the current IDL. The decoder’s event reader walks the IDL’s fields in order and stops cleanly at the end of the buffer: fields past the
          end are <strong>absent</strong> from the message, never zero or null. A value that cannot be of its type, such as a boolean byte above 1, also stops
          decoding, so a foreign layout is not misread. A test decodes every complete event in the recording with Anchor’s <code>BorshEventCoder</code> as well
          and requires identical values.
        </p>
        <p>
          Not every change is an append. In 2026 LaunchLab inserted <code>creator_fee</code> between <code>platform_fee</code> and <code>share_fee</code> and
          appended <code>exact_in</code>. Reading a 130-byte 2025 event as a prefix of that layout would put the share fee into the creator fee and lose the
          trade direction. The decoder therefore keeps an explicit legacy layout for LaunchLab’s 2025 TradeEvent, selected because it consumes the payload
          exactly, and balance checks in the tests confirm that reading.
        </p>
      </Section>

      <Section s={S.messageIds}>
        <p>
          One transaction can contain several trades, so the signature alone does not identify a message. The decoder gives each message an id made of the
          signature and the instruction’s path, <code>{'<signature>:<instruction path joined by .>'}</code>: <code>[2]</code> for the third top-level
          instruction, <code>[3, 0]</code> for the first inner instruction under the fourth. COMPLETE shares its buy’s path, so its id gets a{' '}
          <code>:COMPLETE</code> suffix. The id is published as the <code>Nats-Msg-Id</code> header, and the <code>TRADES</code> stream drops a second message
          with the same id within its duplicate window. That is what makes it safe for the ingest service to publish a transaction again after a crash. You can
          build the same key from the message body to de-duplicate on your side:
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
      </Section>

      <Section s={S.verification}>
        <p>
          Decoders are easy to get subtly wrong: a field read at the wrong offset still produces a plausible number. So Tradewind tests the decoder on real data
          and checks its output against the chain’s own accounting. The repository bundles byte-identical copies of real mainnet transactions for all four
          programs, with their provenance recorded, covering 2024, 2025 and 2026 layouts, routed trades, migrations, Token-2022 mints with transfer fees, a
          failed swap and transactions that must produce nothing.
        </p>
        <p>For these transactions the tests require exact integer agreement, for example:</p>
        <ul>
          <li>
            pump.fun: the trader’s token balance change equals the signed sum of <code>token_amount</code>; the bonding curve’s lamport change equals the signed
            sum of <code>sol_amount</code>; in 2025 events the fee recipient’s lamport change equals <code>fee</code>.
          </li>
          <li>
            LaunchLab: the change in <code>real_quote</code> equals <code>amount_in</code> minus the fees on a buy (as in the sample above); the base vault
            changes by the token amount; the trader’s base token change equals <code>token_amount</code>.
          </li>
          <li>Every message validates against its subject’s JSON Schema, which forbids unknown fields.</li>
        </ul>
        <p>
          The last rule has a useful consequence: when a program adds an event field, the schema test fails until the field is documented, so the schemas cannot
          silently fall behind the messages.
        </p>
      </Section>

      <Section s={S.apiProviders}>
        <p>There are three ways to get LetsBonk.fun data into a program, and they differ in how much you build and run yourself.</p>
        <p>
          <strong>1. Read the chain yourself from an RPC node.</strong> Subscribe to the LaunchLab program’s logs with Solana’s <code>logsSubscribe</code> over
          the node’s WebSocket, fetch each transaction with <code>getTransaction</code>, and decode it with the LaunchLab IDL. It costs only your RPC plan, and
          you control everything. You also own everything: reconnecting the WebSocket, fetching each transaction (one extra call per trade, which most RPC plans
          meter), matching instructions and events, keeping up with layout changes like the 2026 TradeEvent reordering described above, and telling LetsBonk.fun
          apart from the other platforms. The <Link to="/solana-websocket">Solana WebSocket guide</Link> covers the subscription side in depth.
        </p>
        <p>
          <strong>2. Stream raw transactions from a Geyser provider.</strong> Yellowstone gRPC, offered by several RPC providers, pushes every transaction that
          touches the program as it is processed, without the extra <code>getTransaction</code> call. It is the lowest-latency source of raw data, and it is
          what Tradewind’s own live ingest can read. You still decode the transactions yourself, and you run a gRPC client and its reconnection logic.
        </p>
        <p>
          <strong>3. Subscribe to a decoded stream.</strong> A hosted service such as Tradewind does the first two steps for you and sends named fields. The
          trade-off is a dependency on the provider. What to check before you choose one: which programs it decodes, whether it gives you raw integers exactly
          (not rounded floats), whether you can resume after a disconnect without gaps, how it authenticates, and how it charges.
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">what you handle</th>
                <th scope="col">RPC node yourself</th>
                <th scope="col">Geyser stream yourself</th>
                <th scope="col">Tradewind basic.bonk</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>Connection and reconnects</td>
                <td>you</td>
                <td>you</td>
                <td>client library or template</td>
              </tr>
              <tr>
                <td>Fetching each transaction</td>
                <td>you, one call per trade</td>
                <td>no</td>
                <td>no</td>
              </tr>
              <tr>
                <td>Decoding instructions and events</td>
                <td>you</td>
                <td>you</td>
                <td>no</td>
              </tr>
              <tr>
                <td>Layout changes of the program</td>
                <td>you</td>
                <td>you</td>
                <td>no</td>
              </tr>
              <tr>
                <td>LetsBonk.fun vs other platforms</td>
                <td>you</td>
                <td>you</td>
                <td>
                  <code>is_letsbonk</code>
                </td>
              </tr>
              <tr>
                <td>Resuming after a disconnect</td>
                <td>re-scan signatures</td>
                <td>depends on provider</td>
                <td>
                  <code>resume_after</code>, every plan
                </td>
              </tr>
              <tr>
                <td>Graduated tokens (Raydium CPMM)</td>
                <td>a second decoder</td>
                <td>a second decoder</td>
                <td>
                  <code>premium.raydium</code>
                </td>
              </tr>
            </tbody>
          </table>
        </div>
        <p>
          If you compare hosted providers, compare what they publish, not what they promise. Our comparison with the a well-known Pump.fun data provider,{' '}
          <Link to="/tradewind-vs-pumpportal">Tradewind vs PumpPortal</Link>, quotes its published fees with the date we read them and shows the arithmetic.
        </p>
      </Section>

      <Section s={S.pricingLimits}>
        <p>
          Tradewind charges a flat monthly price per plan, not per message, so a busy launch day costs the same as a quiet one. Prices and limits below are read
          from the same catalogue that the billing service charges and the servers enforce:
        </p>
        <PlanLimitsTable
          priceColumns={[
            { header: 'monthly', cell: (p) => (p.monthlyUsd === 0 ? 'free' : `$${p.monthlyUsd}`) },
            { header: 'billed yearly, per month', cell: (p) => (p.annualMonthlyUsd === 0 ? 'free' : `$${p.annualMonthlyUsd}`) },
          ]}
        />
        <p>
          <code>basic.bonk</code> is in every plan, so a LetsBonk.fun integration can run on {starter.name} at no cost. Trade messages never count against the
          request budget; control requests are authentication, subscribe, replay and unsubscribe. The other limits are the same on every plan:
        </p>
        <ul>
          <li>Credentials must arrive within 10 seconds of connecting (close 4408 otherwise).</li>
          <li>A frame from the client may be at most 16 KiB; a filter list at most 1,000 entries.</li>
          <li>
            At most 8 MiB may be queued for one client. A client that reads more slowly than the stream is closed with 4413 <code>slow_consumer</code> rather
            than left to fall further behind, and resumes from its last <code>seq</code>.
          </li>
          <li>
            A resume reaches 5 minutes back on every plan; on {pro.name}, the stream’s whole retention (24 hours by default), and <code>replay</code> starts
            from a time or a sequence, with up to 4 replays per connection.
          </li>
          <li>A subscribed connection that has had no message for 5 seconds gets a heartbeat.</li>
        </ul>
        <p>
          On chain, LetsBonk.fun trades also pay LaunchLab’s own fees, and the messages report them in lamports: in the July 2025 buy above,{' '}
          <code>protocol_fee</code> was 1,637,381 and <code>platform_fee</code> 6,549,522 on an <code>amount_in</code> of 654,952,192, that is 0.25 % and 1.00
          %. Those fees go to the protocol and the platform, not to Tradewind; a data feed has no part in them. Prices and yearly billing are on the{' '}
          <Link to="/pricing">pricing page</Link>.
        </p>
      </Section>

      <Section s={S.gettingStarted}>
        <p>Getting from nothing to a stream of LetsBonk.fun launches takes four steps.</p>
        <ol>
          <li>
            <strong>Sign in</strong> with Google. New accounts start on {starter.name}, which includes <code>basic.bonk</code>.
          </li>
          <li>
            <strong>Get your credentials</strong> from the dashboard: the WebSocket URL (<code>{SITE.wsUrl}</code> on a local development stack), your user JWT
            and your NKey seed, or all of them as a <code>.creds</code> file. Treat the seed like a password.
          </li>
          <li>
            <strong>Connect and subscribe.</strong> Answer the server’s challenge with <code>{`{"jwt","sig"}`}</code> (the nonce signed with your NKey) or{' '}
            <code>{`{"jwt","nkey"}`}</code>, then send <code>{`{"subject":"basic.bonk"}`}</code>.
          </li>
          <li>
            <strong>Read the messages</strong>: control messages have a <code>type</code>; trade messages have none (<code>basic.bonk</code>) or{' '}
            <code>{'"type":"trade"'}</code> (<code>basic.pumpfun</code>).
          </li>
        </ol>
        <p>
          The Python starter template does all of this
          {python ? (
            <>
              {' '}
              (<a href={templateFileUrl(python.files.find((f) => f.endsWith('client.py')) ?? python.files[0]!)}>client.py</a>)
            </>
          ) : null}
          . It signs the challenge with PyNaCl when installed, reconnects with backoff from 1 second doubling to 30 seconds, resumes every subject by{' '}
          <code>seq</code> and prints one trade per line as the exact JSON the server sent, so you can pipe it into <code>jq</code>:
        </p>
        <Code
          label="terminal"
          lang="sh"
          code={`
pip install -r requirements.txt
TRADEWIND_CREDS=./tradewind.creds python3 client.py basic.bonk \\
  | jq -c 'select(.is_letsbonk and .transaction_type == "CREATE")
           | {symbol: .base_mint_param.symbol, mint: .base_mint, creator, created: .block_time_ms}'
`}
        />
        <p>
          If you would rather have the server drop what you do not need, add a filter to the subscription.{' '}
          <code>{`{"subject":"basic.bonk","filter":{"types":["CREATE"]}}`}</code> sends only launches, <code>{`"types":["MIGRATE"]`}</code> only graduations,{' '}
          <code>mints</code> follows given tokens and <code>accounts</code> follows a wallet, a creator or a pool. There is no server-side filter on the
          platform, so keep <code>is_letsbonk</code> in your own code, as above. In your own client, the whole loop is short:
        </p>
        <Code
          label="letsbonk-launches.py"
          lang="python"
          code={`
# pip install websockets  ·  TRADEWIND_JWT=… TRADEWIND_NKEY_SEED=… python3 letsbonk-launches.py
import asyncio, json, os
from datetime import datetime, timezone
import websockets

URL = os.environ.get("TRADEWIND_WS_URL", "${SITE.wsUrl}")

async def main():
    async with websockets.connect(URL) as ws:
        async for raw in ws:
            msg = json.loads(raw)
            kind = msg.get("type")
            if kind == "challenge":  # first test: send the seed; the template signs the nonce instead
                await ws.send(json.dumps({"jwt": os.environ["TRADEWIND_JWT"], "nkey": os.environ["TRADEWIND_NKEY_SEED"]}))
            elif kind == "authenticated":
                await ws.send(json.dumps({"subject": "basic.bonk", "filter": {"types": ["CREATE"]}}))
            elif kind == "error":
                print("error", msg["code"], msg["message"])
            elif kind in (None, "trade") and msg.get("is_letsbonk"):  # a trade: no "type", or "trade"
                p = msg["base_mint_param"]
                supply = int(msg["curve_param"]["data"]["supply"]) / 10 ** p["decimals"]
                created = datetime.fromtimestamp(msg["block_time_ms"] / 1000, timezone.utc) if msg["block_time_ms"] else None
                print(f'{p["symbol"]:<10} {msg["base_mint"]} supply {supply:,.0f} by {msg["creator"]} at {created}')

asyncio.run(main())
`}
        />
        <p>
          This minimal version does not reconnect; the template does, and so does the <Link to="/pump-fun-api">Pump.fun API guide</Link>’s reconnect loop, which
          works unchanged for <code>basic.bonk</code>. On native NATS the same feed is one command,{' '}
          <code>nats --server {SITE.natsUrl} --creds ./tradewind.creds sub basic.bonk</code>, and one token’s trades are on{' '}
          <code>basic.bonk.mint.&lt;mint&gt;</code>. The <Link to="/how-it-works">how it works</Link> page shows the three steps with the protocol sample, and
          the <Link to="/dashboard/docs">API documentation</Link> lists every message and limit.
        </p>
      </Section>

      <Section s={S.raydium}>
        <p>
          <code>premium.raydium</code> carries Raydium CPMM: SWAP, CREATE_POOL, DEPOSIT and WITHDRAW. CPMM pools are not only graduated launchpad tokens; any
          pair can have one, including token/token pools. A SWAP names the <code>pool_state</code>, the <code>payer</code>, <code>input_mint</code> and{' '}
          <code>output_mint</code>, and states:
        </p>
        <ul>
          <li>
            <code>amount_in</code>, what left the payer’s input account, and <code>amount_out</code>, what reached the payer’s output account. With Token-2022
            transfer fees these differ from what the vaults moved (<code>input_amount</code>, <code>output_amount</code>) by exactly the transfer fees, which
            are reported too.
          </li>
          <li>
            The instruction’s limit, <code>minimum_amount_out</code> or <code>max_amount_in</code> (both always present, the one the instruction lacks{' '}
            <code>null</code>), and <code>base_input</code> to tell the two swap instructions apart.
          </li>
          <li>
            With exactly one WSOL side: <code>mint</code> (the other token), <code>side</code> (<code>buy</code> = SOL in), <code>sol_amount_ui</code>,{' '}
            <code>token_amount_ui</code> and <code>price_sol</code>. Token/token pools have no SOL price, so these are absent.
          </li>
        </ul>
        <Code
          label="premium.raydium SWAP (excerpt)"
          lang="json"
          code={`
{
  "source": "raydium_cpmm", "transaction_type": "SWAP",
  "signature": "2bhr1FWqeL28zH1BJR1h3PxkVorh5GD3koPUgzKMKFtxUKK5k3R3UraU8YRoB5yxKDi5AZafp3Xf74AXTf9LDqWc",
  "instruction_path": [3, 0], "schema_version": 2,
  "pool_state": "8THC7UQN8zPXRL61o75fP4gcwRyB5W3o74yHyqarkqZ9",
  "input_mint": "7atgF8KQo4wJrD5ATGX7t1V2zVvykPJbFfNeVf1icFv1",
  "output_mint": "So11111111111111111111111111111111111111112",
  "amount_in": "358800", "amount_out": "15742", "minimum_amount_out": "0", "max_amount_in": null,
  "input_amount": "344448", "input_transfer_fee": "14352", "base_input": true,
  "mint": "7atgF8KQo4wJrD5ATGX7t1V2zVvykPJbFfNeVf1icFv1", "side": "sell",
  "sol_amount_ui": 0.000015742, "token_amount_ui": 3588, "price_sol": 4.581939214432266e-9
}
`}
        />
        <p>
          This swap was routed through another program, hence the two-level <code>instruction_path</code>, and its input token has a Token-2022 transfer fee:
          358,800 units left the payer, 14,352 were withheld, and the vault received 344,448. CPMM emits its events only as log lines, so a swap whose log was
          truncated produces no message.
        </p>
      </Section>

      <Section s={S.building}>
        <p>Three patterns cover most of what people build on a launchpad feed, and each needs only the fields described above.</p>
        <p>
          <strong>A launch monitor</strong> is the getting-started program with a decision at the end: for each CREATE on LetsBonk.fun, look at the name, symbol
          and metadata URI, the supply and how much of it the curve sells, whether tokens are locked in vesting (<code>vesting_param.total_locked_amount</code>
          ), and whether the creator bought in the same transaction, which arrives as the BUY right after it.
        </p>
        <p>
          <strong>A creator tracker</strong> remembers who launches. Count CREATE messages per <code>creator</code>; a wallet that launches many tokens in a
          short time is worth knowing about before you buy any of them. To follow a set of wallets afterwards, change the subscription’s filter in place as the
          set grows; the server applies the new filter to the next message, with no gap and no duplicate:
        </p>
        <Code
          label="creators.mjs"
          lang="js"
          code={`
// ws: an authenticated Tradewind WebSocket; onBonk(msg) is called for every basic.bonk trade message.
const launches = new Map(); // creator → number of launches seen
const watched = new Set();

export function onBonk(ws, msg) {
  if (msg.transaction_type !== 'CREATE' || !msg.is_letsbonk) return;
  const n = (launches.get(msg.creator) ?? 0) + 1;
  launches.set(msg.creator, n);
  if (n === 3 && !watched.has(msg.creator)) {
    watched.add(msg.creator);
    // Same subject again with a new filter: replaced in place, up to 1,000 accounts per list.
    ws.send(JSON.stringify({ subject: 'basic.bonk', filter: { accounts: [...watched] } }));
  }
}
`}
        />
        <p>
          <strong>A graduation watcher</strong> follows how far each curve has come. Every BUY and SELL carries <code>real_base_after</code>, the base tokens
          the curve has sold after the trade, and <code>total_base_sell</code>, the tokens it sells in total, so the progress of a curve is their ratio, with no
          chain reads. In the July 2025 buy above, 162,478,786,778,369 of 793,100,000,000,000 base units were sold: the curve was 20.5 % of the way.{' '}
          <code>pool_status</code> says <code>Fund</code> while the curve is raising; the MIGRATE message then names the Raydium pool where trading continues.
          Compute the ratio with <code>BigInt</code>, since both values exceed what a JSON number holds exactly:
        </p>
        <Code
          label="progress.mjs"
          lang="js"
          code={`
// Share of the curve sold, in basis points (10000 = complete), from one BUY or SELL message.
export function curveProgressBps(msg) {
  return Number((BigInt(msg.real_base_after) * 10000n) / BigInt(msg.total_base_sell));
}
// For the July 2025 buy: 162478786778369n * 10000n / 793100000000000n → 2048 (20.48 %)
`}
        />
        <p>
          All three run on the free plan. Add <code>premium.raydium</code> on {plus.name} to keep following a token once it has migrated to a CPMM pool, as
          described in the previous section.
        </p>
      </Section>

      <Section s={S.conclusion}>
        <p>
          A LetsBonk.fun API is, underneath, a Raydium LaunchLab decoder with a platform check. Tradewind gives you both on <code>basic.bonk</code>: CREATE
          messages with the token’s symbol, creation time, supply and creator; every buy and sell with exact raw amounts, reserves, fees and a spot price
          computed as Raydium’s own SDK computes it; MIGRATE messages that tell you where a graduated token went; and <code>is_letsbonk</code> to keep
          LetsBonk.fun apart from the other platforms. It is in every plan, the limits are published, and the decoder is checked against the chain’s own
          balances.
        </p>
        <p>
          Start with the free {starter.name} plan and the Python template; add {plus.name} when you need the Raydium CPMM trades after graduation, and{' '}
          {pro.name} for more connections and replay of history. If you are weighing providers, read{' '}
          <Link to="/tradewind-vs-pumpportal">Tradewind vs PumpPortal</Link> next.
        </p>
      </Section>
    </>
  );
}
