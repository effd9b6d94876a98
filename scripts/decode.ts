/**
 * `npm run -s decode -- <file or dir>...` (`-s` keeps npm's `> tradewind decode` banner off
 * stdout; `tsx scripts/decode.ts` works too): decodes recorded getTransaction results
 * into the trade messages ingest publishes for them. Directories are walked recursively for *.json.
 *
 * The messages are what a subscriber receives (without ws-fanout's `seq`, and without the replay
 * markers a replayed copy carries): each transaction goes through ingest's own pipeline
 * (`createTradePipeline`, services/ingest/src/pipeline.ts: decode, then the derived fields
 * `market_cap_sol`, `bonding_curve_progress`, `price_usd`, `market_cap_usd`, `usd_reference`), in the
 * order given, at its block time, with ingest's settings read from the environment exactly as ingest
 * reads them (`LETSBONK_PLATFORM_CONFIGS`, `TOKEN_NAME_CACHE_MAX_ENTRIES`,
 * `LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES`, `SOL_USD_FALLBACK`, `SOL_USD_MIN_SWAP_SOL`, `SOL_USD_WINDOW`,
 * `SOL_USD_MAX_AGE_MS`). What ingest learns from earlier transactions (a token's name from its
 * CREATE, a LaunchLab pool's supply, the SOL/USD rate from WSOL/USDC and WSOL/USDT swaps) comes only
 * from inputs given before: pass them first. Without a SOL/USD rate (live ingest takes it from the
 * stream, which the CLI does not have) the USD fields are left out, and stderr says so.
 *
 * stdout: one JSON trade message per line and nothing else. stderr: `<path>: <reason>` for every
 * input that is not a readable transaction, and a `note:` line naming the fields left out and why.
 * Exit 0 when every input was read, 1 when any failed, 2 on usage or configuration error.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '@tradewind/contracts';
import { normalizeTransaction, type TradeMessage } from '@tradewind/ingest/decode';
import { createTradePipeline, TradePipelineConfigSchema, type TradePipelineConfig } from '@tradewind/ingest/pipeline';
import { loadConfig } from '@tradewind/lib';

/** The fields ingest adds from a SOL/USD rate: absent from every message of a transaction decoded without one. */
export const USD_FIELDS = ['price_usd', 'market_cap_usd', 'usd_reference'] as const;

function jsonFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const p = join(path, e.name);
      if (e.isDirectory()) return jsonFiles(p);
      return e.isFile() && e.name.endsWith('.json') ? [p] : [];
    });
}

/** Where {@link decodeFiles} hands what it read, as it reads it (the CLI: stdout and stderr). */
export interface DecodeSink {
  /** The trade messages of one transaction, in instruction order (never empty). */
  messages(decoded: readonly TradeMessage[]): void;
  /** An argument or file that could not be read, with the reason. */
  problem(path: string, reason: string): void;
}

/**
 * Decodes `args` (files, or directories walked recursively for *.json, in name order) through one
 * ingest pipeline built from `config` (ingest's keys, absent = ingest's defaults; see the module doc),
 * each transaction at its block time (now when the capture has none), handing each transaction's
 * messages and each unreadable input to `sink` as it goes. Never throws for a bad input.
 * @returns how many inputs failed, and plain sentences about fields left out (today: the USD fields
 *   when no SOL/USD rate was known).
 */
export function decodeFiles(args: readonly string[], config: TradePipelineConfig, sink: DecodeSink): { problems: number; notes: string[] } {
  const pipeline = createTradePipeline(config);
  let problems = 0;
  let withoutRate = 0;
  let transactions = 0;
  const problem = (path: string, reason: string): void => {
    problems++;
    sink.problem(path, reason);
  };
  for (const arg of args) {
    let files: string[];
    try {
      files = jsonFiles(arg);
    } catch (err) {
      problem(arg, (err as Error).message);
      continue;
    }
    for (const file of files) {
      let decoded: TradeMessage[];
      let atMs: number;
      try {
        const tx = normalizeTransaction(JSON.parse(readFileSync(file, 'utf8')));
        atMs = tx.blockTimeMs ?? Date.now();
        decoded = pipeline.process(tx, atMs);
      } catch (err) {
        problem(file, err instanceof SyntaxError ? `not valid JSON (${err.message})` : (err as Error).message);
        continue;
      }
      if (decoded.length === 0) continue;
      transactions++;
      if (pipeline.solUsdAt(atMs) === undefined) withoutRate++;
      sink.messages(decoded);
    }
  }
  const notes: string[] = [];
  if (withoutRate > 0) {
    const which =
      withoutRate === transactions
        ? transactions === 1
          ? 'the messages'
          : 'the messages of every transaction'
        : `the messages of ${withoutRate} of ${transactions} transactions`;
    notes.push(
      `${USD_FIELDS.join(', ')} left out of ${which}: no SOL/USD rate was known at their block time. ` +
        'Live ingest takes the rate from the WSOL/USDC and WSOL/USDT swaps it has just decoded, which the CLI sees only among the inputs given before ' +
        '(none of at least SOL_USD_MIN_SWAP_SOL within SOL_USD_MAX_AGE_MS was), and SOL_USD_FALLBACK is unset. ' +
        'Set SOL_USD_FALLBACK=<US dollars per SOL> to get them as an ingest with that fallback publishes them.',
    );
  }
  return { problems, notes };
}

function main(args: string[]): number {
  if (args.length === 0) {
    process.stderr.write('usage: npm run -s decode -- <transaction.json | directory>...\n');
    return 2;
  }
  let config: TradePipelineConfig;
  try {
    config = loadConfig(TradePipelineConfigSchema, process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`decode: ${err.message}\n`);
    return 2;
  }
  const { problems, notes } = decodeFiles(args, config, {
    messages: (decoded) => process.stdout.write(`${decoded.map((m) => JSON.stringify(m)).join('\n')}\n`),
    problem: (path, reason) => process.stderr.write(`${path}: ${reason}\n`),
  });
  for (const n of notes) process.stderr.write(`note: ${n}\n`);
  return problems > 0 ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // A reader that stops early (`| head`) closes the pipe: end quietly with the status so far
  // instead of an unhandled EPIPE stack trace on stderr.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit();
  });
  process.exitCode = main(process.argv.slice(2));
}
