import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { createCircuitBreaker, retry } from '../../src/index';

const makeClient = (work: () => Promise<string>) => {
  const breaker = createCircuitBreaker(); // fresh for each test
  return () => retry(work, { breaker, random: () => 0.5 });
};

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

it('retries a 503 after 50 ms', async () => {
  const busy = Object.assign(new Error('busy'), { status: 503 });
  const work = vi.fn().mockRejectedValueOnce(busy).mockResolvedValue('ok');
  const call = makeClient(work)();
  await vi.advanceTimersByTimeAsync(50); // random() * baseMs = 0.5 * 100 ms
  await expect(call).resolves.toBe('ok');
  expect(work).toHaveBeenCalledTimes(2);
});
