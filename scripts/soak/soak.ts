/**
 * `npm run soak [-- --minutes N] [--scale test|full] [--client-procs N] [--ws-workers N]`: the whole trade
 * path (Yellowstone stand-in → ingest → JetStream TRADES R3 → ws-fanout → WebSocket and native subscribers,
 * token-price beside them) at a mainnet-shaped rate for N minutes (default 30 at full size), reported per
 * minute and summed up at the end with a dated Markdown table for docs/performance.md (scripts/soak/harness.ts).
 *
 * Exits 0 when nothing was lost, duplicated, reordered or unexpected, every transaction the stand-in sent
 * reached TRADES (apart from the recording's ones that decode to no trade), the stand-in saw no disconnect
 * and ingest no reconnect, and no service process's (ingest, ws-fanout primary and workers, token-price) RSS
 * at the end is more than 10 % above its warm-up sample; 1 otherwise or on an error; 130/143 after
 * SIGINT/SIGTERM (every child process is stopped first). The warm-up sample is taken at minute 5 of a 30-minute
 * run; a shorter run takes it at the same share (a sixth) but never before one full steady + burst cycle
 * (`--minutes 3`: at 90 s), and a run shorter than one cycle does not apply the rule (scripts/soak/rules.ts).
 * Latency targets (chain-to-client p99 ≤ 50 ms steady, ≤ 250 ms in bursts) are printed, not failed on.
 */
import { createSoak } from './harness.js';
import { parseSoakArgs, type SoakOptions } from './options.js';
import { intervalHeader, intervalLine, markdownReport, summaryText } from './report.js';

async function main(): Promise<void> {
  let options: SoakOptions;
  try {
    options = parseSoakArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
  const say = (line: string) => process.stdout.write(`${line}\n`);
  let headerPrinted = false;
  const soak = createSoak(options, say, (row) => {
    if (!headerPrinted) say(intervalHeader());
    headerPrinted = true;
    say(intervalLine(row));
  });
  // `on`, not `once`: npm relays a terminal's Ctrl-C as a second signal, which must not cut the cleanup short.
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    say(`\nsoak: ${signal}: stopping every child process`);
    void soak.stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const onFatal = (err: unknown) => {
    process.stderr.write(`soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}; stopping the child processes\n`);
    void soak.stop().finally(() => process.exit(1));
  };
  process.on('uncaughtException', onFatal);
  process.on('unhandledRejection', onFatal);
  try {
    const result = await soak.run();
    say(summaryText(result));
    say(`\n${markdownReport(result)}`);
    process.exitCode = result.reasons.length ? 1 : 0;
  } catch (err) {
    if (!stopping) onFatal(err);
  }
}

void main();
