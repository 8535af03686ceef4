import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCircuitBreaker, createRetryBudget, RetryError, type RetryOptions, retry } from '../../src/index';

// The code under test: one client per dependency, its breaker and budget shared by every call to it. A factory
// (rather than a module-level breaker) gives each test a fresh one: a breaker opened by one test stays open in the next.
function createItemsClient(fetchItems: () => Promise<string[]>, options: RetryOptions = {}) {
  const breaker = createCircuitBreaker();
  const budget = createRetryBudget();
  const getItems = () => retry(fetchItems, { maxAttempts: 3, timeoutMs: 5_000, breaker, budget, ...options });
  return { breaker, getItems };
}

const busy = () => Object.assign(new Error('HTTP 503'), { status: 503 });

describe('getItems', () => {
  // vi.useFakeTimers() fakes setTimeout and performance.now(), which herdless looks up at each call.
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('retries a 503 after a jittered delay', async () => {
    const fetchItems = vi.fn().mockRejectedValueOnce(busy()).mockResolvedValueOnce(['pen']);
    // A fixed random makes the delay exact: random() * baseMs (100 ms) = 50 ms before the second attempt.
    const { getItems } = createItemsClient(fetchItems, { random: () => 0.5 });
    const call = getItems();
    await vi.advanceTimersByTimeAsync(49);
    expect(fetchItems).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(call).resolves.toEqual(['pen']);
    expect(fetchItems).toHaveBeenCalledTimes(2);
  });

  it('gives up with a RetryError after 3 attempts', async () => {
    const fetchItems = vi.fn().mockRejectedValue(busy());
    const { getItems } = createItemsClient(fetchItems);
    const call = getItems().catch((error: unknown) => error);
    await vi.runAllTimersAsync(); // every sleep, at once
    const error = await call;
    expect(error).toBeInstanceOf(RetryError);
    expect((error as RetryError).reason).toBe('attempts');
    expect((error as RetryError).attempts).toBe(3);
  });

  it('starts each test with a closed breaker', async () => {
    const { breaker, getItems } = createItemsClient(async () => ['pen']);
    expect(breaker.state).toBe('closed');
    await expect(getItems()).resolves.toEqual(['pen']);
  });
});
