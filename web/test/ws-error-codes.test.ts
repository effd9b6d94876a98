/**
 * One fact, three places: the WebSocket error codes ws-fanout can send (its WsErrorCode union), the
 * error table of docs/websocket.md §7 and the dashboard's API reference (web/src/content/api-reference.ts)
 * must name the same codes.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WS_ERROR_CODES, WS_OTHER_CLOSE_CODES } from '../src/content/api-reference';

const ROOT = resolve(import.meta.dirname, '../..');

/** The string literals of `export type WsErrorCode = …` in ws-fanout's errors.ts. */
function unionCodes(): Set<string> {
  const source = readFileSync(join(ROOT, 'services/ws-fanout/src/domain/errors.ts'), 'utf8');
  const union = /export type WsErrorCode =([^;]+);/.exec(source)![1]!;
  return new Set([...union.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!));
}

/** The codes in the first column of docs/websocket.md §7's table. */
function docCodes(): Set<string> {
  const doc = readFileSync(join(ROOT, 'docs/websocket.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## 7. Errors'), doc.indexOf('## 8.'));
  return new Set([...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!));
}

describe('WebSocket error codes', () => {
  it('when the server, the protocol doc and the API reference list their error codes, then they are the same set', () => {
    const union = unionCodes();
    const closeOnly = new Set(WS_OTHER_CLOSE_CODES.map((c) => c.reason).filter(Boolean));
    const sent = new Set([...union].filter((c) => !closeOnly.has(c)));
    expect(sent.size).toBeGreaterThan(20);
    expect([...docCodes()].sort()).toEqual([...sent].sort());
    expect([...new Set(WS_ERROR_CODES.map((c) => c.code))].sort()).toEqual([...sent].sort());
    for (const reason of closeOnly) expect(union.has(reason), reason).toBe(true);
  });
});
