#!/usr/bin/env node
/**
 * Tradewind WebSocket starter (Node.js ≥ 22, dependency: @tradewind/client).
 *
 *   TRADEWIND_CREDS=./tradewind.creds node client.mjs basic.pumpfun basic.bonk
 *
 * The library speaks the protocol (docs/websocket.md): it answers the server's 'challenge' by
 * signing its nonce with your NKey seed and sending {"jwt","sig"} (the seed — user_nkey_seed in
 * the JSON credentials — never leaves this machine; the {"jwt","nkey"} variant is never used),
 * sends {"subject"} per subject after 'authenticated', reconnects with backoff (1 s doubling to
 * 30 s, 10 failed attempts in a row), and resumes each subject with "resume_after" = the last
 * "seq" it received, so no trade is missed or repeated across a dropped connection. A resume too
 * old for the server's window is reported as a gap, never silently.
 *
 * stdout: one trade per line, the JSON the server sent (with its "seq" first; pipe it into jq).
 * stderr: connection status, control messages, errors and close codes.
 *
 * Environment:
 *   TRADEWIND_CREDS      path of a .creds file (dashboard → Download .creds) or of the JSON that
 *                        `npm run creds` / GET /api/nats print (user_jwt, user_nkey_seed)
 *   TRADEWIND_JWT        user JWT            } instead of TRADEWIND_CREDS
 *   TRADEWIND_NKEY_SEED  user NKey seed (SU…) }
 *   TRADEWIND_WS_URL     default: ws_connection/ws_url of a JSON creds file, else ws://localhost:9223
 *   TRADEWIND_STATE      optional file where the last "seq" of each subject is kept: a restart
 *                        of this program then resumes where the previous run stopped
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { CredentialsRefusedError, TradewindClient, parseCredentials } from '@tradewind/client';

const DEFAULT_WS_URL = 'ws://localhost:9223';

const log = (line) => process.stderr.write(`${line}\n`);

/** {jwt, seed, wsUrl} from TRADEWIND_CREDS (a .creds file or JSON) or TRADEWIND_JWT + TRADEWIND_NKEY_SEED; undefined when none. */
function loadCredentials(env) {
  if (env.TRADEWIND_CREDS) return parseCredentials(readFileSync(env.TRADEWIND_CREDS, 'utf8'));
  if (env.TRADEWIND_JWT && env.TRADEWIND_NKEY_SEED) return { jwt: env.TRADEWIND_JWT, seed: env.TRADEWIND_NKEY_SEED, wsUrl: undefined };
  return undefined;
}

/** The saved positions ({"basic.pumpfun": 12345, …}) of TRADEWIND_STATE; {} when there is no file yet. */
function loadPositions(path) {
  if (!path) return {};
  let positions;
  try {
    positions = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return {};
    throw new Error(`${path}: ${err.message}`);
  }
  const ok = positions && typeof positions === 'object' && Object.values(positions).every((seq) => Number.isSafeInteger(seq) && seq >= 0);
  if (!ok) throw new Error(`${path} should hold {"<subject>": <seq>, …}`);
  return positions;
}

/** Writes the positions so that a crash never leaves a half-written file (temporary file, then rename). */
function savePositions(path, positions) {
  if (!path) return;
  writeFileSync(`${path}.tmp`, `${JSON.stringify(positions)}\n`);
  renameSync(`${path}.tmp`, path);
}

async function main() {
  let creds;
  try {
    creds = loadCredentials(process.env);
  } catch (err) {
    log(`bad credentials file: ${err.message}`);
    return 2;
  }
  if (!creds) {
    log('No credentials. Set TRADEWIND_CREDS to a .creds file (dashboard → Download .creds, or the JSON of `npm run -s creds -- --plan starter`),');
    log('or TRADEWIND_JWT and TRADEWIND_NKEY_SEED.');
    return 2;
  }
  const statePath = process.env.TRADEWIND_STATE;
  let saved;
  try {
    saved = loadPositions(statePath);
  } catch (err) {
    log(`bad state file: ${err.message}`);
    return 2;
  }
  let client;
  try {
    client = new TradewindClient({ url: process.env.TRADEWIND_WS_URL || creds.wsUrl || DEFAULT_WS_URL, jwt: creds.jwt, seed: creds.seed });
  } catch (err) {
    log(`bad settings: ${err.message}`); // e.g. a seed that is not the JWT's user key
    return 2;
  }
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));

  client.on('connecting', (e) => log(`connecting to ${e.url}${e.attempt ? ` (attempt ${e.attempt})` : ''}`));
  let subscribed = false;
  client.on('authenticated', (e) => {
    const expires = e.expiresAtMs === null ? 'never' : new Date(e.expiresAtMs).toISOString();
    log(`authenticated: plan ${e.plan}, subjects ${e.subjects.join(', ')}, credentials expire ${expires}`);
    if (subscribed) return; // after a reconnect the client resubscribes (and resumes) by itself
    subscribed = true;
    // No subject named: every subject of the plan, resumed from the state file when it has one.
    for (const subject of wanted.length > 0 ? wanted : e.subjects) client.subscribe(subject, { resumeAfter: saved[subject] });
  });
  client.on('subscribed', (e) => log(`subscribed to ${e.subject}${e.resumeAfter === null ? '' : ` (resuming after seq ${e.resumeAfter})`}`));
  client.on('resumed', (e) => log(`${e.subject}: every trade after seq ${e.afterSeq} delivered; live from here`));
  client.on('gap', (e) =>
    log(
      `GAP on ${e.subject}: trades after seq ${e.afterSeq}${e.oldestSeq ? ` and before ${e.oldestSeq}` : ''} could not be resumed (${e.reason}); live from here`,
    ),
  );
  client.on('unsubscribed', (e) => log(`unsubscribed from ${e.subject}${e.reason ? ` (${e.reason}: ${e.message})` : ''}`));
  client.on('plan_changed', (e) => log(`plan changed to ${e.plan}; subjects now ${e.subjects.join(', ')}`));
  // subject_not_in_plan, rate_limited, … keep the connection open; refusals of the credentials end it (below).
  client.on('error', (e) => log(`error ${e.code}${e.subject ? ` (${e.subject})` : ''}: ${e.message}`));
  client.on('reconnecting', (e) => log(`closed: ${e.closeCode}${e.reason ? ` ${e.reason}` : ''}; reconnecting in ${e.delayMs} ms (attempt ${e.attempt})`));

  const stop = () => client.close();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  void client.connect();
  try {
    for await (const trade of client.trades()) {
      process.stdout.write(`${JSON.stringify(trade)}\n`);
      if (statePath) savePositions(statePath, client.positions());
    }
    log('stopped');
    return 0;
  } catch (err) {
    if (err instanceof CredentialsRefusedError) {
      // Close 4401: invalid_jwt, nkey_mismatch, expired, revoked (rotated in the dashboard): reconnecting cannot help.
      log(`closed: ${err.closeCode} ${err.code}: ${err.message}`);
      log('not reconnecting: the credentials were refused (invalid, expired or revoked): get new ones from the dashboard');
    } else {
      log(`stopped: ${err.message}`);
    }
    return 1;
  } finally {
    savePositions(statePath, client.positions());
  }
}

main().then((code) => process.exit(code));
