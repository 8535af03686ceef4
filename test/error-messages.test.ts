// The error messages a new user met in the docs trial (issue 21): a time in a message is rounded for display.
import { describe, expect, it } from 'vitest';
import { RetryError, retry } from '../src/index';

describe('error messages', () => {
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
