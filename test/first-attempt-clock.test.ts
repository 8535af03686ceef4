import { describe, expect, it } from 'vitest';
import { createCircuitBreaker, createRetryBudget, type RetryOptions, retry } from '../src/index';

// On the real clock (the other retry tests freeze it, where any reading taken at the call's start gives 0): the first
// attempt's elapsedMs is 0 by definition, not a reading taken microseconds after the start, on every path of retry():
// the fast first attempt and the loop from its start alike.
describe('retry: the first attempt on a real clock', () => {
  const paths: [string, () => RetryOptions<number>][] = [
    ['no options (the fast first attempt)', () => ({})],
    ['a signal', () => ({ signal: new AbortController().signal })],
    ['a deadline', () => ({ timeoutMs: 60_000 })],
    ['an attempt timeout', () => ({ attemptTimeoutMs: 60_000 })],
    ['a result check', () => ({ shouldRetryResult: () => false })],
    ['a budget', () => ({ budget: createRetryBudget() })],
    ['a breaker', () => ({ breaker: createCircuitBreaker() })],
  ];
  it.each(paths)('starts at elapsedMs 0 with %s', async (_, options) => {
    for (let i = 0; i < 20; i++) {
      const seen: number[] = [];
      await expect(
        retry((ctx) => {
          seen.push(ctx.elapsedMs);
          return 1;
        }, options()),
      ).resolves.toBe(1);
      expect(seen).toEqual([0]);
    }
  });
});
