/**
 * Tradewind native NATS: trades at processed speed, each marked final or void by its slot's fate
 * (docs/nats.md, "Slot status natively"). Node.js ≥ 22, @nats-io/transport-node.
 *
 *   TRADEWIND_CREDS=./tradewind.creds npm run slots -- basic.pumpfun
 *
 * Subscribes to the subject and to `slots` (every plan). Each trade is printed when it arrives (at the
 * commitment it was streamed at, usually `processed`) and kept by slot; when its slot's status arrives the
 * trades of that slot are listed as confirmed, final (finalized) or void (dead: they never happened).
 *
 * stdout, one JSON object per line: `{"event":"trade","slot":…,"signature":…}` for each trade, then per slot
 * `{"event":"confirmed"|"final"|"void","slot":…,"signatures":[…],"reason"?:…}` (void: dead, `reason` skipped or
 * replay_failed).
 * stderr: status and errors. Environment as src/main.ts (TRADEWIND_CREDS, or TRADEWIND_JWT + TRADEWIND_NKEY_SEED,
 * TRADEWIND_NATS_URL).
 */
import { readFileSync } from 'node:fs';
import { connect, credsAuthenticator, jwtAuthenticator, type Authenticator, type Msg } from '@nats-io/transport-node';

const DEFAULT_NATS_URL = 'nats://localhost:4223';
/** Slots kept awaiting a final status at most (about 27 minutes of chain at 400 ms a slot); the oldest go first. */
const MAX_PENDING_SLOTS = 4_096;

interface SlotMessage {
  type: 'slot';
  slot: number;
  status: 'processed' | 'confirmed' | 'finalized' | 'dead';
  reason?: string;
  /** Trades ingest published from the slot, per subject. */
  trades?: Record<string, number>;
}

function authenticator(env: NodeJS.ProcessEnv): { auth: Authenticator; url: string | undefined } {
  const enc = new TextEncoder();
  if (env.TRADEWIND_CREDS) {
    const text = readFileSync(env.TRADEWIND_CREDS, 'utf8');
    if (text.trimStart().startsWith('{')) {
      const json = JSON.parse(text) as { user_jwt: string; user_nkey_seed: string; nats_connection?: string };
      return { auth: jwtAuthenticator(json.user_jwt, enc.encode(json.user_nkey_seed)), url: json.nats_connection };
    }
    return { auth: credsAuthenticator(enc.encode(text)), url: undefined };
  }
  if (env.TRADEWIND_JWT && env.TRADEWIND_NKEY_SEED) return { auth: jwtAuthenticator(env.TRADEWIND_JWT, enc.encode(env.TRADEWIND_NKEY_SEED)), url: undefined };
  throw new Error('set TRADEWIND_CREDS (a .creds file or the JSON of GET /api/nats), or TRADEWIND_JWT and TRADEWIND_NKEY_SEED');
}

async function main(): Promise<void> {
  const subject = process.argv[2] ?? 'basic.pumpfun';
  const { auth, url } = authenticator(process.env);
  const nc = await connect({ servers: process.env.TRADEWIND_NATS_URL ?? url ?? DEFAULT_NATS_URL, authenticator: auth, maxReconnectAttempts: -1 });
  process.stderr.write(`connected; ${subject} and slots\n`);
  /** Signatures of the trades received, by slot, until the slot is finalized or dead. */
  const pending = new Map<number, string[]>();
  /** Statuses that arrived for slots before any of their trades (never on one connection: kept to be safe). */
  const early = new Map<number, SlotMessage>();
  const settle = (m: SlotMessage, trades: string[]) => {
    const event = m.status === 'dead' ? 'void' : m.status === 'finalized' ? 'final' : 'confirmed';
    process.stdout.write(`${JSON.stringify({ event, slot: m.slot, signatures: trades, ...(m.reason ? { reason: m.reason } : {}) })}\n`);
    if (m.status !== 'confirmed') pending.delete(m.slot);
  };
  const onTrade = (msg: Msg) => {
    const trade = msg.json<{ slot: number; signature: string }>();
    const list = pending.get(trade.slot) ?? [];
    list.push(trade.signature);
    pending.set(trade.slot, list);
    if (pending.size > MAX_PENDING_SLOTS) pending.delete(pending.keys().next().value as number);
    process.stdout.write(`${JSON.stringify({ event: 'trade', slot: trade.slot, signature: trade.signature })}\n`);
    const status = early.get(trade.slot);
    if (status) {
      early.delete(trade.slot);
      settle(status, list);
    }
  };
  const onSlot = (msg: Msg) => {
    const m = msg.json<SlotMessage>();
    if (m.status === 'processed') return;
    const trades = pending.get(m.slot);
    if (trades) settle(m, trades);
    else if (m.trades?.[subject]) {
      early.set(m.slot, m);
      if (early.size > MAX_PENDING_SLOTS) early.delete(early.keys().next().value as number);
    }
  };
  const subs = [
    { sub: nc.subscribe(subject), on: onTrade },
    { sub: nc.subscribe('slots'), on: onSlot },
  ];
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void nc.drain());
  await Promise.all(
    subs.map(async ({ sub, on }) => {
      for await (const msg of sub) on(msg);
    }),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
