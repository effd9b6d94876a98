/**
 * Article: the Solana memecoin guide (Memecoin Guide, FAQ). Education, not advice: it states
 * risks plainly and makes no price predictions.
 *
 * Sources of the facts stated here (each is also cited in the article's Sources section):
 * - Definition of a meme coin and its legal status in the US: SEC Division of Corporation Finance,
 *   "Staff Statement on Meme Coins", 27 Feb 2025.
 * - Solana fees: https://solana.com/docs/core/fees; 400 ms slots: DEFAULT_MS_PER_SLOT of the
 *   Solana SDK (docs.rs solana-program).
 * - PumpSwap (21 Mar 2025), Raydium LaunchLab (16 Apr 2025), graduation counts of 13 May 2025:
 *   Odaily (Azuma), as republished by TheBlockBeats.
 * - Market size: CoinGecko "State of Memecoins Report 2025" (16 Dec 2025) as reported by
 *   Blockchain.News; CoinMarketCap figures for December 2024 as reported by Coinpaper. The
 *   specification's "$127B peak market cap" and "1,000+ memecoins" are NOT stated: no source
 *   supports them as written (see docs/spec-conformance.md).
 * - Bonding-curve numbers: decoded from transactions in Tradewind's own recording
 *   (services/ingest/recording): a 2026 pump.fun CREATE (5EDHe1…), the June 2025 MIGRATE
 *   2ffHb9…; the arithmetic is the constant-product formula behind `price_sol`.
 * - TRUMP, LIBRA and dogwifhat events: the news reports linked in the Sources section.
 */
import { Link } from 'react-router';
import { PLANS, cheapestPlanFor } from '@tradewind/contracts/plans';
import { Code, Note, Section, defineSections, sectionList, type FaqEntry } from '../../components/blog/article';

const S = defineSections({
  whatAreMemecoins: 'What memecoins are',
  whySolana: 'Why Solana',
  bondingCurves: 'Launchpads, bonding curves and graduation',
  marketSize: 'How big the market is, and why the numbers disagree',
  topTokens: 'Well-known Solana memecoins',
  researchTools: 'Research tools',
  safeTrading: 'Trading more safely',
  risks: 'Risks',
  future: 'What comes next',
  conclusion: 'Conclusion',
});

export const sections = sectionList(S);

const { starter } = PLANS;
const premium = cheapestPlanFor('premium.pumpswap') ?? PLANS.plus;

/** External sources cited in the article, in citation order. */
const SOURCES: ReadonlyArray<{ label: string; href: string }> = [
  {
    label: 'U.S. SEC, Division of Corporation Finance: Staff Statement on Meme Coins (27 February 2025)',
    href: 'https://www.sec.gov/newsroom/speeches-statements/staff-statement-meme-coins',
  },
  { label: 'Solana documentation: Transaction Fees', href: 'https://solana.com/docs/core/fees' },
  {
    label: 'Odaily (Azuma), “Pump.fun hegemony shaken for the first time”, as republished by TheBlockBeats (May 2025)',
    href: 'https://www.theblockbeats.info/en/news/58155',
  },
  {
    label: 'Blockchain.News (Caroline Bishop), “Memecoins Surge to $150B Peak: Insights from the 2025 CoinGecko Report” (16 December 2025)',
    href: 'https://bitcoinethereumnews.com/tech/memecoins-surge-to-150b-peak-insights-from-the-2025-coingecko-report',
  },
  {
    label: 'Coinpaper, “Meme Coin Market Stumbles with 30% Decline in December” (CoinMarketCap data, December 2024)',
    href: 'https://coinpaper.com/6740/meme-coin-market-stumbles-with-30-decline-in-december',
  },
  {
    label: 'CoinDesk, “Dogwifhat Community Plan to Put the Meme on the Vegas Sphere” (11 March 2024)',
    href: 'https://www.coindesk.com/markets/2024/03/11/dogwifhat-community-plan-to-put-the-meme-on-the-vegas-sphere/',
  },
  {
    label: 'Today in Crypto, “Dogwifhat drops Las Vegas Sphere campaign, refunds $700K to supporters” (2025)',
    href: 'https://todayincrypto.com/memecoins/dogwifhat-drops-las-vegas-sphere-campaign-refunds-700k-to-supporters',
  },
  {
    label: 'Crypto Valley Journal, “Donald Trump launches official meme coin on Solana” (18 January 2025)',
    href: 'https://cryptovalleyjournal.com/hot-topics/news/donald-trump-launches-official-meme-coin-on-solana/',
  },
  {
    label: 'The Byteline, on the LIBRA collapse, citing Lookonchain and Bubblemaps (February 2025)',
    href: 'https://thebyteline.com/news/4-6b-200m-libra-became-crypto-collapse',
  },
];

export const faq: FaqEntry[] = [
  {
    question: 'Is this article investment advice?',
    answer:
      'No. It explains how Solana memecoins work, where their risks lie and which tools help you check a token. It does not recommend buying or selling anything. Memecoins are highly speculative; most lose almost all of their value, and you should only ever risk money you can afford to lose entirely.',
  },
  {
    question: 'Why do so many memecoins launch on Solana?',
    answer:
      'Fees are small (a base fee of 5,000 lamports per signature, plus an optional priority fee), blocks are produced in slots designed to last 400 milliseconds, and launchpads such as Pump.fun and LetsBonk.fun let anyone create a token with a bonding curve in one transaction, without supplying liquidity first.',
  },
  {
    question: 'What does it mean when a token “graduates”?',
    answer:
      'A launchpad token first trades against its bonding curve. When the curve has sold its allotted supply it is complete, and its liquidity moves to an automated market maker: PumpSwap for Pump.fun tokens (since March 2025; Raydium before that), a Raydium pool for LetsBonk.fun tokens. Trading continues there. Graduation is a sign of demand, not of safety.',
  },
  {
    question: 'How can I tell a real token from a copy with the same name?',
    answer:
      'Only the mint address identifies a token. Anyone can create a token with any name, symbol and picture, and popular names are copied within minutes. Get the mint address from the project’s own channels, compare it character by character, and ignore names and tickers.',
  },
  {
    question: 'Does Tradewind show prices or token rankings?',
    answer: `Tradewind streams decoded trades: every create, buy, sell, graduation and pool trade on Pump.fun and LetsBonk.fun (${starter.name}, free) and on PumpSwap and Raydium CPMM (${premium.name} and above). Each trade carries its SOL amount, token amount and the curve’s or pool’s spot price in SOL. It does not rank tokens or tell you what to buy.`,
  },
  {
    question: 'Are memecoins regulated?',
    answer:
      'It depends on the country. In the United States, staff of the SEC’s Division of Corporation Finance said in February 2025 that typical meme coins, as they described them, are not securities, which also means buyers are not protected by federal securities laws. Fraud can still be pursued under other laws. Check the rules where you live, including tax rules.',
  },
];

export default function SolanaMemecoin() {
  return (
    <>
      <Note title="Risk note: not financial advice">
        <p>
          This guide is education, not a recommendation. Memecoins are among the most speculative assets there are: most new tokens lose almost all of their
          value, often within hours, and scams are common. Never invest money you cannot afford to lose entirely, and never share your wallet’s seed phrase with
          anyone.
        </p>
      </Note>
      <p>
        Solana has become the busiest home of memecoins: tokens that exist for a joke, a picture, a personality or a moment, and whose price moves on attention
        rather than on cash flows. This guide explains what memecoins are, why so many of them launch on Solana, how launchpads and bonding curves work, what we
        actually know about the size of the market, which tokens became well known and why, which tools help you research a token, how to trade more carefully,
        and which risks remain no matter how careful you are. Where we give numbers, we say where they come from; several of them we computed from real
        transactions that Tradewind has decoded.
      </p>

      <Section s={S.whatAreMemecoins}>
        <p>
          A memecoin is a token whose reason to exist is cultural rather than functional. Dogecoin, created in 2013 as a joke about the “doge” Shiba Inu meme,
          is the ancestor of the category. The U.S. Securities and Exchange Commission’s staff gave a useful working definition in February 2025: a meme coin is
          a crypto asset “inspired by internet memes, characters, current events, or trends for which the promoter seeks to attract an enthusiastic online
          community to purchase the meme coin and engage in its trading.” The same statement describes them as typically having limited or no use, being bought
          for entertainment, social and cultural reasons, and having prices driven mainly by demand and speculation.
        </p>
        <p>That definition captures what sets memecoins apart from other tokens:</p>
        <ul>
          <li>
            <strong>No claim on anything.</strong> A memecoin usually carries no share of revenue, no governance right that matters and no redemption value. Its
            price is whatever the next buyer pays.
          </li>
          <li>
            <strong>Attention is the fundamental.</strong> Communities, influencers, news events and exchange listings move prices far more than anything the
            token does.
          </li>
          <li>
            <strong>Creation is nearly free.</strong> On Solana anyone can create a token in a single transaction, so thousands of new ones compete for the same
            attention every day.
          </li>
          <li>
            <strong>Extreme volatility.</strong> Gains of many multiples and losses of 90 percent or more within a day are ordinary, in both directions.
          </li>
        </ul>
        <p>
          Technically, a Solana memecoin is an ordinary SPL token: a <strong>mint</strong> account that defines the supply and decimals, and token accounts that
          hold balances. Nothing in the token program marks a token as a “memecoin”; the label describes how people treat it. That also means the technical
          checks in this guide apply to any Solana token.
        </p>
      </Section>

      <Section s={S.whySolana}>
        <p>Three properties of Solana made it the natural venue:</p>
        <ul>
          <li>
            <strong>Low fees.</strong> Every transaction pays a base fee of 5,000 lamports (0.000005 SOL) per signature, plus an optional priority fee for
            faster inclusion when the network is busy. Buying a few dollars’ worth of a token is practical, which suits a market of many small trades.
          </li>
          <li>
            <strong>Speed.</strong> Solana produces blocks in slots designed to last 400 milliseconds, so a trade becomes visible almost at once and is
            confirmed shortly after. Fast markets reward fast tools, for better and worse.
          </li>
          <li>
            <strong>Launchpads.</strong> Pump.fun and, since 2025, LetsBonk.fun turned token creation into a form: a name, a symbol, a picture and a
            transaction. The creator does not have to supply liquidity, because the token starts life on a <strong>bonding curve</strong>, a program that quotes
            a price for every buy and sell.
          </li>
        </ul>
        <p>
          The launchpads compete fiercely. Pump.fun announced its own exchange, PumpSwap, on 21 March 2025, so that graduating tokens would no longer move to
          Raydium; Raydium answered on 16 April 2025 with LaunchLab, a launchpad others can build on, and LetsBonk.fun is built on it. On 13 May 2025 an
          on-chain analyst’s Dune dashboard, reported by Odaily, showed 198 graduations in 24 hours from LaunchLab platforms against 171 from Pump.fun, which
          the analyst called the first real competition Pump.fun had faced. Market share has changed hands since; what matters for a trader is that both produce
          a constant flow of new tokens, and Tradewind streams both: <code>basic.pumpfun</code> and <code>basic.bonk</code>.
        </p>
      </Section>

      <Section s={S.bondingCurves}>
        <p>
          A bonding curve replaces the order book and the liquidity pool at the start of a token’s life. The curve holds the supply it may sell and prices each
          trade with a formula, so there is always someone to trade with: the program. Pump.fun’s curve is a constant-product formula over <em>virtual</em>{' '}
          reserves: the spot price is virtual SOL reserves divided by virtual token reserves, and each buy adds SOL and removes tokens, so the price rises along
          the curve; each sell does the reverse.
        </p>
        <p>
          Real numbers make this concrete. A Pump.fun CREATE that Tradewind decoded from mainnet in 2026 shows the starting parameters of a new curve: a total
          supply of 1,000,000,000 tokens (with 6 decimals), of which the curve can sell 793,100,000; virtual reserves of 30 SOL and 1,073,000,000 tokens; and
          therefore a starting price of about 0.000000028 SOL per token. Those parameters come from the program’s global configuration and can change, but they
          were the same in the July 2025 trades in our recording. Working the formula through:
        </p>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">on the same curve</th>
                <th scope="col">value (fees excluded)</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>SOL needed to buy the first 100 million tokens (10% of supply)</td>
                <td>about 3.08 SOL</td>
              </tr>
              <tr>
                <td>SOL needed to buy the last 100 million tokens before the curve completes</td>
                <td>about 30.3 SOL</td>
              </tr>
              <tr>
                <td>real SOL in the curve when it completes</td>
                <td>about 85 SOL</td>
              </tr>
              <tr>
                <td>price at completion compared with the starting price</td>
                <td>about 14.7 times higher</td>
              </tr>
            </tbody>
          </table>
        </div>
        <p>
          The same tenth of the supply costs roughly ten times more at the end of the curve than at the start. That is the mechanical advantage of being early,
          and it is why the first seconds of a token’s life are crowded with automated buyers, in some launches including wallets controlled by the creator.
        </p>
        <p>
          When the curve has sold its allotment, it is <strong>complete</strong> and the token <strong>graduates</strong>: the remaining tokens and the SOL the
          curve raised become the liquidity of a pool on an automated market maker. A real example from our recording: a Pump.fun migration in June 2025 moved
          206,900,000 tokens and 84.99 SOL into a new PumpSwap pool, after a pool migration fee of 0.015 SOL. The pool’s opening price, 84.99 SOL over 206.9
          million tokens, equals the curve’s final price, so trading continues without a jump. LetsBonk.fun tokens graduate to a Raydium pool instead: Raydium
          CPMM, or Raydium’s older AMM v4.
        </p>
        <p>On Tradewind’s stream this life cycle is a sequence of messages:</p>
        <ul>
          <li>
            <strong>CREATE</strong> on <code>basic.pumpfun</code> or <code>basic.bonk</code>: the new mint, its name, symbol, metadata URI, creator and the
            curve’s starting reserves.
          </li>
          <li>
            <strong>BUY</strong> and <strong>SELL</strong>: every trade on the curve, with amounts in lamports and token units, the trader, and the spot price
            after the trade (<code>price_sol</code>).
          </li>
          <li>
            <strong>COMPLETE</strong> (Pump.fun) when a buy fills the curve, then <strong>MIGRATE</strong> when the liquidity moves, naming the new pool.
          </li>
          <li>
            After graduation, the pool’s trades on <code>premium.pumpswap</code> or <code>premium.raydium</code>, included from the {premium.name} plan up.
          </li>
        </ul>
      </Section>

      <Section s={S.marketSize}>
        <p>
          Headlines about the memecoin market quote very different totals, and all of them can be “right”, because they measure different things. A market
          capitalisation is the token price times a supply figure, summed over whichever tokens a data provider has tagged as memecoins. Providers tag different
          tokens, use circulating or total supply differently, and include or exclude Dogecoin-sized giants that dominate the sum. Market capitalisation is also
          not money that could be withdrawn: selling even a small share of a thin token’s supply would move its price sharply.
        </p>
        <p>With those caveats, here are figures with their sources, for the whole memecoin sector across all chains:</p>
        <ul>
          <li>
            <strong>CoinGecko</strong>, in its State of Memecoins Report 2025 (published 16 December 2025, as reported by Blockchain.News), puts the sector’s
            all-time high at <strong>$150.6 billion in December 2024</strong>, against a previous peak of $88.0 billion in 2021, and reports that daily memecoin
            trading volume rose from $1.1 billion on average in 2023 to $9.7 billion in 2024.
          </li>
          <li>
            <strong>CoinMarketCap</strong> data, as reported by Coinpaper at the end of December 2024, showed the sector at $120.14 billion on 1 December 2024,
            a high of $137.06 billion on 9 December and $92.67 billion on 23 December: a fall of about a third in two weeks.
          </li>
        </ul>
        <p>
          The two providers’ peaks for the same month differ by more than $13 billion, and both series fell steeply afterwards. Treat any single “size of the
          market” number as a rough order of magnitude, and a peak as exactly that: the top of a range that includes very deep falls.
        </p>
        <p>
          How many memecoins exist is even harder to state, because on Solana almost every launchpad token is one. A more useful question is how many new tokens
          appear and how many of them ever graduate, and that you can measure yourself: count CREATE and COMPLETE messages on <code>basic.pumpfun</code> over a
          day, as the script in the research section does. The ratio makes the odds of a random new token very clear.
        </p>
      </Section>

      <Section s={S.topTokens}>
        <p>
          A few Solana memecoins became household names in crypto. We describe them for what they illustrate, not as suggestions, and we quote no prices: prices
          of these tokens change too fast for an article to keep them true.
        </p>
        <ul>
          <li>
            <strong>BONK</strong> launched at the end of December 2022, after the collapse of FTX had hit the Solana ecosystem hard, and distributed half of its
            supply to Solana users, developers and NFT collectors. It shows the community-airdrop model. LetsBonk.fun, one of the two launchpads Tradewind
            streams, is associated with the BONK community.
          </li>
          <li>
            <strong>dogwifhat (WIF)</strong>, a Shiba Inu in a pink knitted hat, is the example of pure meme momentum. In March 2024 holders raised close to
            $700,000 in USDC toward a $650,000 goal, a campaign CoinDesk reported, to show the dog on the Las Vegas Sphere. The display never happened: the
            Sphere said it had no deal, and the organisers later announced refunds. A reminder that community promises are not commitments.
          </li>
          <li>
            <strong>Official Trump (TRUMP)</strong> launched on Solana on the evening of 17 January 2025 (U.S. time), three days before the presidential
            inauguration, and reached a multi-billion-dollar valuation within hours. Its own website stated that CIC Digital LLC, a Trump Organization
            affiliate, and Fight Fight Fight LLC jointly owned 80 percent of the supply, released over three years. It illustrates how concentrated celebrity
            tokens can be.
          </li>
          <li>
            <strong>Pump.fun graduates.</strong> Several of the best-known 2024 tokens, such as MOODENG (named after a baby pygmy hippo in a Thai zoo), Peanut
            the Squirrel (PNUT) and Fartcoin, began as ordinary Pump.fun launches on a bonding curve, the same way as the thousands of tokens that went nowhere
            that week.
          </li>
        </ul>
        <p>
          The lesson from the list is survivorship. Every well-known memecoin is visible because it survived; the tokens launched alongside it, with the same
          tools and often the same hopes, are not in anyone’s list.
        </p>
      </Section>

      <Section s={S.researchTools}>
        <p>
          Research will not tell you what a memecoin is worth, because it is worth what others will pay. It can tell you who holds it, who created it, what the
          creator did next, and whether the token has technical properties that can trap you. These are the tools, from general to specific.
        </p>
        <h3>Block explorers</h3>
        <p>
          Solana Explorer (explorer.solana.com) and Solscan (solscan.io) show any mint, account or transaction. For a token, open its{' '}
          <strong>mint address</strong> and check:
        </p>
        <ul>
          <li>
            <strong>Mint authority.</strong> If it is set, that key can create more tokens at any time and dilute every holder. A token that claims a fixed
            supply should show it as revoked (none or disabled).
          </li>
          <li>
            <strong>Freeze authority.</strong> If it is set, that key can freeze your token account so you cannot sell: the classic Solana honeypot.
          </li>
          <li>
            <strong>Token program and extensions.</strong> Tokens of the Token-2022 program can carry extensions. Transfer fees tax every transfer, a transfer
            hook runs a program of the creator’s choice on every transfer, and a permanent delegate can move or burn tokens from any holder’s account. None is
            bad in itself; each should be a deliberate, explained choice. Newer Pump.fun tokens are created with Token-2022, so seeing it is not a red flag on
            its own.
          </li>
          <li>
            <strong>Largest holders.</strong> The RPC method <code>getTokenLargestAccounts</code> returns the biggest token accounts of a mint. Remember that on
            a live curve the largest “holder” is the bonding curve itself (it holds the unsold supply), and after graduation the pool’s vault: exclude those
            before judging concentration.
          </li>
        </ul>
        <h3>Charts, aggregators and holder maps</h3>
        <p>
          DEX charting and aggregator sites (DEX Screener, Birdeye, CoinGecko’s GeckoTerminal and others) show price, volume and pools per token. Holder-map
          tools such as Bubblemaps draw the transfers between top holders, which reveals clusters of wallets funded from one source. That is how on-chain
          analysts exposed the concentration behind LIBRA, described under risks below.
        </p>
        <h3>The trade stream itself</h3>
        <p>
          Explorers show the state now. A trade stream shows behaviour as it happens, which is what exposes most schemes. Tradewind’s CREATE messages name each
          new token’s creator, and every later BUY and SELL names its trader, so a short script can watch what creators do with their own tokens, count distinct
          buyers, and measure how many launches ever graduate. This one runs on the free {starter.name} plan:
        </p>
        <Code
          label="creator-watch.ts (@tradewind/client, shipped with the WebSocket starter template)"
          lang="ts"
          code={`
import { TradewindClient } from '@tradewind/client';

const client = new TradewindClient({
  url: process.env.TRADEWIND_WS_URL!,
  jwt: process.env.TRADEWIND_JWT!,
  seed: process.env.TRADEWIND_NKEY_SEED!, // signs the server's challenge; never sent
});

interface Launch { creator: string; createdMs: number; buyers: Set<string>; creatorSoldTokens: number }
const launches = new Map<string, Launch>(); // mint -> what we saw since its CREATE
let creates = 0;
let completes = 0;
setInterval(() => console.log('since start:', creates, 'launches,', completes, 'completed curves'), 60 * 60_000);

const trades = client.subscribe('basic.pumpfun'); // every create, trade, completion and migration
void client.connect();
for await (const t of trades) {
  const now = t.block_time_ms ?? Date.now();
  if (t.transaction_type === 'CREATE') {
    creates += 1;
    launches.set(t.mint, { creator: t.creator ?? t.user!, createdMs: now, buyers: new Set(), creatorSoldTokens: 0 });
    continue;
  }
  if (t.transaction_type === 'COMPLETE') completes += 1;
  const launch = launches.get(t.mint);
  if (!launch || !t.user) continue;
  if (t.transaction_type === 'BUY') launch.buyers.add(t.user);
  if (t.transaction_type === 'SELL' && t.user === launch.creator) {
    launch.creatorSoldTokens += t.token_amount_ui ?? 0;
    const minutes = ((now - launch.createdMs) / 60_000).toFixed(1);
    console.log('creator sold', t.token_amount_ui, 'of', t.mint, minutes, 'min after launch;', launch.buyers.size, 'buyers so far');
  }
}
`}
        />
        <p>
          A creator selling soon after launch is not proof of a scam, and a creator holding is not proof of good faith; several wallets can belong to one
          person. But patterns such as many launches by one creator, each followed by a sell into the first buyers, are exactly what this kind of watch makes
          visible. To follow one wallet across every venue instead, subscribe with a filter such as <code>{`{"accounts":["<wallet>"]}`}</code>; the{' '}
          <Link to="/solana-websocket">Solana WebSocket guide</Link> shows the filters in detail.
        </p>
      </Section>

      <Section s={S.safeTrading}>
        <p>No practice makes memecoin trading safe. These habits remove the avoidable losses, so that what remains is the market risk you chose:</p>
        <ol>
          <li>
            <strong>Size positions for total loss.</strong> Decide in advance how much you can lose entirely without consequences, and treat each memecoin
            position as already gone.
          </li>
          <li>
            <strong>Verify the mint address.</strong> Names and tickers are copied within minutes of a token becoming popular. Take the address from the
            project’s own channel and compare it character by character.
          </li>
          <li>
            <strong>Check the mint before you buy</strong>: mint authority, freeze authority, token program, extensions and holder concentration, as described
            above.
          </li>
          <li>
            <strong>Set a slippage limit.</strong> A wide limit lets your order fill at a much worse price than you saw, including when other traders’ bots
            trade just ahead of you. On a bonding curve or a thin pool, large orders move the price a lot; split them or accept a smaller position.
          </li>
          <li>
            <strong>Test that you can sell.</strong> Before adding to a position, sell a small amount. A token you cannot sell is worth nothing to you, whatever
            the chart says.
          </li>
          <li>
            <strong>Keep a separate trading wallet.</strong> Hold only what you trade with in the wallet you connect to new sites, and keep savings elsewhere.
            Read every transaction your wallet asks you to sign.
          </li>
          <li>
            <strong>Never share your seed phrase.</strong> No exchange, launchpad, support agent or airdrop ever needs it. Messages offering help, recovery or
            free tokens are a common route to stolen wallets.
          </li>
          <li>
            <strong>Plan the exit before the entry.</strong> Decide at which loss you leave and what you do with a gain. Attention fades fast, and liquidity
            leaves with it.
          </li>
          <li>
            <strong>Keep records.</strong> Many countries tax each trade; a memecoin trader can make hundreds. Your wallet’s transaction history is on-chain,
            but reconstructing it later is painful.
          </li>
        </ol>
      </Section>

      <Section s={S.risks}>
        <p>Even with those habits, these risks remain. Each has happened at scale on Solana.</p>
        <h3>Rug pulls and insider selling</h3>
        <p>
          A rug pull is a creator or insider group extracting the money buyers put in: by selling a large, cheaply acquired supply into demand, or by removing
          liquidity they control. The February 2025 LIBRA launch is the best-documented large case. After Argentina’s president promoted the token on 14
          February 2025, it rose to a valuation in the billions within hours; the on-chain analysts Bubblemaps reported that 82 percent of the supply sat in one
          cluster of wallets, and Lookonchain reported that eight insider-linked wallets took out about $107 million, largely through one-sided liquidity
          positions rather than plain sales. The price fell by more than 90 percent the same day.
        </p>
        <h3>Honeypots and hidden controls</h3>
        <p>
          A honeypot lets you buy but not sell. On Solana the usual mechanisms are a freeze authority used against buyers’ token accounts, or Token-2022
          extensions such as a transfer hook that rejects sales or a transfer fee set close to 100 percent. The checks in the research section detect these
          before you buy; after you buy, it is too late.
        </p>
        <h3>Liquidity and slippage</h3>
        <p>
          A chart shows the last price, not the price you can sell at. On a bonding curve or a small pool, your own sale moves the price against you, and when
          buyers disappear there may be almost no one to sell to at any price near the chart’s. Market capitalisation figures for thin tokens are therefore
          paper values.
        </p>
        <h3>Bonding-curve mechanics</h3>
        <p>
          The curve’s arithmetic favours whoever buys first. As the table above shows, the same tenth of the supply costs about ten times more near the end of
          the curve than at the start, so late buyers on the curve are often buying from early buyers who are taking profit. Automated buyers (“snipers”) race
          to buy within moments of a launch, and insiders can buy in the same transaction that creates the token (“bundling”). Most curves never complete:
          graduation is a minority outcome, and graduation itself often marks the moment early buyers sell.
        </p>
        <h3>Impersonation, phishing and drainers</h3>
        <p>
          Fake sites that imitate launchpads or wallets, fake airdrops and direct messages offering support all aim at one thing: a signature or a seed phrase.
          A single malicious approval can empty a wallet.
        </p>
        <h3>Legal and tax exposure</h3>
        <p>
          In the United States, the SEC staff statement of February 2025 said that typical meme coins are not securities, which also means their buyers are not
          protected by federal securities laws. Other regulators and other countries may see things differently, and taxes usually apply to every disposal. This
          guide is not legal or tax advice.
        </p>
      </Section>

      <Section s={S.future}>
        <p>
          Nobody can forecast a market driven by attention, and we will not try. A few developments are visible in the data, though, and they are worth
          watching:
        </p>
        <ul>
          <li>
            <strong>Launchpad competition.</strong> Pump.fun, LetsBonk.fun and other LaunchLab platforms compete on fees, creator rewards and distribution, and
            leadership has changed hands within weeks. A tool that follows only one launchpad sees only part of the market.
          </li>
          <li>
            <strong>Creators paid by volume.</strong> Launchpads and PumpSwap now pay token creators a share of trading fees (the <code>creator_fee</code> and{' '}
            <code>coin_creator_fee</code> fields in the decoded trades). That rewards creators who keep a token active, and also gives them a reason to generate
            volume.
          </li>
          <li>
            <strong>Richer token programs.</strong> New Pump.fun tokens use Token-2022, and the program adds features, such as cashback and quote currencies
            other than SOL, that appear as new fields in its events. Tools that decode with stale interface definitions will misread them.
          </li>
          <li>
            <strong>Cycles.</strong> Every earlier memecoin peak was followed by a deep fall, including the December 2024 peak described above. Expect the next
            rise, if it comes, to end the same way.
          </li>
          <li>
            <strong>Regulation.</strong> Rules are moving in several countries, in both directions. A change in one large market can change liquidity and access
            for everyone.
          </li>
        </ul>
      </Section>

      <Section s={S.conclusion}>
        <p>
          Memecoins on Solana are a fast, cheap and crowded market built on launchpads and bonding curves. The mechanics are public and simple: a curve that
          rewards early buyers, a graduation into a pool, and a price set by attention. The risks are just as concrete: insiders, honeypots, thin liquidity and
          the near certainty that most tokens go to zero. If you take part, do it with money you can lose, with the checks above, and with your eyes on what
          wallets actually do rather than on what a chart or a community says.
        </p>
        <p>
          If you build tools for this market, such as alerts, research dashboards or bots, Tradewind gives you every Pump.fun and LetsBonk.fun create, trade and
          graduation as decoded JSON on the free {starter.name} plan, and the PumpSwap and Raydium CPMM pools they graduate to from {premium.name} up. Compare
          the plans on the <Link to="/pricing">pricing page</Link>, see the three steps from sign-in to your first message on{' '}
          <Link to="/how-it-works">how it works</Link>, and read the <Link to="/solana-websocket">Solana WebSocket guide</Link> for the protocol.
        </p>
        <h3>Sources</h3>
        <ul>
          {SOURCES.map((s) => (
            <li key={s.href}>
              <a href={s.href} rel="noopener noreferrer">
                {s.label}
              </a>
            </li>
          ))}
          <li>
            Bonding-curve and migration figures: our own decoding of mainnet transactions in Tradewind’s recording (a 2026 Pump.fun CREATE, signature 5EDHe1…;
            the June 2025 MIGRATE 2ffHb9…), with the constant-product formula behind each trade’s <code>price_sol</code>.
          </li>
        </ul>
      </Section>
    </>
  );
}
