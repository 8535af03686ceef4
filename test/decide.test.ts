import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide } from '../src/decide';
import { createPolicy } from '../src/index';

const policy = (options: Parameters<typeof createPolicy>[0]) => createPolicy({ random: () => 0.5, ...options });

describe('decide: the retry decision as a value', () => {
  it('retries with the jittered delay while attempts remain', () => {
    expect(decide(policy({ maxAttempts: 3 }), 1, 0, undefined, undefined)).toEqual({
      retry: true,
      delayMs: 50,
      backoffMs: 50,
    });
    expect(decide(policy({ maxAttempts: 3 }), 3, 0, undefined, undefined)).toEqual({
      retry: false,
      reason: 'attempts',
    });
  });

  it("sleeps the server's wait plus a spread that grows with it, and stops when the wait is over maxRetryAfterMs", () => {
    // 1 000 + 0.5 * min(capMs, 1 000): the attempt number does not matter, nor does the backoff.
    expect(decide(policy({}), 1, 0, 1_000, undefined)).toEqual({ retry: true, delayMs: 1_500, backoffMs: undefined });
    expect(decide(policy({ maxAttempts: 10 }), 9, 0, 1_000, 40)).toEqual({
      retry: true,
      delayMs: 1_500,
      backoffMs: 40,
    });
    expect(decide(policy({ maxRetryAfterMs: 999 }), 1, 0, 1_000, undefined)).toEqual({
      retry: false,
      reason: 'retry-after',
    });
    expect(decide(policy({ maxRetryAfterMs: 1_000 }), 1, 0, 1_000, undefined).retry).toBe(true);
  });

  it("takes the budget's hold as a server's wait: the longer of the two is spread, the hold keeps the backoff", () => {
    expect(decide(policy({}), 1, 0, undefined, 20, 1_000)).toEqual({ retry: true, delayMs: 1_500, backoffMs: 20 });
    expect(decide(policy({}), 1, 0, 2_000, undefined, 1_000)).toMatchObject({ delayMs: 3_000 }); // the server's is longer
    expect(decide(policy({}), 1, 0, 500, undefined, 1_000)).toMatchObject({ delayMs: 1_500 }); // the hold is
    expect(decide(policy({}), 1, 0, undefined, undefined, 0)).toMatchObject({ delayMs: 50 }); // 0: no hold
  });

  it("stops with 'budget' when the hold is over maxRetryAfterMs, after the attempts and the server's own wait", () => {
    expect(decide(policy({ maxRetryAfterMs: 999 }), 1, 0, undefined, undefined, 1_000)).toEqual({
      retry: false,
      reason: 'budget',
    });
    expect(decide(policy({ maxRetryAfterMs: 999 }), 1, 0, 1_000, undefined, 1_000)).toMatchObject({
      reason: 'retry-after',
    });
    expect(decide(policy({ maxRetryAfterMs: 999, maxAttempts: 1 }), 1, 0, undefined, undefined, 1_000)).toMatchObject({
      reason: 'attempts',
    });
  });

  it('cuts a hold to a quarter of the time left before the deadline, so a held attempt still gets half of it', () => {
    // 1.5 s old trouble, 2 s left: a hold of 500 ms, spread to 750 ms (random 0.5), so 1.25 s are left for the attempt.
    expect(decide(policy({ timeoutMs: 12_000 }), 2, 10_000, undefined, undefined, 1_500)).toMatchObject({
      retry: true,
      delayMs: 750,
    });
    expect(decide(policy({ timeoutMs: 12_000 }), 2, 10_000, undefined, undefined, 2_000)).toMatchObject({
      delayMs: 750, // as old as the time left: still held
    });
    // The server's own wait is not cut: past the deadline, the call stops.
    expect(decide(policy({ timeoutMs: 12_000 }), 2, 10_000, 6_000, undefined)).toMatchObject({ reason: 'timeout' });
  });

  it('a trouble older than the time left is not held for: the retry sleeps its own backoff, as unheld', () => {
    // 2 s left of the deadline, a trouble 2.001 s or 6 s old: the call cannot wait it out, and a hold cut short would
    // only store it for the moment the trouble ends. Random 0.5 of attempt 2's 200 ms.
    const unheld = decide(policy({ timeoutMs: 12_000 }), 2, 10_000, undefined, undefined, 0);
    expect(unheld).toEqual({ retry: true, delayMs: 100, backoffMs: 100 });
    expect(decide(policy({ timeoutMs: 12_000 }), 2, 10_000, undefined, undefined, 2_001)).toEqual(unheld);
    expect(decide(policy({ timeoutMs: 12_000 }), 2, 10_000, undefined, undefined, 6_000)).toEqual(unheld);
    // With no deadline, every hold is taken.
    expect(decide(policy({}), 2, 10_000, undefined, undefined, 6_000)).toMatchObject({ delayMs: 9_000 });
  });

  it('a hold is a floor, never a shortcut: a backoff longer than the hold is slept as it is (review)', () => {
    // A trouble 11 ms old held a call whose own backoff is 1 s: it slept 16.5 ms, sooner than without the budget.
    const p = createPolicy({ random: () => 0.5, baseMs: 2_000 });
    expect(decide(p, 1, 0, undefined, undefined, 11)).toEqual({ retry: true, delayMs: 1_000, backoffMs: 1_000 });
    expect(decide(p, 1, 0, undefined, undefined, 5_000)).toEqual({ retry: true, delayMs: 7_500, backoffMs: undefined });
  });

  it('an Infinity hold stops with budget even when maxRetryAfterMs is Infinity (review)', () => {
    expect(decide(policy({ maxRetryAfterMs: Infinity }), 1, 0, undefined, undefined, Infinity)).toEqual({
      retry: false,
      reason: 'budget',
    });
  });

  it('property: a held retry sleeps the longer of its backoff and the hold spread, ending by half the time left; a trouble older than the time left is not held for', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 50_000, noNaN: true }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        fc.oneof(fc.constant(Infinity), fc.double({ min: 1, max: 100_000, noNaN: true })),
        fc.double({ min: 0, max: 50_000, noNaN: true }),
        (hold, r, timeoutMs, elapsed) => {
          fc.pre(elapsed < timeoutMs);
          const p = createPolicy({ random: () => r, timeoutMs, maxAttempts: 5, maxRetryAfterMs: 60_000 });
          const d = decide(p, 1, elapsed, undefined, undefined, hold);
          const held = hold <= timeoutMs - elapsed ? Math.min(hold, (timeoutMs - elapsed) / 4) : 0; // older: not taken
          const backoff = r * p.baseMs;
          if (!d.retry) {
            expect(d.reason).toBe('timeout'); // the backoff alone crosses the deadline
            expect(elapsed + backoff).toBeGreaterThanOrEqual(timeoutMs);
            return;
          }
          const eps = 1e-9 * (1 + d.delayMs + held);
          if (held === 0) {
            expect(d).toEqual(decide(p, 1, elapsed, undefined, undefined, 0)); // as unheld
            return;
          }
          expect(d.delayMs).toBeGreaterThanOrEqual(Math.max(held, backoff) - eps);
          expect(d.delayMs).toBeLessThanOrEqual(Math.max(backoff, held + Math.min(p.capMs, held)) + eps);
          if (d.delayMs > backoff) expect(d.delayMs).toBeLessThanOrEqual((timeoutMs - elapsed) / 2 + eps);
          expect(elapsed + d.delayMs).toBeLessThan(timeoutMs);
        },
      ),
    );
  });

  it('treats a wait of 0 as no wait: the ordinary backoff', () => {
    expect(decide(policy({ maxAttempts: 5 }), 3, 0, 0, undefined)).toEqual({
      retry: true,
      delayMs: 200,
      backoffMs: 200,
    });
  });

  it('stops when the sleep would end at or after the deadline', () => {
    expect(decide(policy({ timeoutMs: 1_050 }), 1, 1_000, undefined, undefined)).toEqual({
      retry: false,
      reason: 'timeout',
    });
    expect(decide(policy({ timeoutMs: 1_051 }), 1, 1_000, undefined, undefined).retry).toBe(true);
  });

  it('checks attempts before the server floor, and the floor before the deadline', () => {
    const p = policy({ maxAttempts: 2, maxRetryAfterMs: 10, timeoutMs: 5 });
    expect(decide(p, 2, 100, 1_000, undefined)).toMatchObject({ reason: 'attempts' });
    expect(decide(p, 1, 100, 1_000, undefined)).toMatchObject({ reason: 'retry-after' });
    expect(decide(p, 1, 100, 5, undefined)).toMatchObject({ reason: 'timeout' });
  });

  it("keeps decorrelated jitter's backoff through a hinted sleep: it grows from the client's last own delay", () => {
    const p = policy({ jitter: 'decorrelated', maxAttempts: 5 });
    const hinted = decide(p, 2, 0, 5_000, 200);
    expect(hinted).toEqual({ retry: true, delayMs: 7_500, backoffMs: 200 });
    // The next unhinted failure grows from 200, not from the 7.5 s the server's wait took: 100 + 0.5 * (600 - 100).
    expect(decide(p, 3, 0, undefined, (hinted as { backoffMs: number }).backoffMs)).toEqual({
      retry: true,
      delayMs: 350,
      backoffMs: 350,
    });
  });

  it("stops with 'retry-after' when a server wait near the largest double overflows to Infinity once spread", () => {
    // No deadline and no maxRetryAfterMs to catch it: Number.MAX_VALUE passes both, and only its spread overflows.
    const p = policy({ maxRetryAfterMs: Infinity, capMs: Number.MAX_VALUE, baseMs: 1 });
    expect(decide(p, 1, 0, Number.MAX_VALUE, undefined)).toEqual({ retry: false, reason: 'retry-after' });
    expect(decide(p, 1, 0, Number.MAX_VALUE / 4, undefined)).toEqual({
      retry: true,
      delayMs: Number.MAX_VALUE / 4 + Number.MAX_VALUE / 8, // the wait plus half (random 0.5) of a spread as large
      backoffMs: undefined,
    });
  });

  it('checks the deadline against the whole sleep, the spread included', () => {
    // 1 000 + 0.5 * 1 000 = 1 500: ends exactly at a 1 500 ms deadline, so it is not started.
    expect(decide(policy({ timeoutMs: 1_500 }), 1, 0, 1_000, undefined)).toEqual({ retry: false, reason: 'timeout' });
    expect(decide(policy({ timeoutMs: 1_501 }), 1, 0, 1_000, undefined).retry).toBe(true);
  });
});
