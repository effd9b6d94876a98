/**
 * Failed authentications per source address, in this process's memory: once an address has
 * failed `maxFailuresPerMinute` times within the last minute, further attempts are refused
 * before any credential is checked (the caller answers `rate_limited`, close 4429), so a client
 * looping over bad credentials costs a map lookup instead of signature checks and resolver lookups.
 *
 * Sliding-window counter, as in request-rate-limiter.ts: per address a count for the current
 * fixed minute (aligned to the epoch) and for the previous one, and an attempt is allowed while
 *   previous × (share of the previous minute still inside the last 60 s) + current  <  limit.
 *
 * Memory bound: at most `maxTrackedAddresses` entries (default 100 000). Each holds a normalised
 * address key of at most {@link MAX_ADDRESS_KEY_LENGTH} characters and three numbers: ~150 bytes
 * measured (Node 20, IPv6 keys), so ≈ 15 MB at the default bound. Entries live in two maps by the
 * minute of their last failure (this minute, the previous one); when a new minute starts the older
 * map is dropped whole, since its failures no longer count. When full, a new address evicts the
 * address whose last failure is the oldest (the previous minute's before this minute's). Every call
 * is O(1) (amortised). No timers: the guard does nothing between calls and holds no process open.
 * An attacker controlling more than `maxTrackedAddresses` addresses can flush entries, and a
 * process restart forgets everything; the limit is a brake on bulk guessing, not an account lock.
 */

/** Window of the limit, ms (the limit is "per minute"). */
export const LOGIN_FAILURE_WINDOW_MS = 60_000;

/** Longest address key stored; longer unparseable addresses are cut (an IPv6 text is at most 45 characters). */
export const MAX_ADDRESS_KEY_LENGTH = 64;

/** The answer to "may this address try to authenticate now?". `retryAfterMs`: ms until one more attempt is allowed (≥ 1). */
export type LoginDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

const ALLOWED: LoginDecision = Object.freeze({ allowed: true });

interface Entry {
  /** Index of the minute that `current` counts (floor(ms / window)). */
  window: number;
  current: number;
  previous: number;
}

function parseIPv4(text: string): number[] | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return undefined;
  const octets = m.slice(1).map(Number);
  return octets.every((o) => o <= 255) ? octets : undefined;
}

/** The eight 16-bit groups of an IPv6 address (with `::` and a trailing dotted IPv4), or undefined. */
function parseIPv6(text: string): number[] | undefined {
  let s = text;
  const lastColon = s.lastIndexOf(':');
  if (lastColon < 0) return undefined;
  if (s.includes('.', lastColon)) {
    const q = parseIPv4(s.slice(lastColon + 1));
    if (!q) return undefined;
    s = `${s.slice(0, lastColon + 1)}${((q[0]! << 8) | q[1]!).toString(16)}:${((q[2]! << 8) | q[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(halves[0]);
  const right = groups(halves[1]);
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...left, ...Array<string>(halves.length === 1 ? 0 : missing).fill('0'), ...right];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return all.map((g) => parseInt(g, 16));
}

/**
 * The key an address is counted under: IPv4 as dotted decimal; an IPv4-mapped IPv6 address
 * (`::ffff:1.2.3.4`, any spelling) as its IPv4 address; other IPv6 addresses (brackets and zone
 * dropped) as eight lower-case hex groups, cut to their first `ipv6PrefixBits` bits (then suffixed
 * `/bits`); anything else lower-cased and cut to {@link MAX_ADDRESS_KEY_LENGTH} characters.
 * @param ipv6PrefixBits 128 counts each IPv6 address alone; 64 counts a whole /64 (one subscriber's usual allocation) as one.
 */
export function normaliseAddress(address: string, ipv6PrefixBits = 128): string {
  let a = String(address).trim().toLowerCase();
  if (a.startsWith('[') && a.endsWith(']')) a = a.slice(1, -1);
  const v4 = parseIPv4(a);
  if (v4) return v4.join('.');
  const zone = a.indexOf('%');
  const v6 = parseIPv6(zone >= 0 ? a.slice(0, zone) : a);
  if (!v6) return a.slice(0, MAX_ADDRESS_KEY_LENGTH);
  if (v6.slice(0, 5).every((g) => g === 0) && v6[5] === 0xffff) {
    return [v6[6]! >> 8, v6[6]! & 0xff, v6[7]! >> 8, v6[7]! & 0xff].join('.');
  }
  if (ipv6PrefixBits >= 128) return v6.map((g) => g.toString(16)).join(':');
  const masked = v6.map((g, i) => {
    const keep = Math.min(16, Math.max(0, ipv6PrefixBits - i * 16));
    return keep === 0 ? 0 : g & ((0xffff << (16 - keep)) & 0xffff);
  });
  return `${masked.map((g) => g.toString(16)).join(':')}/${ipv6PrefixBits}`;
}

/** Per-process limiter of failed authentications per source address (see the module comment). */
export class LoginGuard {
  /** Addresses whose last failure is in minute `newerWindow`, and in the minute before; each in order of last failure. */
  private newer = new Map<string, Entry>();
  private older = new Map<string, Entry>();
  private newerWindow = Number.NEGATIVE_INFINITY;
  /**
   * Eviction cursors: a Map iterator stays valid across deletes and skips them, so a cursor kept
   * between calls walks each map once, where `keys().next()` would rescan deleted slots each time.
   */
  private olderCursor: Iterator<string> | undefined;
  private newerCursor: Iterator<string> | undefined;

  /**
   * @param maxFailuresPerMinute failures an address may have within the last 60 s before it is refused (config WS_LOGIN_FAILURES_PER_MINUTE).
   * @param now clock, ms since epoch.
   * @param maxTrackedAddresses most addresses remembered at once (memory bound, see the module comment).
   * @param ipv6PrefixBits IPv6 addresses sharing this many leading bits count as one source (128: each alone; see {@link normaliseAddress}).
   * @throws RangeError when a limit is not a positive integer or `ipv6PrefixBits` is not an integer in 1..128.
   */
  constructor(
    private readonly maxFailuresPerMinute: number,
    private readonly now: () => number = Date.now,
    private readonly maxTrackedAddresses = 100_000,
    private readonly ipv6PrefixBits = 128,
  ) {
    if (!Number.isInteger(maxFailuresPerMinute) || maxFailuresPerMinute < 1)
      throw new RangeError(`maxFailuresPerMinute must be a positive integer, got ${maxFailuresPerMinute}`);
    if (!Number.isInteger(maxTrackedAddresses) || maxTrackedAddresses < 1)
      throw new RangeError(`maxTrackedAddresses must be a positive integer, got ${maxTrackedAddresses}`);
    if (!Number.isInteger(ipv6PrefixBits) || ipv6PrefixBits < 1 || ipv6PrefixBits > 128)
      throw new RangeError(`ipv6PrefixBits must be an integer in 1..128, got ${ipv6PrefixBits}`);
  }

  /** Addresses currently remembered (≤ maxTrackedAddresses). */
  get trackedAddresses(): number {
    return this.newer.size + this.older.size;
  }

  /** Whether `address` (a socket's remote address) may attempt to authenticate now. Does not count anything. */
  allow(address: string): LoginDecision {
    const t = this.advance();
    const key = normaliseAddress(address, this.ipv6PrefixBits);
    const entry = this.newer.get(key) ?? this.older.get(key);
    if (!entry) return ALLOWED;
    const window = this.newerWindow;
    roll(entry, window);
    const start = window * LOGIN_FAILURE_WINDOW_MS;
    const max = this.maxFailuresPerMinute;
    if (entry.previous * (1 - (t - start) / LOGIN_FAILURE_WINDOW_MS) + entry.current < max) return ALLOWED;
    // When the weighted count falls below the limit: later in this minute while `current` alone is
    // below it (the previous minute's share shrinks), else in the next minute, where `current`
    // becomes the shrinking share.
    const allowedAt =
      entry.current < max
        ? start + LOGIN_FAILURE_WINDOW_MS * (1 - (max - entry.current) / entry.previous)
        : start + LOGIN_FAILURE_WINDOW_MS * (2 - max / entry.current);
    return { allowed: false, retryAfterMs: Math.max(1, Math.floor(allowedAt - t) + 1) };
  }

  /** Counts one failed authentication from `address`. */
  recordFailure(address: string): void {
    this.advance();
    const key = normaliseAddress(address, this.ipv6PrefixBits);
    let entry = this.newer.get(key);
    if (entry) {
      this.newer.delete(key); // re-added below: each map stays in order of last failure
    } else {
      entry = this.older.get(key);
      if (entry) {
        this.older.delete(key);
      } else {
        while (this.trackedAddresses >= this.maxTrackedAddresses) this.evictOne();
        entry = { window: this.newerWindow, current: 0, previous: 0 };
      }
    }
    this.newer.set(key, entry);
    roll(entry, this.newerWindow);
    entry.current += 1;
  }

  /**
   * Moves the generations to the current minute: a minute later the newer map becomes the older
   * one; two or more minutes later both start empty.
   * @returns the time to compute with, ms: the clock, or the start of the newest minute seen when the clock stepped back.
   */
  private advance(): number {
    const t = Math.max(this.now(), this.newerWindow * LOGIN_FAILURE_WINDOW_MS);
    const window = Math.floor(t / LOGIN_FAILURE_WINDOW_MS);
    if (window > this.newerWindow) {
      this.older = window === this.newerWindow + 1 ? this.newer : new Map();
      this.newer = new Map();
      this.newerWindow = window;
      this.olderCursor = undefined;
      this.newerCursor = undefined;
    }
    return t;
  }

  private evictOne(): void {
    if (this.older.size > 0) {
      this.olderCursor ??= this.older.keys();
      // Nothing is added to the older map, and everything before the cursor was evicted: next is the oldest left.
      const next = this.olderCursor.next();
      if (!next.done) this.older.delete(next.value);
      return;
    }
    // Keys re-added after a failure move behind the cursor's end and are reached again in their new place.
    this.newerCursor ??= this.newer.keys();
    let next = this.newerCursor.next();
    if (next.done) {
      this.newerCursor = this.newer.keys();
      next = this.newerCursor.next();
    }
    if (!next.done) this.newer.delete(next.value);
  }
}

/** Moves `entry` to minute `window` (≥ its own). */
function roll(entry: Entry, window: number): void {
  if (entry.window === window) return;
  entry.previous = entry.window === window - 1 ? entry.current : 0;
  entry.current = 0;
  entry.window = window;
}
