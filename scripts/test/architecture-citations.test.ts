/**
 * Design citations point at sections that exist (issue 23). Code, docs, proto, schemas, charts and
 * deploy files cite the design as "docs/architecture.md §n" and the house style as "docs/style.md §n"
 * (docs/style.md §12). This test scans every text file of the repository (git's tracked and
 * not-ignored files; node_modules, dist, artifacts and .tradewind excluded) and fails when
 *  - a cited section number has no `## n.` heading in the named doc, or
 *  - a bare citation of the first design documents, which live outside the repository, is left.
 * It also pins the topics of docs/architecture.md §1–§9, so an existing "§n" keeps its meaning.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** The cited docs, by the path citations use. */
const DOCS = ['docs/architecture.md', 'docs/style.md'] as const;
type Doc = (typeof DOCS)[number];

/** Path prefixes/segments never scanned: dependencies, build output, local state. */
const EXCLUDED_SEGMENTS = new Set(['node_modules', 'dist', 'artifacts', '.tradewind', '.git']);

/** Files larger than this are data (recordings, lock files), not prose; bytes. */
const MAX_SCANNED_BYTES = 2 * 1024 * 1024;

// Built from parts so this file does not cite (or flag) itself.
const ARCH = 'ARCHI' + 'TECTURE';
const STYLE = 'ST' + 'YLE';
/** Bare citations of the first design documents: "<ARCH> §n", "<ARCH>.md", "<STYLE> §n", "<STYLE>.md", '<STYLE> "Section"'. */
const BARE_CITATION = new RegExp(`\\b(?:${ARCH}|${STYLE})(?:\\.md\\b|\\s*§|\\s+")`, 'g');

/** "docs/architecture.md §4", "docs/architecture.md §4, §8", "docs/style.md §9 and §11". */
const CITATION = /(docs\/(?:architecture|style)\.md) (§\s*\d+(?:(?:, | and )§\s*\d+)*)/g;

/** One citation of a section. */
interface Citation {
  file: string;
  line: number;
  doc: Doc;
  section: number;
}

/** Every "docs/<doc>.md §n" in `text` (one entry per section number). */
function citationsIn(file: string, text: string): Citation[] {
  const found: Citation[] = [];
  text.split('\n').forEach((lineText, index) => {
    for (const match of lineText.matchAll(CITATION)) {
      for (const number of match[2]!.matchAll(/§\s*(\d+)/g)) {
        found.push({ file, line: index + 1, doc: match[1] as Doc, section: Number(number[1]) });
      }
    }
  });
  return found;
}

/** `file:line: text` of every bare first-design citation in `text`. */
function bareCitationsIn(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((lineText, index) => {
    if (lineText.match(BARE_CITATION)) found.push(`${file}:${index + 1}: ${lineText.trim().slice(0, 160)}`);
  });
  return found;
}

/** Section numbers of a doc: its `## n.` headings. */
function sectionsOf(markdown: string): Map<number, string> {
  const sections = new Map<number, string>();
  for (const match of markdown.matchAll(/^## (\d+)\.\s+(.+)$/gm)) sections.set(Number(match[1]), match[2]!.trim());
  return sections;
}

function excluded(path: string): boolean {
  return path.split('/').some((segment) => EXCLUDED_SEGMENTS.has(segment));
}

/** Repository files, relative to ROOT: git's tracked and untracked-not-ignored files, else a directory walk. */
function repositoryFiles(): string[] {
  let files: string[];
  try {
    files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
      .split('\0')
      .filter(Boolean);
  } catch {
    files = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (EXCLUDED_SEGMENTS.has(entry.name)) continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.isFile()) files.push(relative(ROOT, path));
      }
    };
    walk(ROOT);
  }
  return files.filter((file) => !excluded(file));
}

/** The text of a file, or undefined for a missing, large or binary file. */
function textOf(file: string): string | undefined {
  const path = join(ROOT, file);
  try {
    if (statSync(path).size > MAX_SCANNED_BYTES) return undefined;
  } catch {
    return undefined; // deleted in the working tree but still in the index
  }
  const bytes = readFileSync(path);
  if (bytes.includes(0)) return undefined;
  return bytes.toString('utf8');
}

function scan(): { citations: Citation[]; bare: string[] } {
  const citations: Citation[] = [];
  const bare: string[] = [];
  for (const file of repositoryFiles()) {
    const text = textOf(file);
    if (text === undefined) continue;
    citations.push(...citationsIn(file, text));
    bare.push(...bareCitationsIn(file, text));
  }
  return { citations, bare };
}

describe('design citations (docs/architecture.md, docs/style.md)', () => {
  const sections = new Map<Doc, Map<number, string>>(DOCS.map((doc) => [doc, sectionsOf(readFileSync(join(ROOT, doc), 'utf8'))]));
  const { citations, bare } = scan();

  it('when the repository is scanned, then it finds the citations of both docs (the scan reads the tree)', () => {
    expect(citations.filter((c) => c.doc === 'docs/architecture.md').length).toBeGreaterThan(40);
    expect(citations.filter((c) => c.doc === 'docs/style.md').length).toBeGreaterThan(3);
  });

  it('when a file cites docs/<doc>.md §n, then the doc has a "## n." heading', () => {
    const missing = citations
      .filter((c) => !sections.get(c.doc)!.has(c.section))
      .map((c) => `${c.file}:${c.line}: ${c.doc} §${c.section} has no "## ${c.section}." heading`);
    expect(missing).toEqual([]);
  });

  it('when a file cites the first design documents by their old names, then the test names the line', () => {
    expect(bare).toEqual([]);
  });

  it('when docs/architecture.md is read, then §1–§9 keep the topics existing citations rely on', () => {
    const topics = [...sections.get('docs/architecture.md')!.entries()].map(([n, title]) => `${n}. ${title}`);
    expect(topics).toEqual([
      '1. What flows where',
      '2. Repository layout',
      '3. README contract (two commands)',
      '4. Ports (local defaults)',
      '5. Streams and subjects',
      '6. Trade messages',
      '7. WebSocket protocol (port 9223)',
      '8. Credentials and plans',
      '9. Operations',
    ]);
  });

  it('when a citation lists several sections or a bare old name appears, then the parsers see each', () => {
    const text = `a (docs/architecture.md §4, §8) b\nsee docs/style.md §9 and §11\n${ARCH} §6 and ${STYLE}.md and ${STYLE} "Events"`;
    expect(citationsIn('x', text).map((c) => `${c.doc}#${c.section}@${c.line}`)).toEqual([
      'docs/architecture.md#4@1',
      'docs/architecture.md#8@1',
      'docs/style.md#9@2',
      'docs/style.md#11@2',
    ]);
    expect(bareCitationsIn('x', text)).toHaveLength(1);
    expect(bareCitationsIn('x', `the first design (${ARCH}, kept outside) and docs/style.md`)).toEqual([]);
  });
});
