// The error messages a new user met in the docs trial (issue 21): each names what the user passed, and prints a time
// rounded for display (the value kept in the error's fields is the exact one).
import { describe, expect, it } from 'vitest';
import { createPolicy, RetryError, retry, retryingFetch } from '../src/index';

const messageOf = (f: () => unknown): string => {
  try {
    f();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('did not throw');
};

describe('error messages', () => {
  it('baseMs alone above the default cap blames baseMs, and says what capMs defaults to', () => {
    expect(messageOf(() => createPolicy({ baseMs: 20_000 }))).toBe(
      'herdless: baseMs must be <= capMs (default 10000; pass a capMs >= 20000 too), got 20000',
    );
    // Both given: capMs is the one that breaks the rule.
    expect(messageOf(() => createPolicy({ baseMs: 20_000, capMs: 100 }))).toBe(
      'herdless: capMs must be a finite number >= baseMs (20000), got 100',
    );
    expect(() => createPolicy({ baseMs: 20_000, capMs: 20_000 })).not.toThrow();
    expect(() => createPolicy({ baseMs: 10_000 })).not.toThrow();
  });

  it("retryingFetch's unknown-option error lists only options it accepts (not shouldRetryResult)", () => {
    const message = messageOf(() => retryingFetch({ bogus: 1 } as never));
    expect(message).toMatch(/^herdless: unknown retryingFetch option 'bogus' \(known: fetch, methods, /);
    expect(message).not.toContain('shouldRetryResult');
    expect(messageOf(() => retryingFetch({ shouldRetryResult: () => true } as never))).toContain(
      'shouldRetryResult must be left out of retryingFetch',
    );
  });

  it('a fractional Retry-After over maxRetryAfterMs prints whole ms (rounded up, for display only)', async () => {
    const error = await retry(
      async () => {
        throw Object.assign(new Error('busy'), { status: 503 });
      },
      { retryAfter: () => 4_999.555655999999, maxRetryAfterMs: 1_000, random: () => 0 },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryError);
    expect((error as RetryError).reason).toBe('retry-after');
    expect((error as Error).message).toContain('(Retry-After 5000 ms > maxRetryAfterMs 1000)');
    expect((error as Error).message).not.toMatch(/\d\.\d{4,}/);
  });
});
