#!/usr/bin/env python3
"""Tradewind WebSocket starter (Python ≥ 3.9, asyncio + websockets; PyNaCl for the challenge).

    TRADEWIND_CREDS=./tradewind.creds python3 client.py basic.pumpfun basic.bonk

Protocol (docs/websocket.md): the server sends {"type":"challenge","nonce"}; the client answers
{"jwt","sig"} (Ed25519 signature of the nonce by the NKey seed, so the seed never leaves this
machine) or {"jwt","nkey"} when no Ed25519 library is installed (or TRADEWIND_SEND_SEED=1); after
{"type":"authenticated"} it sends {"subject"} per subject. Control messages always have a "type";
trade messages never do.

stdout: one trade per line, the exact JSON the server sent.
stderr: connection status, control messages, errors and close codes.

Environment:
  TRADEWIND_CREDS      path of a .creds file (dashboard -> Download .creds) or of the JSON that
                       `npm run creds` / GET /api/nats print (user_jwt, user_nkey_seed)
  TRADEWIND_JWT        user JWT            } instead of TRADEWIND_CREDS
  TRADEWIND_NKEY_SEED  user NKey seed (SU…) }
  TRADEWIND_WS_URL     default: ws_connection/ws_url of a JSON creds file, else ws://localhost:9223
  TRADEWIND_SEND_SEED  "1" to send {"jwt","nkey"} instead of signing the challenge
"""
import asyncio
import base64
import json
import os
import random
import re
import signal
import sys
from datetime import datetime, timezone

import websockets

DEFAULT_WS_URL = "ws://localhost:9223"
# Close codes after which reconnecting with the same credentials cannot help (docs/websocket.md §7).
FATAL_CLOSE_CODES = {
    4401: "the credentials were refused (invalid, expired or revoked): get new ones from the dashboard",
    4400: "the server could not understand the request",
}
BACKOFF_START_S = 1.0
BACKOFF_MAX_S = 30.0


def log(line):
    print(line, file=sys.stderr, flush=True)


def load_credentials(env):
    """Returns (jwt, seed, ws_url) from TRADEWIND_CREDS (.creds or JSON) or TRADEWIND_JWT + TRADEWIND_NKEY_SEED."""
    path = env.get("TRADEWIND_CREDS")
    if path:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if text.lstrip().startswith("{"):
            data = json.loads(text)
            return data.get("user_jwt"), data.get("user_nkey_seed"), data.get("ws_connection") or data.get("ws_url")
        jwt = re.search(r"-----BEGIN NATS USER JWT-----\s*(\S+)\s*-+END NATS USER JWT-+", text)
        seed = re.search(r"-----BEGIN USER NKEY SEED-----\s*(SU[A-Z2-7]+)\s*-+END USER NKEY SEED-+", text)
        return (jwt.group(1) if jwt else None), (seed.group(1) if seed else None), None
    return env.get("TRADEWIND_JWT"), env.get("TRADEWIND_NKEY_SEED"), None


def crc16(data):
    """CRC-16/XMODEM, the checksum NKeys append (little-endian)."""
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def raw_seed(nkey_seed):
    """The 32-byte Ed25519 private seed inside a user NKey seed ("SU…")."""
    raw = base64.b32decode(nkey_seed + "=" * (-len(nkey_seed) % 8))
    if len(raw) != 36:
        raise ValueError("the NKey seed has the wrong length")
    if crc16(raw[:34]) != int.from_bytes(raw[34:], "little"):
        raise ValueError("the NKey seed checksum does not match")
    seed_prefix = raw[0] & 0xF8  # 18 << 3: "S"
    key_prefix = ((raw[0] & 0x07) << 5) | ((raw[1] & 0xF8) >> 3)  # 20 << 3: "U" (user)
    if seed_prefix != 18 << 3 or key_prefix != 20 << 3:
        raise ValueError("not a user NKey seed (it must start with SU)")
    return raw[2:34]


def ed25519_signer():
    """A function (raw_seed, message) -> signature, from PyNaCl or cryptography; None when neither is installed."""
    try:
        from nacl.signing import SigningKey

        return lambda seed, message: SigningKey(seed).sign(message).signature
    except ImportError:
        pass
    try:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return lambda seed, message: Ed25519PrivateKey.from_private_bytes(seed).sign(message)
    except ImportError:
        return None


def auth_message(jwt, seed, nonce, signer):
    """{"jwt","sig"} (base64url signature of the nonce's UTF-8 bytes), or {"jwt","nkey"} without a signer."""
    if signer is None:
        return {"jwt": jwt, "nkey": seed}
    sig = signer(raw_seed(seed), nonce.encode("utf-8"))
    return {"jwt": jwt, "sig": base64.urlsafe_b64encode(sig).rstrip(b"=").decode("ascii")}


class Fatal(Exception):
    pass


async def session(url, jwt, seed, wanted, signer, on_authenticated):
    """One connection: authenticate, subscribe, print trades until the socket closes."""
    log(f"connecting to {url}")
    async with websockets.connect(url, max_size=None) as ws:
        async for text in ws:
            msg = json.loads(text)
            kind = msg.get("type")
            if kind is None:
                print(text, flush=True)  # a trade: exactly the bytes published on NATS
            elif kind == "challenge":
                await ws.send(json.dumps(auth_message(jwt, seed, msg["nonce"], signer)))
            elif kind == "authenticated":
                on_authenticated()
                expires = msg.get("expires_at_ms")
                expires_text = "never" if expires is None else datetime.fromtimestamp(expires / 1000, timezone.utc).isoformat()
                log(f"authenticated: plan {msg['plan']}, subjects {', '.join(msg['subjects'])}, credentials expire {expires_text}")
                for subject in wanted or msg["subjects"]:
                    await ws.send(json.dumps({"subject": subject}))
            elif kind == "subscribed":
                log(f"subscribed to {msg['subject']}")
            elif kind == "unsubscribed":
                reason = f" ({msg['reason']}: {msg.get('message')})" if msg.get("reason") else ""
                log(f"unsubscribed from {msg['subject']}{reason}")
            elif kind == "plan_changed":
                log(f"plan changed to {msg['plan']}; subjects now {', '.join(msg['subjects'])}")
            elif kind == "error":
                # subject_not_in_plan, rate_limited, … keep the connection open; fatal codes are followed by a close.
                log(f"error {msg['code']}: {msg['message']}")
            else:
                log(f"control message: {text}")


async def main():
    jwt, seed, file_url = load_credentials(os.environ)
    if not jwt or not seed:
        log("No credentials. Set TRADEWIND_CREDS to a .creds file (dashboard -> Download .creds, or the JSON of `npm run creds -- --plan starter`),")
        log("or TRADEWIND_JWT and TRADEWIND_NKEY_SEED.")
        return 2
    url = os.environ.get("TRADEWIND_WS_URL") or file_url or DEFAULT_WS_URL
    send_seed = os.environ.get("TRADEWIND_SEND_SEED") == "1"
    signer = None if send_seed else ed25519_signer()
    if signer is None and not send_seed:
        log("note: no Ed25519 library (PyNaCl or cryptography), so the seed itself is sent ({jwt, nkey}); install PyNaCl to sign the challenge instead")
    wanted = [a for a in sys.argv[1:] if not a.startswith("-")]
    backoff = BACKOFF_START_S

    def reset_backoff():
        nonlocal backoff
        backoff = BACKOFF_START_S

    while True:
        try:
            await session(url, jwt, seed, wanted, signer, reset_backoff)
            code, reason = 1000, ""
        except websockets.exceptions.ConnectionClosed as e:
            code, reason = (e.rcvd.code, e.rcvd.reason) if e.rcvd else (1006, "no close frame")
        except OSError as e:
            code, reason = 1006, str(e)
        log(f"closed: {code} {reason}".rstrip())
        if code in FATAL_CLOSE_CODES:
            log(f"not reconnecting: {FATAL_CLOSE_CODES[code]}")
            return 1
        # 4429 connection_limit, 4413 slow_consumer, 1001 server restart, network errors: try again later.
        delay = backoff * (0.5 + random.random() / 2)
        log(f"reconnecting in {delay:.1f} s")
        await asyncio.sleep(delay)
        backoff = min(backoff * 2, BACKOFF_MAX_S)


def run():
    loop = asyncio.new_event_loop()
    task = loop.create_task(main())
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, task.cancel)
    try:
        return loop.run_until_complete(task)
    except asyncio.CancelledError:
        log("stopped")
        return 0
    finally:
        loop.close()


if __name__ == "__main__":
    sys.exit(run())
