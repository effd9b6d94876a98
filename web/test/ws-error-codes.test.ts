/**
 * One fact, one list: the WebSocket error codes are written once, in @tradewind/contracts/ws-errors
 * (ws-fanout's WsErrorCode type is derived from it, the dashboard's API reference and the blog read
 * it). The error table of docs/websocket.md §7 is prose for people and is checked against it here,
 * and no other file of ws-fanout or the web app spells out the list again.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WS_ERROR_CODES, WS_OTHER_CLOSE_CODES } from '@tradewind/contracts/ws-errors';
import { WS_ERROR_CODES as REFERENCE_CODES } from '../src/content/api-reference';

const ROOT = resolve(import.meta.dirname, '../..');

/** The codes in the first column of docs/websocket.md §7's table. */
function docCodes(): Set<string> {
  const doc = readFileSync(join(ROOT, 'docs/websocket.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## 7. Errors'), doc.indexOf('## 8.'));
  return new Set([...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!));
}

describe('WebSocket error codes', () => {
  it("when the protocol doc lists its error codes, then they are the contract's, and the API reference shows the contract's own list", () => {
    const sent = new Set(WS_ERROR_CODES.map((c) => c.code));
    expect(sent.size).toBeGreaterThan(20);
    expect([...docCodes()].sort()).toEqual([...sent].sort());
    expect(REFERENCE_CODES).toBe(WS_ERROR_CODES);
    expect(WS_OTHER_CLOSE_CODES.map((c) => c.reason).filter(Boolean)).toEqual(['slow_consumer']);
  });

  it("when ws-fanout's errors module is read, then it declares no list of codes of its own (it imports the contract's)", () => {
    const source = readFileSync(join(ROOT, 'services/ws-fanout/src/domain/errors.ts'), 'utf8');
    expect(source).toContain("from '@tradewind/contracts/ws-errors'");
    expect(source).not.toMatch(/'bad_json'|'resume_too_old'|4400|4429/);
  });

  it('when the client library names server codes it handles, then each is one the contract lists (it is published alone, so it keeps its own small sets)', () => {
    const source = readFileSync(join(ROOT, 'packages/client/src/client.ts'), 'utf8');
    const sets = [...source.matchAll(/const (SUBJECT_REFUSALS|RETRIED_REFUSALS) = new Set\(\[([^\]]*)\]\)/g)];
    expect(sets.map((m) => m[1])).toEqual(['SUBJECT_REFUSALS', 'RETRIED_REFUSALS']);
    const known = new Set<string>(WS_ERROR_CODES.map((c) => c.code));
    for (const [, name, list] of sets) {
      for (const [, code] of list!.matchAll(/'([a-z_]+)'/g)) expect(known.has(code!), `${name}: ${code}`).toBe(true);
    }
  });
});
