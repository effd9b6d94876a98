#!/usr/bin/env python3
"""Tradewind WebSocket starter (Python ≥ 3.9, asyncio + websockets; PyNaCl for the challenge).

    TRADEWIND_CREDS=./tradewind.creds python3 client.py basic.pumpfun basic.bonk

Protocol (docs/websocket.md): the server sends {"type":"challenge","nonce"}; the client answers
{"jwt","sig"} (Ed25519 signature of the nonce by the NKey seed, so the seed never leaves this
machine) or {"jwt","nkey"} when no Ed25519 library is installed (or TRADEWIND_SEND_SEED=1); after
{"type":"authenticated"} it sends {"subject"} per subject. Control messages always have a "type",
never "trade"; a trade message has no "type" or "type": "trade" (basic.pumpfun messages since
message schema version 2), and starts with its TRADES stream sequence "seq".

Reconnect and resume, as @tradewind/client does (packages/client in the Tradewind repository):
- backoff 1 s doubling to 30 s between attempts; after 10 failed attempts in a row it gives up
  (TRADEWIND_MAX_ATTEMPTS; 0 = never); close 4401 (credentials refused) and 4400 stop at once;
- each subject is resubscribed with "resume_after" = the last "seq" received, one request at a
  time (error frames name no subject); any trade with seq <= the last one is dropped, so nothing
  is printed twice; "resume_too_old" is reported as a GAP on stderr and the subject goes on live;
- watchdog: nothing at all (trade, heartbeat) for 15 s (3 x the server's 5 s heartbeat) means a
  dead link: it is dropped and reconnected.

stdout: one trade per line, the exact JSON the server sent.
stderr: connection status, control messages, errors and close codes.

Environment:
  TRADEWIND_CREDS      path of a .creds file (dashboard -> Download .creds) or of the JSON that
                       `npm run creds` / GET /api/nats print (user_jwt, user_nkey_seed)
  TRADEWIND_JWT        user JWT            } instead of TRADEWIND_CREDS
  TRADEWIND_NKEY_SEED  user NKey seed (SU…) }
  TRADEWIND_WS_URL     default: ws_connection/ws_url of a JSON creds file, else ws://localhost:9223
  TRADEWIND_SEND_SEED  "1" to send {"jwt","nkey"} instead of signing the challenge
  TRADEWIND_MAX_ATTEMPTS  consecutive failed connection attempts before giving up (default 10; 0 = never)
  TRADEWIND_WATCHDOG_S    seconds without any frame before the link is treated as dead (default 15)
"""
import asyncio
import base64
import json
import os
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
# Reconnect schedule (product spec: 1000 ms doubling, capped at 30000 ms, up to 10 attempts).
BACKOFF_START_S = 1.0
BACKOFF_MAX_S = 30.0
MAX_ATTEMPTS = 10
# Three of the server's 5 s heartbeat intervals without any frame: the link is dead.
WATCHDOG_S = 15.0


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


class Watchdog(Exception):
    pass


# The subject of a trade, by its "source" (each schema's properties.source.const, packages/contracts/schemas).
SUBJECT_BY_SOURCE = {"pumpfun": "basic.pumpfun", "bonk": "basic.bonk", "pumpswap": "premium.pumpswap", "raydium_cpmm": "premium.raydium"}
# Error codes that end a subscribe request for good (the subject is dropped).
SUBJECT_REFUSALS = {"unknown_subject", "subject_not_in_plan", "bad_filter", "bad_request", "replay_not_in_plan"}


class SubjectState:
    """Where one subject stands: `last` = seq of the last trade printed (dedupe), `position` = where to resume (>= last)."""

    def __init__(self):
        self.last = None
        self.position = None
        self.resuming_after = None

    def note(self, seq):
        if isinstance(seq, int) and (self.position is None or seq > self.position):
            self.position = seq


async def session(url, jwt, seed, wanted, signer, subjects, watchdog_s, on_authenticated):
    """One connection: authenticate, (re)subscribe with resume_after, print trades until the socket closes.

    `subjects` (subject -> SubjectState) survives across sessions: it is what the next session resumes from.
    """
    log(f"connecting to {url}")
    # close_timeout: a link the watchdog gave up on gets 1 s for the close handshake, not the default 10 s.
    async with websockets.connect(url, max_size=None, close_timeout=1) as ws:
        queue = []  # subjects waiting for their subscribe request
        in_flight = None  # the subject whose request awaits its answer

        async def send_next():
            nonlocal in_flight
            while in_flight is None and queue:
                subject = queue.pop(0)
                state = subjects.get(subject)
                if state is None:
                    continue
                request = {"subject": subject}
                if state.position is not None:
                    request["resume_after"] = state.position
                state.resuming_after = state.position
                in_flight = subject
                await ws.send(json.dumps(request))

        while True:
            try:
                text = await asyncio.wait_for(ws.recv(), watchdog_s)
            except asyncio.TimeoutError:
                raise Watchdog(f"no frame for {watchdog_s:g} s")
            msg = json.loads(text)
            kind = msg.get("type")
            if kind is None or kind == "trade":
                # A trade: exactly the bytes the server sent, unless its seq was printed already.
                subject = SUBJECT_BY_SOURCE.get(msg.get("source"))
                if subject is None and len(subjects) == 1:
                    subject = next(iter(subjects))
                state = subjects.get(subject)
                seq = msg.get("seq")
                if state is not None and isinstance(seq, int):
                    if state.last is not None and seq <= state.last:
                        continue  # a duplicate: never printed twice
                    state.last = seq
                    state.note(seq)
                print(text, flush=True)
            elif kind == "challenge":
                await ws.send(json.dumps(auth_message(jwt, seed, msg["nonce"], signer)))
            elif kind == "authenticated":
                on_authenticated()
                expires = msg.get("expires_at_ms")
                expires_text = "never" if expires is None else datetime.fromtimestamp(expires / 1000, timezone.utc).isoformat()
                log(f"authenticated: plan {msg['plan']}, subjects {', '.join(msg['subjects'])}, credentials expire {expires_text}")
                if not subjects:  # first session: the subjects named, else every subject of the plan
                    for subject in wanted or msg["subjects"]:
                        subjects[subject] = SubjectState()
                queue[:] = list(subjects)
                await send_next()
            elif kind == "subscribed":
                subject = msg["subject"]
                state = subjects.get(subject)
                if state is not None and msg.get("resume_after") is None:
                    state.note(msg.get("seq"))  # a live subscription starts after this seq
                resuming = f" (resuming after seq {msg['resume_after']})" if msg.get("resume_after") is not None else ""
                log(f"subscribed to {subject}{resuming}")
                if in_flight == subject:
                    in_flight = None
                    await send_next()
            elif kind == "replay_caught_up":
                state = subjects.get(msg["subject"])
                if state is not None:
                    state.note(msg.get("seq"))
                    if state.resuming_after is not None:
                        log(f"{msg['subject']}: every trade after seq {state.resuming_after} delivered; live from here")
                        state.resuming_after = None
            elif kind == "heartbeat":
                for subject, seq in (msg.get("subjects") or {}).items():
                    if subject in subjects:
                        subjects[subject].note(seq)
            elif kind == "unsubscribed":
                reason = f" ({msg['reason']}: {msg.get('message')})" if msg.get("reason") else ""
                if msg.get("reason"):
                    subjects.pop(msg["subject"], None)  # the plan no longer has it: do not ask again
                log(f"unsubscribed from {msg['subject']}{reason}")
            elif kind == "plan_changed":
                log(f"plan changed to {msg['plan']}; subjects now {', '.join(msg['subjects'])}")
            elif kind == "error":
                # subject_not_in_plan, rate_limited, … keep the connection open; fatal codes are followed by a close.
                code = msg["code"]
                subject, in_flight = in_flight, None
                log(f"error {code}{f' ({subject})' if subject else ''}: {msg['message']}")
                state = subjects.get(subject) if subject else None
                if code in ("resume_too_old", "bad_resume") and state is not None and state.resuming_after is not None:
                    oldest = msg.get("oldest_seq")
                    log(f"GAP on {subject}: trades after seq {state.resuming_after}{f' and before {oldest}' if oldest else ''} could not be resumed ({code}); live from here")
                    state.position = None
                    state.resuming_after = None
                    if code == "bad_resume":
                        state.last = None  # a reset stream starts its sequences again
                    queue.insert(0, subject)
                elif code in SUBJECT_REFUSALS and subject is not None:
                    subjects.pop(subject, None)
                elif code in ("rate_limited", "unavailable") and subject is not None:
                    await asyncio.sleep(BACKOFF_START_S)
                    queue.append(subject)
                await send_next()
            else:
                log(f"control message: {text}")


def backoff_delay(attempt):
    """Seconds before reconnect attempt `attempt` (1-based): 1 s doubling, capped at 30 s (product spec)."""
    return min(BACKOFF_START_S * 2 ** (attempt - 1), BACKOFF_MAX_S)


async def main():
    jwt, seed, file_url = load_credentials(os.environ)
    if not jwt or not seed:
        log("No credentials. Set TRADEWIND_CREDS to a .creds file (dashboard -> Download .creds, or the JSON of `npm run -s creds -- --plan starter`),")
        log("or TRADEWIND_JWT and TRADEWIND_NKEY_SEED.")
        return 2
    url = os.environ.get("TRADEWIND_WS_URL") or file_url or DEFAULT_WS_URL
    send_seed = os.environ.get("TRADEWIND_SEND_SEED") == "1"
    signer = None if send_seed else ed25519_signer()
    if signer is None and not send_seed:
        log("note: no Ed25519 library (PyNaCl or cryptography), so the seed itself is sent ({jwt, nkey}); install PyNaCl to sign the challenge instead")
    max_attempts = int(os.environ.get("TRADEWIND_MAX_ATTEMPTS") or MAX_ATTEMPTS)
    watchdog_s = float(os.environ.get("TRADEWIND_WATCHDOG_S") or WATCHDOG_S)
    wanted = [a for a in sys.argv[1:] if not a.startswith("-")]
    subjects = {}
    attempt = 0  # reconnect attempts since the last successful authentication

    def authenticated():
        nonlocal attempt
        attempt = 0

    while True:
        try:
            await session(url, jwt, seed, wanted, signer, subjects, watchdog_s, authenticated)
            code, reason = 1000, ""
        except websockets.exceptions.ConnectionClosed as e:
            code, reason = (e.rcvd.code, e.rcvd.reason) if e.rcvd else (1006, "no close frame")
        except Watchdog as e:
            code, reason = 4000, f"watchdog: {e}"
        except OSError as e:
            code, reason = 1006, str(e)
        log(f"closed: {code} {reason}".rstrip())
        if code in FATAL_CLOSE_CODES:
            log(f"not reconnecting: {FATAL_CLOSE_CODES[code]}")
            return 1
        # 4429 connection_limit, 4413 slow_consumer, 1001 server restart, network errors, watchdog: try again later.
        attempt += 1
        if max_attempts and attempt > max_attempts:
            log(f"not reconnecting: {max_attempts} attempts in a row failed")
            return 1
        delay = backoff_delay(attempt)
        log(f"reconnecting in {delay:g} s (attempt {attempt})")
        await asyncio.sleep(delay)


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
