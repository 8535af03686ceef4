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

  it('adds the server floor under the backoff, and stops when the floor is over maxRetryAfterMs', () => {
    expect(decide(policy({}), 1, 0, 1_000, undefined)).toEqual({ retry: true, delayMs: 1_050, backoffMs: 50 });
    expect(decide(policy({ maxRetryAfterMs: 999 }), 1, 0, 1_000, undefined)).toEqual({
      retry: false,
      reason: 'retry-after',
    });
    expect(decide(policy({ maxRetryAfterMs: 1_000 }), 1, 0, 1_000, undefined).retry).toBe(true);
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

  it('grows decorrelated jitter from the previous backoff, not from the floor', () => {
    expect(decide(policy({ jitter: 'decorrelated' }), 2, 0, 5_000, 200)).toEqual({
      retry: true,
      delayMs: 5_350,
      backoffMs: 350,
    });
  });
});
