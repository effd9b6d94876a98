/**
 * CI check (docs/style.md §11): regenerating proto/ with the repository's buf.gen.yaml must
 * reproduce packages/contracts/src/gen byte for byte, and `buf lint` must pass. Fails when someone edits
 * generated code by hand or changes a .proto without running `npm run proto`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BUF = join(ROOT, 'node_modules/.bin/buf');
const COMMITTED = join(ROOT, 'packages/contracts/src/gen');

let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'tw-proto-'));
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe('generated proto code', () => {
  it('when proto/ is regenerated with the buf.gen.yaml plugin options, then the output equals packages/contracts/src/gen byte for byte', async () => {
    const template = await readFile(join(ROOT, 'buf.gen.yaml'), 'utf8');
    const outLines = template.match(/^\s*out:.*$/gm) ?? [];
    expect(outLines).toEqual(['    out: packages/contracts/src/gen']);
    const out = join(tmp, 'gen');
    const tmpTemplate = join(tmp, 'buf.gen.yaml');
    // Only the output directory changes; plugin, strategy and options stay as committed.
    await writeFile(tmpTemplate, template.replace(/^(\s*out:\s*).*$/m, `$1${out}`));

    await run(BUF, ['generate', '--template', tmpTemplate], { cwd: ROOT });

    const generated = await listFiles(out);
    const committed = await listFiles(COMMITTED);
    expect(generated).toContain('tradewind/v1/events.ts');
    expect(committed).toEqual(generated);
    const changed: string[] = [];
    for (const file of generated) {
      const [a, b] = await Promise.all([readFile(join(out, file)), readFile(join(COMMITTED, file))]);
      if (!a.equals(b)) changed.push(file);
    }
    expect(changed, 'generated files differ from packages/contracts/src/gen; run `npm run proto` and commit the result').toEqual([]);
  });

  it('when buf lint runs over proto/, then it reports nothing', async () => {
    const result = await run(BUF, ['lint'], { cwd: ROOT }).then(
      (r) => ({ code: 0, output: r.stdout + r.stderr }),
      (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code ?? -1, output: `${err.stdout ?? ''}${err.stderr ?? ''}` }),
    );
    expect(result).toEqual({ code: 0, output: '' });
  });
});
