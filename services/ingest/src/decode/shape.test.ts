import { describe, expect, it } from 'vitest';
import { literalMaker, merge } from './shape.js';
import { put } from './program.js';

/** What merge replaces: copying `src`'s fields onto a copy of `target` field by field. */
function putCopy(target: object, src: object): Record<string, unknown> {
  return put({ ...target }, src) as Record<string, unknown>;
}

describe('merge', () => {
  it('when src has new and shared keys, then keys keep target order, shared keys take src values, and the inputs are unchanged', () => {
    const t = { source: 'pumpfun', mint: 'old', slot: 1 };
    const s = { sol_amount: '5', mint: 'new', user: 'u' };
    const m = merge(t, s);
    expect(Object.keys(m)).toEqual(['source', 'mint', 'slot', 'sol_amount', 'user']);
    expect(m).toEqual({ source: 'pumpfun', mint: 'new', slot: 1, sol_amount: '5', user: 'u' });
    expect(JSON.stringify(m)).toBe(JSON.stringify(putCopy(t, s)));
    expect(t).toEqual({ source: 'pumpfun', mint: 'old', slot: 1 });
    expect(s).toEqual({ sol_amount: '5', mint: 'new', user: 'u' });
    expect(m).not.toBe(t);
  });

  it('when src has undefined values, then they are own keys of the result, as with put', () => {
    const m = merge({ a: 1 }, { b: undefined, c: 2 });
    expect(Object.keys(m)).toEqual(['a', 'b', 'c']);
    expect('b' in m).toBe(true);
  });

  it('when the same key lists come again with other values, then the cached merger gives the new values', () => {
    for (let i = 0; i < 5; i++) {
      const m = merge({ source: 'x', n: i }, { v: `v${i}`, w: [i] });
      expect(m).toEqual({ source: 'x', n: i, v: `v${i}`, w: [i] });
    }
  });

  it('when key lists share the first src key but differ after it (or in target), then each is merged by its own keys', () => {
    const a = merge({ t: 1 }, { mint: 'm', x: 1 });
    const b = merge({ t: 1 }, { mint: 'm', y: 2 });
    const c = merge({ t: 1, u: 2 }, { mint: 'm', x: 1 });
    const d = merge({ t: 1 }, { mint: 'm' });
    expect(a).toEqual({ t: 1, mint: 'm', x: 1 });
    expect(Object.keys(b)).toEqual(['t', 'mint', 'y']);
    expect(Object.keys(c)).toEqual(['t', 'u', 'mint', 'x']);
    expect(Object.keys(d)).toEqual(['t', 'mint']);
  });

  it('when src is empty or target is empty, then the result is a copy of the other', () => {
    expect(Object.keys(merge({ a: 1, b: 2 }, {}))).toEqual(['a', 'b']);
    expect(Object.keys(merge({}, { b: 2, a: 1 }))).toEqual(['b', 'a']);
  });

  it('when keys need quoting (spaces, quotes, backslashes), then they come out verbatim', () => {
    const s = { 'a b': 1, 'q"uote': 2, 'back\\slash': 3, 'new\nline': 4 };
    expect(merge({ x: 0 }, s)).toEqual({ x: 0, ...s });
  });

  it("when src holds an own __proto__ key (JSON.parse makes one), then the result equals put's and the prototype stays Object.prototype", () => {
    const s = JSON.parse('{"__proto__": {"polluted": true}, "k": 1}') as object;
    const m = merge({ a: 1 }, s);
    expect(JSON.stringify(m)).toBe(JSON.stringify(putCopy({ a: 1 }, s)));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('literalMaker', () => {
  it('when keys and values are given, then the object has those keys in order with those values', () => {
    const make = literalMaker(['mint', 'sol_amount', 'is_buy']);
    expect(make).not.toBeNull();
    const o = make!(['M', '10', true]);
    expect(Object.keys(o)).toEqual(['mint', 'sol_amount', 'is_buy']);
    expect(o).toEqual({ mint: 'M', sol_amount: '10', is_buy: true });
  });

  it('when keys hold __proto__ or a duplicate, then there is no maker (callers copy field by field)', () => {
    expect(literalMaker(['a', '__proto__'])).toBeNull();
    expect(literalMaker(['a', 'b', 'a'])).toBeNull();
  });
});
