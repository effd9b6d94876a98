/**
 * Regressions found by the decoder fuzz (scripts/reliability/fuzz/decoder.ts, issue 24): each case is a
 * recorded transaction with one `Program data:` event or instruction data changed exactly as the fuzz
 * changed it. Before src/decode/chain-check.ts the decoder published each as a valid message with a
 * wrong amount (or one its JSON Schema refuses); now the message is refused (reported to onUnknown as
 * kind `refused`) and the rest of the transaction still decodes. Byte edits: `at` is taken modulo the
 * length, as in the fuzz.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DecodeError, decodeTransaction, messageId, type UnknownItem } from '../src/decode/index.js';
import { decodeBase58 } from '../src/decode/base58.js';

const recording = fileURLToPath(new URL('../recording', import.meta.url));
const load = (prefix: string): Record<string, unknown> => {
  const [dir = '', start = ''] = prefix.split('/');
  const file = readdirSync(join(recording, dir)).find((f) => f.startsWith(start));
  if (!file) throw new Error(`no recording ${prefix}`);
  return JSON.parse(readFileSync(join(recording, dir, file), 'utf8')) as Record<string, unknown>;
};

type Op =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'set'; at: number; byte: number }
  | { kind: 'insert'; at: number; byte: number }
  | { kind: 'delete'; at: number }
  | { kind: 'truncate'; at: number };

/** The fuzz's byte edits (scripts/reliability/fuzz/decoder.ts mutateBytes). */
function mutate(bytes: Uint8Array, ops: Op[]): Uint8Array {
  let b = Array.from(bytes);
  for (const op of ops) {
    if (op.kind === 'insert') {
      b.splice(op.at % (b.length + 1), 0, op.byte);
      continue;
    }
    const at = op.at % b.length;
    if (op.kind === 'flip') b[at] = (b[at] ?? 0) ^ (1 << op.bit);
    else if (op.kind === 'set') b[at] = op.byte;
    else if (op.kind === 'delete') b.splice(at, 1);
    else b = b.slice(0, at);
  }
  return Uint8Array.from(b);
}

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function encodeBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let n = 0n;
  for (const x of bytes) n = (n << 8n) | BigInt(x);
  let out = '';
  for (; n > 0n; n /= 58n) out = B58[Number(n % 58n)] + out;
  return '1'.repeat(zeros) + out;
}

const meta = (raw: Record<string, unknown>) => raw.meta as { logMessages: string[]; innerInstructions: { instructions: { data: string }[] }[] };

/** `raw` with its log line `line` (a `Program data:` event) edited by `ops`. */
function withEvent(raw: Record<string, unknown>, line: number, ops: Op[]): Record<string, unknown> {
  const copy = structuredClone(raw);
  const logs = meta(copy).logMessages;
  const text = logs[line] ?? '';
  expect(text.startsWith('Program data: ')).toBe(true);
  logs[line] = `Program data: ${Buffer.from(mutate(Buffer.from(text.slice(14), 'base64'), ops)).toString('base64')}`;
  return copy;
}

/** Decodes `input` and returns the message ids and the refused reports. */
function decode(input: unknown): { ids: string[]; refused: UnknownItem[] } {
  const refused: UnknownItem[] = [];
  const ids = decodeTransaction(input, { onUnknown: (u) => u.kind === 'refused' && refused.push(u) }).map(messageId);
  return { ids, refused };
}

const EVENT_CASES: { name: string; file: string; line: number; ops: Op[]; id: string; reason: RegExp }[] = [
  {
    name: 'a pump.fun TradeEvent sol_amount one lamport off',
    file: 'pumpfun/ZEu5',
    line: 40,
    ops: [{ kind: 'flip', at: 40, bit: 0 }],
    id: ':4',
    reason: /sol_amount disagrees/,
  },
  {
    name: 'a pump.fun TradeEvent token_amount one unit off',
    file: 'pumpfun/ZEu5',
    line: 40,
    ops: [{ kind: 'flip', at: 48, bit: 0 }],
    id: ':4',
    reason: /token_amount disagrees/,
  },
  {
    name: 'a PumpSwap SellEvent shifted by one inserted byte',
    file: 'pumpswap/5FoZ',
    line: 40,
    ops: [
      { kind: 'insert', at: 9, byte: 254 },
      { kind: 'flip', at: 897554, bit: 0 },
    ],
    id: ':1',
    reason: /./,
  },
  {
    name: 'a Raydium CPMM SwapEvent with a changed transfer fee',
    file: 'raydium-cpmm/2Eaw',
    line: 4,
    ops: [
      { kind: 'set', at: 875486, byte: 191 },
      { kind: 'flip', at: 699996, bit: 3 },
      { kind: 'set', at: 240292, byte: 170 },
    ],
    id: ':0.0',
    reason: /./,
  },
  {
    name: 'a pump.fun CompletePumpAmmMigrationEvent shifted by one byte',
    file: 'pumpfun/3gsR',
    line: 181,
    ops: [{ kind: 'insert', at: 405495, byte: 243 }],
    id: ':2',
    reason: /MIGRATE/,
  },
  {
    name: 'a PumpSwap CreatePoolEvent (which the MIGRATE of the same pool repeats) with a changed quote amount',
    file: 'pumpswap/2ffH',
    line: 160,
    ops: [
      { kind: 'set', at: 293073, byte: 201 },
      { kind: 'flip', at: 810254, bit: 2 },
    ],
    id: ':0',
    reason: /MIGRATE/,
  },
  {
    name: 'a PumpSwap DepositEvent with a changed LP amount',
    file: 'pumpswap/63PQ',
    line: 65,
    ops: [
      { kind: 'insert', at: 11, byte: 3 },
      { kind: 'delete', at: 969469 },
    ],
    id: ':6',
    reason: /./,
  },
  {
    name: 'a PumpSwap WithdrawEvent with changed reserves (negative reserves after)',
    file: 'pumpswap/2Z6p',
    line: 39,
    ops: [
      { kind: 'delete', at: 963100 },
      { kind: 'flip', at: 1026913, bit: 0 },
      { kind: 'insert', at: 940870, byte: 120 },
    ],
    id: ':3',
    reason: /./,
  },
  {
    name: 'a 2026 pump.fun TradeEvent on a USDC curve cut before its quote_mint',
    file: 'pumpfun/2m5n',
    line: 15,
    ops: [{ kind: 'truncate', at: 500416 }],
    id: ':2.0',
    reason: /quote/,
  },
  {
    name: 'a 2026 pump.fun TradeEvent on a USDC curve claiming SOL',
    file: 'pumpfun/2m5n',
    line: 15,
    ops: [
      { kind: 'flip', at: 601838, bit: 3 },
      { kind: 'set', at: 319962, byte: 186 },
    ],
    id: ':2.0',
    reason: /sol_amount/,
  },
  {
    name: 'a 2024 Raydium CPMM SwapEvent cut before its transfer fees',
    file: 'raydium-cpmm/2bhr',
    line: 34,
    ops: [{ kind: 'truncate', at: 72 }],
    id: ':3.0',
    reason: /missing/,
  },
];

describe('decoder fuzz regressions: changed event bytes', () => {
  for (const c of EVENT_CASES) {
    it(`when ${c.file}… carries ${c.name}, then that message is refused, not published`, () => {
      const raw = load(c.file);
      const before = decode(raw);
      const id = before.ids.find((x) => x.endsWith(c.id));
      expect(id, 'the unmutated transaction has the message').toBeDefined();
      expect(before.refused).toEqual([]);
      const after = decode(withEvent(raw, c.line, c.ops));
      expect(after.ids).not.toContain(id);
      expect(after.refused.map((r) => r.name).join('; ')).toMatch(c.reason);
    });
  }
});

describe('decoder fuzz regressions: what is still published', () => {
  it('when one of four pump.fun buys on one curve loses its event, then the other three are still published (their sums are not compared)', () => {
    const raw = load('pumpfun/JBnr');
    const before = decode(raw);
    expect(before.ids).toHaveLength(4);
    // Cut to 7 bytes: shorter than a discriminator, so the instruction has no event and no message.
    const after = decode(withEvent(raw, 108, [{ kind: 'truncate', at: 7 }]));
    expect(after.ids).toEqual(before.ids.filter((x) => !x.endsWith(':5')));
    expect(after.refused).toEqual([]);
  });
});

describe('decoder fuzz regressions: changed instruction data and addresses', () => {
  it("when launchlab/3USu…'s emit_cpi event instruction is changed, then the BUY with the wrong sol_amount is refused", () => {
    const raw = load('launchlab/3USu');
    const before = decode(raw);
    expect(before.ids.some((x) => x.endsWith(':6'))).toBe(true);
    const copy = structuredClone(raw);
    const ix = meta(copy).innerInstructions[1]?.instructions[0];
    if (!ix) throw new Error('no inner instruction 1.0');
    ix.data = encodeBase58(
      mutate(decodeBase58(ix.data), [
        { kind: 'delete', at: 286342 },
        { kind: 'flip', at: 292666, bit: 3 },
        { kind: 'flip', at: 464253, bit: 0 },
        { kind: 'insert', at: 911555, byte: 14 },
      ]),
    );
    const after = decode(copy);
    expect(after.ids.some((x) => x.endsWith(':6'))).toBe(false);
    expect(after.refused.length).toBeGreaterThan(0);
  });

  it('when the signature or an account key is not base58, then the transaction is refused with DecodeError', () => {
    const raw = load('pumpfun/ZEu5');
    const badSig = structuredClone(raw) as { transaction: { signatures: string[]; message: { accountKeys: string[] } } };
    badSig.transaction.signatures[0] = `0${badSig.transaction.signatures[0]?.slice(1)}`;
    expect(() => decodeTransaction(badSig)).toThrow(DecodeError);
    const badKey = structuredClone(raw) as typeof badSig;
    badKey.transaction.message.accountKeys[1] = `${badKey.transaction.message.accountKeys[1]?.slice(0, -1)}\u00e9`;
    expect(() => decodeTransaction(badKey)).toThrow(DecodeError);
    expect(decodeTransaction(raw).length).toBeGreaterThan(0);
  });
});
