/** Article: What a decoded Pump.fun or LetsBonk.fun trade contains (Engineering). */
import { Link } from 'react-router';
import { Code, Note, Section, defineSections, sectionList } from '../../components/blog/article';

const S = defineSections({
  pipeline: 'From a transaction to trade messages',
  instructions: 'Instructions: IDL discriminators and Anchor’s coder',
  events: 'Events: two ways to find the same bytes',
  layouts: 'Old and new event layouts',
  conventions: 'Field conventions',
  pumpfun: 'Pump.fun messages',
  letsbonk: 'LetsBonk.fun messages',
  messageIds: 'Message ids and de-duplication',
  verification: 'How the decoder is checked against the chain',
  performance: 'Measuring the decoder',
});

export const sections = sectionList(S);

export default function DecodingPumpFunAndLetsbonkTrades() {
  return (
    <>
      <p>
        A Solana transaction does not say “Alice bought 2.8 million tokens for 0.13 SOL”. It says that some program was
        invoked with some bytes and some accounts, that other programs were invoked from inside it, and that some log
        lines were written. Turning that into a trade takes the program’s interface description, a careful reading of
        the event bytes, and a number of decisions about units and missing values. This article explains how
        Tradewind’s decoder makes those decisions for Pump.fun and LetsBonk.fun, what every field in the resulting
        message means, and how the output is checked against real mainnet transactions.
      </p>

      <Section s={S.pipeline}>
        <p>
          The decoder takes one transaction as returned by Solana’s <code>getTransaction</code>, in any of the three
          encodings (<code>json</code>, <code>jsonParsed</code> or <code>base64</code>), and returns zero or more trade
          messages. Four programs are recognised, each mapped to one subject:
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr><th scope="col">program</th><th scope="col">address</th><th scope="col">subject</th></tr>
            </thead>
            <tbody>
              <tr><td>Pump.fun</td><td><code>6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P</code></td><td><code>basic.pumpfun</code></td></tr>
              <tr><td>Raydium LaunchLab (LetsBonk.fun)</td><td><code>LanMV9sAd7wArD4vJFi2qDdfnVhFxYSUg6eADduJ3uj</code></td><td><code>basic.bonk</code></td></tr>
              <tr><td>PumpSwap</td><td><code>pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA</code></td><td><code>premium.pumpswap</code></td></tr>
              <tr><td>Raydium CPMM</td><td><code>CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C</code></td><td><code>premium.raydium</code></td></tr>
            </tbody>
          </table>
        </div>
        <p>
          The pipeline has five steps. It normalises the transaction: the full account list including address lookup
          tables, and every instruction, top-level or inner, with its position. It finds the instructions of the four
          programs. It finds their events. It decodes those events. Finally it builds messages in execution order
          across all four programs, so a pump.fun migration that creates a PumpSwap pool, followed by a buy in the new
          pool, comes out as MIGRATE, CREATE_POOL, BUY. A failed transaction (<code>meta.err</code> set) produces
          nothing: it moved no funds.
        </p>
      </Section>

      <Section s={S.instructions}>
        <p>
          Every Anchor program publishes an IDL, a JSON description of its instructions, accounts, arguments and events.
          The decoder uses the official ones: pump.fun’s and PumpSwap’s from the <code>@pump-fun/pump-sdk</code>{' '}
          package, LaunchLab’s and Raydium CPMM’s from Raydium’s published IDLs, with their sources recorded next to the
          copies. An instruction’s data begins with an 8-byte discriminator that names the instruction, so matching an
          instruction is a lookup. The accounts are then named by the IDL’s account list (<code>bonding_curve</code>,{' '}
          <code>pool_state</code>, <code>platform_config</code>…) and the arguments are decoded with Anchor’s{' '}
          <code>BorshInstructionCoder</code>.
        </p>
        <p>
          Programs change. An older pump.fun <code>buy</code> carried 24 bytes of arguments where today’s IDL also
          expects a <code>track_volume</code> flag. For such cases a tolerant reader decodes the arguments that are
          present rather than rejecting the instruction. Instructions a program has gained since its installed IDL
          are counted as unknown and skipped, never guessed at.
        </p>
      </Section>

      <Section s={S.events}>
        <p>
          Instruction arguments state what the trader asked for: a maximum price, a minimum output. What actually
          happened is in the program’s <strong>events</strong>, and trade amounts exist only there. Anchor programs emit
          events in one of two ways, and the decoder reads both:
        </p>
        <ul>
          <li>
            <strong>Log lines</strong> of the form <code>Program data: &lt;base64&gt;</code>. To know which instruction
            wrote a line, the decoder replays the <code>Program … invoke [n]</code> and <code>success</code> lines: the
            k-th invoke is the k-th instruction in execution order. Attribution stops at <code>Log truncated</code>.
          </li>
          <li>
            <strong>Self-invocations</strong> (Anchor’s <code>emit_cpi!</code>): the program calls itself with a tag,
            the event’s discriminator and the event bytes as instruction data. The emitting instruction is the one a
            stack level above.
          </li>
        </ul>
        <p>
          Both carry the same bytes. Log lines are read first, because they are base64, while inner instruction data in
          a <code>getTransaction</code> result is base58, whose decoding is much more expensive. When logs are
          truncated or absent, and for programs that emit only through self-invocation, the decoder falls back to the
          inner instructions. A trade instruction for which neither source yields an event produces no message, since
          the amounts would be unknown.
        </p>
      </Section>

      <Section s={S.layouts}>
        <p>
          Event layouts grow. Pump.fun’s TradeEvent was 121 bytes in 2024 and early 2025, 217 bytes from mid-2025
          (adding the fee recipient, fees and creator fee) and 350 bytes in 2026 (adding quote mints, volume tracking
          and cashback fields). Usually a newer layout only appends fields, so an older event is a prefix of the current
          IDL. The decoder’s event reader walks the IDL’s fields in order and stops cleanly at the end of the buffer:
          fields past the end are <strong>absent</strong> from the message, never zero or null. A value that cannot be
          of its type, such as a boolean byte above 1, also stops decoding, so a foreign layout is not misread. A test
          decodes every complete event in the recording with Anchor’s <code>BorshEventCoder</code> as well and requires
          identical values.
        </p>
        <p>
          Not every change is an append. In 2026 LaunchLab inserted <code>creator_fee</code> between{' '}
          <code>platform_fee</code> and <code>share_fee</code> and appended <code>exact_in</code>. Reading a 130-byte
          2025 event as a prefix of that layout would put the share fee into the creator fee and lose the trade
          direction. The decoder therefore keeps an explicit legacy layout for LaunchLab’s 2025 TradeEvent, selected
          because it consumes the payload exactly, and balance checks in the tests confirm that reading.
        </p>
      </Section>

      <Section s={S.conventions}>
        <p>The same conventions hold on all four subjects:</p>
        <ul>
          <li>Field names are the IDL’s, in snake_case: <code>virtual_sol_reserves</code>, <code>real_quote_after</code>.</li>
          <li>
            u64, i64 and u128 values are <strong>decimal strings</strong>, so no precision is lost in JSON. Small
            integers are numbers. Public keys are base58 strings.
          </li>
          <li>Enums are variant names (<code>"Buy"</code>, <code>"Fund"</code>).</li>
          <li>
            Derived human-unit values say their unit in the name: <code>sol_amount_ui</code> in SOL,{' '}
            <code>token_amount_ui</code> in whole tokens, <code>price_sol</code> in SOL per token.
          </li>
          <li>
            Every message carries <code>source</code>, <code>transaction_type</code>, <code>signature</code>,{' '}
            <code>slot</code>, <code>block_time_ms</code> (block time in milliseconds), <code>instruction_path</code> and{' '}
            <code>program_id</code>. Each subject has a JSON Schema with every field’s type, unit and description.
          </li>
        </ul>
      </Section>

      <Section s={S.pumpfun}>
        <p>
          On <code>basic.pumpfun</code>, <code>transaction_type</code> is CREATE, BUY, SELL, COMPLETE or MIGRATE. Every
          buy instruction variant becomes BUY and every sell variant SELL, with <code>side</code> taken from the event’s{' '}
          <code>is_buy</code>. A trade message holds every TradeEvent field present in the bytes, plus the{' '}
          <code>bonding_curve</code> account and derived values. For the real July 2025 buy used in the{' '}
          <Link to="/blog/stream-pump-fun-trades-websocket">WebSocket tutorial</Link>, the raw and derived fields relate
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
          <code>sol_amount</code> is what entered (or, for a sell, left) the bonding curve, excluding fees;{' '}
          <code>fee</code> and <code>creator_fee</code> are the protocol and creator fees in lamports, 95 and 5 basis
          points here. On 2026 curves quoted in another mint, such as USDC, <code>sol_amount</code> is 0,{' '}
          <code>price_sol</code> is absent, and <code>price_quote</code> and <code>quote_amount_ui</code> take their
          place. <code>name</code> and <code>symbol</code> are added to a trade when the token was created in the same
          transaction.
        </p>
        <p>
          The buy that fills the bonding curve is followed by a <strong>COMPLETE</strong> message with the same{' '}
          <code>instruction_path</code>. <strong>MIGRATE</strong> reports the curve’s liquidity moving to a PumpSwap pool:
          the <code>pool</code>, <code>mint_amount</code>, <code>sol_amount</code> and <code>pool_migration_fee</code>. A
          migrate instruction that moved nothing (the curve was already migrated) produces no message.
        </p>
      </Section>

      <Section s={S.letsbonk}>
        <p>
          LetsBonk.fun runs on Raydium LaunchLab, and LaunchLab serves several launch platforms, each identified by its
          own <code>PlatformConfig</code> account. All LaunchLab activity goes to <code>basic.bonk</code>; every message
          carries <code>platform_config</code> and a boolean <code>is_letsbonk</code>, true when the platform config is
          LetsBonk.fun’s (<code>FfYek5vEz23cMkWsdJwG2oa6EphsvXSHrGpdALN4g6W1</code> by default). Filter on it if you
          only want LetsBonk.fun tokens.
        </p>
        <p>
          BUY and SELL messages carry the instruction accounts (<code>pool_state</code>, <code>base_mint</code>,{' '}
          <code>quote_mint</code>, the vaults, the trader’s token accounts) and every TradeEvent field:{' '}
          <code>amount_in</code> and <code>amount_out</code>, the virtual and real reserves before and after, the
          protocol, platform and share fees, <code>trade_direction</code> and <code>pool_status</code>. To make the two
          launchpads comparable, <code>sol_amount</code> is the quote side (amount in on a buy, amount out on a sell)
          and <code>token_amount</code> the base side. The spot price follows Raydium’s SDK:
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
          Pools quoted in a mint other than WSOL exist too; there <code>price_quote</code> and{' '}
          <code>quote_amount_ui</code> replace <code>price_sol</code> and <code>sol_amount_ui</code>. A MIGRATE message
          says where the liquidity went (<code>migrate_to</code>: <code>raydium_amm_v4</code> or{' '}
          <code>raydium_cpmm</code>) and the new <code>amm_pool</code>.
        </p>
      </Section>

      <Section s={S.messageIds}>
        <p>
          One transaction can contain several trades, so the signature alone does not identify a message. The decoder
          gives each message an id made of the signature and the instruction’s path,{' '}
          <code>{'<signature>:<instruction path joined by .>'}</code>: <code>[2]</code> for the third top-level
          instruction, <code>[3, 0]</code> for the first inner instruction under the fourth. COMPLETE shares its buy’s
          path, so its id gets a <code>:COMPLETE</code> suffix. The id is published as the <code>Nats-Msg-Id</code>{' '}
          header, and the <code>TRADES</code> stream drops a second message with the same id within its duplicate
          window. That is what makes it safe for the ingest service to publish a transaction again after a crash. You
          can build the same key from the message body to de-duplicate on your side:
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
          Decoders are easy to get subtly wrong: a field read at the wrong offset still produces a plausible number. So
          Tradewind tests the decoder on real data and checks its output against the chain’s own accounting. The
          repository bundles byte-identical copies of real mainnet transactions for all four programs, with their
          provenance recorded, covering 2024, 2025 and 2026 layouts, routed trades, migrations, Token-2022 mints with
          transfer fees, a failed swap and transactions that must produce nothing.
        </p>
        <p>For these transactions the tests require exact integer agreement, for example:</p>
        <ul>
          <li>
            pump.fun: the trader’s token balance change equals the signed sum of <code>token_amount</code>; the bonding
            curve’s lamport change equals the signed sum of <code>sol_amount</code>; in 2025 events the fee recipient’s
            lamport change equals <code>fee</code>.
          </li>
          <li>
            LaunchLab: the change in <code>real_quote</code> equals <code>amount_in</code> minus the fees on a buy (as in
            the sample above); the base vault changes by the token amount; the trader’s base token change equals{' '}
            <code>token_amount</code>.
          </li>
          <li>Every message validates against its subject’s JSON Schema, which forbids unknown fields.</li>
        </ul>
        <p>
          The last rule has a useful consequence: when a program adds an event field, the schema test fails until the
          field is documented, so the schemas cannot silently fall behind the messages.
        </p>
      </Section>

      <Section s={S.performance}>
        <p>
          The project ships a benchmark for the decoder’s hot path: <code>npm run bench -- decode</code> runs raw{' '}
          <code>getTransaction</code> text through the prefilter, parsing, normalisation, decoding and serialisation on
          one core, over the bundled transactions, and the prefilter alone over real transactions that touch none of
          the four programs. It reports its figures as ratios against a bare <code>JSON.parse</code> of the same text
          measured in the same run, because absolute numbers depend on the machine.
        </p>
        <Note title="Why no throughput number here">
          <p>
            The decoding documentation does not record a dated benchmark result, and we only publish figures the project
            has measured and dated. Run the benchmark on your own hardware if you need a number. What the design does
            say: log lines are preferred to base58 inner-instruction data because the latter was the decoder’s largest
            cost, and events are read with a purpose-built reader whose output a test compares with Anchor’s.
          </p>
        </Note>
        <p>
          To see the messages the{' '}
          <Link to="/blog/pumpswap-raydium-cpmm-premium-subjects">premium subjects</Link> carry after a token leaves
          its bonding curve, read the next article; for the complete field tables, see the{' '}
          <Link to="/dashboard/docs">API documentation</Link>.
        </p>
      </Section>
    </>
  );
}
