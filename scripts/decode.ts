/**
 * `npm run -s decode -- <file or dir>...` (`-s` keeps npm's `> tradewind decode` banner off
 * stdout; `tsx scripts/decode.ts` works too): decodes recorded getTransaction results
 * into trade messages. Directories are walked recursively for *.json. stdout:
 * one JSON trade message per line and nothing else. stderr: `<path>: <reason>`
 * for every input that is not a readable transaction. Exit 0 when every input
 * was read, 1 when any failed, 2 on usage error.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { decodeTransaction } from '@tradewind/ingest/decode';

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

function main(args: string[]): number {
  if (args.length === 0) {
    process.stderr.write('usage: npm run -s decode -- <transaction.json | directory>...\n');
    return 2;
  }
  let failed = false;
  for (const arg of args) {
    let files: string[];
    try {
      files = jsonFiles(arg);
    } catch (err) {
      process.stderr.write(`${arg}: ${(err as Error).message}\n`);
      failed = true;
      continue;
    }
    for (const file of files) {
      try {
        const input: unknown = JSON.parse(readFileSync(file, 'utf8'));
        const lines = decodeTransaction(input).map((m) => JSON.stringify(m));
        if (lines.length > 0) process.stdout.write(lines.join('\n') + '\n');
      } catch (err) {
        const reason = err instanceof SyntaxError ? `not valid JSON (${err.message})` : (err as Error).message;
        process.stderr.write(`${file}: ${reason}\n`);
        failed = true;
      }
    }
  }
  return failed ? 1 : 0;
}

// A reader that stops early (`| head`) closes the pipe: end quietly with the status so far
// instead of an unhandled EPIPE stack trace on stderr.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit();
});
process.exitCode = main(process.argv.slice(2));
