#!/usr/bin/env node
/**
 * Tradewind WebSocket starter (Node.js ≥ 20, dependency: ws).
 *
 *   TRADEWIND_CREDS=./tradewind.creds node client.mjs basic.pumpfun basic.bonk
 *
 * Protocol (docs/websocket.md): the server sends {"type":"challenge","nonce"}; the client answers
 * {"jwt","sig"} (Ed25519 signature of the nonce by the NKey seed, so the seed never leaves this
 * machine) or, with TRADEWIND_SEND_SEED=1, {"jwt","nkey"}; after {"type":"authenticated"} it sends
 * {"subject"} per subject. Control messages always have a "type"; trade messages never do.
 *
 * stdout: one trade per line, the exact JSON the server sent (pipe it into jq).
 * stderr: connection status, control messages, errors and close codes.
 *
 * Environment:
 *   TRADEWIND_CREDS      path of a .creds file (dashboard → Download .creds) or of the JSON that
 *                        `npm run creds` / GET /api/nats print (user_jwt, user_nkey_seed)
 *   TRADEWIND_JWT        user JWT            } instead of TRADEWIND_CREDS
 *   TRADEWIND_NKEY_SEED  user NKey seed (SU…) }
 *   TRADEWIND_WS_URL     default: ws_connection/ws_url of a JSON creds file, else ws://localhost:9223
 *   TRADEWIND_SEND_SEED  "1" to send {"jwt","nkey"} instead of signing the challenge
 */
import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';

const DEFAULT_WS_URL = 'ws://localhost:9223';
/** Close codes after which reconnecting with the same credentials cannot help (docs/websocket.md §7). */
const FATAL_CLOSE_CODES = new Map([
  [4401, 'the credentials were refused (invalid, expired or revoked): get new ones from the dashboard'],
  [4400, 'the server could not understand the request'],
]);
const BACKOFF_START_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;

const log = (line) => process.stderr.write(`${line}\n`);

/** Reads {jwt, seed, wsUrl} from TRADEWIND_CREDS (a .creds file or JSON) or TRADEWIND_JWT + TRADEWIND_NKEY_SEED. */
function loadCredentials(env) {
  if (env.TRADEWIND_CREDS) {
    const text = readFileSync(env.TRADEWIND_CREDS, 'utf8');
    if (text.trimStart().startsWith('{')) {
      const json = JSON.parse(text);
      return { jwt: json.user_jwt, seed: json.user_nkey_seed, wsUrl: json.ws_connection ?? json.ws_url };
    }
    // The standard .creds layout: the JWT and the seed each between BEGIN/END marker lines.
    const jwt = /-----BEGIN NATS USER JWT-----\s*([^\s-][^\s]*)\s*-+END NATS USER JWT-+/.exec(text)?.[1];
    const seed = /-----BEGIN USER NKEY SEED-----\s*(SU[A-Z2-7]+)\s*-+END USER NKEY SEED-+/.exec(text)?.[1];
    return { jwt, seed, wsUrl: undefined };
  }
  return { jwt: env.TRADEWIND_JWT, seed: env.TRADEWIND_NKEY_SEED, wsUrl: undefined };
}

/** RFC 4648 base32 (no padding) → bytes. */
function base32Decode(text) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const out = [];
  let bits = 0;
  let value = 0;
  for (const ch of text) {
    const index = alphabet.indexOf(ch);
    if (index < 0) throw new Error(`invalid base32 character ${JSON.stringify(ch)} in the NKey seed`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** CRC-16/XMODEM, the checksum NKeys append (little-endian). */
function crc16(bytes) {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The 32-byte Ed25519 private seed inside a user NKey seed ("SU…"). */
function rawSeed(nkeySeed) {
  const bytes = base32Decode(nkeySeed);
  if (bytes.length !== 36) throw new Error('the NKey seed has the wrong length');
  if (crc16(bytes.subarray(0, 34)) !== bytes.readUInt16LE(34)) throw new Error('the NKey seed checksum does not match');
  const seedPrefix = bytes[0] & 0xf8; // 18 << 3: "S"
  const keyPrefix = ((bytes[0] & 0x07) << 5) | ((bytes[1] & 0xf8) >> 3); // 20 << 3: "U" (user)
  if (seedPrefix !== 18 << 3 || keyPrefix !== 20 << 3) throw new Error('not a user NKey seed (it must start with SU)');
  return bytes.subarray(2, 34);
}

/** base64url Ed25519 signature of the nonce's UTF-8 bytes by the NKey (docs/websocket.md §1). */
function signNonce(nkeySeed, nonce) {
  const pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex'); // PKCS#8 wrapper of a raw Ed25519 seed
  const key = createPrivateKey({ key: Buffer.concat([pkcs8Prefix, rawSeed(nkeySeed)]), format: 'der', type: 'pkcs8' });
  return sign(null, Buffer.from(nonce, 'utf8'), key).toString('base64url');
}

function main() {
  const creds = loadCredentials(process.env);
  if (!creds.jwt || !creds.seed) {
    log('No credentials. Set TRADEWIND_CREDS to a .creds file (dashboard → Download .creds, or the JSON of `npm run creds -- --plan starter`),');
    log('or TRADEWIND_JWT and TRADEWIND_NKEY_SEED.');
    process.exit(2);
  }
  const url = process.env.TRADEWIND_WS_URL || creds.wsUrl || DEFAULT_WS_URL;
  const sendSeed = process.env.TRADEWIND_SEND_SEED === '1';
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  let backoffMs = BACKOFF_START_MS;
  let stopping = false;
  let socket;

  const connect = () => {
    log(`connecting to ${url}`);
    const ws = new WebSocket(url);
    socket = ws;
    const send = (msg) => ws.send(JSON.stringify(msg));

    ws.on('message', (data) => {
      const text = data.toString('utf8');
      const msg = JSON.parse(text);
      if (msg.type === undefined) {
        process.stdout.write(`${text}\n`); // a trade: exactly the bytes published on NATS
        return;
      }
      switch (msg.type) {
        case 'challenge':
          send(sendSeed ? { jwt: creds.jwt, nkey: creds.seed } : { jwt: creds.jwt, sig: signNonce(creds.seed, msg.nonce) });
          break;
        case 'authenticated': {
          backoffMs = BACKOFF_START_MS;
          const expires = msg.expires_at_ms === null ? 'never' : new Date(msg.expires_at_ms).toISOString();
          log(`authenticated: plan ${msg.plan}, subjects ${msg.subjects.join(', ')}, credentials expire ${expires}`);
          for (const subject of wanted.length > 0 ? wanted : msg.subjects) send({ subject });
          break;
        }
        case 'subscribed':
          log(`subscribed to ${msg.subject}`);
          break;
        case 'unsubscribed':
          log(`unsubscribed from ${msg.subject}${msg.reason ? ` (${msg.reason}: ${msg.message})` : ''}`);
          break;
        case 'plan_changed':
          log(`plan changed to ${msg.plan}; subjects now ${msg.subjects.join(', ')}`);
          break;
        case 'error':
          // Codes that keep the connection open (subject_not_in_plan, rate_limited, …) just get logged;
          // fatal ones are followed by a close frame, handled below.
          log(`error ${msg.code}: ${msg.message}`);
          break;
        default:
          log(`control message: ${text}`);
      }
    });

    ws.on('error', (err) => log(`socket error: ${err.message}`));

    ws.on('close', (code, reasonBytes) => {
      const reason = reasonBytes.toString('utf8');
      log(`closed: ${code}${reason ? ` ${reason}` : ''}`);
      if (stopping) process.exit(0);
      const fatal = FATAL_CLOSE_CODES.get(code);
      if (fatal) {
        log(`not reconnecting: ${fatal}`);
        process.exit(1);
      }
      // 4429 connection_limit, 4413 slow_consumer, 1001 server restart, network errors: try again later.
      const delay = Math.round(backoffMs * (0.5 + Math.random() / 2));
      log(`reconnecting in ${delay} ms`);
      setTimeout(connect, delay);
      backoffMs = Math.min(backoffMs * 2, BACKOFF_MAX_MS);
    });
  };

  const stop = () => {
    stopping = true;
    if (socket && socket.readyState === WebSocket.OPEN) socket.close(1000, 'bye');
    else process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  connect();
}

main();
