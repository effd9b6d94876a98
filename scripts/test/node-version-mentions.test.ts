/**
 * What the project tells its users about Node.js agrees with what it needs: package.json `engines`
 * `">=22"` (Node 22 LTS; Node 20 reached end of life on 2026-04-30, README.md "Two commands").
 * This test scans the user-facing files — every Markdown file, the web app's pages and blog posts
 * (web/src) and the starter templates (examples/) — and every package.json, and fails when one
 * names a Node version below the engines major as enough: "Node.js 20+", "Node 20 or newer",
 * "Node.js ≥ 20", "requires Node 20", `node@20`, NodeSource's `setup_20.x`, a `node:20` image,
 * `"node": ">=20"`, or `@types/node` 20. A past measurement ("Node 20.20.2, 2 shared cores") is
 * a fact about that run and is not flagged. Node 22's own mentions and newer ones pass.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** The major every user-facing mention must reach: `engines.node` of the root package.json (`>=22` → 22). */
const REQUIRED_MAJOR = Number(
  /^>=\s*(\d+)/.exec((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node)?.[1],
);

/** Directory names never scanned: dependencies, build output, local state. */
const EXCLUDED_DIRS = new Set(['node_modules', 'dist', 'artifacts', '.tradewind', '.git', 'coverage']);

/** Directories whose every text file is user-facing (repository-relative). */
const USER_FACING_DIRS = ['examples', 'web/src'];

/** Extensions of the text files scanned inside {@link USER_FACING_DIRS}. */
const TEXT_EXTENSIONS = /\.(md|mdx|tsx?|mjs|cjs|js|json|py|txt|html|css)$/;

/**
 * Files that may name an older Node as enough, each with its reason. An entry that no longer
 * matches anything fails the test: remove it.
 */
const ALLOWED: Record<string, string> = {
  'packages/client/README.md':
    'the customer client library still supports Node 20/21 (with the `ws` package), a product decision (the Node 22 change, issue 23)',
  'packages/client/package.json': 'the customer client library: engines ">=20", the same product decision',
};

/** One mention of an older Node version as enough. */
interface Finding {
  /** Repository-relative path. */
  file: string;
  /** 1-based line. */
  line: number;
  /** The matched text. */
  text: string;
  /** The Node major it names. */
  major: number;
}

/**
 * Phrasings that name a Node major as a sufficient version; group 1 is the major.
 * `node:(\d+)` is an image tag (`node:20-bookworm-slim`), never a `node:` builtin (those have names).
 */
const SUFFICIENT: readonly RegExp[] = [
  /\bnode(?:\.js|js)?\s*v?(\d+)(?:\.\d+)*\s*(?:\+|or (?:newer|later|above|higher|greater)\b|and (?:newer|later|up|above)\b)/gi,
  /\bnode(?:\.js|js)?\s*(?:≥|>=|&gt;=)\s*v?(\d+)/gi,
  /\b(?:requires?|needs?|at least|minimum)\s+node(?:\.js|js)?\s*v?(\d+)/gi,
  /\bnode@(\d+)\b/gi,
  /\bsetup_(\d+)\.x\b/gi,
  /\bnode:(\d+)\b/gi,
  /"node"\s*:\s*"\s*(?:>=|\^|~)?\s*(\d+)/gi,
  /"@types\/node"\s*:\s*"\s*(?:>=|\^|~)?\s*(\d+)/gi,
];

/** Every mention in `text` of a Node major below `required` as enough, in line order. */
function olderNodeMentions(file: string, text: string, required: number): Finding[] {
  const found: Finding[] = [];
  for (const pattern of SUFFICIENT) {
    for (const m of text.matchAll(pattern)) {
      const major = Number(m[1]);
      if (major >= required) continue;
      found.push({ file, line: text.slice(0, m.index).split('\n').length, text: m[0], major });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

/** Repository-relative paths of the files under `dir` (recursively) whose name passes `keep`. */
function walk(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (EXCLUDED_DIRS.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path, keep));
    else if (keep(name)) out.push(relative(ROOT, path));
  }
  return out;
}

/** The scanned files: every Markdown file and package.json, and every text file of {@link USER_FACING_DIRS}. */
function scannedFiles(): string[] {
  const files = new Set(walk(ROOT, (name) => name.endsWith('.md') || name === 'package.json'));
  for (const dir of USER_FACING_DIRS) for (const f of walk(join(ROOT, dir), (name) => TEXT_EXTENSIONS.test(name))) files.add(f);
  return [...files].sort();
}

describe('Node versions named to users', () => {
  const files = scannedFiles();
  const findings = files.flatMap((f) => olderNodeMentions(f, readFileSync(join(ROOT, f), 'utf8'), REQUIRED_MAJOR));

  it('when the repository is scanned, then the user-facing files were found (README, docs, blog posts, examples, package.json files)', () => {
    expect(REQUIRED_MAJOR).toBeGreaterThanOrEqual(22);
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/architecture.md',
        'examples/websocket/README.md',
        'examples/websocket/package.json',
        'examples/typescript/package.json',
        'web/src/content/blog/solana-websocket.tsx',
        'services/ingest/package.json',
      ]),
    );
  });

  it(`when a user-facing file names a Node version, then none below the engines major is named as enough`, () => {
    const listed = findings.filter((f) => !(f.file in ALLOWED)).map((f) => `${f.file}:${f.line}: ${f.text}`);
    expect(listed).toEqual([]);
  });

  it('when an allowed file no longer names an older Node, then its entry is flagged for removal', () => {
    expect(Object.keys(ALLOWED).filter((file) => !findings.some((f) => f.file === file))).toEqual([]);
  });

  describe('olderNodeMentions', () => {
    it('when a text names Node 20 as enough in any of the phrasings, then each is found with its line and major', () => {
      const text = [
        'For this guide install Node.js 20 or newer.',
        '// Node.js 20+: npm install ws',
        'Works in Node.js ≥ 20 and node >= 18.',
        'This requires Node 20.',
        '`npm install -g node@20 && hash -r`, `curl https://deb.nodesource.com/setup_20.x | bash -`',
        'FROM node:20-bookworm-slim',
        '"engines": { "node": ">=20" }, "@types/node": "^20.19.0"',
      ].join('\n');
      expect(olderNodeMentions('t.md', text, 22).map((f) => `${f.line}:${f.major}:${f.text}`)).toEqual([
        '1:20:Node.js 20 or newer',
        '2:20:Node.js 20+',
        '3:20:Node.js ≥ 20',
        '3:18:node >= 18',
        '4:20:requires Node 20',
        '5:20:node@20',
        '5:20:setup_20.x',
        '6:20:node:20',
        '7:20:"node": ">=20',
        '7:20:"@types/node": "^20',
      ]);
    });

    it('when a text names Node 22 or newer as enough, or an older Node only as a past measurement, then nothing is found', () => {
      const text = [
        'Node.js 22 or newer; Node 24+; `npm install -g --prefix /usr/local node@22`; "node": ">=22"; "@types/node": "^22.20.5"',
        'Measured on 2026-11-25 (Node 20, nats-server 2.9.10); Node 20.20.2, 2 shared cores; Node 20 reached end of life.',
        "import { readFile } from 'node:fs';",
      ].join('\n');
      expect(olderNodeMentions('t.md', text, 22)).toEqual([]);
    });
  });
});
