/**
 * docs/spec-conformance.md lists every statement of the product specification (sections 1–9) with
 * where Tradewind implements it or why it differs. These checks keep the table honest as the code
 * moves: every row is complete and marked, row numbers are unique per section, and every file the
 * table names exists in the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DOC = readFileSync(resolve(ROOT, 'docs/spec-conformance.md'), 'utf8');

/** Splits a Markdown table row on unescaped pipes (`\|` stays inside its cell). */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

const ROWS = DOC.split('\n')
  .filter((l) => /^\| \d+\.\d+ \|/.test(l))
  .map(cells);

/** Repository paths named in the table (top-level folders of this repository only). */
const PATH = /\b((?:web|services|scripts|docs|examples|packages|deploy|charts|proto)\/[A-Za-z0-9_./<>{}*-]+[A-Za-z0-9_])/g;

describe('docs/spec-conformance.md', () => {
  it('when read, then it has sections 1 to 9 and rows in each', () => {
    for (let n = 1; n <= 9; n++) {
      expect(DOC).toMatch(new RegExp(`^## ${n}\\. `, 'm'));
      expect(ROWS.filter((r) => r[0]!.startsWith(`${n}.`)).length, `rows of section ${n}`).toBeGreaterThan(0);
    }
  });

  it('when each row is read, then it has four cells, none blank, and the last starts with =, +, ≠ or n/a', () => {
    expect(ROWS.length).toBeGreaterThan(200);
    for (const row of ROWS) {
      expect(row, row.join(' | ')).toHaveLength(4);
      for (const cell of row) expect(cell, row[0]).not.toBe('');
      expect(row[3], `row ${row[0]}`).toMatch(/^(=|\+|≠|n\/a)/);
    }
  });

  it('when the row numbers are read, then none repeats', () => {
    const ids = ROWS.map((r) => r[0]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('when a row names a file of the repository, then that file exists', () => {
    const missing: string[] = [];
    for (const row of ROWS) {
      for (const cell of row.slice(1)) {
        for (const [, path] of cell.matchAll(PATH)) {
          if (/[<>{}*]/.test(path!)) continue; // patterns such as packages/contracts/schemas/*.schema.json
          if (!existsSync(resolve(ROOT, path!))) missing.push(`${row[0]}: ${path}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
