/**
 * `npm run bench [-- <suite> ...] [-- --seconds N]`: throughput benchmarks.
 *
 * Suites:
 *   decode  ingest's hot path on one core (this process is single-threaded):
 *           raw getTransaction JSON text → prefilter → JSON.parse → normalise →
 *           decode → JSON.stringify per message, over the bundled real
 *           transactions; and the prefilter alone over real transactions that
 *           touch none of the four programs. Baseline measured in the same run:
 *           bare JSON.parse of the same texts (the floor any JSON source pays).
 *           The Yellowstone path live ingest pays (scripts/bench/decode-yellowstone.ts):
 *           each trade transaction's `SubscribeUpdate` protobuf bytes (built once with
 *           the client's own codec) → SubscribeUpdate.decode → normalise → decode →
 *           JSON.stringify; its baseline, same run: SubscribeUpdate.decode alone.
 *           The peer solana-dex-parser (scripts/bench/decode-peer.ts) on the same
 *           texts: JSON.parse → web3.js response objects → parseAll (our four
 *           programs) → JSON.stringify, and parseAll → JSON.stringify alone; a
 *           different output, compared to the JSON.parse baseline.
 *           All these paths run in alternating 50 ms slices over the same span
 *           (scripts/bench/decode-rate.ts), each for --seconds in total.
 *
 *   token-price  token-price's consumer hot path against the Redis at REDIS_URL (default
 *           127.0.0.1:6379): interpret + one Lua apply per message, awaited one after
 *           another as the consumer does, over the bundled real trades spread over 1,000
 *           mints (bench-only mint names); and a top-20 ranking read over those 1,000
 *           tokens (what one uncached GET /api/birdeye/tokens costs). Baseline measured
 *           in the same run: sequential Redis PING (the round-trip floor).
 *
 *   fanout  ws-fanout against plain NATS subscribers in one run (scripts/bench/fanout.ts): an
 *           operator-mode nats-server and ws-fanout (its real entry point, a child process) on free
 *           ports, subscribers in child processes; highest rate kept up at 100 and 1,000 subscribers,
 *           latency at 2,000 msg/s for 1 and 100, logins/s, /healthz and /readyz under load, lost /
 *           duplicated / reordered messages. Options: `--ws-workers N` (WS_WORKERS of ws-fanout,
 *           default: its own), `--client-procs N` (subscriber processes, default 2), `--ws-cpu-prof DIR` (ws-fanout writes
 *           V8 CPU profiles there, for `node --cpu-prof` analysis). Each rate step
 *           publishes for 1.5 × --seconds; about 2-4 minutes in all.
 *
 *   ingest  ingest's publishing into JetStream TRADES against JetStream's own acknowledged publish rate
 *           with the same messages, in one run (scripts/bench/ingest.ts): on one nats-server (TRADES R1)
 *           and on a local 3-node cluster (TRADES R3), ingest's real entry point replaying the bundled
 *           recording as fast as it can vs a child process publishing exactly those messages with 256
 *           (and 1) acknowledged publishes in flight; stored msgs/s from the stream over --seconds after a
 *           warm-up, the ratio ingest/broker (the headline), CPU of ingest and nats-server, and the order
 *           of what ingest stored (reordered / duplicated / gaps). Options: `--publish-window N[,N…]`
 *           (PUBLISH_MAX_IN_FLIGHT values to sweep, default: unset, ingest's own), `--ingest-cpu-prof DIR`
 *           (ingest writes V8 CPU profiles there). Two rounds per case; about 2 minutes with --seconds 5.
 *   slots   slot status from the Yellowstone stand-in through ingest, NATS and ws-fanout to a
 *           `@tradewind/client` with `slots: true` (scripts/bench/slots.ts): the stand-in's status send →
 *           the client, beside the same path's trade latency (the baseline), and a slot's first trade →
 *           its `confirmed`; lost statuses must be 0. --seconds measured (at least 10), plus 18 s.
 *
 * Output: human-readable lines, then ONE final line of JSON with the figures
 * (`decode_tx_per_s`, `filter_tx_per_s`, ...), for CI and for comparisons.
 * Figures depend on the machine: compare ratios, not absolute numbers.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { BUNDLED_RECORDING_DIR, createDeriver, decodeNormalized, loadRecording, mayTouchPrograms, normalizeTransaction } from '@tradewind/ingest';
import { TokenStore, WINDOW_MS, interpretTrade, type TradeUpdate } from '@tradewind/token-price';
import { fanoutSuite } from './bench/fanout.js';
import { ingestSuite } from './bench/ingest.js';
import { slotsSuite } from './bench/slots.js';
import { interleavedRates, rateCase } from './bench/decode-rate.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const TRADE_DIR = join(repo, 'services/ingest/recording');
const NON_TRADE_DIR = join(repo, 'services/ingest/bench/non-trade');

/** Options that take a value; everything else not starting with `--` is a suite name. */
const VALUE_OPTIONS = ['--seconds', '--ws-workers', '--client-procs', '--ws-cpu-prof', '--publish-window', '--ingest-cpu-prof'] as const;

interface BenchArgs {
  suites: string[];
  seconds: number;
  /** `--ws-workers N` (fanout): WS_WORKERS of the ws-fanout under test; absent = ws-fanout's default. */
  wsWorkers: number | undefined;
  /** `--client-procs N` (fanout): subscriber processes. */
  clientProcs: number | undefined;
  /** `--ws-cpu-prof DIR` (fanout): ws-fanout's processes write V8 CPU profiles (node --cpu-prof) into DIR. */
  wsCpuProfDir: string | undefined;
  /** `--publish-window N[,N…]` (ingest): PUBLISH_MAX_IN_FLIGHT values to sweep; absent = ingest's default. */
  publishWindows: number[] | undefined;
  /** `--ingest-cpu-prof DIR` (ingest): ingest writes V8 CPU profiles (node --cpu-prof) into DIR. */
  ingestCpuProfDir: string | undefined;
}

function args(): BenchArgs {
  const argv = process.argv.slice(2);
  const values = new Map<string, string>();
  const suites: string[] = [];
  for (let j = 0; j < argv.length; j++) {
    const a = argv[j]!;
    if ((VALUE_OPTIONS as readonly string[]).includes(a)) {
      const v = argv[++j];
      if (v === undefined) throw new Error(`${a} needs a value`);
      values.set(a, v);
    } else if (a.startsWith('--')) {
      throw new Error(`unknown option ${a}; known: ${VALUE_OPTIONS.join(', ')}`);
    } else {
      suites.push(a);
    }
  }
  const seconds = values.has('--seconds') ? Number(values.get('--seconds')) : 2;
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error('--seconds needs a positive number');
  const int = (name: string): number | undefined => {
    const raw = values.get(name);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} needs a non-negative integer`);
    return n;
  };
  const windows = values.get('--publish-window');
  const publishWindows = windows?.split(',').map((w) => Number(w.trim()));
  if (publishWindows?.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--publish-window needs whole numbers ≥ 1, comma-separated');
  return {
    suites: suites.length ? suites : ['decode'],
    seconds,
    wsWorkers: int('--ws-workers'),
    clientProcs: int('--client-procs'),
    wsCpuProfDir: values.get('--ws-cpu-prof'),
    publishWindows,
    ingestCpuProfDir: values.get('--ingest-cpu-prof'),
  };
}

/** Compact JSON text of each *.json under `dir` (as an RPC sends it: no indentation). */
function corpus(dir: string): { name: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f, text: JSON.stringify(JSON.parse(readFileSync(join(dir, f), 'utf8'))) }));
}

async function decodeSuite(seconds: number): Promise<Record<string, number | string>> {
  // Loaded here, not at the top: web3.js, solana-dex-parser and grpc-js are only the decode suite's.
  const { PEER_VERSION, peerInput, peerParse, peerResultJson } = await import('./bench/decode-peer.js');
  const { decodeSubscribeUpdate, subscribeUpdateBytes, yellowstoneMessages } = await import('./bench/decode-yellowstone.js');
  const trades = corpus(TRADE_DIR);
  const others = corpus(NON_TRADE_DIR);
  const texts = trades.map((t) => t.text);
  const otherTexts = others.map((t) => t.text);
  let messages = 0;
  for (const t of texts) messages += decodeNormalized(normalizeTransaction(JSON.parse(t))).length;
  const avg = (xs: string[]) => Math.round(xs.reduce((a, x) => a + x.length, 0) / xs.length);
  console.log(
    `decode: ${texts.length} real trade transactions (${messages} messages, avg ${avg(texts)} B compact JSON), ${otherTexts.length} real non-trade transactions (avg ${avg(otherTexts)} B)`,
  );

  // What ingest runs per transaction: decode, then the derived fields (SOL/USD reference with a
  // configured fallback, so the USD fields are computed too), then one JSON text per message.
  const derive = createDeriver({ fallbackUsdPerSol: 150 });
  const pipeline = (t: string): void => {
    if (!mayTouchPrograms(t)) return;
    const msgs = decodeNormalized(normalizeTransaction(JSON.parse(t)));
    derive(msgs, Date.now());
    for (const m of msgs) JSON.stringify(m);
  };
  const rejected = otherTexts.filter((t) => !mayTouchPrograms(t)).length;
  // Mainnet-like mix: for every trade transaction, 9 that touch none of the programs.
  const mix = texts.flatMap((t, i) => [t, ...Array.from({ length: 9 }, (_, j) => otherTexts[(i * 9 + j) % otherTexts.length] ?? '')]);
  // Yellowstone: the same trade transactions as protobuf SubscribeUpdate bytes, at ingest's default
  // Yellowstone commitment (processed).
  const updates = texts.map((t) => subscribeUpdateBytes(JSON.parse(t)));
  // Peer: solana-dex-parser on the same texts, from the text as an RPC client receives it; and its
  // own share, parseAll + serialise on web3.js objects built once (what a web3.js Connection user holds).
  let peerRecords = 0;
  for (const t of texts) {
    const res = peerParse(peerInput(JSON.parse(t)));
    peerRecords += res.trades.length + res.memeEvents.length + res.liquidities.length;
  }
  const peerInputs = texts.map((t) => peerInput(JSON.parse(t)));

  // All paths in alternating slices over the same span, so the shared machine's load hits each alike.
  const rates = interleavedRates(
    {
      parse: rateCase(texts, (t) => JSON.parse(t)),
      decode: rateCase(texts, pipeline),
      filter: rateCase(otherTexts, (t) => mayTouchPrograms(t)),
      mix: rateCase(mix, pipeline),
      proto: rateCase(updates, (u) => decodeSubscribeUpdate(u.bytes)),
      yellowstone: rateCase(updates, (u) => {
        const msgs = yellowstoneMessages(u, 'processed');
        derive(msgs, Date.now());
        for (const m of msgs) JSON.stringify(m);
      }),
      peer: rateCase(texts, (t) => peerResultJson(peerParse(peerInput(JSON.parse(t))))),
      peerParse: rateCase(peerInputs, (tx) => peerResultJson(peerParse(tx))),
    },
    { seconds },
  );
  const {
    parse: parseRate,
    decode: decodeRate,
    filter: filterRate,
    mix: mixRate,
    proto: protoRate,
    yellowstone: yellowstoneRate,
    peer: peerRate,
    peerParse: peerParseRate,
  } = rates;

  // Cost split, measured separately so the timers do not slow the rates above.
  const split = { filter: 0, parse: 0, normalize: 0, decode: 0, serialize: 0 };
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < seconds * 1000) {
    for (const t of texts) {
      const a = performance.now();
      mayTouchPrograms(t);
      const b = performance.now();
      const raw: unknown = JSON.parse(t);
      const c = performance.now();
      const tx = normalizeTransaction(raw);
      const d = performance.now();
      const msgs = decodeNormalized(tx);
      derive(msgs, Date.now());
      const e = performance.now();
      for (const m of msgs) JSON.stringify(m);
      const f = performance.now();
      split.filter += b - a;
      split.parse += c - b;
      split.normalize += d - c;
      split.decode += e - d;
      split.serialize += f - e;
      n++;
    }
  }
  const us = (v: number) => Number(((v / n) * 1000).toFixed(2));
  const total = Object.values(split).reduce((a, b) => a + b, 0);
  const pct = (v: number) => `${((v / total) * 100).toFixed(0)}%`;

  const r = (x: number) => Math.round(x);
  console.log(`  baseline JSON.parse only        ${r(parseRate).toLocaleString('en')} tx/s`);
  console.log(`  filter+parse+decode+derive+serialize   ${r(decodeRate).toLocaleString('en')} tx/s  (${(decodeRate / parseRate).toFixed(2)} × baseline)`);
  console.log(
    `  prefilter over non-trade txs    ${r(filterRate).toLocaleString('en')} tx/s  (${(filterRate / parseRate).toFixed(2)} × baseline; ${rejected}/${otherTexts.length} rejected)`,
  );
  console.log(`  mix 1 trade : 9 non-trade       ${r(mixRate).toLocaleString('en')} tx/s`);
  console.log(
    `  Yellowstone (${updates.length} SubscribeUpdate messages, avg ${Math.round(updates.reduce((a, u) => a + u.bytes.length, 0) / updates.length)} B protobuf)`,
  );
  console.log(`    baseline protobuf decode only ${r(protoRate).toLocaleString('en')} tx/s`);
  console.log(
    `    bytes→decode+normalize+decode+derive+serialize ${r(yellowstoneRate).toLocaleString('en')} tx/s  (${(yellowstoneRate / protoRate).toFixed(2)} × protobuf baseline; ${(yellowstoneRate / decodeRate).toFixed(2)} × the JSON path above)`,
  );
  console.log(
    `  peer solana-dex-parser ${PEER_VERSION} (different output: one ParseResult per tx, ${peerRecords} trade/meme/liquidity records vs our ${messages} messages)`,
  );
  console.log(
    `    parse+web3.js objects+parseAll+serialize ${r(peerRate).toLocaleString('en')} tx/s  (${(peerRate / parseRate).toFixed(3)} × JSON.parse baseline; ours ${(decodeRate / peerRate).toFixed(2)} × the peer)`,
  );
  console.log(
    `    parseAll+serialize only (web3.js objects built once) ${r(peerParseRate).toLocaleString('en')} tx/s  (${(peerParseRate / parseRate).toFixed(3)} × JSON.parse baseline)`,
  );
  console.log(
    `  per trade tx: filter ${us(split.filter)} µs (${pct(split.filter)}), parse ${us(split.parse)} µs (${pct(split.parse)}), normalize ${us(split.normalize)} µs (${pct(split.normalize)}), decode+derive ${us(split.decode)} µs (${pct(split.decode)}), serialize ${us(split.serialize)} µs (${pct(split.serialize)})`,
  );
  console.log(
    `  target 20,000 tx/s on one core: decode ${decodeRate >= 20_000 ? 'met' : 'NOT met'} (${(decodeRate / 20_000).toFixed(2)} ×), filter ${filterRate >= 20_000 ? 'met' : 'NOT met'} (${(filterRate / 20_000).toFixed(2)} ×), Yellowstone ${yellowstoneRate >= 20_000 ? 'met' : 'NOT met'} (${(yellowstoneRate / 20_000).toFixed(2)} ×)`,
  );
  console.log(`  target decode ≥ 0.5 × JSON.parse baseline: ${decodeRate / parseRate >= 0.5 ? 'met' : 'NOT met'} (${(decodeRate / parseRate).toFixed(2)} ×)`);
  return {
    decode_tx_per_s: r(decodeRate),
    filter_tx_per_s: r(filterRate),
    mix_tx_per_s: r(mixRate),
    baseline_json_parse_tx_per_s: r(parseRate),
    decode_vs_baseline: Number((decodeRate / parseRate).toFixed(3)),
    filter_vs_baseline: Number((filterRate / parseRate).toFixed(3)),
    filter_us: us(split.filter),
    parse_us: us(split.parse),
    normalize_us: us(split.normalize),
    decode_us: us(split.decode),
    serialize_us: us(split.serialize),
    trade_transactions: texts.length,
    non_trade_transactions: otherTexts.length,
    yellowstone_tx_per_s: r(yellowstoneRate),
    yellowstone_baseline_tx_per_s: r(protoRate),
    yellowstone_vs_baseline: Number((yellowstoneRate / protoRate).toFixed(3)),
    yellowstone_vs_decode: Number((yellowstoneRate / decodeRate).toFixed(3)),
    peer_tx_per_s: r(peerRate),
    peer_vs_baseline: Number((peerRate / parseRate).toFixed(3)),
    decode_vs_peer: Number((decodeRate / peerRate).toFixed(3)),
    peer_parse_only_tx_per_s: r(peerParseRate),
    peer_parse_only_vs_baseline: Number((peerParseRate / parseRate).toFixed(3)),
    peer: `solana-dex-parser@${PEER_VERSION}`,
  };
}

/** Calls `fn` one after another for `seconds` (after a 0.3 s warm-up); returns calls per second. */
async function asyncRate(seconds: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  let i = 0;
  const run = async (ms: number): Promise<number> => {
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < ms) {
      await fn(i++);
      n++;
    }
    return n / ((performance.now() - t0) / 1000);
  };
  await run(300);
  return run(seconds * 1000);
}

async function tokenPriceSuite(seconds: number): Promise<Record<string, number | string>> {
  const redis = createClient({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  await redis.connect();
  const prefix = `bench:token-price:${randomUUID().slice(0, 8)}:`;
  const store = new TokenStore(redis, { prefix, windowMs: WINDOW_MS, bucketMs: 60_000, tokenTtlMs: 10 * 60_000 });
  const now = Date.now();
  const { transactions } = await loadRecording(BUNDLED_RECORDING_DIR);
  const bodies = transactions.flatMap((t) => t.trades).map((m) => new TextEncoder().encode(JSON.stringify({ ...m, block_time_ms: now })));
  const MINTS = 1_000;
  try {
    await store.reset('bench');
    const pingRate = await asyncRate(seconds, () => redis.ping());
    let seq = 0;
    const applyRate = await asyncRate(seconds, async (i) => {
      const u = interpretTrade(bodies[i % bodies.length]!, { solUsd: 150, streamTimeMs: now, minRatePoolSol: 100 });
      const spread: TradeUpdate = 'mint' in u ? { ...u, mint: `${u.mint}-bench${i % MINTS}` } : u;
      return store.apply(++seq, spread, now);
    });
    const tokens = (await store.top(MINTS * 2, now)).length;
    const topRate = await asyncRate(seconds, () => store.top(20, now));
    const r = (x: number) => Math.round(x);
    console.log(`token-price (Redis ${process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'}, ${tokens} ranked tokens)`);
    console.log(`  baseline Redis PING, sequential   ${r(pingRate).toLocaleString('en')} /s`);
    console.log(`  interpret + apply, sequential     ${r(applyRate).toLocaleString('en')} messages/s  (${(applyRate / pingRate).toFixed(2)} × baseline)`);
    console.log(`  top-20 read (uncached request)    ${r(topRate).toLocaleString('en')} /s  (${(topRate / pingRate).toFixed(2)} × baseline)`);
    return {
      token_price_apply_per_s: r(applyRate),
      token_price_top20_per_s: r(topRate),
      baseline_redis_ping_per_s: r(pingRate),
      token_price_apply_vs_baseline: Number((applyRate / pingRate).toFixed(3)),
      token_price_top20_vs_baseline: Number((topRate / pingRate).toFixed(3)),
      token_price_ranked_tokens: tokens,
    };
  } finally {
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if ((keys as string[]).length) await redis.unlink(keys as string[]);
    await redis.quit();
  }
}

type Suite = (opts: BenchArgs) => Record<string, number | string> | Promise<Record<string, number | string>>;

const SUITES: Record<string, Suite> = {
  decode: ({ seconds }) => decodeSuite(seconds),
  'token-price': ({ seconds }) => tokenPriceSuite(seconds),
  fanout: ({ seconds, wsWorkers, clientProcs, wsCpuProfDir }) => fanoutSuite({ seconds, wsWorkers, clientProcesses: clientProcs, wsCpuProfDir }),
  ingest: ({ seconds, publishWindows, ingestCpuProfDir }) => ingestSuite({ seconds, publishWindows, cpuProfDir: ingestCpuProfDir }),
  slots: ({ seconds }) => slotsSuite({ seconds: Math.max(seconds, 10) }),
};

const opts = args();
const result: Record<string, number | string> = { node: process.version };
for (const s of opts.suites) {
  const suite = SUITES[s];
  if (!suite) {
    console.error(`unknown bench suite "${s}"; known: ${Object.keys(SUITES).join(', ')}`);
    process.exit(2);
  }
  Object.assign(result, await suite(opts));
}
console.log(JSON.stringify(result));
