import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const recording = join(repo, 'services/ingest/recording');
const tmp = mkdtempSync(join(tmpdir(), 'decode-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs the CLI with `env` added to the environment (ingest's SOL_USD_FALLBACK etc., which it reads as ingest does). */
function run(args: string[], env: Record<string, string> = {}): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/decode.ts', ...args], {
    cwd: repo,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env },
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

/** stderr without the `note:` line about fields left out (the bundled recording has no SOL/USD swap). */
const problems = (stderr: string): string[] =>
  stderr
    .trimEnd()
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('note: '));

describe('scripts/decode.ts', () => {
  it('when given the recording and bad files, then stdout is only JSON trades, stderr names each bad path, exit 1', () => {
    const notJson = join(tmp, 'broken.json');
    const list = join(tmp, 'events.json');
    writeFileSync(notJson, '{"transaction": ');
    writeFileSync(list, '[{"signature":"x","hex":"00"}]');
    const r = run([recording, notJson, list]);
    expect(r.status).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    // By source: 29 pump.fun (the MIGRATEs in pumpfun/3gsR… and pumpswap/2ffH… included), 4 LaunchLab, 10 PumpSwap
    // (2 from pumpfun/ recordings) and 3 Raydium CPMM messages; the failed and trade-less recordings give none.
    expect(lines).toHaveLength(46);
    const bySource: Record<string, number> = {};
    for (const line of lines) {
      const m = JSON.parse(line) as Record<string, unknown>;
      bySource[String(m.source)] = (bySource[String(m.source)] ?? 0) + 1;
      expect(['pumpfun', 'bonk', 'pumpswap', 'raydium_cpmm']).toContain(m.source);
      expect(['CREATE', 'BUY', 'SELL', 'COMPLETE', 'MIGRATE', 'CREATE_POOL', 'DEPOSIT', 'WITHDRAW', 'SWAP']).toContain(m.transaction_type);
    }
    expect(bySource).toEqual({ pumpfun: 29, bonk: 4, pumpswap: 10, raydium_cpmm: 3 });
    expect(r.stderr).toContain(`${notJson}: not valid JSON`);
    expect(r.stderr).toContain(`${list}: input is a JSON array`);
    expect(problems(r.stderr)).toHaveLength(2);
    expect(r.stderr).toMatch(/^note: price_usd, market_cap_usd, usd_reference left out of the messages of every transaction: no SOL\/USD rate/m);
  });

  it('when every input decodes, then exit 0; when no argument is given, then usage and exit 2; when an ingest setting is bad, then it is named and exit 2', () => {
    const ok = run([join(recording, 'launchlab')], { SOL_USD_FALLBACK: '150' });
    expect(ok.status).toBe(0);
    expect(ok.stderr).toBe('');
    expect(ok.stdout.trimEnd().split('\n')).toHaveLength(4);
    const bad = run([join(recording, 'launchlab')], { SOL_USD_WINDOW: '0' });
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/SOL_USD_WINDOW/);
    const none = run([]);
    expect(none.status).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/usage/);
  });

  it('when the reader closes the pipe early (| head -n 1), then one trade line and no EPIPE trace on stderr', () => {
    // Ten copies of the recording (≈ 680 KB of trades) overflow the 64 KB pipe buffer, so writes
    // continue after head has exited and the pipe is closed.
    const dirs = Array.from({ length: 10 }, () => `'${recording}'`).join(' ');
    const r = spawnSync('sh', ['-c', `'${process.execPath}' --import tsx scripts/decode.ts ${dirs} | head -n 1`], {
      cwd: repo,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, SOL_USD_FALLBACK: '150' }, // a rate for every message: no note on stderr
    });
    expect(r.stderr).toBe('');
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect((JSON.parse(r.stdout) as Record<string, unknown>).source).toBeDefined();
  });

  it('when run as `npm run -s decode`, then stdout is only JSON (no npm banner, no .npmrc needed)', () => {
    const r = spawnSync('npm', ['run', '-s', 'decode', '--', join(recording, 'launchlab')], { cwd: repo, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    for (const line of lines) expect((JSON.parse(line) as Record<string, unknown>).source).toBe('bonk');
  });
});
