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
