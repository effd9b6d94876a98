import { describe, expect, it } from 'vitest';
import { LOGIN_FAILURE_WINDOW_MS, LoginGuard, normaliseAddress } from './login-guard.js';

/** A guard on a hand-driven clock that starts at the beginning of a minute. */
function guardAt(limit: number, maxTracked = 100_000, ipv6PrefixBits = 128) {
  const clock = { t: 1_800_000_000_000 - (1_800_000_000_000 % LOGIN_FAILURE_WINDOW_MS) };
  return { clock, guard: new LoginGuard(limit, () => clock.t, maxTracked, ipv6PrefixBits) };
}

const failTimes = (guard: LoginGuard, address: string, n: number) => {
  for (let i = 0; i < n; i++) guard.recordFailure(address);
};

describe('LoginGuard', () => {
  it('when an address has failed fewer times than the limit, then it is allowed; at the limit it is refused with a retry time; others are unaffected', () => {
    const { guard } = guardAt(3);
    expect(guard.allow('10.0.0.1')).toEqual({ allowed: true });
    failTimes(guard, '10.0.0.1', 2);
    expect(guard.allow('10.0.0.1')).toEqual({ allowed: true });
    guard.recordFailure('10.0.0.1');
    const refused = guard.allow('10.0.0.1');
    expect(refused.allowed).toBe(false);
    expect(guard.allow('10.0.0.2')).toEqual({ allowed: true });
  });

  it('when all failures fall in one minute, then the address is refused until retryAfterMs has passed, not 1 ms earlier', () => {
    const { clock, guard } = guardAt(3);
    clock.t += 15_000;
    failTimes(guard, '10.0.0.1', 3); // current = 3 = limit: free once 3 × (1 − x) < 3 in the next minute, i.e. just after it starts
    const d = guard.allow('10.0.0.1');
    expect(d).toEqual({ allowed: false, retryAfterMs: 45_001 });
    clock.t += 45_000;
    expect(guard.allow('10.0.0.1').allowed).toBe(false);
    clock.t += 1;
    expect(guard.allow('10.0.0.1')).toEqual({ allowed: true });
  });

  it('when failures of the previous minute still weigh, then the refusal lasts until their share drops below the limit (sliding window)', () => {
    const { clock, guard } = guardAt(4);
    failTimes(guard, '10.0.0.1', 6); // minute 0: 6 failures (refused)
    clock.t += LOGIN_FAILURE_WINDOW_MS; // minute 1 starts: weighted = 6 × 1 = 6
    const d = guard.allow('10.0.0.1');
    // 6 × (1 − x) < 4  ⇔  x > 1/3  ⇒  20 000 ms into minute 1.
    expect(d).toEqual({ allowed: false, retryAfterMs: 20_001 });
    clock.t += 20_000;
    expect(guard.allow('10.0.0.1').allowed).toBe(false);
    clock.t += 1;
    expect(guard.allow('10.0.0.1')).toEqual({ allowed: true });
    guard.recordFailure('10.0.0.1'); // 6 × (1 − 20 001/60 000) + 1 ≈ 5 ≥ 4: refused again
    const again = guard.allow('10.0.0.1');
    expect(again.allowed).toBe(false);
    // 6 × (1 − x) + 1 < 4  ⇔  x > 1/2  ⇒  30 000 ms into minute 1, 9 999 ms from now.
    expect(again).toEqual({ allowed: false, retryAfterMs: 10_000 });
  });

  it('when two minutes pass without failures, then the address is forgotten', () => {
    const { clock, guard } = guardAt(2);
    failTimes(guard, '10.0.0.1', 5);
    expect(guard.allow('10.0.0.1').allowed).toBe(false);
    clock.t += 2 * LOGIN_FAILURE_WINDOW_MS;
    expect(guard.allow('10.0.0.1')).toEqual({ allowed: true });
    expect(guard.trackedAddresses).toBe(0);
  });

  it('when more addresses fail than it may track, then it holds at most that many, forgetting the one whose last failure is oldest', () => {
    const { guard } = guardAt(1, 3);
    for (const a of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) guard.recordFailure(a);
    guard.recordFailure('10.0.0.1'); // now the most recent
    guard.recordFailure('10.0.0.4'); // evicts 10.0.0.2
    expect(guard.trackedAddresses).toBe(3);
    expect(guard.allow('10.0.0.2')).toEqual({ allowed: true });
    for (const a of ['10.0.0.1', '10.0.0.3', '10.0.0.4']) expect(guard.allow(a).allowed, a).toBe(false);
    for (let i = 0; i < 1_000; i++) guard.recordFailure(`192.168.${i >> 8}.${i & 255}`);
    expect(guard.trackedAddresses).toBe(3);
  });

  it('when full with addresses of the previous minute and of this one, then new addresses evict the previous minute first, and the bound holds across minutes', () => {
    const { clock, guard } = guardAt(1, 4);
    failTimes(guard, '10.0.0.1', 1);
    failTimes(guard, '10.0.0.2', 1);
    clock.t += LOGIN_FAILURE_WINDOW_MS;
    failTimes(guard, '10.0.0.3', 1);
    failTimes(guard, '10.0.0.1', 1); // moves to this minute
    failTimes(guard, '10.0.0.4', 1);
    failTimes(guard, '10.0.0.5', 1); // full: evicts 10.0.0.2, the only address left from the previous minute
    expect(guard.trackedAddresses).toBe(4);
    expect(guard.allow('10.0.0.2')).toEqual({ allowed: true });
    for (const a of ['10.0.0.1', '10.0.0.3', '10.0.0.4', '10.0.0.5']) expect(guard.allow(a).allowed, a).toBe(false);
    failTimes(guard, '10.0.0.6', 1); // evicts 10.0.0.3, this minute's oldest last failure
    expect(guard.allow('10.0.0.3')).toEqual({ allowed: true });
    for (let minute = 0; minute < 3; minute++) {
      clock.t += LOGIN_FAILURE_WINDOW_MS / 2;
      for (let i = 0; i < 50; i++) guard.recordFailure(`172.16.${minute}.${i}`);
      expect(guard.trackedAddresses).toBe(4);
    }
  });

  it('when old addresses have expired, then recording a new failure drops them even below the bound', () => {
    const { clock, guard } = guardAt(5, 1_000);
    for (let i = 0; i < 10; i++) guard.recordFailure(`10.0.0.${i}`);
    clock.t += 2 * LOGIN_FAILURE_WINDOW_MS;
    guard.recordFailure('10.0.1.1');
    expect(guard.trackedAddresses).toBe(1);
  });

  it('when the same IPv4 client arrives as an IPv6-mapped address, then its failures are counted together', () => {
    const { guard } = guardAt(2);
    guard.recordFailure('::ffff:1.2.3.4');
    guard.recordFailure('1.2.3.4');
    expect(guard.allow('1.2.3.4').allowed).toBe(false);
    expect(guard.allow('::FFFF:1.2.3.4').allowed).toBe(false);
    expect(guard.allow('0:0:0:0:0:ffff:102:304').allowed).toBe(false);
  });

  it('when IPv6 addresses share a /64 and the guard groups by /64, then they are counted together; by default each is alone', () => {
    const grouped = guardAt(2, 100, 64).guard;
    grouped.recordFailure('2001:db8:1:2::1');
    grouped.recordFailure('2001:db8:1:2:ffff::9');
    expect(grouped.allow('2001:db8:1:2::77').allowed).toBe(false);
    expect(grouped.allow('2001:db8:1:3::1').allowed).toBe(true);
    const single = guardAt(2).guard;
    single.recordFailure('2001:db8:1:2::1');
    single.recordFailure('2001:db8:1:2:ffff::9');
    expect(single.allow('2001:db8:1:2::77').allowed).toBe(true);
  });

  it('when a limit is not a positive integer, then the constructor throws RangeError', () => {
    expect(() => new LoginGuard(0)).toThrow(RangeError);
    expect(() => new LoginGuard(1.5)).toThrow(RangeError);
    expect(() => new LoginGuard(5, Date.now, 0)).toThrow(RangeError);
    expect(() => new LoginGuard(5, Date.now, 10, 0)).toThrow(RangeError);
  });
});

describe('normaliseAddress', () => {
  it('when given IPv4, mapped IPv4 and IPv6 spellings, then equal addresses get one key', () => {
    expect(normaliseAddress('1.2.3.4')).toBe('1.2.3.4');
    expect(normaliseAddress('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(normaliseAddress('::FFFF:1.2.3.4')).toBe('1.2.3.4');
    expect(normaliseAddress('[::ffff:1.2.3.4]')).toBe('1.2.3.4');
    expect(normaliseAddress('::ffff:0102:0304')).toBe('1.2.3.4');
    expect(normaliseAddress('::1')).toBe(normaliseAddress('0:0:0:0:0:0:0:1'));
    expect(normaliseAddress('2001:DB8::1')).toBe(normaliseAddress('2001:db8:0:0:0:0:0:1'));
    expect(normaliseAddress('fe80::1%eth0')).toBe(normaliseAddress('fe80::1'));
    expect(normaliseAddress('2001:db8:1:2:3:4:5:6', 64)).toBe('2001:db8:1:2:0:0:0:0/64');
    expect(normaliseAddress('2001:db8:1:2:3:4:5:6', 56)).toBe('2001:db8:1:0:0:0:0:0/56');
    expect(normaliseAddress('::ffff:1.2.3.4', 64)).toBe('1.2.3.4');
  });

  it('when the text is not an IP address, then it is kept lower-cased and cut to a bounded length', () => {
    expect(normaliseAddress('1.2.3.256')).toBe('1.2.3.256');
    expect(normaliseAddress('1::2::3')).toBe('1::2::3');
    expect(normaliseAddress('')).toBe('');
    expect(normaliseAddress('X'.repeat(10_000))).toBe('x'.repeat(64));
  });
});
