/** Article: PumpSwap and Raydium CPMM: following a token after the bonding curve (Guides). */
import { Link } from 'react-router';
import { PLANS, PLAN_IDS, cheapestPlanFor } from '@tradewind/lib/plans';
import { Code, Note, Section, defineSections, sectionList } from '../../components/blog/article';

const S = defineSections({
  graduation: 'What graduation means',
  onBasic: 'What the launchpad subjects show of a graduation',
  pumpswap: 'premium.pumpswap: PumpSwap pools',
  raydium: 'premium.raydium: Raydium CPMM pools',
  liquidity: 'Pool creation and liquidity changes',
  following: 'Following one token across subjects',
  plans: 'Which plans include the premium subjects',
  upgrading: 'Upgrading without reconnecting',
});

export const sections = sectionList(S);

const { starter, plus, pro } = PLANS;
const premiumPlan = cheapestPlanFor('premium.pumpswap') ?? plus;

export default function PumpswapRaydiumCpmmPremiumSubjects() {
  return (
    <>
      <p>
        A token launched on Pump.fun or LetsBonk.fun starts life on a bonding curve: a program that sells the token at a
        price set by a formula. When enough has been bought, the curve is complete and the liquidity moves to an
        automated market maker, where the token keeps trading. For Pump.fun that market is PumpSwap; for LetsBonk.fun
        (Raydium LaunchLab) it is a Raydium pool. Tradewind’s launchpad subjects end at that point. The premium subjects,{' '}
        <code>premium.pumpswap</code> and <code>premium.raydium</code>, carry what happens next. This guide explains
        graduation, what the premium messages contain, which plans include them, and how to move a running client onto
        them.
      </p>

      <Section s={S.graduation}>
        <p>
          A bonding curve holds a fixed amount of tokens to sell. Each buy moves the curve’s reserves and raises the
          price. The buy that takes the last of the curve’s sellable supply completes it, and from then on the curve no
          longer trades. The remaining liquidity, tokens and SOL, is then deposited into a new pool on an AMM: a
          constant-product market where anyone can trade against the pool and anyone can add liquidity.
        </p>
        <p>
          Graduation matters to anyone watching new tokens: the move itself is an event some strategies react to, and
          every trade after it happens in the pool. If you only follow the launchpad subjects, a graduated token simply
          goes quiet, even though it may still be trading, now on an AMM.
        </p>
      </Section>

      <Section s={S.onBasic}>
        <p>
          The launchpad subjects report the graduation itself, so you can see it coming even on {starter.name}. On{' '}
          <code>basic.pumpfun</code>:
        </p>
        <ul>
          <li>
            <strong>COMPLETE</strong> follows the BUY that filled the bonding curve, with the same{' '}
            <code>instruction_path</code>, and names the <code>mint</code>, <code>bonding_curve</code> and{' '}
            <code>user</code>.
          </li>
          <li>
            <strong>MIGRATE</strong> reports the liquidity moving to PumpSwap: the new <code>pool</code>,{' '}
            <code>mint_amount</code> (tokens moved), <code>sol_amount</code> and <code>pool_migration_fee</code>. The
            PumpSwap <code>create_pool</code> that the migration calls follows as a <code>premium.pumpswap</code>{' '}
            CREATE_POOL message.
          </li>
        </ul>
        <p>
          On <code>basic.bonk</code>, a <strong>MIGRATE</strong> message carries <code>migrate_to</code>, either{' '}
          <code>raydium_cpmm</code> or <code>raydium_amm_v4</code>, and the new pool in <code>amm_pool</code>, with the
          base and quote amounts that left the curve’s vaults. Be aware of one gap: Tradewind decodes Raydium CPMM, not
          Raydium’s older AMM v4. A LaunchLab token that migrates to AMM v4 is announced on <code>basic.bonk</code>, but
          its later trades are not on any Tradewind subject.
        </p>
      </Section>

      <Section s={S.pumpswap}>
        <p>
          <code>premium.pumpswap</code> carries PumpSwap’s BUY, SELL, CREATE_POOL, DEPOSIT and WITHDRAW. Every message
          names the <code>pool</code>, its <code>base_mint</code> (the token, repeated as <code>mint</code> so it matches{' '}
          <code>basic.pumpfun</code>), its <code>quote_mint</code> (WSOL for SOL pools) and the pool’s vaults. Trades add
          the event’s amounts and fees, and derived values:
        </p>
        <ul>
          <li>
            <code>base_amount_out</code> (buy) or <code>base_amount_in</code> (sell), the tokens traded, and{' '}
            <code>user_quote_amount</code>, the SOL the trader paid (buy, fees included) or received (sell).
          </li>
          <li>
            <code>lp_fee</code>, <code>protocol_fee</code> and <code>coin_creator_fee</code> with their basis points.
          </li>
          <li>
            <code>pool_base_token_reserves</code> and <code>pool_quote_token_reserves</code>, the vault balances{' '}
            <strong>before</strong> the trade, and the derived <code>pool_base_token_reserves_after</code> and{' '}
            <code>pool_quote_token_reserves_after</code>.
          </li>
          <li>
            <code>price_sol</code>, the pool’s constant-product spot price after the trade, including the pool’s virtual
            quote reserves where the event carries them; <code>sol_amount_ui</code> and <code>token_amount_ui</code>.
          </li>
        </ul>
        <p>A real PumpSwap buy from the project’s recording of mainnet transactions (selected fields):</p>
        <Code
          label="premium.pumpswap BUY (excerpt)"
          lang="json"
          code={`
{
  "source": "pumpswap", "transaction_type": "BUY", "side": "buy",
  "signature": "59GXCxvQmz3KT7H4taZrjHmU2XjxWZ2hws7jtSSDoVjceD4MyA3nTCDLCnZ6hBX9qVakhzshT7B2kbMsV21DU1yZ",
  "instruction_path": [4], "timestamp": "1749119986",
  "pool": "Ef7wUrbarRXHNMMgBs8cstSkzRttnstjMsniaq7zMp6j",
  "mint": "npB9cxTzwUiGt7jk2dXZa52xZve8SgVD6Et9Bpipump",
  "quote_mint": "So11111111111111111111111111111111111111112",
  "base_amount_out": "1806759473", "user_quote_amount": "458092929",
  "lp_fee": "913446", "protocol_fee": "228362", "coin_creator_fee": "228362",
  "pool_base_token_reserves": "11366011985444", "pool_quote_token_reserves": "2872707314402",
  "pool_base_token_reserves_after": "11364205225971", "pool_quote_token_reserves_after": "2873164950607",
  "token_amount_ui": 1806.759473, "sol_amount_ui": 0.458092929, "price_sol": 0.00025282585921986516
}
`}
        />
        <p>
          PumpSwap also has 2026 instruction variants (<code>buy_v2</code>, <code>sell_v2</code> and others) that its
          published IDL does not describe yet. Those are counted as unknown and not published, rather than decoded by
          guesswork; the decoding documentation lists this limit.
        </p>
      </Section>

      <Section s={S.raydium}>
        <p>
          <code>premium.raydium</code> carries Raydium CPMM: SWAP, CREATE_POOL, DEPOSIT and WITHDRAW. CPMM pools are not
          only graduated launchpad tokens; any pair can have one, including token/token pools. A SWAP names the{' '}
          <code>pool_state</code>, the <code>payer</code>, <code>input_mint</code> and <code>output_mint</code>, and
          states:
        </p>
        <ul>
          <li>
            <code>amount_in</code>, what left the payer’s input account, and <code>amount_out</code>, what reached the
            payer’s output account. With Token-2022 transfer fees these differ from what the vaults moved (
            <code>input_amount</code>, <code>output_amount</code>) by exactly the transfer fees, which are reported too.
          </li>
          <li>
            The instruction’s limit, <code>minimum_amount_out</code> or <code>max_amount_in</code>, and{' '}
            <code>base_input</code> to tell the two swap instructions apart.
          </li>
          <li>
            With exactly one WSOL side: <code>mint</code> (the other token), <code>side</code> (<code>buy</code> = SOL
            in), <code>sol_amount_ui</code>, <code>token_amount_ui</code> and <code>price_sol</code>. Token/token pools
            have no SOL price, so these are absent.
          </li>
        </ul>
        <Code
          label="premium.raydium SWAP (excerpt)"
          lang="json"
          code={`
{
  "source": "raydium_cpmm", "transaction_type": "SWAP", "side": "sell",
  "signature": "2bhr1FWqeL28zH1BJR1h3PxkVorh5GD3koPUgzKMKFtxUKK5k3R3UraU8YRoB5yxKDi5AZafp3Xf74AXTf9LDqWc",
  "instruction_path": [3, 0],
  "pool_state": "8THC7UQN8zPXRL61o75fP4gcwRyB5W3o74yHyqarkqZ9",
  "input_mint": "7atgF8KQo4wJrD5ATGX7t1V2zVvykPJbFfNeVf1icFv1",
  "output_mint": "So11111111111111111111111111111111111111112",
  "amount_in": "358800", "amount_out": "15742", "minimum_amount_out": "0",
  "input_amount": "344448", "input_transfer_fee": "14352", "base_input": true,
  "mint": "7atgF8KQo4wJrD5ATGX7t1V2zVvykPJbFfNeVf1icFv1",
  "sol_amount_ui": 0.000015742, "token_amount_ui": 3588, "price_sol": 4.581939214432266e-9
}
`}
        />
        <p>
          This swap was routed through another program, hence the two-level <code>instruction_path</code>, and its
          input token has a Token-2022 transfer fee: 358,800 units left the payer, 14,352 were withheld, and the vault
          received 344,448. CPMM emits its events only as log lines, so a swap whose log was truncated produces no
          message.
        </p>
      </Section>

      <Section s={S.liquidity}>
        <p>
          Trades are not the only thing that moves a pool’s price. Both premium subjects also report the events that
          change a pool’s liquidity, with the same field conventions as trades:
        </p>
        <ul>
          <li>
            <strong>CREATE_POOL</strong> is a pool’s first message. On PumpSwap it carries the CreatePoolEvent: the
            creator, the LP mint, the base and quote amounts deposited and the LP tokens minted, so the initial price is
            known before the first trade. On Raydium CPMM it carries the pool’s two mints, their vaults, the creator’s
            initial amounts and <code>open_time</code>, the moment swaps open; with one WSOL side it also states the
            initial <code>price_sol</code>.
          </li>
          <li>
            <strong>DEPOSIT</strong> and <strong>WITHDRAW</strong> report liquidity providers adding or removing both
            sides of a pool and the LP tokens minted or burned. A large withdrawal thins a pool, so the same trade size
            moves the price further afterwards; if your strategy sizes orders from pool depth, these messages matter as
            much as the trades.
          </li>
        </ul>
        <p>
          None of these messages has a <code>side</code>, so a consumer that only wants trades can filter on{' '}
          <code>transaction_type</code>: BUY and SELL on PumpSwap, SWAP on Raydium CPMM. Reserve fields let you keep a
          pool’s state without reading the chain: on PumpSwap every message gives the vault balances before and after
          the instruction, and on Raydium CPMM the swap event gives the reserves the curve priced with, from which{' '}
          <code>price_sol</code> is computed.
        </p>
      </Section>

      <Section s={S.following}>
        <p>
          To follow a Pump.fun token through graduation, watch <code>basic.pumpfun</code> for its MIGRATE, remember the
          pool, and pick up that pool on <code>premium.pumpswap</code>. Both subjects use <code>mint</code> for the
          token, so a filter on the mint alone also works across the two.
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
          For LetsBonk.fun, the same idea applies with <code>basic.bonk</code>’s MIGRATE: when <code>migrate_to</code>{' '}
          is <code>raydium_cpmm</code>, its <code>amm_pool</code> is the <code>pool_state</code> you will see on{' '}
          <code>premium.raydium</code>.
        </p>
      </Section>

      <Section s={S.plans}>
        <p>
          Both premium subjects are included from the {premiumPlan.name} plan up. What each plan includes, read from
          the same catalogue that enforces it:
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">plan</th>
                <th scope="col">price</th>
                <th scope="col">premium subjects</th>
                <th scope="col">connections per transport</th>
                <th scope="col">replay</th>
              </tr>
            </thead>
            <tbody>
              {PLAN_IDS.map((id) => {
                const p = PLANS[id];
                const premium = p.subjects.filter((s) => s.startsWith('premium.'));
                return (
                  <tr key={id}>
                    <th scope="row">{p.name}</th>
                    <td>{p.monthlyUsd === 0 ? 'free' : `$${p.monthlyUsd} a month`}</td>
                    <td>{premium.length > 0 ? premium.join(', ') : '—'}</td>
                    <td>{p.connections}</td>
                    <td>{p.replay ? 'yes' : '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <p>
          Choose {plus.name} if one connection is enough and you need the AMM trades live. Choose {pro.name} if you run
          several consumers at once or need history: replay covers the premium subjects too, so a strategy that starts
          after a graduation can read the pool’s first trades back. Yearly billing lowers both prices; the{' '}
          <Link to="/pricing">pricing page</Link> has the current figures.
        </p>
        <Note title="If you ask for a subject outside your plan">
          <p>
            On the WebSocket the server answers <code>subject_not_in_plan</code> and names the plan that includes it,
            for example “premium.pumpswap is not in your starter plan; it is included in the Plus plan and above”. The
            connection stays open. Native NATS refuses the subscription with a permissions violation.
          </p>
        </Note>
      </Section>

      <Section s={S.upgrading}>
        <p>
          You can upgrade from the dashboard’s plan page at any time. Your credentials stay the same; what changes is
          your account’s plan, and Tradewind applies it to connections that are already open:
        </p>
        <ul>
          <li>
            <strong>WebSocket</strong>: the server sends <code>plan_changed</code> with the new plan and subjects. Send{' '}
            <code>{`{"subject":"premium.pumpswap"}`}</code> on the same socket; no reconnect is needed.
          </li>
          <li>
            <strong>Native NATS</strong>: the NATS server cannot widen a live connection’s permissions, so your
            connection is closed and your client reconnects with the same <code>.creds</code> file, now allowed the
            premium subjects. Subscribe to them once the client reports the reconnect; a subscription the server refused
            before the upgrade stays closed and has to be made again.
          </li>
        </ul>
        <p>
          A downgrade works the same way in reverse: on the WebSocket each premium subscription ends with{' '}
          <code>unsubscribed</code> and <code>{`"reason":"plan_changed"`}</code> while the launchpad subjects keep
          flowing. Handling <code>plan_changed</code> is covered in{' '}
          <Link to="/blog/building-a-trading-bot-with-tradewind">building a trading bot on Tradewind</Link>, and the
          protocol details are in the <Link to="/dashboard/docs">API documentation</Link>.
        </p>
      </Section>
    </>
  );
}
